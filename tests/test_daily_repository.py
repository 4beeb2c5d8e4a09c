"""The daily hand as stored, on every backend of tests/test_repository.py: the day's hand
is kept by its first opener, each member's play is kept once, and the board and the
streaks read them back."""

from __future__ import annotations

import asyncio
from datetime import date, timedelta

import pytest

from capsa.daily import daily_cards
from data.repository import Repository
from tests import test_repository as contract
from tests.test_repository import GUILD, OTHER_GUILD, T0

db_path = contract.db_path
db = contract.db
repo = contract.repo

DAY = date(2026, 12, 2)
CARDS = [c.code for c in daily_cards(GUILD, DAY)]
ROWS = (CARDS[:5], CARDS[5:10], CARDS[10:])


def review(loss: float, best: float = 4.0) -> dict[str, float]:
    return {"played_value": best - loss, "best_value": best, "loss": loss}


async def test_the_first_opener_keeps_the_days_rules_and_cards(repo: Repository) -> None:
    assert await repo.daily_hand(GUILD, DAY) is None
    first = await repo.open_daily(GUILD, DAY, "standard", CARDS, now=T0)
    again = await repo.open_daily(GUILD, DAY, "indocapsa", list(reversed(CARDS)), now=T0 + 5)
    assert first == again == await repo.daily_hand(GUILD, DAY)
    assert first.preset == "standard" and list(first.cards) == CARDS and first.day == DAY
    assert await repo.daily_hand(OTHER_GUILD, DAY) is None
    with pytest.raises(ValueError):
        await repo.open_daily(GUILD, DAY + timedelta(days=1), "standard", CARDS[:12])


async def test_one_play_a_day_each_and_the_board_by_loss(repo: Repository) -> None:
    # no hand opened that day: nothing to play
    assert not await repo.record_daily_play(GUILD, DAY, 100, ROWS, None, False, review(1.0))
    await repo.open_daily(GUILD, DAY, "standard", CARDS, now=T0)
    assert await repo.record_daily_play(GUILD, DAY, 100, ROWS, None, True, review(2.5), now=T0)
    assert await repo.record_daily_play(GUILD, DAY, 101, ROWS, None, False, review(0.0), now=T0 + 1)
    assert await repo.record_daily_play(GUILD, DAY, 102, ROWS, "dragon", False, review(2.5))
    # a second try is refused, whatever it is
    assert not await repo.record_daily_play(GUILD, DAY, 100, ROWS, None, False, review(0.0))
    plays = await repo.daily_plays(GUILD, DAY)
    assert [p.user_id for p in plays] == [101, 100, 102]  # smallest loss, then first played
    first = await repo.daily_play(GUILD, DAY, 100)
    assert first is not None and first == plays[1]
    assert first.fouled and first.loss == 2.5 and first.value == 1.5 and first.best_value == 4.0
    assert (first.back, first.middle, first.front) == tuple(tuple(r) for r in ROWS)
    assert first.review == review(2.5) and first.played_at == T0
    assert plays[2].declare == "dragon"
    assert await repo.daily_play(GUILD, DAY, 999) is None
    assert await repo.daily_plays(OTHER_GUILD, DAY) == []


async def test_a_setting_of_other_cards_is_refused(repo: Repository) -> None:
    await repo.open_daily(GUILD, DAY, "standard", CARDS, now=T0)
    other = [c.code for c in daily_cards(GUILD, DAY + timedelta(days=1))]
    with pytest.raises(ValueError):
        await repo.record_daily_play(
            GUILD, DAY, 100, (other[:5], other[5:10], other[10:]), None, False, review(0.0)
        )
    assert await repo.daily_plays(GUILD, DAY) == []


async def test_two_submissions_at_once_keep_one(repo: Repository) -> None:
    await repo.open_daily(GUILD, DAY, "standard", CARDS, now=T0)
    kept = await asyncio.gather(
        *(
            repo.record_daily_play(GUILD, DAY, 100, ROWS, None, False, review(loss))
            for loss in (0.5, 1.5, 2.5, 3.5)
        )
    )
    assert sorted(kept) == [False, False, False, True]
    assert len(await repo.daily_plays(GUILD, DAY)) == 1


async def test_the_days_a_member_played(repo: Repository) -> None:
    days = [DAY - timedelta(days=n) for n in (3, 1, 0)]
    for day in days:
        cards = [c.code for c in daily_cards(GUILD, day)]
        await repo.open_daily(GUILD, day, "standard", cards)
        rows = (cards[:5], cards[5:10], cards[10:])
        assert await repo.record_daily_play(GUILD, day, 100, rows, None, False, review(1.0))
    assert await repo.daily_days(GUILD, 100) == sorted(days)
    assert await repo.daily_days(GUILD, 101) == []
    assert await repo.daily_days(OTHER_GUILD, 100) == []
