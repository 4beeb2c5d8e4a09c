"""The repository's coach methods (``store_review``, ``hand_review``, ``unreviewed_hands``,
the coach's figures in ``player_stats`` and the ``sharpest`` leaderboard) on every backend
of tests/test_repository.py: SQLite as the bot opens it, SQLite's SQL alone, PostgreSQL."""

from __future__ import annotations

import pytest

from data.repository import RECENT_REVIEWS, SHARPEST_MIN_ROUNDS, Repository
from tests import test_repository as contract
from tests.test_repository import DAY, GUILD, OTHER_GUILD, T0, play_round, playing_match

db_path = contract.db_path
db = contract.db
repo = contract.repo


async def _rounds(repo: Repository, users=(100, 101), count=1, *, guild=GUILD, start=T0):
    """A match of ``users`` and one computer, ``count`` rounds scored a minute apart."""
    m = await playing_match(repo, users, 1, guild=guild, channel=guild * 1000 + users[0])
    seats = {s: 0.0 for s in range(len(users) + 1)}
    return m, [
        await play_round(repo, m.id, n + 1, seats, scored_at=start + 60 * n) for n in range(count)
    ]


async def test_a_review_is_stored_once_and_read_back(repo: Repository) -> None:
    m, (round_id,) = await _rounds(repo)
    review = {"loss": 1.5, "best": [["AS"]], "origin": "played"}
    assert await repo.hand_review(round_id, 0) is None
    assert await repo.store_review(round_id, 0, review, 1.5, True, now=T0 + 5)
    # the same hand again (a second process, a resumed job): kept as it was
    assert not await repo.store_review(round_id, 0, {"loss": 9.0}, 9.0, True, now=T0 + 6)
    assert await repo.hand_review(round_id, 0) == review
    # a computer's seat has no review, nor a seat that does not exist
    assert not await repo.store_review(round_id, 2, review, 1.0, True)
    assert not await repo.store_review(round_id, 7, review, 1.0, True)
    assert not await repo.store_review(round_id + 1000, 0, review, 1.0, True)


async def test_an_open_round_cannot_be_reviewed(repo: Repository) -> None:
    m = await playing_match(repo)
    rnd = await repo.start_round(m.id, 1, 1, T0 + 120, {0: [], 1: [], 2: []}, now=T0)
    assert not await repo.store_review(rnd.id, 0, {"loss": 0}, 0.0, True)


async def test_unreviewed_hands_are_people_s_hands_of_recent_scored_rounds(
    repo: Repository,
) -> None:
    _, (old,) = await _rounds(repo, (100, 101), start=T0 - 3 * DAY)
    _, (new1, new2) = await _rounds(repo, (102, 103), 2, start=T0)
    assert await repo.unreviewed_hands(T0 - 4 * DAY) == [
        (old, 0),
        (old, 1),
        (new1, 0),
        (new1, 1),
        (new2, 0),
        (new2, 1),
    ]
    assert await repo.store_review(new1, 1, {}, 0.0, True)
    assert await repo.unreviewed_hands(T0 - 60, limit=2) == [(new1, 0), (new2, 0)]


async def test_stats_give_the_loss_over_all_and_over_the_last_hundred(
    repo: Repository,
) -> None:
    count = RECENT_REVIEWS + 10
    _, rounds = await _rounds(repo, (100,), count + 1)
    # the first 10 rounds lost 5 a hand, the next 100 lost 1; the last hand, auto-arranged,
    # lost 50 and does not count, nor does another player's
    for i, round_id in enumerate(rounds[:-1]):
        loss = 5.0 if i < 10 else 1.0
        assert await repo.store_review(round_id, 0, {"loss": loss}, loss, True)
    assert await repo.store_review(rounds[-1], 0, {"loss": 50.0}, 50.0, False)
    _, (other_round,) = await _rounds(repo, (101,))
    assert await repo.store_review(other_round, 0, {"loss": 7.0}, 7.0, True)

    s = await repo.player_stats(GUILD, 100)
    assert s.reviewed == count and s.uncounted == 1
    assert s.loss_all == pytest.approx((10 * 5.0 + 100 * 1.0) / count)
    assert s.loss_recent == pytest.approx(1.0)
    other = await repo.player_stats(GUILD, 101)
    assert other.reviewed == 1 and other.loss_all == other.loss_recent == pytest.approx(7.0)
    nobody = await repo.player_stats(OTHER_GUILD, 100)
    assert nobody.reviewed == 0 and nobody.loss_all is None and nobody.loss_recent is None


async def test_the_sharpest_are_ranked_by_their_lowest_loss(repo: Repository) -> None:
    enough = SHARPEST_MIN_ROUNDS
    _, rounds = await _rounds(repo, (100, 101, 102), enough)
    for round_id in rounds:
        assert await repo.store_review(round_id, 0, {}, 0.8, True)  # 100: 0.8 a hand
        assert await repo.store_review(round_id, 1, {}, 0.3, True)  # 101: 0.3 a hand
    for round_id in rounds[:-1]:  # 102: the sharpest, but one round short of ranking
        assert await repo.store_review(round_id, 2, {}, 0.1, True)
    board = await repo.leaderboard(GUILD, sort="sharpest")
    assert [(r.user_id, r.reviewed) for r in board] == [(101, enough), (100, enough)]
    assert [r.loss for r in board] == [pytest.approx(0.3), pytest.approx(0.8)]
    assert await repo.leaderboard_count(GUILD, sort="sharpest") == 2
    assert await repo.leaderboard_count(GUILD) == 3  # the other sorts list everyone
    points = await repo.leaderboard(GUILD, sort="points")
    assert {r.user_id: r.reviewed for r in points} == {100: enough, 101: enough, 102: enough - 1}
    # a period counts only the rounds scored in it
    assert await repo.leaderboard(GUILD, sort="sharpest", period_days=1, now=T0 + 30 * DAY) == []
