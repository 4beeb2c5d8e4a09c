"""Fewer requests to Discord (issue 18), in cogs/rounds.py and cogs/table_base.py: a
round's status edits that come within STATUS_EDIT_SECONDS are one edit of the latest state,
made beside the caller; a person's DM channel is opened once and read back from the
database by a restarted bot; the countdown runs from the last hand delivered."""

from __future__ import annotations

import asyncio
import time

from capsa.timings import STATUS_EDIT_SECONDS
from tests.cog_helpers import ALICE, BOB, CHANNEL, FakeBot, embed_text, playing_round


async def test_status_edits_within_a_second_are_one_edit_of_the_latest_state(
    fake_bot, repo
) -> None:
    match, rnd = await playing_round(repo)
    await repo.set_round_messages(rnd.id, status_message_id=700)
    rounds = fake_bot.tables.rounds
    status = fake_bot.channels.get(CHANNEL) or fake_bot.get_partial_messageable(CHANNEL)
    message = status.get_partial_message(700)

    started = time.monotonic()
    await rounds.refresh_status(match, rnd)  # returns at once: the edit runs beside it
    await asyncio.sleep(0.05)
    assert message.edit.await_count == 1  # the first ask: at once
    for seat in (0, 1):  # two hands in within the second: asked twice more
        hand = (await repo.get_round(rnd.id)).hands[seat]
        assert await repo.submit_hand(rnd.id, seat, hand.cards[:5], hand.cards[5:10],
                                      hand.cards[10:], None, fouled=False)  # fmt: skip
        await rounds.refresh_status(match, rnd)
    assert message.edit.await_count == 1
    await fake_bot.tables.scheduler.jobs_done()
    assert message.edit.await_count == 2  # one edit for both asks
    assert time.monotonic() - started >= STATUS_EDIT_SECONDS * 0.95
    text = embed_text(message.edit.await_args.kwargs["embed"])
    assert "✅ alice" in text and "✅ bob" in text  # the latest state


async def test_a_dm_channel_is_opened_once_and_survives_a_restart(repo, executor) -> None:
    first = FakeBot(repo, executor)
    try:
        channel = await first.tables.services.dm_channel(ALICE)
        again = await first.tables.services.dm_channel(ALICE)
        assert channel.id == again.id == 90_000 + ALICE
        assert first.http.start_private_message.await_count == 1
    finally:
        await first.tables.stop()
    assert await repo.dm_channel_of(ALICE) == 90_000 + ALICE
    restarted = FakeBot(repo, executor)  # a new process on the same database
    try:
        channel = await restarted.tables.services.dm_channel(ALICE)
        assert channel.id == 90_000 + ALICE
        assert restarted.http.start_private_message.await_count == 0
        await restarted.tables.services.dm_channel(BOB)  # someone new: opened
        assert restarted.http.start_private_message.await_count == 1
    finally:
        await restarted.tables.stop()
