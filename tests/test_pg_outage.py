"""PostgreSQL cut off under a running bot (the server restarted, its connections
terminated): the repository's LISTEN connection is lost, and closing the repository at
shutdown still works (before, it raised from the dead listener, so a bot stopped after a
server restart never closed its pool)."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from data import open_repository

pytestmark = pytest.mark.usefixtures("pg_server")


async def test_close_after_the_listener_connection_was_terminated(pg_url: str) -> None:
    repo = await open_repository(database_url=pg_url)
    await repo.watch_timers(lambda: None)
    admin = await asyncpg.connect(pg_url)
    try:  # every connection of the repository's pool cut, as a server restart does
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    finally:
        await admin.close()
    await asyncio.sleep(0.5)
    await asyncio.wait_for(repo.close(), 10)
