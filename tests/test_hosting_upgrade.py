"""Upgrading: migrations run at start; one that fails leaves nothing half-applied and the bot
stops with one line (exit 2, which the systemd units do not restart on)."""

from __future__ import annotations

import asyncio
import sqlite3

from tests.e2e import spawn_bot_process


async def test_a_failing_migration_stops_the_bot_with_one_line(fake_discord, tmp_path):
    db = tmp_path / "capsa.sqlite3"
    with sqlite3.connect(db) as conn:  # a table in the way of migration 1's
        conn.execute("CREATE TABLE players (something TEXT)")
    conn.close()
    log = tmp_path / "bot.log"
    env = {"LOG_LEVEL": "INFO", "DATABASE_URL": ""}  # this SQLite file, whatever is set
    proc = await spawn_bot_process(fake_discord, db, log, env=env)
    assert await asyncio.wait_for(proc.wait(), 60) == 2
    lines = log.read_text(encoding="utf-8").splitlines()
    last = lines[-1]
    assert last.startswith("The database could not be opened or brought up to date (")
    assert "players already exists" in last and "Nothing of a failed migration was kept" in last
    assert not any(line.startswith("Traceback") for line in lines)
    with sqlite3.connect(db) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        applied = conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0]
    conn.close()
    assert "guild_settings" not in tables, "migration 1's first table was rolled back"
    assert applied == 0
