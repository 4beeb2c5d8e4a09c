"""SIGTERM (how a container or a service manager stops a program) stops the bot cleanly, as
Ctrl-C does: it exits 0 and its process row says it is dead (so on PostgreSQL the others take its
tables over at once, not PROCESS_DEAD_SECONDS later)."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3

from tests.e2e import start_bot_process, stop_bot_process, warung


async def test_sigterm_stops_the_bot_cleanly(fake_discord, tmp_path):
    fake = fake_discord
    db = tmp_path / "capsa.sqlite3"
    log = tmp_path / "bot.log"
    chan, (alice, bob) = warung(fake, "alice", "bob")
    proc = await start_bot_process(fake, db, log, identifies=1, env={"LOG_LEVEL": "DEBUG"})
    try:
        await alice.slash("capsa new", channel=chan, seats=3, rounds=5, timeout=15)
        lobby = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels())
        await bob.click(lobby, "Join", timeout=10)
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT count(*) FROM processes").fetchone() == (1,)
        os.kill(proc.pid, signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 30)
    finally:
        await stop_bot_process(proc)
    assert code == 0, log.read_text()
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT seen_at FROM processes").fetchall() == [(0.0,)]  # dead
    text = log.read_text()
    assert "Traceback" not in text
    # the whole of close ran (before, the exit cut it short after the client had closed:
    # the worker pool was never shut down, and the exit then waited 10 s on its thread)
    assert "stopped: the database is closed" in text
