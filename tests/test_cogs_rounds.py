"""Rounds: a refused DM, the pause before the next round, and a showdown posted by a later
``close_round``.
"""

from __future__ import annotations

import asyncio
import time
from unittest.mock import MagicMock

import discord
import pytest

from capsa.coach import Review, review_hand
from capsa.presets import get_preset
from capsa.solver import arrange
from cogs.life import Clock, Step
from cogs.scheduler import TimerKind
from tests.cog_helpers import (
    ALICE,
    ALICE_HAND,
    BOB,
    BOB_HAND,
    CHANNEL,
    DRAGON,
    OTHER_DRAGON,
    cards,
    dealt_round,
    new_lobby,
    playing_round,
)


async def test_a_refused_dm_is_told_in_the_channel_once_even_after_a_restart(
    fake_bot, repo
) -> None:
    match, rnd = await playing_round(repo)
    dm = fake_bot.get_partial_messageable(90_000 + BOB)
    closed = {"code": 50007, "message": "Cannot send messages to this user"}
    dm.send.side_effect = discord.Forbidden(MagicMock(status=403, reason="Forbidden"), closed)
    channel = fake_bot.get_partial_messageable(CHANNEL)

    def told_bob() -> int:
        texts = [c.kwargs.get("content") or "" for c in channel.send.call_args_list]
        return sum(1 for text in texts if f"<@{BOB}>" in text)

    await fake_bot.tables.scheduler.hold(match.id, TimerKind.WATCHDOG, rnd.number, 30)  # dealer
    await fake_bot.tables.rounds.prepare_round(match, rnd)
    assert told_bob() == 1
    stored = await repo.get_round(rnd.id)
    assert stored.hands[1].dm_refused and stored.hands[1].dm_message_id is None
    assert not stored.hands[0].dm_refused and stored.hands[0].dm_message_id
    await fake_bot.tables.rounds.prepare_round(match, stored)  # what a restart does
    assert told_bob() == 1
    assert dm.send.call_count == 1  # and the DM is not tried again
    alice_dm = fake_bot.get_partial_messageable(90_000 + ALICE)
    assert alice_dm.send.call_count == 1


async def test_when_the_pause_runs_out_the_next_round_starts_and_next_goes(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    tables = fake_bot.tables
    tables.flow.pause = 0
    for seat, hand in ((0, ALICE_HAND), (1, BOB_HAND)):
        rows = arrange(cards(hand), get_preset("standard"), "easy", 1, seed=1).ordinary
        codes = [[c.code for c in row] for row in rows]
        assert await repo.submit_hand(rnd.id, seat, *codes, None, fouled=False)
    await tables.rounds.close_round(match.id)
    shown = await repo.get_round(rnd.id)
    assert shown.showdown_message_id is not None
    for _ in range(300):
        current = await repo.current_round(match.id)
        if current.number == 2 and current.status_message_id is not None:
            break
        await asyncio.sleep(0.01)
    assert current.number == 2
    showdown = fake_bot.get_partial_messageable(CHANNEL).get_partial_message(
        shown.showdown_message_id
    )
    for _ in range(100):
        if showdown.edit.await_count:
            break
        await asyncio.sleep(0.01)
    showdown.edit.assert_awaited_once()
    (view,) = showdown.edit.await_args.kwargs.values()  # Next goes, Review my hand stays
    assert [c.custom_id for c in view.children] == [f"capsa:review:{rnd.id}"]


async def test_a_showdown_posted_by_a_later_call_also_updates_the_status(fake_bot, repo) -> None:
    """The round was scored, then posting failed: the next call posts the showdown
    and updates the status message too (it is not left saying "waiting")."""
    match, rnd = await playing_round(repo, countdown=-1)
    await repo.set_round_messages(rnd.id, status_message_id=4242)
    tables = fake_bot.tables
    real_post = tables.rounds._post_showdown
    fails = [1]

    async def post_once(*args):
        if fails:
            fails.pop()
            raise discord.DiscordServerError(MagicMock(status=503, reason="down"), "down")
        return await real_post(*args)

    tables.rounds._post_showdown = post_once
    with pytest.raises(discord.DiscordServerError):
        await tables.rounds.close_round(match.id)
    assert (await repo.get_round(rnd.id)).status == "scored"
    status = fake_bot.get_partial_messageable(CHANNEL).get_partial_message(4242)
    assert status.edit.await_count == 0
    await tables.rounds.close_round(match.id)
    assert (await repo.get_round(rnd.id)).showdown_message_id is not None
    assert status.edit.await_count == 1
    assert status.edit.await_args.kwargs["view"] is None  # "Show my hand" is gone


async def test_a_person_who_runs_out_of_time_plays_rows_never_a_special(fake_bot, repo) -> None:
    """Time runs out (timeout action auto) on alice, whose hand holds a dragon that the
    solver would declare, and on a computer seat that had not set yet. Alice gets the best
    ordinary rows, undeclared (only its holder declares a special, RULES §4); the computer
    decides as computers do."""
    match, rnd = await dealt_round(repo, {0: DRAGON, 1: OTHER_DRAGON}, computer=True, countdown=-1)
    assert match.timeout_action == "auto"
    preset = get_preset("standard")
    solvers = [
        arrange(cards(h), preset, "normal", 1, seed=rnd.seed + s)
        for s, h in enumerate((DRAGON, OTHER_DRAGON))
    ]
    assert [s.declare for s in solvers] == ["dragon", "dragon"], "the solver declares both"
    await fake_bot.tables.rounds.close_round(match.id)
    scored = await repo.get_round(rnd.id)
    assert scored.status == "shown"  # scored, and its showdown posted
    alice, computer = scored.hands
    assert alice.auto and alice.declare is None and not alice.fouled
    ordinary = [[c.code for c in row] for row in solvers[0].ordinary]
    assert [sorted(r) for r in (alice.back, alice.middle, alice.front)] == [
        sorted(r) for r in ordinary
    ]
    assert computer.auto and computer.declare == "dragon"
    assert scored.result["players"][0]["special"] is None


# --- the coach after the showdown ---------------------------------------------------------


async def _played_round(repo, tables):
    match, rnd = await playing_round(repo)
    tables.flow.pause = 3600  # no next deal during the test
    settings = {}
    for seat, hand in ((0, ALICE_HAND), (1, BOB_HAND)):
        rows = arrange(cards(hand), get_preset("standard"), "easy", 1, seed=1).ordinary
        settings[seat] = rows
        codes = [[c.code for c in row] for row in rows]
        assert await repo.submit_hand(rnd.id, seat, *codes, None, fouled=False)
    await tables.rounds.close_round(match.id)
    await tables.scheduler.jobs_done()  # the background reviews, to the end
    return match, rnd, settings


async def test_after_the_showdown_each_persons_hand_is_reviewed_once(fake_bot, repo) -> None:
    tables = fake_bot.tables
    match, rnd, settings = await _played_round(repo, tables)
    for seat, hand in ((0, ALICE_HAND), (1, BOB_HAND)):
        stored = await repo.hand_review(rnd.id, seat)
        assert stored is not None
        expected = review_hand(cards(hand), get_preset("standard"), 1, settings[seat])
        assert Review.from_dict(stored) == expected
    # asking again (a press, another process) keeps the one review
    again = await tables.coach.review(match, rnd, (await repo.get_round(rnd.id)).hands[0])
    assert again.to_dict() == (await repo.hand_review(rnd.id, 0))


async def test_with_the_coach_off_hands_are_reviewed_only_when_asked(fake_bot, repo) -> None:
    tables = fake_bot.tables
    tables.coach.after_every_showdown = False
    match, rnd, _ = await _played_round(repo, tables)
    assert await repo.hand_review(rnd.id, 0) is None and await repo.hand_review(rnd.id, 1) is None
    scored = await repo.get_round(rnd.id)
    review = await tables.coach.review(match, scored, scored.hands[1])
    assert await repo.hand_review(rnd.id, 1) == review.to_dict()
    assert await repo.hand_review(rnd.id, 0) is None


async def test_a_late_call_for_a_closed_round_keeps_the_next_rounds_deadline(
    fake_bot, repo
) -> None:
    """Another process dealt the next round while this one was closing the last: a late call
    for the table reads its latest round and sets the clock for that round's deadline, not
    for anything of the round before; the old showdown is posted once."""
    tables = fake_bot.tables
    match, rnd = await playing_round(repo)
    tables.flow.pause = 3600
    for seat, hand in ((0, ALICE_HAND), (1, BOB_HAND)):
        rows = arrange(cards(hand), get_preset("standard"), "easy", 1, seed=1).ordinary
        assert await repo.submit_hand(
            rnd.id, seat, *[[c.code for c in r] for r in rows], None, False
        )
    await tables.rounds.close_round(match.id)
    assert await tables.scheduler.pending(match.id) == {
        TimerKind.CLOCK: Clock(Step.DEAL, 2).encode()
    }
    hands = {0: ALICE_HAND.split(), 1: BOB_HAND.split()}
    second = await repo.start_round(match.id, 2, 777, time.time() + 600, hands)  # elsewhere
    assert await repo.mark_round_open(second.id)
    channel = fake_bot.get_partial_messageable(CHANNEL)
    posts = channel.send.await_count
    await tables.rounds.close_round(match.id)  # late, for round 1
    assert await tables.scheduler.pending(match.id) == {
        TimerKind.CLOCK: Clock(Step.CLOSE, 2).encode()
    }
    assert channel.send.await_count == posts  # nothing posted again
    assert (await repo.get_round(second.id)).status == "open"


async def test_a_round_dealt_by_a_process_that_died_gets_its_timers_and_its_deal(
    fake_bot, repo
) -> None:
    """The round was stored, then its dealer died before it held the watchdog: a process
    that starts (or any call) leaves the table a watchdog, which finishes the deal and sets
    the clock for the round's deadline."""
    tables = fake_bot.tables
    match = await new_lobby(repo, seats=2)
    await repo.add_seat(match.id, BOB, "bob")
    assert await repo.start_match(match.id)
    hands = {0: ALICE_HAND.split(), 1: BOB_HAND.split()}
    rnd = await repo.start_round(match.id, 1, 12345, time.time() + 120, hands)
    assert rnd.status == "dealing" and await tables.scheduler.pending(match.id) == {}
    await tables.flow.resume(match.id)
    for _ in range(500):
        prepared = await repo.get_round(rnd.id)
        if prepared.status == "open":
            break
        await asyncio.sleep(0.01)
    assert prepared.status_message_id is not None  # the deal's status message is out
    assert all(h.dm_message_id is not None for h in prepared.hands)  # and the DMs
    await tables.scheduler.idle()
    pending = await tables.scheduler.pending(match.id)
    assert pending == {TimerKind.CLOCK: Clock(Step.CLOSE, 1).encode()}
