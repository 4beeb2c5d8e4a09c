"""The daily hand: the same 13 cards for every member of a server on a day, set once, and
valued against the coach's best setting (capsa.coach, the ``hard`` level's values).

Days are UTC dates. A day's cards come from a seed made of the server and the date, so
every process deals the same ones; the places rank the members by what their setting
cost against the best one (the loss, as shown: to two decimals), and a streak counts the
days in a row someone played.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from capsa.cards import DECK, Card, sort_hand

DAILY_OPPONENTS = 3  # the daily hand is valued as at a full table of four
LOSS_DECIMALS = 2  # losses are shown, and ranked, to this many decimals


def day_of(moment: float) -> date:
    """The (UTC) day of a unix time."""
    return datetime.fromtimestamp(moment, UTC).date()


def day_end(day: date) -> float:
    """When ``day`` ends (its next midnight, UTC), in unix seconds."""
    return datetime.combine(day + timedelta(days=1), time(), UTC).timestamp()


def day_number(day: date) -> int:
    """The day as a number (``20261202``), as a component's custom_id carries it."""
    return day.year * 10000 + day.month * 100 + day.day


def day_from_number(number: int) -> date:
    """``day_number``'s day again (ValueError for a number that is no date)."""
    return date(number // 10000, number // 100 % 100, number % 100)


def daily_seed(guild_id: int, day: date) -> int:
    """The seed of a server's hand of a day: the same in every process and every run."""
    digest = hashlib.sha256(f"capsa-daily:{int(guild_id)}:{day.isoformat()}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def daily_cards(guild_id: int, day: date) -> tuple[Card, ...]:
    """The 13 cards every member of the server gets on ``day``, sorted."""
    return tuple(sort_hand(random.Random(daily_seed(guild_id, day)).sample(DECK, 13)))


def shown_loss(loss: float) -> float:
    """A loss as shown and ranked."""
    return round(max(0.0, loss), LOSS_DECIMALS)


def places(losses: Sequence[float]) -> list[int]:
    """Each loss's place (1 = the smallest; equal losses as shown share a place)."""
    shown = [shown_loss(x) for x in losses]
    return [1 + sum(other < mine for other in shown) for mine in shown]


@dataclass(frozen=True)
class Streak:
    """Days in a row played: ``current`` ends today or yesterday (a day not over yet does
    not break it), ``best`` is the longest ever."""

    current: int = 0
    best: int = 0


def streak(days: Iterable[date], today: date) -> Streak:
    played = sorted(set(days))
    best = run = 0
    previous: date | None = None
    for day in played:
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    alive = previous is not None and today - previous <= timedelta(days=1)
    return Streak(current=run if alive else 0, best=best)
