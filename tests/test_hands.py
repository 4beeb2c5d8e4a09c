"""Rows (RULES §2, §2.1, §3): categories, strengths, showdown ties, the foul check, names."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from capsa.cards import DECK, CapsaError, parse_cards
from capsa.hands import (
    ALL_CATEGORIES,
    CATEGORIES,
    compare,
    evaluate,
    foul_positions,
    is_fouled,
    lead_rank,
    level_of,
    strength3,
    strength5,
)
from capsa.names import category_name, position_name, row_name, special_name


def row(text: str):
    return evaluate(parse_cards(text))


def category_of(strength: int) -> str:
    level = level_of(strength)
    if CATEGORIES[level] == "straight_flush" and lead_rank(strength) == 14:
        return "royal_flush"
    return CATEGORIES[level]


# --- all 2,598,960 five-card hands ---------------------------------------------------------

KNOWN_COUNTS = {
    "royal_flush": 4,
    "straight_flush": 36,
    "four_of_a_kind": 624,
    "full_house": 3_744,
    "flush": 5_108,
    "straight": 10_200,
    "three_of_a_kind": 54_912,
    "two_pair": 123_552,
    "pair": 1_098_240,
    "high_card": 1_302_540,
}


@pytest.mark.slow
def test_every_five_card_hand() -> None:
    """Every one of the C(52, 5) hands is classified; strength5 is a pure function of
    (ranks, flush), so it is memoised on that key, but each hand is looked up on its own."""
    ranks_of = [c.rank for c in DECK]
    suits_of = [c.suit for c in DECK]
    memo: dict[tuple[tuple[int, ...], bool], int] = {}
    per_strength: Counter[int] = Counter()
    hands = 0
    for a, b, c, d, e in combinations(range(52), 5):
        ranks = (ranks_of[a], ranks_of[b], ranks_of[c], ranks_of[d], ranks_of[e])
        flush = suits_of[a] == suits_of[b] == suits_of[c] == suits_of[d] == suits_of[e]
        key = (ranks, flush)
        strength = memo.get(key)
        if strength is None:
            strength = memo[key] = strength5(ranks, flush)
        per_strength[strength] += 1
        hands += 1
    assert hands == 2_598_960
    by_category: Counter[str] = Counter()
    for strength, n in per_strength.items():
        by_category[category_of(strength)] += n
    assert dict(by_category) == KNOWN_COUNTS
    assert sum(by_category.values()) == 2_598_960
    assert len(per_strength) == 7_462  # distinct rank classes
    # hands per class: 4 suit patterns of a flush class, 1020 of a plain straight / high card
    assert per_strength[strength5((14, 13, 12, 11, 10), True)] == 4
    assert per_strength[strength5((14, 13, 12, 11, 10), False)] == 1020


def test_evaluate_agrees_with_strength5_and_names_categories() -> None:
    rng = random.Random(5)
    for _ in range(20_000):
        cards = rng.sample(DECK, 5)
        r = evaluate(cards)
        flush = len({c.suit for c in cards}) == 1
        assert r.strength == strength5([c.rank for c in cards], flush)
        assert r.category == category_of(r.strength)
        assert sorted(r.cards) == sorted(cards)
        assert r.key_card in cards


# --- an independent oracle: treys ----------------------------------------------------------


def _treys_card(card) -> int:
    from treys import Card as TreysCard

    return TreysCard.new(card.code[0] + card.code[1].lower())


def test_ordering_agrees_with_treys_on_200k_random_pairs() -> None:
    from treys import Evaluator

    evaluator = Evaluator()
    treys_of = {card: _treys_card(card) for card in DECK}
    rng = random.Random(20240601)
    disagreements = []
    seen = Counter()
    for _ in range(200_000):
        ten = rng.sample(DECK, 10)
        a, b = ten[:5], ten[5:]
        ours = evaluate(a).strength - evaluate(b).strength
        # treys: lower is better
        theirs = evaluator.evaluate([treys_of[c] for c in b[:2]], [treys_of[c] for c in b[2:]])
        theirs -= evaluator.evaluate([treys_of[c] for c in a[:2]], [treys_of[c] for c in a[2:]])
        mine, its = (ours > 0) - (ours < 0), (theirs > 0) - (theirs < 0)
        seen[mine] += 1
        if mine != its:
            disagreements.append((a, b))
    assert not disagreements[:5]
    assert seen[1] > 0 and seen[-1] > 0 and seen[0] > 0


def test_all_7462_classes_are_ordered_exactly_like_treys() -> None:
    """One representative per rank class (covers the rare categories the random pairs miss):
    sorting by our strength and by treys' rank must give the same order and the same ties."""
    from treys import Evaluator

    evaluator = Evaluator()
    treys_of = {card: _treys_card(card) for card in DECK}
    reps: dict[int, tuple] = {}
    seen_keys: set[tuple[tuple[int, ...], bool]] = set()
    for five in combinations(DECK, 5):
        key = (tuple(c.rank for c in five), len({c.suit for c in five}) == 1)
        if key in seen_keys:
            continue
        seen_keys.add(key)
        reps.setdefault(evaluate(five).strength, five)
        if len(reps) == 7462:
            break
    assert len(reps) == 7462
    theirs = {}
    for s, cards in reps.items():
        t = [treys_of[c] for c in cards]
        theirs[s] = evaluator.evaluate(t[:2], t[2:])
    ours_sorted = sorted(reps)
    treys_ranks = [theirs[s] for s in ours_sorted]
    # strictly decreasing treys rank (lower is better) as our strength increases
    assert all(x > y for x, y in zip(treys_ranks, treys_ranks[1:], strict=False))
    assert len(set(treys_ranks)) == 7462


# --- straights (RULES §2) -----------------------------------------------------------------


def test_wheel_is_the_lowest_straight_and_broadway_the_highest() -> None:
    wheel = row("AS 2H 3D 4C 5S")
    six = row("2S 3H 4D 5C 6S")
    broadway = row("TS JH QD KC AS")
    assert wheel.category == six.category == broadway.category == "straight"
    assert wheel.strength < six.strength < broadway.strength
    assert wheel.lead_rank == 5 and broadway.lead_rank == 14
    assert wheel.strength > row("AS AH AD 3C 2S").strength  # still beats trips
    # the wheel is shown 5-high
    assert [c.rank for c in wheel.cards] == [5, 4, 3, 2, 14]


@pytest.mark.parametrize("text", ["QS KH AD 2C 3S", "KS AH 2D 3C 4S", "JS QH KD AC 2S"])
def test_no_wrap_around(text: str) -> None:
    assert row(text).category == "high_card"


def test_straight_flushes_and_royal() -> None:
    steel_wheel = row("AH 2H 3H 4H 5H")
    assert steel_wheel.category == "straight_flush"
    assert steel_wheel.strength < row("2S 3S 4S 5S 6S").strength
    assert steel_wheel.strength > row("AS AH AD AC KS").strength
    royal = row("TH JH QH KH AH")
    assert royal.category == "royal_flush"
    assert royal.strength > row("9S TS JS QS KS").strength
    assert row("QH KH AH 2H 3H").category == "flush"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("AS KS QS JS TS", "royal_flush"),
        ("9D TD JD QD KD", "straight_flush"),
        ("7S 7H 7D 7C 2S", "four_of_a_kind"),
        ("7S 7H 7D 2C 2S", "full_house"),
        ("AS 9S 7S 4S 2S", "flush"),
        ("9S TD JH QC KS", "straight"),
        ("7S 7H 7D 3C 2S", "three_of_a_kind"),
        ("7S 7H 3D 3C 2S", "two_pair"),
        ("7S 7H 4D 3C 2S", "pair"),
        ("AS 9H 7D 4C 2S", "high_card"),
    ],
)
def test_five_card_categories(text: str, category: str) -> None:
    assert row(text).category == category
    assert category in ALL_CATEGORIES


@pytest.mark.parametrize(
    ("stronger", "weaker"),
    [
        ("7S 7H 7D 7C 2S", "6S 6H 6D 6C AS"),  # quads by the quad rank
        ("8S 8H 8D 2C 2S", "7S 7H 7D AC AS"),  # full house by the set
        ("AS 9S 7S 4S 3S", "AH 9H 7H 4H 2H"),  # flush card by card
        ("7S 7H 7D 4C 3S", "7S 7H 7C 4D 2S"),  # trips, then the others
        ("KS KH 3D 3C 2S", "QS QH JD JC AS"),  # two pair: high pair first
        ("KS KH 4D 4C 2S", "KD KC 3D 3H AS"),  # then the low pair
        ("KS KH 4D 4C 3S", "KD KC 4S 4H 2S"),  # then the odd card
        ("9S 9H AD 5C 3S", "9D 9C AS 5D 2S"),  # pair then kickers
        ("AS KH 9D 5C 3S", "AH KD 9C 5S 2S"),  # high card
    ],
)
def test_rank_comparisons_within_a_category(stronger: str, weaker: str) -> None:
    assert row(stronger).strength > row(weaker).strength


# --- three-card fronts ---------------------------------------------------------------------


def test_front_only_has_trips_pair_high_card() -> None:
    assert row("2S 2H 2D").category == "three_of_a_kind"
    assert row("AS AH KD").category == "pair"
    assert row("QS KS AS").category == "high_card"  # suited and in sequence: just high card
    assert row("2H 3H 4H").category == "high_card"
    assert row("2S 2H 2D").strength > row("AS AH KD").strength > row("QS KS AS").strength
    assert row("2S 2H 3D").strength > row("AS KS QS").strength
    assert row("AS AH 3D").strength > row("AD AC 2D").strength
    assert row("AS KH 3D").strength > row("AD KC 2D").strength
    assert strength3([14, 14, 3]) == row("AS AH 3D").strength


def test_row_needs_three_or_five_cards() -> None:
    with pytest.raises(CapsaError, match="4"):
        evaluate(parse_cards("AS KS QS JS"))


# --- showdown ties (RULES §2.1) ------------------------------------------------------------

MODES = ("key_card", "early", "none")


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        # same ranks, different suit: key card / early break it, none pushes
        ("AS KS 9S 7S 3S", "AH KH 9H 7H 3H", {"key_card": 1, "early": 1, "none": 0}),
        # early: a flush compares the suit first; the others compare ranks first
        ("AH KH 9H 7H 3H", "KS QS 9S 7S 3S", {"key_card": 1, "early": -1, "none": 1}),
        # same suit: early falls back on the cards
        ("AS KS 9S 7S 3S", "QS JS 8S 6S 2S", {"key_card": 1, "early": 1, "none": 1}),
        # pair: early looks only at the pair rank, then the key card's suit
        ("8H 8C AD KD QD", "8S 8D 5S 4C 3H", {"key_card": 1, "early": -1, "none": 1}),
        ("8H 8C AD KD QD", "8S 8D AS KS QS", {"key_card": -1, "early": -1, "none": 0}),
        ("9H 9C 2D 3D 4D", "8S 8D AS KS QS", {"key_card": 1, "early": 1, "none": 1}),
        # two pair: early compares only the highest pair
        ("KH KC 9D 9S 2D", "KS KD 3S 3C 2S", {"key_card": 1, "early": -1, "none": 1}),
        ("KH KC 9D 9S 2D", "KS KD 9H 9C 2S", {"key_card": -1, "early": -1, "none": 0}),
        # straights: top rank, then the key card (the top card)
        ("5S 6H 7D 8C 9H", "5H 6S 7C 8D 9S", {"key_card": -1, "early": -1, "none": 0}),
        # the wheel's key card is its 5, not its ace
        ("AS 2H 3D 4C 5D", "AD 2S 3C 4H 5S", {"key_card": -1, "early": -1, "none": 0}),
        ("6D 2S 3C 4H 5D", "AS 2H 3D 4C 5S", {"key_card": 1, "early": 1, "none": 1}),
        # high card: the top card's suit
        ("AS KH 9D 5C 3S", "AH KD 9C 5S 3D", {"key_card": 1, "early": 1, "none": 0}),
        # different categories: category first in every mode
        ("2S 2H 3D 3C 4S", "AS AH KD QC JS", {"key_card": 1, "early": 1, "none": 1}),
        ("AD 2D 3D 4D 5D", "KS QS JS 9S 8S", {"key_card": 1, "early": 1, "none": 1}),
        # fronts: trips, pairs and high cards
        ("AS AD 3C", "AH AC 3D", {"key_card": 1, "early": 1, "none": 0}),
        ("AS AC 2D", "AH AD KD", {"key_card": -1, "early": 1, "none": -1}),
        ("KS QS 2S", "KH QH 2H", {"key_card": 1, "early": 1, "none": 0}),
        ("2S 2H 2D", "AS AH KH", {"key_card": 1, "early": 1, "none": 1}),
    ],
)
def test_compare_modes(a: str, b: str, expected: dict[str, int]) -> None:
    ra, rb = row(a), row(b)
    for mode in MODES:
        assert compare(ra, rb, mode) == expected[mode], mode
        assert compare(rb, ra, mode) == -expected[mode], mode  # antisymmetric


def test_rules_example_2_front_key_card() -> None:
    """RULES §6 example 2: A♠ A♦ 3♣ against A♥ A♣ 3♦: A♠ is the best ace."""
    first, second = row("A♠ A♦ 3♣"), row("A♥ A♣ 3♦")
    assert first.key_card == parse_cards("AS")[0]
    assert compare(first, second, "key_card") == 1
    assert compare(first, second, "none") == 0


def test_key_card_is_the_best_suited_card_of_the_rank_that_matters() -> None:
    assert row("2S 2H KD KC 3S").key_card.code == "KC"  # highest pair, clubs > diamonds
    assert row("2S 2H 2D KC KS").key_card.code == "2S"  # the set of a full house
    assert row("9C 9H 9D 4C 4S").key_card.code == "9H"
    assert row("AS 2H 3D 4C 5D").key_card.code == "5D"  # the wheel's 5
    assert row("AD KS 9C 4C 2S").key_card.code == "AD"  # the top card
    assert row("7C 7D 7H 7S AS").key_card.code == "7S"


# --- the foul check (RULES §3) -------------------------------------------------------------


def rows3(back: str, middle: str, front: str):
    return row(back), row(middle), row(front)


def test_rules_section_3_examples() -> None:
    back = "2S 2H 2C 2D 9C"
    middle = "8♠ 8♥ KD QC JC"
    # front 8♣ 8♦ A♠ beats the middle on the kicker (A > K): fouled
    assert row("8C 8D AS").strength > row(middle).strength
    assert is_fouled(*rows3(back, middle, "8♣ 8♦ A♠"))
    # front 8♣ 8♦ K♠: equal over the front's cards: not fouled
    assert not is_fouled(*rows3(back, middle, "8♣ 8♦ K♠"))


@pytest.mark.parametrize(
    ("back", "middle", "front", "fouled"),
    [
        ("2S 2H 2C 2D 9C", "KS KH KD 5C 5D", "AS AH 3C", False),  # RULES §6 example 1, A
        ("KS KH KD 5C 5D", "2S 2H 2C 2D 9C", "AS AH 3C", True),  # middle beats back
        ("AS AH AD 5C 5D", "KS KH 4C 3D 2H", "QS QH QC", True),  # front trips over a pair
        ("AS AH AD 5C 5D", "KS KH 4C 3D 2H", "AC AD 3C", True),  # front pair higher
        ("QS QH QD 5C 5D", "AC KH 5S 4S 2H", "AD KD JD", True),  # J > 5 on the third card
        ("AS AH AD 5C 5D", "AC KH QC JS 9H", "AD KD QD", False),  # equal over AKQ
        ("AS AH AD 5C 5D", "AC KH QC JS 9H", "AD KD JD", False),
        ("AS AH AD 5C 5D", "7S 7H 7C 3S 2H", "KD KC QH", False),  # trips over a pair
        ("2S 3H 4D 5C 6S", "AS AH AD KC KD", "QH QD 3C", True),
        ("9S 9H 9D 2C 2D", "9C TS JS QS KS", "AS AD AH", False),  # a straight beats trips
        ("9S 9H 9D 2C 2D", "9C TS JS QS 2S", "AS AD AH", True),  # front trips over a pair
    ],
)
def test_foul_check(back: str, middle: str, front: str, fouled: bool) -> None:
    assert is_fouled(*rows3(back, middle, front)) is fouled
    assert bool(foul_positions(*rows3(back, middle, front))) is fouled


def test_foul_positions_name_the_rows_out_of_order() -> None:
    ok = ("AS AH AD 5C 5D", "KS KH 4C 3D 2H")
    assert foul_positions(*rows3(*ok, "QH JD 9C")) == frozenset()
    assert foul_positions(*rows3(*ok, "QS QH QC")) == {"middle", "front"}  # front over middle
    assert foul_positions(*rows3(*reversed(ok), "QH JD 9C")) == {"back", "middle"}
    # both broken: a weak back under a pair middle under a trips front
    both = foul_positions(*rows3("2S 3H 4D 6C 8S", "KS KH 4C 3D 2H", "QS QH QC"))
    assert both == {"back", "middle", "front"}


def test_suits_never_make_a_foul() -> None:
    # middle and back of equal ranks, the middle in better suits
    assert not is_fouled(*rows3("5D 6C 7D 8C 9D", "5S 6H 7S 8H 9S", "2C 3C 4D"))
    assert not is_fouled(*rows3("AC KC 9C 7C 3C", "AS KS 9S 7S 3S", "2D 4D 5H"))
    # front and middle of equal ranks, the front in better suits
    assert not is_fouled(*rows3("AS AH AD 5C 5D", "8H 8C KD QC JC", "8S 8D KS"))
    # and a hand in which every row is the same high-card shape
    assert not is_fouled(*rows3("AC KC 9D 7C 3C", "AD KD 9H 7D 3D", "AH KH 9C"))


# --- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "english", "indonesian"),
    [
        ("KS KH KD 5C 5D", "Full house, kings over fives", "Full house, King dengan 5"),
        ("AS AH 3C", "Pair of aces", "Sepasang As"),
        ("TS JS QS KS AS", "Royal flush", "Royal flush"),
        ("AS 2H 3D 4C 5D", "Straight, five high", "Straight, puncak 5"),
        ("5H 6H 7H 8H 9H", "Straight flush, nine high", "Straight flush, puncak 9"),
        ("QS QH QD QC 2S", "Four of a kind, queens", "Empat kembar Queen"),
        ("JS JH JD 2C 3S", "Three of a kind, jacks", "Tiga kembar Jack"),
        ("JS JH 2D 2C 3S", "Two pair, jacks and twos", "Dua pasang, Jack dan 2"),
        ("AS 9S 7S 4S 2S", "Flush, ace high", "Flush, puncak As"),
        ("KS 9H 7D 4C 2S", "High card, king", "Kartu tinggi King"),
        ("TS TH 4D", "Pair of tens", "Sepasang 10"),
        ("6S 6H 6D", "Three of a kind, sixes", "Tiga kembar 6"),
    ],
)
def test_row_names(text: str, english: str, indonesian: str) -> None:
    r = row(text)
    assert row_name(r) == english
    assert row_name(r, "en") == english
    assert row_name(r, "id") == indonesian


def test_category_position_special_names() -> None:
    assert category_name("two_pair") == "Two pair"
    assert category_name("two_pair", "id") == "Dua pasang"
    assert position_name("back") == "Back" and position_name("back", "id") == "Bawah"
    assert position_name("middle", "id") == "Tengah" and position_name("front", "id") == "Atas"
    assert special_name("dragon", "id") == "Naga"
    assert special_name("six_pairs") == "Six pairs"
    for category in ALL_CATEGORIES:
        assert category_name(category, "en") and category_name(category, "id")
