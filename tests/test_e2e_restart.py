"""Scenario 7: the bot process dies mid-round and comes back on the same database."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time

from tests.e2e import hand_of, play_builder, start_bot_process, stop_bot_process, warung
from tests.fakediscord import eventually


async def test_restart_mid_round_keeps_submissions_deadline_and_buttons(fake_discord, tmp_path):
    """Killed after two of three people submitted. After the restart an old DM's select
    still works, and the countdown ends at the deadline stored before the crash (not a
    fresh 30 s after the restart): the third person is auto-arranged then, and the round
    is counted once."""
    fake = fake_discord
    db = tmp_path / "capsa.sqlite3"
    chan, (alice, bob, carol) = warung(fake, "alice", "bob", "carol")
    log = tmp_path / "bot.log"
    proc = await start_bot_process(fake, db, log, identifies=1)
    try:
        await alice.slash("capsa new", channel=chan, seats=4, rounds=5, countdown=30, timeout=15)
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
        shown = int(re.search(r"<t:(\d+):R>", status.text()).group(1))
        # alice, bob and the computer are ticked off
        await fake.wait_for_message(chan, lambda m: m is status and m.text().count("✅") == 3)
    finally:
        await stop_bot_process(proc)  # SIGKILL: the bot and its workers at once

    # The database has both settings and the deadline shown, and nothing is scored.
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM rounds WHERE status = 'scored'").fetchone() == (
            0,
        )
        (deadline,) = conn.execute("SELECT deadline FROM rounds").fetchone()
        submitted = conn.execute("SELECT count(*) FROM hands WHERE submitted_at IS NOT NULL")
        assert submitted.fetchone() == (3,)  # alice, bob, the computer
    assert int(deadline) == shown
    # Restart at least 5 s after the deal, so a countdown restarted from scratch would end
    # at least 5 s after the stored deadline.
    await asyncio.sleep(max(0.0, deadline - 30 + 5 - time.time()))

    proc = await start_bot_process(fake, db, log, identifies=2)
    try:
        edits = dm_c.edits
        picked = await carol.select(dm_c, "Back (5)", [c.code for c in hand_of(dm_c)[:5]])
        assert picked.answered  # the old DM's components still work
        await eventually(
            lambda: dm_c.edits > edits,
            timeout=10,
            interval=0.05,
            message="the builder was not redrawn",
        )
        showdown = await fake.wait_for_message(
            chan, lambda m: "Showdown · round 1/5" in m.text(), timeout=45
        )
        assert deadline - 0.5 <= showdown.created_at <= deadline + 3.0
        assert "auto-arranged" in showdown.text()  # carol, at the deadline
        # Double counting is impossible: one scored round, four hands with points.
        await asyncio.sleep(0.5)
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT count(*) FROM rounds").fetchone() == (1,)
            assert conn.execute("SELECT status FROM rounds").fetchone() == ("shown",)
            points = conn.execute("SELECT points FROM hands WHERE points IS NOT NULL").fetchall()
            assert len(points) == 4 and sum(p for (p,) in points) == 0
            auto = conn.execute("SELECT seat FROM hands WHERE auto = 1").fetchall()
            assert auto == [(2,)]  # carol only; alice's and bob's own rows count
        showdowns = [m for m in chan.history if "Showdown · round 1/5" in m.text()]
        assert len(showdowns) == 1
    finally:
        await stop_bot_process(proc)  # SIGKILL: the bot and its workers at once
    text = log.read_text()
    assert "Traceback" not in text, text
