"""Fixtures: a fake Discord on 127.0.0.1 only for the end-to-end tests; a repository on a
temporary file, a thread pool and a fake client with the tables for the unit tests."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from data import open_repository
from tests.cog_helpers import FakeBot
from tests.fakediscord import FakeDiscord, only_localhost


@pytest.fixture
async def fake_discord():
    with only_localhost():
        async with FakeDiscord() as fake:
            fake.settle_deferred_updates = True  # the hand builder acknowledges first
            yield fake


# --- the Discord glue's unit tests (tests/test_cogs_*.py) --------------------------------


@pytest.fixture
def executor():
    pool = ThreadPoolExecutor(2)
    yield pool
    pool.shutdown(wait=True)


@pytest.fixture
async def repo(tmp_path):
    r = await open_repository(str(tmp_path / "capsa.sqlite3"))
    try:
        yield r
    finally:
        await r.close()


@pytest.fixture
async def fake_bot(repo, executor):
    """A fake Discord client with the bot's tables on it (tests/cog_helpers.py)."""
    client = FakeBot(repo, executor)
    try:
        yield client
    finally:
        await client.tables.stop()
