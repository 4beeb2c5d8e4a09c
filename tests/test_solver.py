"""The solver: enumeration, vectorised strengths, pruning, levels, specials, CLI, async."""

from __future__ import annotations

import asyncio
import concurrent.futures
import fnmatch
import io
import itertools
import json
import math
import pickle
import random
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest

from capsa.cards import DECK, CapsaError, deal, parse_cards
from capsa.cli import main
from capsa.hands import compare, evaluate, is_fouled, strength3, strength5
from capsa.presets import PRESETS, SPECIALS, get_preset
from capsa.scoring import Seat, score_round
from capsa.solver import Arrangement, arrange, arrange_async, check_hand
from capsa.solver import evaluator as ev
from capsa.solver import model as solver_model
from capsa.solver.build_tables import (
    SEED,
    SETTLE_ROUNDS,
    SETTLE_SCALE,
    SETTLE_WINDOW,
    build,
    iterations_for,
    normal_rows,
    strata_for,
    table_presets,
)
from capsa.solver.evaluator import THREE_STRAIGHT_RANKS, may_hold_special
from capsa.solver.model import (
    RowModel,
    best_special,
    declare_value,
    normal_best,
    normal_choice,
    normal_splits,
    ordinary_value,
    special_edge,
    special_odds,
    value_table,
)
from capsa.solver.monte_carlo import (
    HARD_OPPONENT_HANDS,
    HARD_STAGES,
    PRIOR_WEIGHT,
    after_fee,
    row_key,
    score_seat,
    set_hands,
    set_opponent,
    showdown_key,
    split_keys,
    subset_keys,
    surrender_points,
    top_candidates,
)
from capsa.specials import available, compare_specials, holds
from tests.test_specials import _near_special

ROOT = Path(__file__).resolve().parents[1]
STANDARD = get_preset("standard")
RUN = "import sys; from capsa.cli import main; sys.exit(main())"


def cards_of(text: str):
    return parse_cards(text)


def random_hands(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return [rng.permutation(52)[:13] for _ in range(n)]


def tricky_hands():
    """Quads, several trips, and all four specials."""
    texts = [
        "2S 2H 2D 2C 9S 9H 9D 9C KS KH 3D 4C 5S",  # two quads
        "AS AH AD KS KH KD QS QH QD 3C 4C 5C 7H",  # three trips
        "2S 3H 4D 5C 6S 7H 8D 9C TS JH QD KC AS",  # dragon
        "2S 2H 4D 4C 6S 6H 8D 8C TS TH QD QC AS",  # six pairs
        "AS 2S 3H 4D 5C 6S 7H 8D 9C TS 9D TD JD",  # three straights
        "2S 5S 7S 9S JS 3H 6H 8H TH QH 4D 7D KD",  # three flushes
        "AS KS QS JS TS AH KH QH JH TH AD KD QD",  # two royals
        "2S 2H 2D 2C 3S 3H 3D 3C 4S 4H 4D 4C 5S",  # three quads
    ]
    return [parse_cards(t) for t in texts]


# --- enumeration and strengths ------------------------------------------------------------


def test_enumeration_covers_every_split_once():
    assert len(ev.C5) == 1287 and len(ev.C3) == 286
    assert len(ev.SPLIT_A) * 2 == ev.N_SPLITS_ORDERED == 72072
    full = (1 << 13) - 1
    a, b, f = ev.MASK5[ev.SPLIT_A], ev.MASK5[ev.SPLIT_B], ev.MASK3[ev.SPLIT_F]
    assert ((a & b) == 0).all() and ((a & f) == 0).all() and ((a | b | f) == full).all()
    ordered = set(zip(a.tolist(), b.tolist(), strict=True)) | set(
        zip(b.tolist(), a.tolist(), strict=True)
    )
    assert len(ordered) == 72072


def test_vectorised_strengths_equal_capsa_hands():
    for idx in random_hands(30, seed=1):
        tables = ev.HandTables(idx)
        cards = [DECK[i] for i in np.sort(idx)]
        for k in range(0, 1287, 7):
            row = [cards[p] for p in ev.C5[k]]
            assert ev.STRENGTHS[tables.cls5[k]] == evaluate(row).strength
        for k in range(286):
            row = [cards[p] for p in ev.C3[k]]
            assert ev.STRENGTHS[tables.cls3[k]] == evaluate(row).strength


def test_scale_matches_strength_functions():
    assert ev.STRENGTHS[ev.class_of(strength5([14, 13, 12, 11, 10], True))] > 0
    assert ev.class_of(strength3([14, 14, 14])) > ev.class_of(strength5([13, 13, 13, 2, 3], False))


def test_fouled_splits_dropped_correctly():
    rng = np.random.default_rng(2)
    for idx in random_hands(10, seed=3):
        tables = ev.HandTables(idx)
        cards = [DECK[i] for i in np.sort(idx)]
        valid = set(tables.valid.tolist())
        for s in rng.choice(len(ev.SPLIT_A), 300, replace=False):
            a = evaluate([cards[p] for p in ev.C5[ev.SPLIT_A[s]]])
            b = evaluate([cards[p] for p in ev.C5[ev.SPLIT_B[s]]])
            f = evaluate([cards[p] for p in ev.C3[ev.SPLIT_F[s]]])
            unfouled = not is_fouled(a, b, f) or not is_fouled(b, a, f)
            assert (s in valid) == unfouled
        for k in rng.choice(len(tables.valid), 50, replace=False):
            rows = [[cards[p] for p in r] for r in tables.rows(int(k))]
            assert not is_fouled(*(evaluate(r) for r in rows))


def pareto_mask(back: np.ndarray, middle: np.ndarray, front: np.ndarray) -> np.ndarray:
    """True for splits not dominated by another (>= in every row, > in one).

    Equal strength triples are kept once (the first occurrence). Exact, O(n log n):
    a grid over (middle, front) ranks holding the best back, then a 2-D suffix maximum.
    """
    n = len(back)
    if n == 0:
        return np.zeros(0, dtype=bool)
    mu, mi = np.unique(middle, return_inverse=True)
    fu, fi = np.unique(front, return_inverse=True)
    grid = np.full((len(mu) + 1, len(fu) + 1), -1, dtype=np.int64)
    np.maximum.at(grid, (mi, fi), back)
    suffix = grid[::-1, ::-1]
    suffix = np.maximum.accumulate(np.maximum.accumulate(suffix, axis=0), axis=1)[::-1, ::-1]
    better_other = np.maximum(suffix[mi + 1, fi], suffix[mi, fi + 1])
    undominated = (better_other < back) & (grid[mi, fi] <= back)
    key = (back.astype(np.int64) << 28) | (middle.astype(np.int64) << 14) | front
    _, first = np.unique(key, return_index=True)
    keep = np.zeros(n, dtype=bool)
    keep[first] = True
    return undominated & keep


def pareto_candidates(tables: ev.HandTables) -> np.ndarray:
    """All Pareto-undominated valid splits (exact)."""
    return np.flatnonzero(pareto_mask(tables.back, tables.middle, tables.front))


def test_pareto_never_drops_the_best_split():
    for idx in random_hands(200, seed=4):
        tables = ev.HandTables(idx)
        best, values = normal_choice(tables, STANDARD, 3)
        front = pareto_candidates(tables)
        assert values[front].max() == pytest.approx(values[best])
        top = top_candidates(tables, STANDARD, values, 6)
        assert values[top[0]] == pytest.approx(values[best])


def test_top_candidates_bring_the_suits_that_win_ties():
    """With the showdown keys, each strength triple comes with its splits that no other
    split of the same triple beats in every row, best triples first."""
    for idx in random_hands(40, seed=16):
        tables = ev.HandTables(idx)
        _, values = normal_choice(tables, STANDARD, 3)
        plain = top_candidates(tables, STANDARD, values, 6)
        keys = subset_keys(tables, "key_card")
        suits = top_candidates(tables, STANDARD, values, 6, keys)
        triple = (
            (tables.back.astype(np.int64) << 28) | (tables.middle.astype(np.int64) << 14)
        ) | tables.front
        assert list(dict.fromkeys(triple[suits].tolist())) == triple[plain].tolist()
        rows = split_keys(tables, keys, suits)
        every = np.flatnonzero(np.isin(triple, triple[plain]))
        others = split_keys(tables, keys, every)
        for row, t in zip(rows, triple[suits], strict=True):
            same = others[triple[every] == t]
            assert not ((same >= row).all(axis=1) & (same > row).any(axis=1)).any()


@pytest.mark.parametrize("name", list(PRESETS))
def test_hard_candidates_are_undominated_in_the_presets_showdown_order(name):
    """No candidate of hard is beaten or tied in every row, by the preset's own showdown
    keys (sayapoker: suit-first flushes, pairs by their rank), by another valid split; and
    the candidates hold the best split by normal's values."""
    preset = PRESETS[name]
    for idx in random_hands(30, seed=17):
        tables = ev.HandTables(idx)
        best, values = normal_choice(tables, preset, 3)
        keys = subset_keys(tables, preset.suit_tiebreak)
        cands = top_candidates(tables, preset, values, 6, keys)
        rows = split_keys(tables, keys, np.arange(len(tables.valid)))
        for c in cands:
            assert not ((rows >= rows[c]).all(axis=1) & (rows > rows[c]).any(axis=1)).any()
        assert values[cands].max() == pytest.approx(values[best])


def _showdown_class(row, tiebreak) -> int:
    flush = -1 if row.flush_suit is None else row.flush_suit
    order = ev.showdown_classes(tiebreak)
    return int(order.of_rows(np.array([ev.class_of(row.strength)]), np.array([flush]))[0])


def test_a_splits_rows_have_their_own_subsets_showdown_classes():
    """HandTables.showdown gives each valid split's rows the showdown classes of their own
    subsets: under ``early`` a flush back or middle by its suit (the flushes are one run of
    classes, FLUSH_RUN)."""
    flushes = np.flatnonzero(ev.LEVEL == 5)
    assert np.array_equal(flushes, np.arange(ev.FLUSH_RUN[0], ev.FLUSH_RUN[1] + 1))
    rng = np.random.default_rng(5)
    for n in range(24):
        suit = np.arange(n % 4, 52, 4)  # 6 to 9 cards of one suit: flushes in both rows
        held = rng.choice(suit, 6 + n % 4, replace=False)
        rest = rng.choice(np.setdiff1d(np.arange(52), held), 13 - len(held), replace=False)
        tables = ev.HandTables(np.concatenate([held, rest]))
        for tiebreak in ("early", "key_card"):
            sd5, sd3, back, middle, front = tables.showdown(tiebreak)
            k = np.arange(len(tables.valid))
            assert np.array_equal(back, sd5.take(tables.back_subset(k)))
            assert np.array_equal(middle, sd5.take(tables.middle_subset(k)))
            assert np.array_equal(front, sd3.take(tables.front_subset(k)))


@pytest.mark.parametrize("tiebreak", ["key_card", "early", "none"])
def test_showdown_classes_order_rows_as_the_showdown_does(tiebreak):
    """A row of a higher showdown class beats one of a lower class; rows of one class are
    told apart by the key card's suit alone (or pushed under ``none``): under ``early`` a
    flush's suit comes before its ranks and pairs compare their pair's rank only."""
    rng = random.Random(23)
    deck = list(DECK)
    rows = [evaluate(rng.sample(deck, rng.choice((3, 5)))) for _ in range(1500)]
    rows += [evaluate(rng.sample([c for c in deck if c.suit == s], 5)) for s in range(4)] * 40
    classes = [_showdown_class(r, tiebreak) for r in rows]
    order = ev.showdown_classes(tiebreak)
    assert order.identity == (tiebreak != "early")
    seen_equal = 0
    for _ in range(6000):
        i, j = rng.randrange(len(rows)), rng.randrange(len(rows))
        a, b = rows[i], rows[j]
        if classes[i] != classes[j]:
            assert compare(a, b, tiebreak) == (1 if classes[i] > classes[j] else -1), (a, b)
        elif tiebreak == "none":
            seen_equal += 1
            assert compare(a, b, tiebreak) == 0
        else:
            seen_equal += 1
            assert compare(a, b, tiebreak) == (a.key_card.suit > b.key_card.suit) - (
                a.key_card.suit < b.key_card.suit
            ), (a, b)
    assert seen_equal


def test_pareto_mask_against_brute_force():
    rng = np.random.default_rng(5)
    for _ in range(30):
        n = 200
        b, m, f = (rng.integers(0, 12, n) for _ in range(3))
        mask = pareto_mask(b, m, f)
        pts = list(zip(b.tolist(), m.tolist(), f.tolist(), strict=True))
        expected = set()
        for p in pts:
            if not any(q != p and all(x >= y for x, y in zip(q, p, strict=True)) for q in pts):
                expected.add(p)
        assert {pts[i] for i in np.flatnonzero(mask)} == expected
        assert mask.sum() == len(expected)


# --- levels -------------------------------------------------------------------------------


def check_arrangement(hand, a: Arrangement, preset):
    assert isinstance(a, Arrangement)
    rows = (a.back, a.middle, a.front)
    assert [len(r) for r in rows] == [5, 5, 3]
    assert sorted(c for r in rows for c in r) == sorted(hand)
    assert sorted(c for r in a.ordinary for c in r) == sorted(hand)
    assert not is_fouled(*(evaluate(r) for r in a.ordinary))
    assert (a.surrender_value is not None) == preset.surrender
    if a.surrender:
        assert a.declare is None and rows == a.ordinary
        assert a.expected == a.surrender_value
    elif a.declare is None:
        assert not is_fouled(*(evaluate(r) for r in rows))
        assert a.expected == pytest.approx(a.ordinary_expected)
    else:
        assert preset.pays(a.declare) and holds(a.declare, rows)
        assert a.declare == a.special and a.expected == a.special_value


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_levels_return_legal_settings_on_many_hands(level):
    hands = [[DECK[i] for i in idx] for idx in random_hands(1500, seed=6)] + tricky_hands()
    for n, hand in enumerate(hands):
        preset = list(PRESETS.values())[n % 4]
        check_arrangement(hand, arrange(hand, preset, level, opponents=1 + n % 3), preset)


def test_hard_returns_legal_settings():
    hands = [[DECK[i] for i in idx] for idx in random_hands(12, seed=7)] + tricky_hands()
    for n, hand in enumerate(hands):
        preset = list(PRESETS.values())[n % 4]
        check_arrangement(hand, arrange(hand, preset, "hard", opponents=1 + n % 3), preset)


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_determinism(level):
    hand = deal(4, seed=11)[1]
    a = arrange(hand, STANDARD, level, seed=5)
    assert arrange(list(reversed(hand)), STANDARD, level, seed=5) == a
    assert arrange(hand, STANDARD, level) == arrange(hand, STANDARD, level)


def test_normal_sets_an_obvious_hand():
    a = arrange(cards_of("AS KS QS JS TS 9H 9D 9C 2H 2D 5C 6C 7C"), STANDARD)
    assert evaluate(a.back).category == "royal_flush"
    assert evaluate(a.middle).category in ("three_of_a_kind", "full_house")


def test_bad_input_is_refused():
    with pytest.raises(CapsaError):
        arrange(cards_of("AS KS QS"), STANDARD)
    with pytest.raises(CapsaError):
        arrange(deal(2, seed=1)[0], STANDARD, level="impossible")
    with pytest.raises(CapsaError):
        arrange(deal(2, seed=1)[0], STANDARD, opponents=4)


# --- specials -----------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_a_dragon_is_declared_when_it_is_worth_more_than_the_rows(level):
    rng = np.random.default_rng(8)
    declared = 0
    tries = 4 if level == "hard" else 40
    for _ in range(tries):
        hand = [DECK[(r * 4) + int(rng.integers(4))] for r in range(13)]
        a = arrange(hand, STANDARD, level, opponents=int(rng.integers(1, 4)))
        assert a.special == "dragon"
        assert (a.declare == "dragon") == (a.special_value > a.ordinary_expected)
        if a.declare:
            assert holds("dragon", (a.back, a.middle, a.front))
        declared += a.declare == "dragon"
    assert declared >= tries * 3 // 4  # random suits: the rows are rarely worth 13 a head


# the example: a royal flush back and a straight flush middle are worth about +84
# against three opponents, more than the dragon's 39
ROYAL_DRAGON = "AS KS QS JS TS 9H 8H 7H 6H 5H 4D 3D 2D"


@pytest.mark.parametrize("level", ["normal", "hard"])
@pytest.mark.parametrize("preset_name", ["standard", "chinese-poker"])
def test_a_dragon_worth_less_than_its_rows_is_not_declared(level, preset_name):
    preset = get_preset(preset_name)
    a = arrange(cards_of(ROYAL_DRAGON), preset, level, opponents=3)
    assert a.special == "dragon" and a.declare is None
    assert a.special_value == pytest.approx(39.0, abs=0.05)
    assert a.ordinary_expected > (70 if preset_name == "standard" else 45)
    assert a.expected == a.ordinary_expected
    assert evaluate(a.back).category == "royal_flush"
    assert evaluate(a.middle).category == "straight_flush"
    # where the dragon pays more than the rows can, it is declared
    rich = arrange(cards_of(ROYAL_DRAGON), get_preset("indocapsa"), level, opponents=3)
    assert rich.declare == "dragon" and rich.special_value > 200 > rich.ordinary_expected


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_weak_specials_are_declared(level):
    for text, special in (
        ("2S 3H 4D 5C 6S 7H 8D 9C TS JH QD KC AS", "dragon"),
        ("2S 2H 4D 4C 6S 6H 8D 8C TS TH QD QC AS", "six_pairs"),
        ("2S 5S 7S 9S JS 3H 6H 8H TH QH 4D 7D KD", "three_flushes"),
    ):
        for preset in (STANDARD, get_preset("chinese-poker")):
            a = arrange(cards_of(text), preset, level, opponents=3)
            assert a.declare == special and a.special_value > a.ordinary_expected
            assert a.expected == a.special_value


def _points_against(preset, special: str, other: str | None) -> float:
    """What declaring ``special`` is paid by one opponent who declared ``other`` (None: who
    played rows), from capsa.specials as score_round settles it, for unequal specials."""
    if other is None:
        return preset.specials[special]
    order = compare_specials(special, (), other, (), preset)
    return order * preset.specials[special if order > 0 else other]


@pytest.mark.parametrize("name", list(PRESETS))
def test_declare_value_pays_as_the_rules_say(name):
    """Against an opponent certain to declare ``other``, declaring ``special`` is worth what
    score_round's comparison pays; the rows lose the other's value whatever they are."""
    preset = PRESETS[name]
    paid = [s for s in SPECIALS if preset.pays(s)]
    for special in paid:
        for other in paid:
            odds = {s: float(s == other) for s in paid}
            value = declare_value(preset, odds, special, edge=0.5)
            if other == special:  # the edge: P(ours is higher) - P(theirs is)
                assert value == pytest.approx(0.5 * preset.specials[special])
            else:
                assert value == _points_against(preset, special, other)
            assert ordinary_value(preset, odds, 10.0) == -preset.specials[other]
        none = dict.fromkeys(paid, 0.0)
        assert declare_value(preset, none, special, 0.0) == preset.specials[special]
        assert ordinary_value(preset, none, 10.0) == 10.0
    # two of the same special tie where the preset says so, and two dragons always
    hand = check_hand(cards_of("2S 2H 4D 4C 6S 6H 8D 8C TS TH QD QC AS"))
    edge = special_edge(hand, preset, "six_pairs")
    assert (edge == 0.0) == (preset.same_special == "tie")
    assert special_edge(hand, preset, "dragon") == 0.0


def test_special_odds_count_the_right_hands():
    """The rank shapes and suit shapes behind special_odds make the specials exactly when
    capsa.solver.evaluator finds them."""
    rng = random.Random(41)
    deck = list(DECK)
    shapes = {tuple(v) for v in THREE_STRAIGHT_RANKS.tolist()}
    for special in ("three_straights", "three_flushes"):
        for _ in range(60):
            hand = _near_special(rng, special, deck)
            idx = check_hand(hand)
            found = special in ev.find_specials(ev.HandTables(idx), STANDARD)
            if special == "three_straights":
                assert (tuple(np.bincount(idx // 4, minlength=13).tolist()) in shapes) == found
            else:
                suits = sorted(x for x in np.bincount(idx % 4, minlength=4).tolist() if x)
                assert (suits in ([13], [3, 10], [5, 8], [3, 5, 5])) == found


def test_six_pairs_counts_against_brute_force():
    """The six-pairs counts (and who has the higher pairs) against every hand of a small
    deck of unseen cards."""
    rng = np.random.default_rng(42)
    for _ in range(6):
        unseen = np.zeros(13, dtype=int)
        while unseen.sum() < 17:
            unseen[rng.integers(13)] = min(4, unseen[rng.integers(13)] + 1)
        mine = rng.integers(0, 3, 13)
        cards = [r for r in range(13) for _ in range(unseen[r])]  # ranks from the top
        counts = [0, 0, 0]
        for combo in itertools.combinations(range(len(cards)), 13):
            pairs = np.bincount([cards[i] for i in combo], minlength=13) // 2
            if pairs.sum() >= 6:
                diff = np.flatnonzero(pairs != mine)
                status = 0 if len(diff) == 0 else (1 if pairs[diff[0]] > mine[diff[0]] else 2)
                counts[status] += 1
        got = solver_model._six_pairs_hands(tuple(unseen.tolist()), tuple(mine.tolist()))
        assert list(got) == counts
        total = solver_model._six_pairs_hands(tuple(unseen.tolist()), None)
        assert total == (sum(counts),)


def test_special_odds_against_dealt_opponents():
    """special_odds (and the six-pairs edge) against opponents dealt from the unseen cards."""
    preset = get_preset("indocapsa")
    hand = check_hand(cards_of("2S 2H 4D 4C 6S 6H 8D 8C TS TH QD QC AS"))
    odds = special_odds(hand, preset)
    rng = np.random.default_rng(43)
    unseen = np.setdiff1d(np.arange(52), hand)
    seen = dict.fromkeys(odds, 0)
    signs = []
    deals = 6000
    mine = tuple(tuple(DECK[i] for i in row) for row in (hand[:5], hand[5:10], hand[10:]))
    for _ in range(deals):
        other = rng.permutation(unseen)[:13]
        declared = best_special(ev.find_specials(ev.HandTables(other), preset), preset)
        if declared is not None:
            seen[declared] += 1
        if declared == "six_pairs":
            theirs = tuple(
                tuple(DECK[i] for i in row) for row in (other[:5], other[5:10], other[10:])
            )
            signs.append(compare_specials("six_pairs", mine, "six_pairs", theirs, preset))
    for special, p in odds.items():
        se = np.sqrt(p * (1 - p) / deals)
        assert abs(seen[special] / deals - p) < 4 * se + 1e-4, (special, seen, odds)
    edge = special_edge(hand, preset, "six_pairs")
    assert -1 < edge < 0 and abs(np.mean(signs) - edge) < 0.5  # low pairs mostly lose
    assert special_edge(hand, STANDARD, "six_pairs") == 0.0  # standard: the same special ties


def test_special_the_preset_does_not_pay_is_not_declared():
    six = cards_of("2S 2H 4D 4C 6S 6H 8D 8C TS TH QD QC AS")
    assert arrange(six, STANDARD).declare == "six_pairs"
    saya = arrange(six, get_preset("sayapoker"))
    assert saya.declare is None and saya.special is None and saya.special_value is None


def test_three_flushes_and_straights_are_found_and_offered():
    flushes = cards_of("2S 5S 7S 9S JS 3H 6H 8H TH QH 4D 7D KD")
    a = arrange(flushes, STANDARD)
    # 3 from each of three opponents, less what an opponent's higher special costs
    assert a.special == "three_flushes" and 8.7 < a.special_value < 9.0
    straights = cards_of("AS 2S 3H 4D 5C 6S 7H 8D 9C TS 9D TD JD")
    b = arrange(straights, get_preset("indocapsa"))
    assert b.special == "three_straights" and b.declare == "three_straights"
    assert holds("three_straights", (b.back, b.middle, b.front))


def test_special_declared_only_when_worth_more():
    # three flushes that also make two strong rows: the rows may be worth more than 3 a head
    hand = cards_of("AS KS QS JS 9S AH KH QH JH 9H 2D 3D 4D")
    a = arrange(hand, STANDARD)
    assert a.special == "three_flushes"
    assert (a.declare is not None) == (a.special_value > a.ordinary_expected)


# --- exact scoring of the hard level ------------------------------------------------------


def test_showdown_keys_compare_like_capsa_hands():
    rng = np.random.default_rng(9)
    for tiebreak in ("key_card", "early", "none"):
        for _ in range(1500):
            idx = rng.permutation(52)[:10]
            size = 5 if rng.random() < 0.7 else 3
            a = evaluate([DECK[i] for i in idx[:size]])
            b = evaluate([DECK[i] for i in idx[5 : 5 + size]])
            expected = compare(a, b, tiebreak)
            ka, kb = row_key(a, tiebreak), row_key(b, tiebreak)
            assert (ka > kb) - (ka < kb) == expected


def test_subset_keys_match_row_keys():
    for idx in random_hands(5, seed=10):
        tables = ev.HandTables(idx)
        cards = [DECK[i] for i in np.sort(idx)]
        for tiebreak in ("key_card", "early", "none"):
            k5, k3 = subset_keys(tables, tiebreak)
            for k in range(0, 1287, 37):
                assert k5[k] == row_key(evaluate([cards[p] for p in ev.C5[k]]), tiebreak)
            for k in range(0, 286, 11):
                assert k3[k] == row_key(evaluate([cards[p] for p in ev.C3[k]]), tiebreak)
    assert showdown_key(np.int64(5), np.int64(0), np.int64(0), 1, -1, "none") == 20


def _deal_with_specials(players: int, rng):
    """A deal where some hands hold a dragon or six pairs now and then."""
    deck = [int(i) for i in rng.permutation(52)]
    hands = []
    for _ in range(players):
        kind = rng.random()
        hand: list[int] = []
        if kind < 0.15:  # dragon: one card of each rank
            for r in range(13):
                options = [i for i in deck if i // 4 == r]
                if options:
                    hand.append(options[0])
        elif kind < 0.3:  # six pairs: two cards of six ranks, and one more card
            for r in rng.permutation(13):
                options = [i for i in deck if i // 4 == r]
                if len(options) >= 2 and len(hand) < 12:
                    hand += options[:2]
            hand += [i for i in deck if i not in hand][:1]
        if len(hand) != 13:
            hand = deck[:13]
        for i in hand:
            deck.remove(i)
        hands.append([DECK[i] for i in hand])
    return hands


# Every preset as shipped plus its table options switched the other way: the fast copies of
# the scoring rules (capsa.solver.monte_carlo.score_seat, surrender_points, after_fee,
# capsa.solver.model.RowModel) must agree with capsa.scoring.score_round under all of them.
VARIANTS = {
    **PRESETS,
    "chinese-poker 2-4": get_preset("chinese-poker", {"method": "2-4"}),
    "chinese-poker+surrender": get_preset("chinese-poker", {"surrender": True}),
    "chinese-poker 2-4+surrender": get_preset(
        "chinese-poker", {"method": "2-4", "surrender": True}
    ),
    "sayapoker+fee": get_preset("sayapoker", {"room_fee": True}),
}


def _sorted_cards(indices) -> list:
    return [DECK[i] for i in np.sort(np.asarray(indices))]


def _random_setting(hand, rng):
    """A random unfouled setting of the hand (weak ones too: sweeps and table sweeps)."""
    tables = ev.HandTables(np.array([c.index for c in hand]))
    cards = _sorted_cards(tables.indices)
    rows = tables.rows(int(rng.integers(len(tables.valid))))
    return tuple(tuple(cards[p] for p in row) for row in rows)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_vectorised_scoring_equals_score_round(name):
    """score_seat (or surrender_points for a surrendered seat), after after_fee, for every
    seat of random tables (2 to 4 players, settings by the solver or at random, specials
    declared, surrenders where the table allows them), equals score_round's totals."""
    preset = VARIANTS[name]
    values = value_table(preset)
    rng = np.random.default_rng(11)
    seen = {"sweep": 0, "table_sweep": 0, "special": 0, "two_specials": 0, "surrender": 0}
    for _ in range(120):
        players = int(rng.integers(2, 5))
        hands = _deal_with_specials(players, rng)
        seats = []
        for i, hand in enumerate(hands):
            a = arrange(hand, preset, "normal", opponents=players - 1)
            rows = (a.back, a.middle, a.front)
            if rng.random() < 0.5:
                rows = _random_setting(hand, rng)
            declare = a.special if a.special and holds(a.special, rows) else None
            surrender = preset.surrender and rng.random() < 0.2
            seats.append(
                Seat(f"P{i}", *rows, declare=None if surrender else declare, surrender=surrender)
            )
        result = score_round(seats, preset)
        seen["surrender"] += sum(p.kind == "surrender" for p in result.pairs)
        seen["sweep"] += sum(p.kind == "rows" and p.sweep is not None for p in result.pairs)
        seen["table_sweep"] += result.table_sweeper is not None
        seen["special"] += sum(p.kind == "special" for p in result.pairs)
        seen["two_specials"] += sum(
            p.kind == "special" and all(seats[q].declare for q in p.players) for p in result.pairs
        )

        def describe(seat):
            keys, vals = [], []
            for pos, row in enumerate(seat.setting):
                r = evaluate(row)
                keys.append(row_key(r, preset.suit_tiebreak))
                vals.append(values[pos, ev.CATEGORY[ev.class_of(r.strength)]])
            sp = SPECIALS.index(seat.declare) if seat.declare else -1
            return np.array(keys), np.array(vals), sp

        for me in range(players):
            others = [q for q in range(players) if q != me]
            mk, mv, ms = describe(seats[me])
            opp = [describe(seats[q]) for q in others]

            def sign(c, s, j, seats=seats, me=me, others=others):
                mine, other = seats[me], seats[others[j]]
                return compare_specials(
                    mine.declare, mine.setting, other.declare, other.setting, preset
                )

            gave_up = np.array([[seats[q].surrender for q in others]])
            if seats[me].surrender:
                got = surrender_points(preset, gave_up)[None]
            else:
                got = score_seat(
                    preset,
                    mk[None],
                    mv[None],
                    np.array([ms]),
                    np.array([[o[0] for o in opp]]),
                    np.array([[o[1] for o in opp]]),
                    np.array([[o[2] for o in opp]]),
                    sign,
                    gave_up,
                )
            assert got[0, 0] == pytest.approx(result.players[me].points), (me, seats)
            total = after_fee(preset, got)[0, 0]
            assert total == pytest.approx(result.players[me].total), (me, seats)
    # the test saw what it checks
    assert seen["sweep"] and seen["special"] and seen["two_specials"], seen
    assert bool(seen["surrender"]) == preset.surrender, seen
    if preset.table_sweep_multiplier is not None:
        assert seen["table_sweep"], seen


def _identical_opponents(opponents: int, preset, rng):
    """``opponents`` hands of the same ranks set the same way (by the solver or at random),
    with suits such that their rows are of one showdown class and no opponent sweeps
    another, and 13 of the other cards for the seat being solved."""
    per = 4 // opponents  # cards of a rank each opponent may hold
    while True:
        ranks = rng.choice(np.repeat(np.arange(13), per), 13, replace=False)
        suits = [list(rng.permutation(4)) for _ in range(13)]  # each rank's suits, dealt out
        hands = [[int(r) * 4 + int(suits[r].pop()) for r in ranks] for _ in range(opponents)]
        first = [DECK[i] for i in hands[0]]
        if rng.random() < 0.5:
            a = arrange(first, preset, "normal", opponents)
            layout = [[first.index(c) for c in row] for row in a.ordinary]
        else:
            order = [int(p) for p in rng.permutation(13)]
            layout = [order[:5], order[5:10], order[10:]]
        settings = [tuple(tuple(DECK[hand[p]] for p in row) for row in layout) for hand in hands]
        rows = [[evaluate(row) for row in setting] for setting in settings]
        classes = {tuple(_showdown_class(r, preset.suit_tiebreak) for r in seat) for seat in rows}
        sweeps = any(
            len({compare(a, b, preset.suit_tiebreak) for a, b in zip(x, y, strict=True)}) == 1
            and compare(x[0], y[0], preset.suit_tiebreak) != 0
            for i, x in enumerate(rows)
            for y in rows[i + 1 :]
        )
        if len(classes) == 1 and not is_fouled(*rows[0]) and not sweeps:
            break
    used = {i for hand in hands for i in hand}
    rest = [int(i) for i in rng.permutation(52) if int(i) not in used]
    return settings, np.array(rest[:13]), classes.pop()


@pytest.mark.parametrize("name", list(VARIANTS))
@pytest.mark.parametrize("opponents", [1, 2, 3])
def test_row_model_equals_score_round_against_known_opponents(name, opponents):
    """RowModel.split_ev is an expectation over opponents' rows; when those rows are certain
    (a table with one class per position, opponents all alike, so nobody but the solved seat
    can sweep) it must be exactly score_round's points per opponent, on every split whose
    rows the class order decides."""
    preset = VARIANTS[name]
    rng = np.random.default_rng(21 + opponents)
    checked = swept = sweeps = 0
    for _ in range(12):
        settings, mine, classes = _identical_opponents(opponents, preset, rng)
        counts = np.zeros((3, ev.showdown_classes(preset.suit_tiebreak).count))
        counts[np.arange(3), list(classes)] = 1.0
        joint = solver_model.joint_counts(np.array([classes]), counts)
        model = RowModel(preset, opponents, counts, sweep=0.0, joint=joint)
        tables = ev.HandTables(mine)
        back, middle, front = tables.showdown(preset.suit_tiebreak)[2:]
        expected = model.split_ev(back, middle, front)
        order = np.argsort(-expected)
        picks = np.concatenate([order[:10], order[-10:], rng.integers(len(order), size=20)])
        cards = _sorted_cards(mine)
        theirs = [evaluate(row) for row in settings[0]]
        for k in picks:
            ours = (back[k], middle[k], front[k])
            rows = tuple(tuple(cards[p] for p in row) for row in tables.rows(int(k)))
            decided = [
                compare(evaluate(row), other, preset.suit_tiebreak) == np.sign(int(c) - o)
                for row, other, c, o in zip(rows, theirs, ours, classes, strict=True)
            ]
            if any(int(c) == o for c, o in zip(ours, classes, strict=True)):
                continue  # a row of the same class: the model splits it, the showdown decides
            assert all(decided)  # showdown classes order rows as the showdown does
            seats = [Seat("me", *rows)]
            seats += [Seat(f"O{j}", *setting) for j, setting in enumerate(settings)]
            result = score_round(seats, preset)
            assert expected[k] * opponents == pytest.approx(result.players[0].points)
            checked += 1
            swept += result.pairs[0].sweep == 1
            sweeps += result.pairs[0].sweep == 0
    # (against three opponents the solved seat holds one card of each rank, as they do, and
    # none of its splits is swept by the opponents' setting: that case is seen with 1 or 2)
    assert checked >= 100 and sweeps and (swept or opponents == 3), (checked, swept, sweeps)


# --- the fast paths: many hands at once ------------------------------------------------


@pytest.mark.parametrize("opponents", [1, 2, 3])
def test_normal_splits_equal_normal_choice(opponents):
    """The back-by-back search for many hands finds normal_choice's split and value exactly
    (ties included), under every preset and option, both reading the stratum's table
    (by_hand=False: how hard's opponents are set); normal_best, pruning by the bound, finds
    normal_choice's split with the hand's own weights too."""
    hands = [np.array(idx) for idx in random_hands(150, seed=12 + opponents)]
    hands += [check_hand(hand) for hand in tricky_hands()]
    cards = np.sort(np.array(hands), axis=1)
    for preset in VARIANTS.values():
        choice, value, cls5, cls3 = normal_splits(cards, preset, opponents)
        for i, idx in enumerate(cards):
            tables = ev.HandTables(idx)
            best, values = normal_choice(tables, preset, opponents, by_hand=False)
            assert (choice[i], value[i]) == (tables.valid[best], values[best]), (preset, idx)
            assert (cls5[i] == tables.cls5).all() and (cls3[i] == tables.cls3).all()
            # one hand, valuing only the splits that can be best: the same split and value
            found = normal_best(tables, preset, opponents, by_hand=False)
            assert found == (best, values[best]), (preset, idx)
            best, values = normal_choice(tables, preset, opponents)
            assert normal_best(tables, preset, opponents) == (best, values[best]), (preset, idx)


@pytest.mark.parametrize("opponents", [1, 3])
def test_row_caps_bound_every_split(opponents):
    """RowModel.cap, the bound normal_best prunes by, is at least every split's value."""
    hands = [np.array(idx) for idx in random_hands(40, seed=30 + opponents)]
    hands += [check_hand(hand) for hand in tricky_hands()]
    for preset in VARIANTS.values():
        for idx in hands:
            tables = ev.HandTables(idx)
            _, _, back, middle, front = tables.showdown(preset.suit_tiebreak)
            for by_hand in (False, True):
                model = solver_model.model_for(idx, preset, opponents, by_hand, tables)
                caps = zip(model.cap, (back, middle, front), strict=True)
                bound = sum(c.take(r) for c, r in caps)
                assert (bound >= model.split_ev(back, middle, front) - 1e-12).all(), preset


@pytest.mark.parametrize("opponents", [1, 3])
def test_back_bounds_every_split(opponents):
    """normal_splits' bound of a back's splits (the rows' sum and RowModel.extra_bound),
    taken with a split's own middle and front as the strongest of their classes, is at
    least that split's value."""
    hands = [np.array(idx) for idx in random_hands(40, seed=40 + opponents)]
    hands += [check_hand(hand) for hand in tricky_hands()]
    for preset in VARIANTS.values():
        for idx in hands:
            model = solver_model.model_for(idx, preset, opponents, by_hand=False)
            fb, fm, ff = model.columns
            tables = ev.HandTables(idx)
            _, _, back, middle, front = tables.showdown(preset.suit_tiebreak)
            splits = np.arange(len(back))
            cm = tables.cls5[tables.middle_subset(splits)]
            cf = tables.cls3[tables.front_subset(splits)]
            rows = fb[solver_model.R][back] + fm[solver_model.R][middle] + ff[solver_model.R][front]
            extra = model.extra_bound(back, cm, cf)  # its rounding slack included
            assert (rows + extra >= model.split_ev(back, middle, front)).all(), preset


def test_may_hold_special_is_find_specials():
    rng = random.Random(13)
    deck = list(DECK)
    hands = [check_hand(h) for h in tricky_hands()]
    hands += [check_hand(_near_special(rng, s, deck)) for s in SPECIALS[2:] for _ in range(60)]
    hands += [np.array(idx) for idx in random_hands(300, seed=14)]
    rows = np.array(hands)
    for preset in PRESETS.values():
        expected = [bool(ev.find_specials(ev.HandTables(h), preset)) for h in hands]
        assert may_hold_special(rows, preset).tolist() == expected
        assert [ev._may_hold_one(h, preset) for h in hands] == expected  # find_specials' gate
    assert 0 < sum(expected) < len(hands)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_set_hands_equal_set_opponent(name):
    """Opponents set many at once are set exactly as one by one: rows, values, specials."""
    preset = VARIANTS[name]
    values = value_table(preset)
    rng = np.random.default_rng(15)
    hands = [check_hand(h) for _ in range(25) for h in _deal_with_specials(4, rng)]
    hands += [check_hand(h) for h in tricky_hands()]
    surrendered = False
    for opponents in (1, 3):
        seated = set_hands(np.array(hands), preset, opponents, values)
        surrendered |= bool(seated.surrender.any())
        for i, idx in enumerate(hands):
            one = set_opponent(idx, preset, opponents, values)
            assert (seated.keys[i] == one.keys).all() and (seated.vals[i] == one.vals).all()
            assert seated.special[i] == one.special
            assert seated.settings.get(i) == one.setting
            assert seated.surrender[i] == one.surrender
    assert (seated.special >= 0).any() or not preset.specials
    assert surrendered == preset.surrender  # the test saw a surrender where one is allowed


# --- the command line ---------------------------------------------------------------------


def run_cli(args, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    status = main(args, io.StringIO(stdin), out, err)
    return status, out.getvalue(), err.getvalue()


HAND = "AS KS QS JS TS 9H 9D 9C 2H 2D 5C 6C 7C"


def test_cli_arrange_prints_one_json_object():
    status, out, _ = run_cli(["arrange", *HAND.split()])
    assert status == 0
    data = json.loads(out)
    assert set(data) == {"back", "middle", "front", "declare", "expected"}
    assert data["back"] == ["AS", "KS", "QS", "JS", "TS"]
    assert len(data["middle"]) == 5 and len(data["front"]) == 3
    assert data["declare"] is None and isinstance(data["expected"], float)


def test_cli_arrange_options_and_special():
    status, out, _ = run_cli(
        [
            "arrange",
            "--rules",
            "indocapsa",
            "--level",
            "easy",
            "--opponents",
            "1",
            *"2S 3H 4D 5C 6S 7H 8D 9C TS JH QD KC AS".split(),
        ]
    )
    assert status == 0 and json.loads(out)["declare"] == "dragon"


def test_cli_arrange_batch():
    lines = f"{HAND}\n2s 3h 4d 5c 6s 7h 8d 9c 10s jh qd kc as\n"
    status, out, _ = run_cli(["arrange", "--batch"], lines)
    answers = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(answers) == 2 and answers[1]["declare"] == "dragon"
    status, out, err = run_cli(["arrange", "--batch"], f"{HAND}\nAS KS\n")
    assert status == 2 and "line 2" in err and len(out.splitlines()) == 2


@pytest.mark.parametrize(
    "cards",
    [
        HAND.split()[:12],
        HAND.split()[:12] + ["AS"],
        HAND.split()[:12] + ["ZZ"],
        [],
    ],
)
def test_cli_arrange_bad_input_exits_2(cards):
    status, out, err = run_cli(["arrange", *cards])
    assert status == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1


def test_cli_arrange_bad_options_exit_2():
    assert run_cli(["arrange", "--rules", "nope", *HAND.split()])[0] == 2
    assert run_cli(["arrange", "--opponents", "5", *HAND.split()])[0] == 2
    assert run_cli(["arrange", "--level", "godlike", *HAND.split()])[0] == 2


def test_cli_arrange_subprocess():
    proc = subprocess.run(
        [sys.executable, "-c", RUN, "arrange", *HAND.split()],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0 and json.loads(proc.stdout)["back"][0] == "AS"
    proc = subprocess.run(
        [sys.executable, "-c", RUN, "arrange", "AS", "AS"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


# --- async --------------------------------------------------------------------------------


async def test_async_entry_point_does_not_block_the_loop():
    hand = deal(4, seed=3)[0]
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        task = asyncio.ensure_future(arrange_async(hand, STANDARD, "hard", executor=pool))
        await asyncio.sleep(0)
        start = time.perf_counter()
        await asyncio.sleep(0.01)
        assert time.perf_counter() - start < 0.1
        result = await task
    assert result == arrange(hand, STANDARD, "hard")


async def test_async_entry_point_in_a_process_pool():
    hand = deal(4, seed=4)[0]
    with concurrent.futures.ProcessPoolExecutor(1) as pool:
        result = await arrange_async(
            hand, get_preset("chinese-poker", {"method": "2-4"}), executor=pool
        )
    assert result == arrange(hand, get_preset("chinese-poker", {"method": "2-4"}))


def test_presets_pickle_to_equal_frozen_presets():
    presets = [
        *PRESETS.values(),
        get_preset("chinese-poker", {"method": "2-4", "surrender": True}),
        get_preset("sayapoker", {"room_fee": True}),
    ]
    for preset in presets:
        copy = pickle.loads(pickle.dumps(preset))
        assert copy == preset and copy is not preset
        assert isinstance(copy.row_values, MappingProxyType)
        assert isinstance(copy.specials, MappingProxyType)


def test_every_preset_option_is_supported():
    hand = deal(4, seed=5)[2]
    for preset in (
        get_preset("chinese-poker", {"method": "2-4"}),
        get_preset("sayapoker", {"room_fee": True}),
    ):
        for level in ("easy", "normal"):
            check_arrangement(hand, arrange(hand, preset, level, 2), preset)


@pytest.mark.parametrize("special", ["three_straights", "three_flushes"])
def test_the_solver_and_the_builder_find_the_same_specials(special: str) -> None:
    """Two detectors exist (the solver's, on its tables, and capsa.specials for the hand
    builder): on hands where the specials are common they agree for every preset."""
    rng = random.Random(31)
    deck = list(DECK)
    found = 0
    for _ in range(40):
        hand = _near_special(rng, special, deck)
        found += special in available(hand, get_preset("standard"))
        for preset in PRESETS.values():
            tables = ev.HandTables(check_hand(hand))
            assert list(ev.find_specials(tables, preset)) == available(hand, preset), hand
    assert 0 < found < 40  # both answers occur


def test_the_package_ships_every_module_and_data_file() -> None:
    """``pip install .`` installs what the engine reads: every package of capsa/ is listed in
    pyproject.toml and every other file (row_tables.npz, fonts, catalogues) is package
    data of its package."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    packages = set(config["setuptools"]["packages"])
    data = config["setuptools"]["package-data"]
    for path in (ROOT / "capsa").rglob("*"):
        if path.is_dir() or "__pycache__" in path.parts:
            continue
        folder = path.parent.relative_to(ROOT)
        if path.suffix == ".py":
            assert ".".join(folder.parts) in packages, path
            continue
        owner = next(
            folder.parts[:n]
            for n in range(len(folder.parts), 0, -1)
            if ".".join(folder.parts[:n]) in packages
        )
        inside = path.relative_to(ROOT.joinpath(*owner)).as_posix()
        patterns = data.get(".".join(owner), [])
        assert any(fnmatch.fnmatch(inside, p) for p in patterns), path
    assert (ROOT / "capsa" / "solver" / "row_tables.npz").is_file()


# --- tables, surrender ----------------------------------------------------------------


def test_every_preset_method_and_table_size_has_its_own_table():
    """row_tables.npz ships a table for each preset, scoring method and table size, each
    learned on that table (its sweep chance and its opponents' rows differ), and each
    preset's model reads its own."""
    tables = solver_model.load_tables()
    expected = set(table_presets())
    assert set(tables) == expected and len(expected) == 15
    for name, (preset, players) in table_presets().items():
        table = tables[name]
        classes = ev.showdown_classes(preset.suit_tiebreak).count
        assert table.counts.shape == (strata_for(preset, players), 3, classes)
        assert (table.counts.sum(axis=-1) > 0).all()  # every stratum seen at every position
        assert 0.0 < table.sweep < 0.5
        assert solver_model.table_for(preset, players) is table
    standard = [tables[f"standard.{p}p"].sweep for p in (2, 3, 4)]
    assert len(set(standard)) == 3
    # surrender and the room fee change no row's value: they read their preset's table
    with_options = get_preset("chinese-poker", {"method": "2-4", "surrender": True})
    assert solver_model.table_for(with_options, 3) is tables["chinese-poker.2-4.3p"]
    fee = get_preset("sayapoker", {"room_fee": True})
    assert solver_model.table_for(fee, 2) is tables["sayapoker.2p"]


def test_stratified_tables_see_card_removal():
    """Where a table is learned per stratum of the hand's cards, its opponents' rows show
    the card removal the strata stand for: more pairs left unseen, stronger backs against
    the hand (at every count of high cards held); more high cards held, weaker fronts (at
    every count of pairs left). Classes are in showdown order, so a mean class is a
    strength."""
    stratified = 0
    for name, table in solver_model.load_tables().items():
        if table.strata == 1:
            continue
        stratified += 1
        counts = table.counts.reshape(3, 3, 3, -1)  # pairs left, high held, position
        mean = (counts * np.arange(counts.shape[-1])).sum(-1) / counts.sum(-1)
        assert (np.diff(mean[:, :, 0], axis=0) > 0).all(), name
        assert (np.diff(mean[:, :, 2], axis=1) < 0).all(), name
    assert stratified


def test_availability_counts_the_ways_the_unseen_cards_give_a_class():
    """A class's availability is the product over its ranks of C(unseen, needed): a pair of
    aces in front has C(4, 2) ways where the hand holds no ace, C(2, 2) where it holds two,
    none where it holds three; a king-high straight needs one of each of K Q J T 9."""
    order = ev.showdown_classes("key_card")
    pair_of_aces = ev.TAB3[2 * 256 + 14 * 16 + 14]  # 2 A A (ranks ascending), a front
    straight = ev.PLAIN5[9 * 16**4 + 10 * 16**3 + 11 * 16**2 + 12 * 16 + 13]
    holding = {
        "no ace": "2S 3H 4D 5C 6S 7H 8D 9C TS JH QD KC KS",
        "two aces": "AS AH 3D 4C 5S 6H 7D 8C TS JH QD KC 2S",
        "three aces": "AS AH AD 3C 4S 5H 6D 7C 9S TH QD KC 2C",
    }
    hands = {k: check_hand(parse_cards(v)) for k, v in holding.items()}
    ways = {k: solver_model.availability(idx, order) for k, idx in hands.items()}
    # the pair's kicker counts as well: each hand holds one 2, so 3 are unseen
    assert ways["no ace"][pair_of_aces] == 6 * 3
    assert ways["two aces"][pair_of_aces] == 1 * 3
    assert ways["three aces"][pair_of_aces] == 0
    # K Q J T 9 unseen: 2 1 3 3 3 (no ace), 2 3 3 3 4 (two aces)
    assert ways["no ace"][straight] == 2 * 3 * 3 * 3 * 3
    assert ways["two aces"][straight] == 3 * 3 * 3 * 3 * 4


@pytest.mark.parametrize("name", ["standard", "sayapoker", "chinese-poker"])
def test_a_hands_model_is_its_stratum_weighed_by_its_cards(name):
    """RowModel.for_hand sums only the classes its table has seen, yet gives, to the bit,
    the model of the stratum's counts times the hand's weights (availability over the
    stratum's average), at every class and at the hand's own classes alone (each once, as
    model_for gives them, or as often as its subsets hold them)."""
    preset = get_preset(name)
    order = ev.showdown_classes(preset.suit_tiebreak)
    for seed in range(3):
        idx = np.sort(np.random.default_rng(seed).permutation(52)[:13])
        model = solver_model.model_for(idx, preset, 2, by_hand=False)
        here, strata = model.stratum
        base = solver_model.availability_base(order, strata)[here]
        weighed = solver_model.RowModel(
            preset,
            2,
            model.counts * (solver_model.availability(idx, order) / base),
            0.0,
            model.joint,
            model.stratum,
        )
        sd5, sd3 = ev.HandTables(idx).showdown(preset.suit_tiebreak)[:2]
        n = order.count
        every = model.for_hand(idx)
        own = model.for_hand(idx, (sd5, sd3))
        once = model.for_hand(idx, (solver_model.distinct(sd5, n), solver_model.distinct(sd3, n)))
        for position, classes in enumerate((sd5, sd5, sd3)):
            for feature in range(5):
                want = weighed.columns[position][feature]
                assert np.array_equal(every.columns[position][feature], want)
                for hand in (own, once):
                    got = hand.columns[position][feature].take(classes)
                    assert np.array_equal(got, want.take(classes))
            want = weighed.win_at[position].take(classes)
            assert np.array_equal(own.win_at[position].take(classes), want)


def test_a_hand_with_trips_reads_its_own_cards():
    """A hand holding trips weighs its stratum's table by its own unseen cards: holding
    A A A K K K, no opponent can put a pair of aces or of kings in front, and its queen-high
    front wins more often than the stratum says (opponents hold fewer aces and kings). A
    hand without trips reads its stratum's table as it is."""
    preset = get_preset("standard")
    cards = "AS AH AD KS KH KD QS 9H 9D 6S 6D 3H 2H"
    idx = check_hand(parse_cards(cards))
    tables = ev.HandTables(idx)
    table = solver_model.model_for(idx, preset, 3, by_hand=False)
    own = solver_model.model_for(idx, preset, 3, tables=tables)
    assert own is not table
    # fronts by ranks ascending: no opponent can hold a pair of aces, so the hand's pair of
    # aces with a 2 in front wins as often as with a king (the stratum's table: less often)
    aces_2, aces_k = ev.TAB3[2 * 256 + 14 * 16 + 14], ev.TAB3[13 * 256 + 14 * 16 + 14]
    assert own.columns[2][solver_model.P][aces_2] == own.columns[2][solver_model.P][aces_k]
    assert table.columns[2][solver_model.P][aces_2] < table.columns[2][solver_model.P][aces_k]
    # nor a pair of kings: the best pair of kings wins and loses as often as a pair of aces
    # (the opponents' fronts between them are pairs of aces), where the table says less
    kings_a = ev.TAB3[13 * 256 + 13 * 16 + 14]
    for feature in (solver_model.P, solver_model.Q):
        assert own.columns[2][feature][kings_a] == own.columns[2][feature][aces_2]
    assert table.columns[2][solver_model.P][kings_a] < table.columns[2][solver_model.P][aces_2]
    queen_high = ev.TAB3[2 * 256 + 3 * 16 + 12]  # Q 3 2, the hand's own weakest front
    assert own.columns[2][solver_model.P][queen_high] > table.columns[2][solver_model.P][queen_high]
    plain = check_hand(parse_cards("AS AH KD KS QH 9H 9D 6S 6D 3H 2H 4C 7D"))
    assert solver_model.model_for(plain, preset, 3) is solver_model.model_for(
        plain, preset, 3, by_hand=False
    )


def test_the_shipped_tables_are_what_the_builder_writes_by_default():
    """Every table python -m capsa.build_tables names is shipped, built from the builder's
    seed over its iterations and strata for that preset and size (the same command writes
    the same tables)."""
    data = np.load(solver_model.TABLE_PATH)
    every = table_presets()
    assert sorted(str(n) for n in data["names"]) == sorted(every)
    for name, meta in zip(data["names"], data["meta"], strict=True):
        seed, iterations, _, players, strata = meta
        preset, table_players = every[str(name)]
        want = (SEED, iterations_for(preset), table_players, strata_for(preset, table_players))
        assert (seed, iterations, players, strata) == want, name


def test_build_learns_a_table_by_self_play():
    """A small build: per position, each hand's opponents' rows (two at three players) in
    the preset's showdown classes, summed over the last settling plays; per stratum of the
    hand's cards where it is learned so."""
    preset = get_preset("sayapoker")
    lines: list[str] = []
    table = build(preset, 3, iterations=1, hands=300, workers=1, log=lines.append)
    assert table.counts.shape == (1, 3, ev.showdown_classes("early").count)
    seen = 300 * SETTLE_SCALE * SETTLE_WINDOW * 2  # each hand's two opponents
    assert (table.counts.sum(axis=-1) == seen).all()
    bins = solver_model.JOINT_BINS
    # the joint is the settling window's plays, under the counts learned
    assert table.joint.shape == (bins, bins, bins)
    assert table.joint.sum() == seen
    assert 0.0 < table.sweep < 0.5
    assert len(lines) == 2 + SETTLE_ROUNDS and "table-to-play gap" in lines[1]
    assert all("settling" in line and "gap" in line for line in lines[2:])
    # per stratum: each hand's three opponents counted under the hand's stratum
    table = build(preset, 4, iterations=0, hands=800, workers=1, log=lines.append, strata=9)
    assert table.counts.shape == (9, 3, ev.showdown_classes("early").count)
    assert table.counts.sum() == 800 * SETTLE_SCALE * SETTLE_WINDOW * 3 * 3
    assert (table.counts.sum(axis=-1) > 0).all()


def test_unseen_stratum_counts_pairs_left_and_high_cards():
    """A hand's stratum: the pairs its unseen cards can make (C(unseen of a rank, 2) summed
    over ranks), cut at PAIRS_LEFT_CUTS, then its cards of rank J or better, cut at
    HIGH_HELD_CUTS."""
    rng = np.random.default_rng(8)
    hands = np.stack([rng.permutation(52)[:13] for _ in range(300)])
    hands[0] = np.arange(13) * 4  # one card of each rank: 39 pairs left, 4 high
    hands[1] = np.arange(13)  # 2222 3333 4444 5: 9 ranks untouched, 57 left, none high
    hands[2] = np.arange(39, 52)  # the top 13 cards: 6 x 9 + 3 pairs left, 13 high
    for hand, stratum in zip(hands, solver_model.unseen_stratum(hands), strict=True):
        ranks = [int(c) // 4 for c in hand]
        pairs = sum(math.comb(4 - ranks.count(r), 2) for r in range(13))
        high = sum(r >= 9 for r in ranks)
        want = 3 * sum(pairs >= c for c in (43, 45)) + sum(high >= c for c in (4, 5))
        assert stratum == want, (hand, pairs, high)
    assert solver_model.unseen_stratum(hands[:3]).tolist() == [1, 6, 8]
    assert solver_model.unseen_stratum(hands[0]) == 1  # one hand


def _weakest(preset, opponents: int, hands: int = 300):
    """The dealt hand with the lowest normal value (of ``hands`` dealt)."""
    best = None
    for seed in range(hands):
        hand = deal(4, seed=7000 + seed)[0]
        tables = ev.HandTables(check_hand(hand))
        value = float(normal_choice(tables, preset, opponents)[1].max())
        if best is None or value < best[0]:
            best = (value, hand)
    assert best is not None
    return best


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_a_hopeless_hand_is_surrendered_where_the_table_allows_it(level):
    preset = get_preset("chinese-poker", {"surrender": True})
    value, hand = _weakest(preset, 3)
    assert value < -preset.surrender_cost  # its rows lose more than the surrender costs
    a = arrange(hand, preset, level, 3)
    assert a.surrender and a.declare is None
    assert a.surrender_value is not None and a.expected == a.surrender_value
    assert -3 * preset.surrender_cost <= a.surrender_value <= 0
    assert a.surrender_value > a.ordinary_expected
    assert a.to_dict()["surrender"] is True
    check_arrangement(hand, a, preset)  # the rows it would have played are legal
    # the same hand where surrender is not allowed: rows, and no surrender in the output
    plain = arrange(hand, get_preset("chinese-poker"), level, 3)
    assert not plain.surrender and plain.surrender_value is None
    assert "surrender" not in plain.to_dict()


def test_hard_values_a_surrender_on_its_deals():
    """hard's surrender value is the surrender's price to each opponent who stays in on
    its deals (opponents set by normal surrender too), shrunk towards the price to all
    (the less, the more deals: HARD_STAGES' more where the choice is at risk)."""
    preset = get_preset("chinese-poker", {"method": "2-4", "surrender": True})
    for seed in range(6):
        hand = deal(4, seed=300 + seed)[0]
        a = arrange(hand, preset, "hard", 3)
        assert a.surrender_value is not None
        # the most it deals
        deals = (HARD_OPPONENT_HANDS + sum(hands for hands, _ in HARD_STAGES)) // 3
        assert -9.0 <= a.surrender_value <= -9.0 * PRIOR_WEIGHT / (deals + PRIOR_WEIGHT)
        assert a.surrender == (a.surrender_value > max(a.ordinary_expected, a.expected))


@pytest.mark.parametrize("name", list(PRESETS))
def test_normal_never_chooses_a_setting_its_showdown_order_dominates(name):
    """normal's values never fall as a row's showdown class rises, so a split that beats
    normal's in one row's class and ties it in the others is worth no more to it: under
    sayapoker a spade flush needs no ace to beat every other flush, and a pair no kicker.
    By the full showdown keys (the key card's suit too), few of its choices are dominated
    (equal values go to the lowest split)."""
    preset = PRESETS[name]
    dominated_by_keys = 0
    hands = random_hands(150, seed=31)
    for idx in hands:
        tables = ev.HandTables(idx)
        best, values = normal_choice(tables, preset, 3)
        sd = np.stack(tables.showdown(preset.suit_tiebreak)[2:], axis=1)
        above = (sd >= sd[best]).all(axis=1) & (sd > sd[best]).any(axis=1)
        # a split that dominates normal's is worth the same to it (classes no opponent's
        # row fell between), never more: the values are monotone in the showdown order
        assert (values[above] == values[best]).all()
        keys = split_keys(
            tables, subset_keys(tables, preset.suit_tiebreak), np.arange(len(tables.valid))
        )
        dominated_by_keys += (
            (keys >= keys[best]).all(axis=1) & (keys > keys[best]).any(axis=1)
        ).any()
    assert dominated_by_keys <= 0.08 * len(hands)  # was 21% under sayapoker (issue 22)


# --- the joint of an opponent's rows ------------------------------------------------------


def test_row_joint_without_a_joint_is_the_product_of_the_rows():
    """With no joint (the rows independent): all three below is the product of the three
    chances (exactly at the grid's points, to within its step between them), all three
    above the product of their complements."""
    joint = solver_model.RowJoint(None)
    grid = solver_model.JOINT_GRID
    x, y, z = np.random.default_rng(5).integers(0, grid + 1, (3, 200)) / grid
    assert joint.all_below(x, y, z) == pytest.approx(x * y * z, abs=1e-6)
    assert joint.all_above(x, y, z) == pytest.approx((1 - x) * (1 - y) * (1 - z), abs=1e-6)
    x, y, z = np.random.default_rng(6).random((3, 200))
    assert joint.all_below(x, y, z) == pytest.approx(x * y * z, abs=1.5 / grid)


def test_row_joint_reads_rows_that_move_together():
    """An opponent whose three rows always sit at the same mid-rank: all three fall below
    (x, x, x) as often as one does, not x ** 3; below (x, y, z) as often as the lowest
    (read at the cells' edges: within a cell its rows are spread evenly)."""
    bins = solver_model.JOINT_BINS
    cells = np.zeros((bins, bins, bins))
    cells[np.arange(bins), np.arange(bins), np.arange(bins)] = 1.0
    joint = solver_model.RowJoint(cells)
    x = np.linspace(0.0, 1.0, bins + 1)
    assert joint.all_below(x, x, x) == pytest.approx(x, abs=1e-6)
    assert joint.all_above(x, x, x) == pytest.approx(1 - x, abs=1e-6)
    at = np.array([0.25, 0.75, 0.5])
    assert joint.all_below(*at[:, None]) == pytest.approx([0.25], abs=1e-6)
    with pytest.raises(ValueError, match="16x16x16"):
        solver_model.RowJoint(np.ones((4, 4, 4)))


def test_joint_gives_the_sweep_chances_of_normal_play():
    """A model learned from 4,000 hands set by normal at four players (their rows' classes
    and joint, as build_tables counts them) gives the chance to sweep an opponent (win all
    three rows) and to be swept, for the 100 best splits of each of 6 hands, as 4,000
    other hands set the same way show them; the rows taken as independent are further off
    (an opponent's three rows are set from one hand, under one order)."""
    preset = get_preset("standard")
    shipped = solver_model.models_for(preset, 3)
    rng = np.random.default_rng(77)
    hands = np.stack([rng.permutation(52)[:13] for _ in range(8000)])
    learned, seen = np.split(normal_rows(hands, preset, shipped), 2)
    n = ev.showdown_classes(preset.suit_tiebreak).count
    counts = np.stack([np.bincount(learned[:, pos], minlength=n) for pos in range(3)])
    joint = solver_model.joint_counts(learned, counts)
    model = RowModel(preset, 3, counts.astype(np.float64), 0.1, joint)
    mid = solver_model.mid_ranks(counts)
    theirs = np.stack([mid[pos][seen[:, pos]] for pos in range(3)], axis=1)
    won, lost, p = [], [], []
    for hand in random_hands(6, seed=909):
        tables = ev.HandTables(np.array(hand))
        back, middle, front = tables.showdown(preset.suit_tiebreak)[2:]
        picks = np.argsort(-model.split_ev(back, middle, front))[:100]
        chances = model.sweeps(back[picks], middle[picks], front[picks])
        won.append(chances[0])
        lost.append(chances[1])
        mine = (back[picks], middle[picks], front[picks])
        p.append(np.stack([model.columns[i][solver_model.P].take(mine[i]) for i in range(3)], 1))
    won, lost, p = np.concatenate(won), np.concatenate(lost), np.concatenate(p)
    seen_won = (theirs[None, :, :] < p[:, None, :]).all(axis=2).mean(axis=1)
    seen_lost = (theirs[None, :, :] > p[:, None, :]).all(axis=2).mean(axis=1)
    joint_off = np.abs(won - seen_won).mean(), np.abs(lost - seen_lost).mean()
    product_off = (
        np.abs(p.prod(axis=1) - seen_won).mean(),
        np.abs((1 - p).prod(axis=1) - seen_lost).mean(),
    )
    assert max(joint_off) < 0.015, joint_off
    assert product_off[0] > 1.5 * joint_off[0] and product_off[1] > 1.5 * joint_off[1], (
        joint_off,
        product_off,
    )
