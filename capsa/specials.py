"""Special hands (naturals, RULES §4): detection, ranking and same-special comparison."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations, product

from capsa.cards import Card
from capsa.hands import evaluate, level_of
from capsa.presets import SPECIALS, Preset

Setting = tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]  # back, middle, front

SPECIAL_RANK = {name: i + 1 for i, name in enumerate(SPECIALS)}  # 1 is the highest


def is_dragon(cards: Sequence[Card]) -> bool:
    return len({c.rank for c in cards}) == 13


def pair_ranks(cards: Sequence[Card]) -> list[int]:
    """Each rank's ``count // 2`` pairs, highest first (quads are two pairs)."""
    counts = Counter(c.rank for c in cards)
    return sorted((r for r, n in counts.items() for _ in range(n // 2)), reverse=True)


def is_six_pairs(cards: Sequence[Card]) -> bool:
    return len(pair_ranks(cards)) >= 6


def _is_five_straight(row: Sequence[Card]) -> bool:
    return level_of(evaluate(row).strength) in (4, 8)


def _is_five_flush(row: Sequence[Card]) -> bool:
    return evaluate(row).flush_suit is not None


def front_straight_top(front: Sequence[Card]) -> int:
    """Top rank of a three-card straight (A-2-3 -> 3, Q-K-A -> A), or 0 if none."""
    ranks = sorted({c.rank for c in front})
    if len(ranks) != 3:
        return 0
    if ranks[2] - ranks[0] == 2:
        return ranks[2]
    if ranks == [2, 3, 14]:
        return 3
    return 0


def is_three_straights(setting: Setting) -> bool:
    back, middle, front = setting
    return _is_five_straight(back) and _is_five_straight(middle) and front_straight_top(front) > 0


def is_three_flushes(setting: Setting) -> bool:
    back, middle, front = setting
    return _is_five_flush(back) and _is_five_flush(middle) and len({c.suit for c in front}) == 1


def holds(special: str, setting: Setting) -> bool:
    """Does this setting hold ``special``? Dragon and six pairs look at all 13 cards."""
    cards = [*setting[0], *setting[1], *setting[2]]
    if special == "dragon":
        return is_dragon(cards)
    if special == "six_pairs":
        return is_six_pairs(cards)
    if special == "three_straights":
        return is_three_straights(setting)
    if special == "three_flushes":
        return is_three_flushes(setting)
    return False


def _straight_fives(cards: Sequence[Card]) -> list[tuple[Card, ...]]:
    """Every five-card straight among these cards, built rank window by rank window."""
    by_rank: dict[int, list[Card]] = {}
    for card in cards:
        by_rank.setdefault(card.rank, []).append(card)
    fives: list[tuple[Card, ...]] = []
    for low in range(1, 11):  # 1: the ace below the 2 (A-2-3-4-5)
        ranks = [14 if r == 1 else r for r in range(low, low + 5)]
        if all(r in by_rank for r in ranks):
            fives.extend(product(*(by_rank[r] for r in ranks)))
    return fives


def _flush_fives(cards: Sequence[Card]) -> list[tuple[Card, ...]]:
    """Every five-card flush among these cards, or none if the suits cannot be split into
    two flushes of five and one of three (suit counts 13, 10+3, 8+5 or 5+5+3)."""
    by_suit: dict[int, list[Card]] = {}
    for card in cards:
        by_suit.setdefault(card.suit, []).append(card)
    if sorted(len(v) for v in by_suit.values()) not in ([13], [3, 10], [5, 8], [3, 5, 5]):
        return []
    return [five for same in by_suit.values() for five in combinations(same, 5)]


def find_setting(cards: Sequence[Card], special: str) -> Setting | None:
    """A setting of these 13 cards that forms three straights or three flushes, or None.

    The setting returned is never fouled: the stronger five-card row goes to the back.
    """
    straights = special == "three_straights"
    front_ok = (
        (lambda f: front_straight_top(f) > 0)
        if straights
        else (lambda f: len({c.suit for c in f}) == 1)
    )
    cards = list(cards)
    fives = _straight_fives(cards) if straights else _flush_fives(cards)
    for i, first in enumerate(fives):
        used = set(first)
        for second in fives[i + 1 :]:
            if used.intersection(second):
                continue
            front = tuple(c for c in cards if c not in used and c not in second)
            if front_ok(front):
                a, b = evaluate(first), evaluate(second)
                back, middle = (a, b) if a.strength >= b.strength else (b, a)
                return back.cards, middle.cards, evaluate(front).cards
    return None


def available(cards: Sequence[Card], preset: Preset) -> list[str]:
    """The specials these 13 cards can form that the preset pays, highest first."""
    found = []
    for special in SPECIALS:
        if not preset.pays(special):
            continue
        if special == "dragon" and is_dragon(cards):
            found.append(special)
        elif special == "six_pairs" and is_six_pairs(cards):
            found.append(special)
        elif special in ("three_straights", "three_flushes") and find_setting(cards, special):
            found.append(special)
    return found


def _same_key(special: str, setting: Setting) -> tuple[int, ...]:
    back, middle, front = setting
    if special == "six_pairs":
        return tuple(pair_ranks([*back, *middle, *front]))
    if special == "three_straights":
        return (evaluate(back).strength, evaluate(middle).strength, front_straight_top(front))
    if special == "three_flushes":
        return (evaluate(back).strength, evaluate(middle).strength, evaluate(front).strength)
    return ()  # dragon always ties


def special_order(special_a: str, special_b: str) -> int:
    """+1 if special A outranks special B, -1 if B outranks A, 0 for the same special."""
    if special_a == special_b:
        return 0
    return 1 if SPECIAL_RANK[special_a] < SPECIAL_RANK[special_b] else -1


def compare_specials(
    special_a: str, setting_a: Setting, special_b: str, setting_b: Setting, preset: Preset
) -> int:
    """+1 if A's declared special beats B's, -1 if it loses, 0 if nobody pays."""
    if special_a != special_b:
        return special_order(special_a, special_b)
    if preset.same_special == "tie":
        return 0
    key_a, key_b = _same_key(special_a, setting_a), _same_key(special_b, setting_b)
    return (key_a > key_b) - (key_a < key_b)
