"""The DM channels remembered per person (data/sql.py remember_dm_channel, dm_channel_of),
on every backend of tests/test_repository.py: stored once, read back after a restart, the
latest one kept."""

from __future__ import annotations

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
