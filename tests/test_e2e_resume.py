"""A crash right after a round was dealt (before any message went out): on start-up the
bot finishes preparing it — computers set, the status posted, the DMs sent."""

from __future__ import annotations

import time

from capsa.cards import deal
from data import open_repository
from tests.e2e import make_bot, play_builder, warung
from tests.fakediscord import running_bot


async def test_a_round_dealt_before_a_crash_is_prepared_on_start(fake_discord, tmp_path):
    fake = fake_discord
    db = tmp_path / "db.sqlite3"
    chan, (alice,) = warung(fake, "alice")
    repo = await open_repository(str(db))
    match = await repo.create_match(
        guild_id=chan.guild.id,
        channel_id=chan.id,
        host_id=alice.id,
        preset="standard",
        options={},
        rounds_total=5,
        countdown=120,
        bot_level="normal",
        timeout_action="auto",
        seats_count=2,
        language="en",
        lobby_expires_at=time.time() + 600,
        host_name="alice",
    )
    await repo.add_seat(match.id, None, "Computer 1", "normal")
    await repo.start_match(match.id)
    hands = deal(2, seed=7)
    deadline = time.time() + 120
    await repo.start_round(
        match.id, 1, 7, deadline, {i: [c.code for c in h] for i, h in enumerate(hands)}
    )
    await repo.close()

    async with running_bot(fake, make_bot(fake, db)) as bot:
        status = await fake.wait_for_message(chan, lambda m: "Round 1/5" in m.text(), timeout=10)
        # the countdown runs from the hand's delivery (issue 18): the stored deadline, set
        # then, is the one shown
        rnd = await bot.repo.current_round(match.id)
        assert rnd is not None and rnd.deadline >= deadline
        assert f"<t:{int(rnd.deadline)}:R>" in status.text()
        await fake.wait_for_message(chan, lambda m: m is status and "✅ Computer 1" in m.text())
        builder = await alice.latest_dm(timeout=10)
        assert "round 1/5" in builder.text()
        await play_builder(alice, builder)
        await fake.wait_for_message(chan, lambda m: "Showdown · round 1/5" in m.text(), timeout=10)
        rnd = await bot.repo.current_round(match.id)
        assert rnd.status == "scored" and not any(h.auto for h in rnd.hands)
