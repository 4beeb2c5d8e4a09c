"""Scenario 7: the bot process dies mid-round and comes back on the same database."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sqlite3
import sys
from pathlib import Path

from tests.e2e import play_builder, warung
from tests.fakediscord import spawn_bot

ROOT = Path(__file__).resolve().parent.parent


async def start_bot(fake, db: Path, identifies: int, log: Path) -> asyncio.subprocess.Process:  # noqa: ANN001
    with log.open("ab") as sink:
        proc = await spawn_bot(
            fake,
            sys.executable,
            str(ROOT / "bot.py"),
            env={"DATABASE_PATH": str(db), "GUILD_READY_TIMEOUT": "0.1", "LOG_LEVEL": "WARNING"},
            cwd=str(ROOT),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=sink,
            start_new_session=True,  # its own process group: the kill takes the solver workers too
        )
    await fake.wait_for_identify(identifies, timeout=30)
    # commands are synced in setup_hook, before the gateway connects
    return proc


async def kill(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL the bot and its worker processes at once, like a crashed container."""
    if proc.returncode is None:
        os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()


async def test_restart_mid_round_keeps_submissions_deadline_and_buttons(fake_discord, tmp_path):
    fake = fake_discord
    db = tmp_path / "capsa.sqlite3"
    chan, (alice, bob, carol) = warung(fake, "alice", "bob", "carol")
    log = tmp_path / "bot.log"
    proc = await start_bot(fake, db, 1, log)
    try:
        await alice.slash("capsa new", channel=chan, seats=4, rounds=5, countdown=120, timeout=15)
        lobby = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels())
        await bob.click(lobby, "Join", timeout=10)
        await carol.click(lobby, "Join", timeout=10)
        await alice.click(lobby, "Start", timeout=15)
        status = await fake.wait_for_message(chan, lambda m: "Round 1/5" in m.text(), timeout=20)
        dm_a = await alice.latest_dm(timeout=20)
        dm_b = await bob.latest_dm(timeout=20)
        dm_c = await carol.latest_dm(timeout=20)
        await play_builder(alice, dm_a)
        await play_builder(bob, dm_b)
        deadline = re.search(r"<t:(\d+):R>", status.text()).group(1)
        # alice, bob and the computer are ticked off
        await fake.wait_for_message(chan, lambda m: m is status and m.text().count("✅") == 3)
    finally:
        await kill(proc)

    # Killed with two people submitted. The database has their rows and nothing scored.
    with sqlite3.connect(db) as conn:
        scored = conn.execute("SELECT count(*) FROM rounds WHERE status = 'scored'").fetchone()
        assert scored == (0,)

    proc = await start_bot(fake, db, 2, log)
    try:
        # The old DM's components still work after the restart, and the round finishes.
        await play_builder(carol, dm_c)
        showdown = await fake.wait_for_message(
            chan, lambda m: "Showdown · round 1/5" in m.text(), timeout=20
        )
        assert "auto-arranged" not in showdown.text()  # everyone's own rows count
        assert re.search(r"<t:(\d+):R>", status.text()) is None or deadline in status.text()
        # Double counting is impossible: one scored round, four hands with points.
        await asyncio.sleep(0.5)
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT count(*) FROM rounds").fetchone() == (1,)
            assert conn.execute("SELECT status FROM rounds").fetchone() == ("scored",)
            points = conn.execute("SELECT points FROM hands WHERE points IS NOT NULL").fetchall()
            assert len(points) == 4 and sum(p for (p,) in points) == 0
        showdowns = [m for m in fake.messages_in(chan) if "Showdown · round 1/5" in m.text()]
        assert len(showdowns) == 1
    finally:
        await kill(proc)
    text = log.read_text()
    assert "Traceback" not in text, text
