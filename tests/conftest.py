"""Fixtures: a fake Discord on 127.0.0.1 only for the end-to-end tests; a repository on a
temporary file, a thread pool and a fake client with the tables for the unit tests."""

from __future__ import annotations

import asyncio
import os
import secrets
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

import data
from data import open_repository
from data.postgres import PostgresRepository
from tests.cog_helpers import FakeBot
from tests.fakediscord import FakeDiscord, only_localhost


@pytest.fixture
async def fake_discord():
    """The fake Discord with Discord's rate limits on (tests/fakediscord/limits.py). A test
    fails if the bot was answered 429 by them: it must never run into a limit (a 429 the
    test injected itself, a route fault, is the test's own)."""
    with only_localhost():
        async with FakeDiscord() as fake:
            fake.settle_deferred_updates = True  # the hand builder acknowledges first
            yield fake
            limited = [f"{r.method} {r.path} ({r.limited})" for r in fake.rate_limited]
            assert not limited, f"the bot was rate limited {len(limited)} times: {limited[:5]}"


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
    client.tables.scheduler.start()  # due timers run, as in the bot
    try:
        yield client
    finally:
        await client.tables.stop()


# --- PostgreSQL for the repository tests (tests/test_repository.py, tests/test_migrate.py) --
#
# The server is CAPSA_TEST_DATABASE_URL (default: the machine's own, below). Each test run
# creates a database of its own, capsa_test_<random>, migrated once, emptied before each test
# that uses it, and dropped at the end; tests that need an empty database get another.

PG_DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
PG_TABLES = (
    "guild_settings, players, matches, match_seats, rounds, hands, round_scores, hand_reviews,"
    " timers, processes, preferences, dm_channels, channel_tokens, message_tokens,"
    " rating_guilds, rating_queue, rated_matches, ratings, rating_changes,"
    " daily_hands, daily_plays"
)


def _in_a_thread(coro):
    """Run a coroutine to the end on an event loop of its own (outside the tests' loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


class PgServer:
    """The test run's PostgreSQL server: ``url`` is this run's database."""

    def __init__(self, admin_url: str) -> None:
        self.admin_url = admin_url
        self.prefix = f"capsa_test_{secrets.token_hex(4)}"
        self.databases: list[str] = []
        self.url = self.new_database()

    def url_of(self, name: str) -> str:
        return urlunsplit(urlsplit(self.admin_url)._replace(path=f"/{name}"))

    def new_database(self) -> str:
        """A new empty database on the server (dropped at the end of the run); its URL."""
        name = f"{self.prefix}_{len(self.databases)}"
        _in_a_thread(self._admin(f'CREATE DATABASE "{name}"'))
        self.databases.append(name)
        return self.url_of(name)

    def drop_all(self) -> None:
        for name in self.databases:
            _in_a_thread(self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    async def _admin(self, sql: str) -> None:
        conn = await asyncpg.connect(self.admin_url, timeout=10)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()


@pytest.fixture(scope="session")
def pg_server():
    """This run's PostgreSQL server. Skips the test where none answers; under CI=true that
    is a failure instead, so CI never skips the PostgreSQL tests."""
    admin_url = os.environ.get("CAPSA_TEST_DATABASE_URL", "").strip() or PG_DEFAULT_URL
    try:
        _in_a_thread(data.check_reachable(admin_url))
    except (data.DatabaseUnavailable, ValueError) as exc:
        if isinstance(exc, data.DatabaseUnreachable):
            problem = f"no PostgreSQL answers at {exc.host}:{exc.port} ({exc.reason})"
        else:
            problem = f"the PostgreSQL server cannot be used: {exc}"
        reason = (
            f'{problem}. To run the PostgreSQL tests: eval "$(bash scripts/postgres)";'
            " export CAPSA_TEST_DATABASE_URL (it uses the server on 127.0.0.1:5432 or starts"
            " a private one), or set CAPSA_TEST_DATABASE_URL=postgresql://user@host:port/postgres"
            " for a server where that user may CREATE DATABASE"
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    server = PgServer(admin_url)
    try:
        _in_a_thread(_migrate_pg(server.url))
        yield server
    finally:
        server.drop_all()


async def _migrate_pg(url: str) -> None:
    repo = await PostgresRepository.open(url)
    await repo.close()


@pytest.fixture
async def pg_url(pg_server):
    """The URL of this run's PostgreSQL database, emptied (ids from 1 again)."""
    conn = await asyncpg.connect(pg_server.url)
    try:
        await conn.execute(f"TRUNCATE {PG_TABLES} RESTART IDENTITY CASCADE")
    finally:
        await conn.close()
    return pg_server.url


@pytest.fixture
def empty_pg_url(pg_server):
    """The URL of a new, empty PostgreSQL database (no tables yet)."""
    return pg_server.new_database()
