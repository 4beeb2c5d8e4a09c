"""The real bot under Discord's rate limits (the fake's, on as in every e2e test, whose
fixture fails a test the bot ran into a 429): nobody loses countdown to a slow delivery,
DM channels are opened once per person and kept across a restart, and a whole round's
status edits stay within the channel's bucket."""

from __future__ import annotations

import re
import sqlite3
import time

from tests.e2e import make_bot, play_builder, warung
from tests.e2e_extra import open_started_table, wait_showdown
from tests.fakediscord import eventually, running_bot


async def test_the_countdown_runs_from_the_last_hand_delivered(fake_discord, tmp_path) -> None:
    fake = fake_discord
    chan, (alice, bob) = warung(fake, "alice", "bob")
    # bob's hand is slow to arrive (a queue behind Discord's limits, say): 2 s in flight
    fake.faults.stall(f"/channels/{fake.dm_channel(bob).id}/messages", 2.0, method="POST")
    async with running_bot(fake, make_bot(fake, tmp_path / "capsa.sqlite3")) as bot:
        status = await open_started_table(fake, chan, alice, [bob], seats=3, countdown=30)
        dm_a = await alice.latest_dm(lambda m: "round 1/" in m.text(), timeout=10)
        dm_b = await bob.latest_dm(lambda m: "round 1/" in m.text(), timeout=10)
        match = await bot.repo.active_match_in_channel(chan.id)
        rnd = await bot.repo.current_round(match.id)
        # the deadline: 30 s from the last delivery (bob's, 2 s late), not from the deal
        assert dm_b.created_at >= dm_a.created_at + 1.5
        assert dm_b.created_at + 30 - 0.5 <= rnd.deadline <= time.time() + 30
        assert rnd.deadline - rnd.created_at >= 31.5
        # the status comes after the hands and shows that deadline
        assert status.created_at >= dm_b.created_at
        assert f"<t:{int(rnd.deadline)}:R>" in status.text()
        # each DM shows a deadline 30 s from when it was drawn: never later than the real one
        for dm in (dm_a, dm_b):
            (shown,) = re.findall(r"<t:(\d+):R>", dm.text())
            assert int(rnd.created_at + 30) <= int(shown) <= int(rnd.deadline)

        await play_builder(alice, dm_a)
        await play_builder(bob, dm_b)
        await wait_showdown(fake, chan, total=10)
    edits = fake.requests_to("PATCH", f"*/messages/{status.id}")
    assert 1 <= len(edits) <= 3  # alice in, bob in and the showdown: coalesced if together
    # once Start was pressed, the channel's messages went through its token: the only
    # bot-token request in the channel is the lobby, posted before any click
    by_bot = fake.requests_to(None, f"/channels/{chan.id}/*")
    assert [r.method for r in by_bot] == ["POST"] and "capsa:lobby:" in str(by_bot[0].json)


async def test_dm_channels_are_opened_once_per_person_across_a_restart(
    fake_discord, tmp_path
) -> None:
    fake = fake_discord
    db = tmp_path / "capsa.sqlite3"
    chan, (alice, bob) = warung(fake, "alice", "bob")
    async with running_bot(fake, make_bot(fake, db)):
        await open_started_table(fake, chan, alice, [bob], seats=2, countdown=30)
        await alice.latest_dm(lambda m: "round 1/" in m.text(), timeout=10)
        await bob.latest_dm(lambda m: "round 1/" in m.text(), timeout=10)
        assert len(fake.requests_to("POST", "/users/@me/channels")) == 2
        await alice.slash("capsa cancel", channel=chan)
    async with running_bot(fake, make_bot(fake, db)):  # a restart: nothing in memory
        await open_started_table(fake, chan, alice, [bob], seats=2, countdown=30)
        await alice.next_dm(lambda m: "round 1/" in m.text(), timeout=10)  # the new match's
        await bob.next_dm(lambda m: "round 1/" in m.text(), timeout=10)
    assert len(fake.requests_to("POST", "/users/@me/channels")) == 2  # none opened again
    dms = fake.requests_to("POST", f"/channels/{fake.dm_channel(alice).id}/messages")
    assert len(dms) == 2  # one hand in each match


async def test_without_a_valid_token_the_bot_token_posts(fake_discord, tmp_path) -> None:
    """The channel's messages go through Start's (then Next's) token; a token past its
    expiry, or one Discord no longer knows, leaves them to the bot token."""
    fake = fake_discord
    db = tmp_path / "capsa.sqlite3"
    chan, (alice,) = warung(fake, "alice")
    async with running_bot(fake, make_bot(fake, db)):
        status = await open_started_table(fake, chan, alice, seats=2, rounds=5, countdown=30)
        assert status.webhook_id is not None  # a followup of Start
        dm = await alice.latest_dm(lambda m: "round 1/5" in m.text(), timeout=10)

        def kept(table: str) -> int:
            with sqlite3.connect(db) as conn:
                return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

        await eventually(lambda: kept("message_tokens") == 1, message="the status's token")
        with sqlite3.connect(db) as conn:  # Start's token ran out (15 minutes later, say)
            conn.execute("UPDATE channel_tokens SET expires_at = 0")
            conn.execute("UPDATE message_tokens SET expires_at = 0")
        before = len(fake.requests_to(None, f"/channels/{chan.id}/*"))
        await play_builder(alice, dm)
        showdown = await wait_showdown(fake, chan)
        assert showdown.webhook_id is None  # the bot token posted it
        by_bot = fake.requests_to(None, f"/channels/{chan.id}/*")[before:]
        assert ("POST", f"/channels/{chan.id}/messages") in [(r.method, r.path) for r in by_bot]
        edited = f"/channels/{chan.id}/messages/{status.id}"  # the status: everyone in
        await eventually(lambda: fake.requests_to("PATCH", edited), message="status edit")

        pressed = await alice.click(showdown, "Next round", timeout=10)  # a new token
        status_2 = await fake.wait_for_message(
            chan, lambda m: "Round 2/5" in m.text() and "Show my hand" in m.button_labels()
        )
        assert status_2.webhook_id is not None  # a followup of Next
        dm = await alice.next_dm(lambda m: "round 2/5" in m.text(), timeout=10)
        del fake.interactions[pressed.token]  # Discord no longer knows it
        await play_builder(alice, dm)
        showdown_2 = await wait_showdown(fake, chan, number=2)
        assert showdown_2.webhook_id is None  # tried through the token (404), then the bot's
        (picture,) = showdown_2.attachments  # its picture read again from the start
        assert len(picture.data) > 1000
        unknown = [r for r in fake.requests_to("POST", "/webhooks/*") if r.status == 404]
        assert unknown
