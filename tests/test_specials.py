"""Special hands (RULES §4): detection, ranking, same-special ties, and find_setting."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from capsa.cards import DECK, parse_cards
from capsa.hands import evaluate, is_fouled
from capsa.presets import CHINESE_POKER, INDOCAPSA, SAYAPOKER, SPECIALS, STANDARD
from capsa.specials import (
    SPECIAL_RANK,
    available,
    compare_specials,
    find_setting,
    front_straight_top,
    holds,
    is_dragon,
    is_six_pairs,
    is_three_flushes,
    is_three_straights,
    pair_ranks,
)


def cards(text: str):
    return parse_cards(text)


def setting(back: str, middle: str, front: str):
    return tuple(cards(back)), tuple(cards(middle)), tuple(cards(front))


DRAGON = "2S 3H 4D 5C 6S 7H 8D 9C TS JH QD KC AS"
SIX_PAIRS = "2S 2H 3S 3H 4S 4H 5S 5H 6S 6H 7S 7H 8D"


# --- dragon ---------------------------------------------------------------------------------


def test_dragon() -> None:
    assert is_dragon(cards(DRAGON))
    assert not is_dragon(cards("2S 3H 4D 5C 6S 7H 8D 9C TS JH QD KC KS"))  # no ace
    assert not is_dragon(cards("2S 2H 4D 5C 6S 7H 8D 9C TS JH QD KC AS"))  # no three
    # a dragon is a dragon however it is set
    assert holds("dragon", setting("2S 3H 4D 5C 6S", "7H 8D 9C TS JH", "QD KC AS"))
    assert holds("dragon", setting("AS KC QD JH TS", "2S 3H 4D 5C 6S", "7H 8D 9C"))


# --- six pairs --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (SIX_PAIRS, True),
        ("2S 2H 3S 3H 4S 4H 5S 5H 6S 6H 8D 9D TD", False),  # five pairs
        # four of a kind counts as two pairs: 2222 = 2, + 33 44 55 66 = 6
        ("2S 2H 2D 2C 3S 3H 4S 4H 5S 5H 6S 6H 9D", True),
        # three of a kind counts as one pair: 222 = 1, + 33 44 55 66 = 5
        ("2S 2H 2D 3S 3H 4S 4H 5S 5H 6S 6H 9D TC", False),
        # trips + five pairs = six
        ("2S 2H 2D 3S 3H 4S 4H 5S 5H 6S 6H 7S 7H", True),
        # two trips + three pairs = five, not seven
        ("2S 2H 2D 3S 3H 3D 4S 4H 5S 5H 6S 6H 9D", False),
        # two quads + two pairs = six
        ("2S 2H 2D 2C 3S 3H 3D 3C 4S 4H 5S 5H 9D", True),
    ],
)
def test_six_pairs_counts_count_div_2(text: str, expected: bool) -> None:
    assert is_six_pairs(cards(text)) is expected
    back, middle, front = cards(text)[:5], cards(text)[5:10], cards(text)[10:]
    assert holds("six_pairs", (tuple(back), tuple(middle), tuple(front))) is expected


def test_pair_ranks() -> None:
    assert pair_ranks(cards("2S 2H 2D 2C 3S 3H 4S 4H 5S 5H 6S 6H 9D")) == [6, 5, 4, 3, 2, 2]
    assert pair_ranks(cards("2S 2H 2D 3S 3H 4S 4H 5S 5H 6S 6H 7S 7H")) == [7, 6, 5, 4, 3, 2]


# --- three straights ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (("9S TH JD QC KS", "4S 5H 6D 7C 8S", "AS 2H 3D"), True),  # A-2-3 front
        (("2S 3H 4D 5C 6S", "7H 8D 9C TS JH", "QD KC AS"), True),  # Q-K-A front
        (("2S 3H 4D 5C 6S", "7H 8D 9C TS JH", "KD AC 2H"), False),  # K-A-2 is not
        (("AS 2H 3D 4C 5S", "6H 7D 8C 9S TH", "JD QC KS"), True),  # wheel back
        (("9H TH JH QH KH", "4S 5S 6S 7S 8S", "2D 3D 4D"), True),  # straight flushes count
        (("9S TH JD QC KS", "4S 5H 6D 7C 8S", "AS 2H 4D"), False),  # front gap
        (("9S TH JD QC KS", "4S 5H 6D 7C 9H", "AS 2H 3D"), False),  # middle not straight
        (("9S TH JD QC AS", "4S 5H 6D 7C 8S", "AH 2H 3D"), False),  # back not straight
        (("9S TH JD QC KS", "4S 5H 6D 7C 8S", "3S 3H 4D"), False),  # front pair
    ],
)
def test_three_straights(rows, expected: bool) -> None:
    assert is_three_straights(setting(*rows)) is expected
    assert holds("three_straights", setting(*rows)) is expected


def test_front_straight_top() -> None:
    assert front_straight_top(cards("AS 2H 3D")) == 3
    assert front_straight_top(cards("QS KH AD")) == 14
    assert front_straight_top(cards("4S 5H 6D")) == 6
    assert front_straight_top(cards("KS AH 2D")) == 0
    assert front_straight_top(cards("4S 4H 5D")) == 0


# --- three flushes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (("2S 5S 8S JS KS", "3H 6H 9H QH AH", "4D 7D TD"), True),
        (("2S 5S 8S JS KS", "3S 6S 9S QS AS", "4S 7S TS"), True),  # all one suit
        (("9H TH JH QH KH", "3S 6S 9S QS AS", "4D 7D TD"), True),  # straight flush counts
        (("2S 5S 8S JS KS", "3H 6H 9H QH AH", "4D 7D TC"), False),  # front mixed
        (("2S 5S 8S JS KH", "3H 6H 9H QH AH", "4D 7D TD"), False),  # back mixed
        (("2S 5S 8S JS KS", "3H 6H 9H QH AD", "4D 7D TD"), False),  # middle mixed
    ],
)
def test_three_flushes(rows, expected: bool) -> None:
    assert is_three_flushes(setting(*rows)) is expected
    assert holds("three_flushes", setting(*rows)) is expected


def test_three_straights_and_flushes_depend_on_the_setting() -> None:
    good = setting("9S TH JD QC KS", "4S 5H 6D 7C 8S", "AS 2H 3D")
    bad = setting("9S TH JD QC AS", "4S 5H 6D 7C 8S", "KS 2H 3D")  # same 13 cards
    assert sorted(c for row in good for c in row) == sorted(c for row in bad for c in row)
    assert holds("three_straights", good) and not holds("three_straights", bad)


# --- ranking between specials ----------------------------------------------------------------


def test_special_ranking() -> None:
    assert SPECIALS == ("dragon", "six_pairs", "three_straights", "three_flushes")
    assert [SPECIAL_RANK[s] for s in SPECIALS] == [1, 2, 3, 4]
    dummy = setting("2S 3H 4D 5C 6S", "7H 8D 9C TS JH", "QD KC AS")
    for preset in (STANDARD, INDOCAPSA, CHINESE_POKER):
        for i, high in enumerate(SPECIALS):
            for low in SPECIALS[i + 1 :]:
                assert compare_specials(high, dummy, low, dummy, preset) == 1
                assert compare_specials(low, dummy, high, dummy, preset) == -1


# --- the same special twice ---------------------------------------------------------------------

SIX_HIGH = setting("AS AH KS KH QS", "QH JS JH TS TH", "9S 9H 2C")
SIX_LOW = setting("AD AC KD KC QD", "QC JD JC TD TC", "8S 8H 2D")  # 9s replaced by 8s
STRAIGHTS_A = setting("9S TH JD QC KS", "4S 5H 6D 7C 8S", "AS 2H 3D")
STRAIGHTS_B = setting("8H 9D TC JS QS", "5D 6C 7H 8D 9H", "QD KC AH")  # lower back
STRAIGHTS_C = setting("9H TD JC QS KH", "4H 5D 6C 7D 8H", "QD KC AH")  # same back/middle
FLUSHES_A = setting("2S 5S 8S JS KS", "3H 6H 9H QH AH", "4D 7D TD")
FLUSHES_B = setting("2C 5C 8C JC AC", "3D 6D 9D QD KD", "4H 7H TH")  # higher back
DRAGON_A = setting("2S 3H 4D 5C 6S", "7H 8D 9C TS JH", "QD KC AS")
DRAGON_B = setting("2H 3D 4C 5S 6H", "7D 8C 9S TH JD", "QC KS AH")


@pytest.mark.parametrize(
    ("special", "a", "b", "compared"),
    [
        ("six_pairs", SIX_HIGH, SIX_LOW, 1),
        ("three_straights", STRAIGHTS_A, STRAIGHTS_B, 1),  # back K > Q decides
        ("three_straights", STRAIGHTS_C, STRAIGHTS_A, 1),  # equal back and middle: front A > 3
        ("three_flushes", FLUSHES_A, FLUSHES_B, -1),
        ("dragon", DRAGON_A, DRAGON_B, 0),  # dragon always ties
    ],
)
def test_same_special_tie_or_compare(special, a, b, compared: int) -> None:
    assert holds(special, a) and holds(special, b)
    for preset in (STANDARD, SAYAPOKER):
        assert compare_specials(special, a, special, b, preset) == 0  # tie
    for preset in (INDOCAPSA, CHINESE_POKER):
        assert compare_specials(special, a, special, b, preset) == compared
        assert compare_specials(special, b, special, a, preset) == -compared


def test_same_three_straights_compare_back_before_middle() -> None:
    # A has the higher back but the lower middle: the back decides
    a = setting("9S TH JD QC KS", "2S 3H 4D 5C 6S", "7H 8D 9C")
    b = setting("8H 9D TC JS QS", "3D 4C 5H 6D 7C", "AH 2C 3C")
    assert holds("three_straights", a) and holds("three_straights", b)
    assert compare_specials("three_straights", a, "three_straights", b, INDOCAPSA) == 1


# --- find_setting and available -------------------------------------------------------------


def _check_found(hand, special: str) -> None:
    found = find_setting(hand, special)
    assert found is not None
    back, middle, front = found
    assert (len(back), len(middle), len(front)) == (5, 5, 3)
    assert Counter([*back, *middle, *front]) == Counter(hand)
    assert holds(special, found)
    assert not is_fouled(evaluate(back), evaluate(middle), evaluate(front))


@pytest.mark.parametrize(
    ("text", "special"),
    [
        # three straights hidden in a sorted hand
        ("AS 2H 3D 4S 5H 6D 7C 8S 9S TH JD QC KS", "three_straights"),
        ("2S 3H 4D 5C 6S 7H 8D 9C TS JH QD KC AS", "three_straights"),
        # two straights that share ranks: 3-7 twice and 8-9-T
        ("3S 4S 5S 6S 7S 3H 4H 5H 6H 7D 8D 9D TD", "three_straights"),
        # the front must be Q-K-A: 2-6, 7-J, QKA
        ("2C 3C 4C 5C 6D 7D 8D 9D TH JH QH KS AS", "three_straights"),
        # flushes: 8 spades + 5 hearts, 10 spades + 3 hearts, one suit throughout
        ("2S 3S 4S 5S 6S 7S 8S 9S 2H 3H 4H 5H 6H", "three_flushes"),
        ("2S 3S 4S 5S 6S 7S 8S 9S TS JS 2H 3H 4H", "three_flushes"),
        ("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS", "three_flushes"),
        ("2S 3S 4S 5S 6S 2H 3H 4H 5H 6H 2D 3D 4D", "three_flushes"),
    ],
)
def test_find_setting_finds_one(text: str, special: str) -> None:
    hand = cards(text)
    random.Random(len(text)).shuffle(hand)
    _check_found(hand, special)


@pytest.mark.parametrize(
    ("text", "special"),
    [
        (SIX_PAIRS, "three_straights"),
        (SIX_PAIRS, "three_flushes"),  # suits 6/6/1: the lone diamond cannot be placed
        # only K-A-2 could be the front, and it does not count: 3-7, 3-7 and K A 2
        ("3S 4S 5S 6S 7S 3H 4H 5H 6H 7H KD AC 2D", "three_straights"),
        # 4 suits 4/3/3/3
        ("2S 3S 4S 5S 6H 7H 8H 9D TD JD QC KC AC", "three_flushes"),
        # 12 spades and one heart: the heart cannot sit in a flush front
        ("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AH", "three_flushes"),
    ],
)
def test_find_setting_none(text: str, special: str) -> None:
    assert find_setting(cards(text), special) is None


def test_find_setting_finds_crafted_three_flushes() -> None:
    """On crafted three-flush hands (a 5, a 5 and a 3 of random suits) it never misses."""
    rng = random.Random(11)
    for _ in range(30):
        suits = [rng.randrange(4) for _ in range(3)]
        pool = {s: [c for c in DECK if c.suit == s] for s in range(4)}
        for s in pool.values():
            rng.shuffle(s)
        hand = []
        for suit, size in zip(suits, (5, 5, 3), strict=True):
            hand += [pool[suit].pop() for _ in range(size)]
        rng.shuffle(hand)
        _check_found(hand, "three_flushes")


def _exhaustive(hand, special: str) -> bool:
    """Every pair of disjoint five-card rows from all 1,287 five-card subsets, leaving a
    three-card front: is one split three straights / three flushes?"""
    shape = is_three_straights if special == "three_straights" else is_three_flushes
    one = "straight" if special == "three_straights" else "flush"
    fives = [f for f in combinations(hand, 5) if one in evaluate(f).category]
    for a, b in combinations(fives, 2):
        if set(a).isdisjoint(b):
            front = tuple(c for c in hand if c not in a and c not in b)
            if shape((a, b, front)) or shape((b, a, front)):
                return True
    return False


def _near_special(rng: random.Random, special: str, deck: list) -> list:
    """13 cards drawn where the special is common: two suits, or a narrow band of ranks."""
    rng.shuffle(deck)
    if special == "three_flushes":
        suits = {deck[0].suit, deck[1].suit}
        return [c for c in deck if c.suit in suits][:13]
    while True:  # two five-card runs and a three-card run, then half the time one card swapped
        hand = set()
        for size in (5, 5, 3):
            low = rng.randint(2, 15 - size)
            hand |= {rng.choice([c for c in deck if c.rank == r]) for r in range(low, low + size)}
        if len(hand) == 13:
            break
    hand = list(hand)
    if rng.random() < 0.5:
        hand[rng.randrange(13)] = rng.choice([c for c in deck if c not in hand])
    return hand


@pytest.mark.parametrize("special", ["three_straights", "three_flushes"])
def test_find_setting_never_misses_against_an_exhaustive_search(special: str) -> None:
    rng = random.Random(23)
    deck = list(DECK)
    found = 0
    for _ in range(40):
        hand = _near_special(rng, special, deck)
        expected = _exhaustive(hand, special)
        assert (find_setting(hand, special) is not None) == expected, hand
        found += expected
    assert 0 < found < 40  # the sample holds both answers


def test_available() -> None:
    dragon = cards(DRAGON)
    assert available(dragon, STANDARD) == ["dragon", "three_straights"]
    assert available(dragon, SAYAPOKER) == ["dragon"]
    assert available(cards(SIX_PAIRS), STANDARD) == ["six_pairs"]
    assert available(cards(SIX_PAIRS), SAYAPOKER) == []
    flushes = cards("2S 5S 8S JS KS 3H 6H 9H QH AH 4D 7D 9D")
    assert available(flushes, INDOCAPSA) == ["three_flushes"]
    assert available(cards("2S 3S 4S 5S 6H 7H 8H 9D TD JD QC KC KD"), CHINESE_POKER) == []
