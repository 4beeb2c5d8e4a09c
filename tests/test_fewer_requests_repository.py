"""Fewer requests to Discord (issue 18) in the repository, on every backend of
tests/test_repository.py: the DM channel opened with each person, and the interaction
tokens a channel and its messages are sent with; stored, read back after a restart, the
latest one kept, an expired token as good as none."""

from __future__ import annotations

import time

import pytest

from tests import test_repository as contract
from tests.test_repository import Db

db_path = contract.db_path
db = contract.db


async def test_a_dm_channel_is_remembered_across_a_restart(db: Db) -> None:
    first = await db.open()
    try:
        assert await first.dm_channel_of(100) is None
        await first.remember_dm_channel(100, 5550001)
        await first.remember_dm_channel(101, 5550002)
        assert await first.dm_channel_of(100) == 5550001
    finally:
        await first.close()
    again = await db.open()  # a restarted bot, or another process
    try:
        assert await again.dm_channel_of(100) == 5550001
        assert await again.dm_channel_of(101) == 5550002
        assert await again.dm_channel_of(102) is None
        await again.remember_dm_channel(100, 5550009)  # opened again: the latest is kept
        assert await again.dm_channel_of(100) == 5550009
    finally:
        await again.close()


async def test_a_channel_keeps_its_latest_valid_token(db: Db) -> None:
    repo = await db.open()
    try:
        now = time.time()
        assert await repo.channel_token(10) is None
        await repo.keep_channel_token(10, "start-token", now + 840)
        assert await repo.channel_token(10) == ("start-token", pytest.approx(now + 840))
        await repo.keep_channel_token(10, "next-token", now + 900)  # a later click wins
        await repo.keep_channel_token(10, "late-token", now + 600)  # an older one does not
        assert (await repo.channel_token(10))[0] == "next-token"
        await repo.keep_channel_token(11, "gone", now - 1)  # expired: as good as none
        assert await repo.channel_token(11) is None
        await repo.keep_message_token(500, "next-token", now + 900)
        await repo.keep_message_token(501, "old-token", now - 1)
        assert await repo.message_token(500) == "next-token"
        assert await repo.message_token(501) is None and await repo.message_token(502) is None
    finally:
        await repo.close()
    again = await db.open()  # any process reads them
    try:
        assert (await again.channel_token(10))[0] == "next-token"
        assert await again.message_token(500) == "next-token"
    finally:
        await again.close()
