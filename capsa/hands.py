"""Rows: five-card back/middle and three-card front (RULES §2, §2.1, §3).

A row's ``strength`` is a rank-only integer: category in the high bits, then up to five
ranks, four bits each. Fronts use the same scale (high card / pair / trips at the same
levels as five-card rows, missing ranks as zero), so ``front.strength <= middle.strength``
is exactly the rank-by-rank foul check of RULES §3.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from capsa.cards import CapsaError, Card

CATEGORIES = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
)
ALL_CATEGORIES = (*CATEGORIES, "royal_flush")
CATEGORY_LEVEL = {name: level for level, name in enumerate(CATEGORIES)}
CATEGORY_LEVEL["royal_flush"] = CATEGORY_LEVEL["straight_flush"]

TieBreak = Literal["key_card", "early", "none"]
WHEEL = (14, 5, 4, 3, 2)


def pack(level: int, ranks: Sequence[int]) -> int:
    """The rank-only strength: category level, then ranks from the most significant."""
    value = level
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return value


def level_of(strength: int) -> int:
    return strength >> 20


def lead_rank(strength: int) -> int:
    """The rank that matters most: pair/set rank, a straight's top card, the top card."""
    return (strength >> 16) & 0xF


def _grouped(ranks: Sequence[int]) -> list[tuple[int, int]]:
    """(count, rank) pairs, biggest group first, then by rank."""
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    return sorted(((c, r) for r, c in counts.items()), reverse=True)


def strength5(ranks: Sequence[int], flush: bool) -> int:
    """Rank-only strength of five cards given their ranks and whether they share a suit."""
    groups = _grouped(ranks)
    if len(groups) == 5:
        desc = sorted(ranks, reverse=True)
        top = 0
        if desc[0] - desc[4] == 4:
            top = desc[0]
        elif tuple(desc) == WHEEL:
            top = 5
        if top and flush:
            return pack(8, (top,))
        if flush:
            return pack(5, desc)
        if top:
            return pack(4, (top,))
        return pack(0, desc)
    shape = tuple(c for c, _ in groups)
    order = [r for _, r in groups]
    level = {
        (4, 1): 7,
        (3, 2): 6,
        (3, 1, 1): 3,
        (2, 2, 1): 2,
        (2, 1, 1, 1): 1,
    }[shape]
    return pack(level, order)


def strength3(ranks: Sequence[int]) -> int:
    """Rank-only strength of a three-card front: trips > pair > high card only."""
    groups = _grouped(ranks)
    level = {1: 3, 2: 1, 3: 0}[len(groups)]
    return pack(level, [r for _, r in groups])


@dataclass(frozen=True, slots=True)
class Row:
    """An evaluated row. ``cards`` are ordered for display (groups first, wheel 5-high)."""

    cards: tuple[Card, ...]
    category: str
    strength: int
    key_card: Card
    flush_suit: int | None

    @property
    def level(self) -> int:
        return level_of(self.strength)

    @property
    def lead_rank(self) -> int:
        return lead_rank(self.strength)


def evaluate(cards: Sequence[Card]) -> Row:
    """Evaluate a five-card back/middle row or a three-card front."""
    if len(cards) not in (3, 5):
        raise CapsaError(f"a row has 3 or 5 cards, not {len(cards)}")
    ranks = [c.rank for c in cards]
    flush = len(cards) == 5 and len({c.suit for c in cards}) == 1
    strength = strength5(ranks, flush) if len(cards) == 5 else strength3(ranks)
    level = level_of(strength)
    category = CATEGORIES[level]
    if level == 8 and lead_rank(strength) == 14:
        category = "royal_flush"
    ordered = _display_order(cards, strength)
    return Row(
        cards=tuple(ordered),
        category=category,
        strength=strength,
        key_card=ordered[0],
        flush_suit=cards[0].suit if flush else None,
    )


def _display_order(cards: Sequence[Card], strength: int) -> list[Card]:
    counts: dict[int, int] = {}
    for c in cards:
        counts[c.rank] = counts.get(c.rank, 0) + 1
    ordered = sorted(cards, key=lambda c: (counts[c.rank], c.rank, c.suit), reverse=True)
    if level_of(strength) in (4, 8) and lead_rank(strength) == 5:  # the wheel: 5 4 3 2 A
        ordered = ordered[1:] + ordered[:1]
    return ordered


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def compare(a: Row, b: Row, tiebreak: TieBreak = "key_card") -> int:
    """+1 if ``a`` beats ``b`` at the showdown, -1 if it loses, 0 for a push (RULES §2.1)."""
    if tiebreak == "none":
        return _sign(a.strength - b.strength)
    if tiebreak == "early" and a.level == b.level:
        category = CATEGORIES[a.level]
        fa, fb = a.flush_suit, b.flush_suit  # both set: two flushes
        if category == "flush" and fa is not None and fb is not None and fa != fb:
            return _sign(fa - fb)
        if category in ("pair", "two_pair"):
            if a.lead_rank != b.lead_rank:
                return _sign(a.lead_rank - b.lead_rank)
            return _sign(a.key_card.suit - b.key_card.suit)
    if a.strength != b.strength:
        return _sign(a.strength - b.strength)
    return _sign(a.key_card.suit - b.key_card.suit)


def foul_positions(back: Row, middle: Row, front: Row) -> frozenset[str]:
    """The rows out of order (RULES §3: back >= middle >= front, by rank only; suits never
    make a foul): back and middle when the middle is stronger than the back, middle and
    front when the front is stronger than the middle. Empty when the setting is not fouled."""
    bad: set[str] = set()
    if back.strength < middle.strength:
        bad |= {"back", "middle"}
    if middle.strength < front.strength:
        bad |= {"middle", "front"}
    return frozenset(bad)


def is_fouled(back: Row, middle: Row, front: Row) -> bool:
    """Back >= middle >= front by rank only; suits never make a foul (RULES §3)."""
    return bool(foul_positions(back, middle, front))
