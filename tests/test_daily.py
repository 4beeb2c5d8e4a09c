"""capsa/daily.py: the day's cards from the server and the date, places by loss, and
streaks of days in a row."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from capsa.cards import DECK
from capsa.daily import (
    Streak,
    daily_cards,
    daily_seed,
    day_end,
    day_from_number,
    day_number,
    day_of,
    places,
    streak,
)

DAY = date(2026, 12, 2)


def test_every_member_gets_the_same_cards_and_each_day_and_server_others() -> None:
    cards = daily_cards(1, DAY)
    assert len(cards) == 13 and len(set(cards)) == 13 and set(cards) <= set(DECK)
    assert daily_cards(1, DAY) == cards  # the same in every process and every run
    assert daily_cards(2, DAY) != cards
    assert daily_cards(1, DAY + timedelta(days=1)) != cards
    # the seed is the server's and the date's, not Python's hash (which varies by process)
    assert daily_seed(1, DAY) != daily_seed(1, DAY + timedelta(days=1))


def test_days_are_utc_and_end_at_midnight() -> None:
    midnight = 1_764_633_600.0  # 2025-12-02 00:00 UTC
    assert day_of(midnight) == date(2025, 12, 2)
    assert day_of(midnight - 1) == date(2025, 12, 1)
    assert day_end(date(2025, 12, 1)) == midnight
    assert day_from_number(day_number(DAY)) == DAY and day_number(DAY) == 20261202
    with pytest.raises(ValueError):
        day_from_number(20261332)


def test_places_rank_by_the_loss_as_shown_and_share_ties() -> None:
    assert places([0.0, 1.5, 0.0, 3.25]) == [1, 3, 1, 4]
    assert places([0.004, 0.001, 0.2]) == [1, 1, 3]  # both show as 0.00
    assert places([]) == []


@pytest.mark.parametrize(
    ("played", "today", "expected"),
    [
        ([], DAY, Streak(0, 0)),
        ([DAY], DAY, Streak(1, 1)),
        ([DAY - timedelta(days=1)], DAY, Streak(1, 1)),  # today is not over: still alive
        ([DAY - timedelta(days=2)], DAY, Streak(0, 1)),
        ([DAY - timedelta(days=n) for n in (0, 1, 2, 5, 6, 7, 8)], DAY, Streak(3, 4)),
        ([DAY, DAY, DAY - timedelta(days=1)], DAY, Streak(2, 2)),
    ],
)
def test_streaks(played: list[date], today: date, expected: Streak) -> None:
    assert streak(played, today) == expected
