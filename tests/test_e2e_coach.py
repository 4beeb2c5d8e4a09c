"""The coach through the real bot and the fake Discord: "Review my hand" on the showdown and
in the DM, privately, with the numbers of ``arrange --level hard``; auto-arranged hands
marked and left out; reviews kept across a restart; past rounds reviewed at start; the
coach's figures in /capsa stats and the "sharpest" leaderboard."""

from __future__ import annotations

import asyncio
import time
from functools import partial

import pytest

from capsa.cards import Card, parse_cards
from capsa.coach import Origin, review_hand
from capsa.i18n import number
from capsa.presets import Preset, get_preset
from capsa.showdown import signed
from capsa.solver import arrange
from cogs.worker_pool import Priority, WorkerPool
from data import open_repository
from data.repository import SHARPEST_MIN_ROUNDS
from tests.e2e import hand_of, make_bot, play_builder, warung
from tests.fakediscord import running_bot
from tests.test_e2e_history import seed_match

REVIEW = "Review my hand"
TITLE = "the coach's review"


def _points(value: float) -> str:
    return signed(round(value, 2), "en")


async def test_review_my_hand_in_the_channel_and_the_dm_across_a_restart(fake_discord, tmp_path):
    fake = fake_discord
    chan, (alice, bob, carol) = warung(fake, "alice", "bob", "carol")
    db = tmp_path / "db.sqlite3"
    rules = get_preset("standard")
    async with running_bot(fake, make_bot(fake, db)):
        await alice.slash("capsa new", channel=chan, seats=3, rounds=5)
        lobby = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels())
        await bob.click(lobby, "Join")
        await alice.click(lobby, "Start")
        dm_a = await alice.latest_dm(timeout=10)
        dm_b = await bob.latest_dm(timeout=10)
        cards_a = hand_of(dm_a)
        played = await play_builder(alice, dm_a)  # rows picked in the selects: her own
        await bob.click(dm_b, "Auto-arrange")  # Auto-arrange's rows, sent as they came
        await bob.click(dm_b, "Submit")
        showdown = await fake.wait_for_message(
            chan, lambda m: "Showdown · round 1/5" in m.text(), timeout=20
        )
        assert REVIEW in showdown.button_labels() and "Next round" in showdown.button_labels()

        await alice.click(showdown, REVIEW)
        mine = await alice.wait_for_ephemeral(lambda m: TITLE in m.text(), timeout=20)
        best = arrange(cards_a, rules, "hard", 2)  # what `capsa arrange --level hard` says
        expected = review_hand(cards_a, rules, 2, played)
        text = mine.text()
        assert f"Best setting · {_points(best.expected)}" in text
        assert f"Your setting · {_points(expected.played_value)}" in text
        assert expected.best_value == pytest.approx(best.expected)
        if expected.is_best:
            assert "You chose the best setting" in text
        else:
            assert f"cost {number(expected.loss, 'en', digits=2)} points" in text
        assert mine.attachments  # the two settings side by side

        # Bob's review, from the button the coach puts on his DM of that round
        reviewed_dm = await fake.wait_for_message(
            bob.dm, lambda m: m.id == dm_b.id and REVIEW in m.button_labels(), timeout=30
        )
        await bob.click(reviewed_dm, REVIEW)
        his = await bob.wait_for_ephemeral(lambda m: TITLE in m.text(), timeout=20)
        assert "Auto-arrange's suggestion as it came" in his.text()

        # someone who did not play that round
        await carol.click(showdown, REVIEW)
        refused = await carol.wait_for_ephemeral(timeout=10)
        assert "Only the people who played this round" in refused.text()
        first_text = text

    # after a restart the old showdown's button still answers, from the stored review
    async with running_bot(fake, make_bot(fake, db)):
        await alice.click(showdown, REVIEW)
        again = await alice.wait_for_ephemeral(lambda m: TITLE in m.text(), timeout=20, after=mine)
        assert again.text() == first_text
        await alice.slash("capsa stats", channel=chan)
        stats = await fake.wait_for_message(chan, lambda m: "Stats for alice" in m.text())
        assert "Points lost to the best setting, a hand" in stats.text()
        assert f"all 1: {expected.loss:.2f}" in stats.text()
        await bob.slash("capsa stats", channel=chan)
        bobs = await fake.wait_for_message(chan, lambda m: "Stats for bob" in m.text())
        assert "no reviewed rounds yet" in bobs.text()  # his only hand was Auto-arrange's


async def test_past_rounds_are_reviewed_at_start_and_rank_the_sharpest(fake_discord, tmp_path):
    """Rounds scored while no coach ran (a bot that stopped right after them) are reviewed
    when the bot starts; the sharpest leaderboard then ranks those players by their loss."""
    fake = fake_discord
    chan, (alice, bob) = warung(fake, "alice", "bob")
    db = tmp_path / "db.sqlite3"
    rules = get_preset("standard")
    repo = await open_repository(str(db))
    Rows = tuple[tuple[Card, ...], ...]
    played: list[tuple[int, list[Card], Preset, int, Rows]] = []  # (user id, review_hand's args)
    try:
        start = time.time() - 3600
        for n in range(SHARPEST_MIN_ROUNDS // 5):
            match = await seed_match(
                repo, chan.guild.id, chan.id, [alice, bob], when=start + n * 400
            )
            for rnd in await repo.completed_rounds(match.id):
                for seat in match.seats:
                    if seat.user_id is None:
                        continue
                    hand = rnd.hand(seat.seat)
                    assert hand is not None and hand.back and hand.middle and hand.front
                    back, middle, front = (
                        tuple(parse_cards(list(row)))
                        for row in (hand.back, hand.middle, hand.front)
                    )
                    cards = parse_cards(list(hand.cards))
                    played.append((seat.user_id, cards, rules, 2, (back, middle, front)))
    finally:
        await repo.close()

    async with running_bot(fake, make_bot(fake, db)):
        # The test's own reviews (each a hard solve) run in a worker process, as the bot
        # runs its own, while the bot reviews the same hands: two cores at once.
        workers = WorkerPool(1)
        try:
            review = partial(review_hand, origin=Origin.PLAYED)
            reviews = await asyncio.gather(
                *(workers.run(Priority.REVIEW, review, *args) for _, *args in played)
            )
        finally:
            workers.shutdown()
        expected: dict[int, list[float]] = {alice.id: [], bob.id: []}
        for (uid, *_), r in zip(played, reviews, strict=True):
            expected[uid].append(r.loss)
        deadline = time.monotonic() + 90
        while True:
            await alice.slash("capsa leaderboard", channel=chan, sort="sharpest")
            board = await fake.wait_for_message(chan, lambda m: "Leaderboard" in m.text())
            if "rounds" in board.text() and f"<@{bob.id}>" in board.text():
                break
            assert time.monotonic() < deadline, board.text()
            await asyncio.sleep(1.0)
        text = board.text()
        means = {uid: sum(v) / len(v) for uid, v in expected.items()}
        order = sorted(means, key=lambda uid: (means[uid], -len(expected[uid]), uid))
        lines = [line for line in text.splitlines() if "points lost a hand" in line]
        assert [f"<@{uid}>" in line for uid, line in zip(order, lines, strict=True)] == [
            True,
            True,
        ]
        for uid, line in zip(order, lines, strict=True):
            assert f"{means[uid]:.2f} points lost a hand · {SHARPEST_MIN_ROUNDS} rounds" in line
