"""Scoring a round (RULES §4-§6): every worked example, and one hand-worked table per preset.

Every expected number below was worked out by hand from RULES.md (the arithmetic is in the
comments), never by running the engine.
"""

from __future__ import annotations

import json

import pytest

from capsa.cards import CapsaError, format_cards, parse_cards
from capsa.hands import evaluate, is_fouled
from capsa.presets import get_preset
from capsa.scoring import Seat, score_round


def seat(name, back="", middle="", front="", declare=None, surrender=False) -> Seat:
    return Seat(
        name,
        tuple(parse_cards(back)),
        tuple(parse_cards(middle)),
        tuple(parse_cards(front)),
        declare=declare,
        surrender=surrender,
    )


def rows_of(s: Seat) -> tuple[str, str, str]:
    return tuple(format_cards(row) for row in s.setting)  # type: ignore[return-value]


def totals(result) -> dict[str, float]:
    return {p.name: p.total for p in result.players}


def pair(result, a: str, b: str):
    names = [p.name for p in result.players]
    ia, ib = names.index(a), names.index(b)
    for p in result.pairs:
        if set(p.players) == {ia, ib}:
            return p, p.points_for(ia)
    raise AssertionError((a, b))


def score(rules: str, seats, **options):
    return score_round(seats, get_preset(rules, options or None))


# --- RULES §5.1: the two readings of a sweep ---------------------------------------------------

# A beats B on the front (three of a kind, value 5), the middle (straight, 1) and the back
# (flush, 1).
SWEEP_A = seat("A", "2H 5H 8H JH KH", "5S 6D 7C 8S 9D", "QS QD QC")
SWEEP_B = seat("B", "TS TH TD 3C 4D", "9S 9H 2C 3D 4S", "7S 7D AC")


def test_standard_sweep_reading() -> None:
    # 5 + 1 + 1 = 7, swept x2 -> A +14, B -14 (two players: no sweep of the table)
    result = score("standard", [SWEEP_A, SWEEP_B])
    assert totals(result) == {"A": 14, "B": -14}
    p, _ = pair(result, "A", "B")
    assert p.sweep == 0 and p.multiplier == 2 and not p.table_sweep
    assert [(r.position, r.winner, r.value, r.bonus) for r in p.rows] == [
        ("back", 0, 1, None),
        ("middle", 0, 1, None),
        ("front", 0, 5, "three_of_a_kind"),
    ]
    assert result.table_sweeper is None


def test_sayapoker_sweep_reading() -> None:
    # 2 x 3 + (5 - 1) = 10
    assert totals(score("sayapoker", [SWEEP_A, SWEEP_B])) == {"A": 10, "B": -10}


# --- RULES §6 worked examples (standard) ---------------------------------------------------------

EX1_A = seat("A", "2♠ 2♥ 2♣ 2♦ 9♣", "K♠ K♥ K♦ 5♣ 5♦", "A♠ A♥ 3♣")
EX1_B = seat("B", "5♠ 6♠ 7♠ 8♠ 9♠", "Q♠ Q♥ Q♣ 7♦ 7♣", "A♣ A♦ 4♣")


def test_example_1() -> None:
    # back: B's straight flush, value 9; middle: A's kings full, value 3; front: B's kicker
    # 4 > 3, value 1. A: 3 - 9 - 1 = -7, B: +7. No sweep.
    result = score("standard", [EX1_A, EX1_B])
    assert totals(result) == {"A": -7, "B": 7}
    p, _ = pair(result, "A", "B")
    assert [(r.winner, r.value, r.bonus) for r in p.rows] == [
        (1, 9, "straight_flush"),
        (0, 3, "full_house"),
        (1, 1, None),
    ]
    assert p.sweep is None and p.multiplier == 1
    a, b = result.players
    assert [r.category for r in a.rows] == ["four_of_a_kind", "full_house", "pair"]
    assert [r.category for r in b.rows] == ["straight_flush", "full_house", "pair"]
    assert not a.fouled and not b.fouled


# P1 and P2 differ on the front only by the key card: A♠ A♦ 3♣ against A♥ A♣ 3♦.
EX2_P1 = seat("P1", "KS KH KD 4C 4D", "5C 6D 7H 8S 9C", "A♠ A♦ 3♣")
EX2_P2 = seat("P2", "QS QH QD 2C 2D", "2H 4H 6H 8H TH", "A♥ A♣ 3♦")


def test_example_2_key_card() -> None:
    result = score("standard", [EX2_P1, EX2_P2])
    p, _ = pair(result, "P1", "P2")
    front = p.rows[2]
    assert front.position == "front" and front.winner == 0  # the ace of spades wins
    # back: P1 kings full (1); middle: P2 flush (1); front: P1 (1) -> P1 +1
    assert totals(result) == {"P1": 1, "P2": -1}


def test_example_2_is_a_push_without_suits() -> None:
    # chinese-poker: suit_tiebreak none -> the front is a push: 1 - 1 + 0 = 0
    result = score("chinese-poker", [EX2_P1, EX2_P2])
    p, _ = pair(result, "P1", "P2")
    assert p.rows[2].winner is None and p.rows[2].value == 0
    assert totals(result) == {"P1": 0, "P2": 0}
    # 2-4: one row each, no majority unit
    assert totals(score("chinese-poker", [EX2_P1, EX2_P2], method="2-4")) == {"P1": 0, "P2": 0}


# Four players, the back row: A full house, B flush, C straight, D pair.
EX3 = [
    seat("A", "9S 9H 9D 4S 4H", "QS QH 2S 3S AC", "8S 8D 2H"),
    seat("B", "2C 5C 7C JC KC", "KS KH 2D AD 4D", "7S 7D 3D"),
    seat("C", "5D 6D 7H 8H 9C", "JS JH 4C 5H 6H", "TS TH 6C"),
    seat("D", "AS AH 3C 6S TD", "QD QC 8C JD KD", "TC 5S 3H"),
]


def test_example_3_one_row_at_four_players() -> None:
    result = score("standard", EX3)
    assert [p.rows[0].category for p in result.players] == [
        "full_house",
        "flush",
        "straight",
        "pair",
    ]
    back_points = {p.name: 0 for p in result.players}
    for p in result.pairs:
        back = p.rows[0]
        assert back.position == "back" and back.value == 1
        assert back.winner == min(p.players)  # the earlier seat has the stronger back
        back_points[result.players[back.winner].name] += 1
        loser = p.players[1] if back.winner == p.players[0] else p.players[0]
        back_points[result.players[loser].name] -= 1
    # A collects 1 from each of B, C, D (+3); B +1 -1 -1... = +1; C -1; D -3
    assert back_points == {"A": 3, "B": 1, "C": -1, "D": -3}


# Three players: A fouled, C sweeps B and meets the fouled A.
EX4_A = seat("A", "5D 5H 3S 6S 7S", "KS KH 9C 9D 2C", "AH AD 3H")  # two pair over a pair
EX4_B = seat("B", "TS TH 4S 4H 2S", "8C 8D 2H 3D 4D", "7C 7D AS")
EX4_C = seat("C", "2D 6D TD JD KD", "5C 6C 7H 8S 9H", "QS QH 3C")


def test_example_4_fouled_player_and_sweep_of_the_table() -> None:
    result = score("standard", [EX4_A, EX4_B, EX4_C])
    a, b, c = result.players
    assert a.fouled and not b.fouled and not c.fouled
    assert result.table_sweeper == 2  # C swept B, and the fouled A counts as swept
    # C-B: 1+1+1 = 3, x4 = 12. C-A: C's row values 3, x4 = 12.
    # B-A: B's row values 3; the fouled A pays as swept, x2 = 6.
    pc_b, c_vs_b = pair(result, "C", "B")
    pc_a, c_vs_a = pair(result, "C", "A")
    pb_a, b_vs_a = pair(result, "B", "A")
    assert (c_vs_b, pc_b.multiplier, pc_b.table_sweep) == (12, 4, True)
    assert (c_vs_a, pc_a.multiplier, pc_a.table_sweep, pc_a.kind) == (12, 4, True, "foul")
    assert (b_vs_a, pb_a.multiplier, pb_a.table_sweep, pb_a.kind) == (6, 2, False, "foul")
    # C +24, B -12 + 6 = -6, A -12 - 6 = -18
    assert totals(result) == {"A": -18, "B": -6, "C": 24}


# --- one hand-worked table per preset -------------------------------------------------------------
#
# Table 1 (four players): W sweeps the table with bonus rows, X and Y split their rows, F is
# fouled.
#   W: back 7777 (four of a kind), middle QQQ33 (full house), front 555 (three of a kind).
#   X: back flush, middle straight, front pair of aces.      (all worth 1)
#   Y: back nines full, middle flush, front pair of kings.   (all worth 1)
#   F: back pair (high card J), middle 666TT full house -> fouled.
# X-Y: Y wins back and middle, X wins front: Y +1 (no bonus rows).

T1_W = seat("W", "7S 7H 7D 7C 2S", "QS QH QD 3S 3H", "5S 5H 5D")
T1_X = seat("X", "2C 4C 8C TC KC", "8D 9S TH JD QC", "AS AH 3C")
T1_Y = seat("Y", "9H 9D 9C 4H 4D", "4S 6S 8S JS KS", "KH KD 2D")
T1_F = seat("F", "2H 3D 5C 8H JH", "6H 6D 6C TS TD", "AD AC JC")
TABLE_1 = [T1_W, T1_X, T1_Y, T1_F]


def test_table_1_is_set_as_described() -> None:
    rows = {s.name: [evaluate(r) for r in s.setting] for s in TABLE_1}
    assert [r.category for r in rows["W"]] == ["four_of_a_kind", "full_house", "three_of_a_kind"]
    assert [is_fouled(*rows[n]) for n in "WXYF"] == [False, False, False, True]
    assert len({c for s in TABLE_1 for c in s.cards}) == 52


@pytest.mark.parametrize(
    ("rules", "options", "expected", "w_pair"),
    [
        # standard: W's rows 7 + 3 + 5 = 15, x4 against each (table sweep): W +180.
        # X-F: 3 x2 = 6, Y-F: 6. X -60 -1 +6 = -55, Y -60 +1 +6 = -53, F -60 -6 -6 = -72.
        ("standard", {}, {"W": 180, "X": -55, "Y": -53, "F": -72}, (60, 4)),
        # sayapoker: base 3 x4 = 12 + surplus 6 + 2 + 4 = 12 -> 24 each: W +72.
        # fouled pays 4 x 3 + surplus at any table: X-F 12, Y-F 12.
        # X -24 -1 +12 = -13, Y -24 +1 +12 = -11, F -24 -12 -12 = -48.
        ("sayapoker", {}, {"W": 72, "X": -13, "Y": -11, "F": -48}, (24, 4)),
        # indocapsa: W's rows 8 + 4 + 6 = 18, x4 = 72 each: W +216.
        # fouled pays x3: X-F 9, Y-F 9. X -72 -1 +9 = -64, Y -72 +1 +9 = -62,
        # F -72 -9 -9 = -90.
        ("indocapsa", {}, {"W": 216, "X": -64, "Y": -62, "F": -90}, (72, 4)),
        # chinese-poker 1-6: W: 3 rows + royalties 4 + 2 + 3 + sweep 3 = 15 each (F too: a
        # scoop plus W's royalties): W +45. X-F: 3 + 3 = 6, Y-F: 6 (no royalties).
        # X -15 -1 +6 = -10, Y -15 +1 +6 = -8, F -15 -6 -6 = -27.
        ("chinese-poker", {}, {"W": 45, "X": -10, "Y": -8, "F": -27}, (15, 1)),
        # chinese-poker 2-4: W: 3 + majority 1 + royalties 9 = 13 each: W +39.
        # X-Y: Y 2 - 1 + 1 = +2. X-F: 3 + 1 = 4, Y-F: 4.
        # X -13 -2 +4 = -11, Y -13 +2 +4 = -7, F -13 -4 -4 = -21.
        ("chinese-poker", {"method": "2-4"}, {"W": 39, "X": -11, "Y": -7, "F": -21}, (13, 1)),
    ],
)
def test_table_1(rules, options, expected, w_pair) -> None:
    result = score(rules, TABLE_1, **options)
    assert totals(result) == expected
    assert sum(expected.values()) == 0
    assert [p.fouled for p in result.players] == [False, False, False, True]
    has_table_sweep = rules != "chinese-poker"
    assert result.table_sweeper == (0 if has_table_sweep else None)
    for other in "XYF":
        p, points = pair(result, "W", other)
        assert p.sweep == 0
        assert (points, p.multiplier) == w_pair
        assert p.table_sweep is has_table_sweep
    # the fouled F never wins a row; every row it loses pays the winner's value
    for other in "WXY":
        p, points = pair(result, other, "F")
        assert p.kind == "foul" and points > 0
        assert all(r.winner != 3 for r in p.rows)
    # W's bonuses are named on the rows
    p, _ = pair(result, "W", "X")
    assert [r.bonus for r in p.rows] == ["four_of_a_kind", "full_house", "three_of_a_kind"]


@pytest.mark.parametrize(
    ("rules", "expected", "table_sweeper"),
    [
        # standard, three players: W sweeps X and the fouled F: 2 opponents is enough.
        # W-X 15 x4 = 60, W-F 60, X-F 3 x2 = 6. W +120, X -54, F -66.
        ("standard", {"W": 120, "X": -54, "F": -66}, 0),
        # sayapoker needs 3 opponents: no table sweep at three players.
        # W-X: plain sweep 3 x2 + 12 = 18. W-F: fouled 3 x4 + 12 = 24. X-F: 12.
        # W +42, X -18 +12 = -6, F -24 -12 = -36.
        ("sayapoker", {"W": 42, "X": -6, "F": -36}, None),
        # indocapsa: W-X 18 x4 = 72, W-F 72, X-F 3 x3 = 9. W +144, X -63, F -81.
        ("indocapsa", {"W": 144, "X": -63, "F": -81}, 0),
    ],
)
def test_table_1_at_three_players(rules, expected, table_sweeper) -> None:
    result = score(rules, [T1_W, T1_X, T1_F])
    assert totals(result) == expected
    assert result.table_sweeper == table_sweeper


# Table 2 (four players): D declares a dragon, P sweeps Q with bonus rows, F is fouled.
# Nobody can sweep the table: nobody sweeps the dragon.
#   D: 2-6 of spades, 7-J of hearts, Q K A of diamonds (its middle beats its back, but a
#      declared special is never fouled).
#   P: back 9-K of clubs (straight flush), middle AAA33 (full house), front 222 (trips).
#   Q: back flush, middle straight, front pair of nines (all worth 1).
#   F: back pair of queens, middle 4-8 of clubs (straight flush) -> fouled; no bonus for F.

T2_D = seat("D", "2S 3S 4S 5S 6S", "7H 8H 9H TH JH", "QD KD AD", declare="dragon")
T2_P = seat("P", "9C TC JC QC KC", "AS AH AC 3H 3D", "2H 2D 2C")
T2_Q = seat("Q", "7S 8S TS JS KS", "4H 5H 6H 7D 8D", "9S 9D 3C")
T2_F = seat("F", "QS QH 4D 5D 6D", "4C 5C 6C 7C 8C", "KH TD JD")
TABLE_2 = [T2_D, T2_P, T2_Q, T2_F]


@pytest.mark.parametrize(
    ("rules", "options", "dragon", "expected"),
    [
        # standard: dragon 13 from each: D +39. P's rows: 9 + 3 + 5 = 17.
        # P-Q sweep x2 = 34, P-F fouled x2 = 34, Q-F 3 x2 = 6.
        # P -13 +34 +34 = 55, Q -13 -34 +6 = -41, F -13 -34 -6 = -53.
        ("standard", {}, 13, {"D": 39, "P": 55, "Q": -41, "F": -53}),
        # sayapoker: dragon 208: D +624. P-Q: 3 x2 + surplus 8 + 2 + 4 = 20.
        # P-F: 3 x4 + 14 = 26. Q-F: 3 x4 = 12.
        # P -208 +20 +26 = -162, Q -208 -20 +12 = -216, F -208 -26 -12 = -246.
        ("sayapoker", {}, 208, {"D": 624, "P": -162, "Q": -216, "F": -246}),
        # indocapsa: dragon 78: D +234. P's rows 10 + 4 + 6 = 20; P-Q x2 = 40,
        # P-F x3 = 60, Q-F 3 x3 = 9.
        # P -78 +40 +60 = 22, Q -78 -40 +9 = -109, F -78 -60 -9 = -147.
        ("indocapsa", {}, 78, {"D": 234, "P": 22, "Q": -109, "F": -147}),
        # chinese-poker 1-6: dragon 13: D +39. P-Q: 3 + royalties 5 + 2 + 3 + sweep 3 = 16,
        # P-F 16, Q-F 3 + 3 = 6. P -13 +32 = 19, Q -13 -16 +6 = -23, F -13 -16 -6 = -35.
        ("chinese-poker", {}, 13, {"D": 39, "P": 19, "Q": -23, "F": -35}),
        # chinese-poker 2-4: P-Q: 3 + 1 + 10 = 14, P-F 14, Q-F 3 + 1 = 4.
        # P -13 +28 = 15, Q -13 -14 +4 = -23, F -13 -14 -4 = -31.
        ("chinese-poker", {"method": "2-4"}, 13, {"D": 39, "P": 15, "Q": -23, "F": -31}),
    ],
)
def test_table_2(rules, options, dragon, expected) -> None:
    result = score(rules, TABLE_2, **options)
    assert totals(result) == expected
    assert sum(expected.values()) == 0
    d, p, q, f = result.players
    assert d.special == "dragon" and not d.fouled
    assert f.fouled and not p.fouled and not q.fouled
    assert result.table_sweeper is None
    for other in "PQF":
        pr, points = pair(result, "D", other)
        assert (pr.kind, pr.special, pr.multiplier, points) == ("special", "dragon", 1, dragon)
        assert pr.sweep is None and not pr.table_sweep
    pq, _ = pair(result, "P", "Q")
    assert pq.sweep == 1 and not pq.table_sweep
    # F's straight-flush middle earns F nothing
    qf, _ = pair(result, "Q", "F")
    assert all(r.winner == 2 and r.bonus is None for r in qf.rows)


# Table 3: two different specials and an ordinary hand.
T3_SIX = seat("S6", "2S 2H 3S 3H 4S", "4H 5S 5H 6S 6H", "7S 7H 8D", declare="six_pairs")
T3_FLUSHES = seat("S3F", "3D 6D 9D JD AD", "2C 5C 8C JC KC", "9H TH QH", declare="three_flushes")
T3_PLAIN = seat("O", "AS AH AC KS KH", "QS QD QC 4C 4D", "TS TC 3C")


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        # standard: six pairs (rank 2) beats three flushes (rank 4): S3F pays S6 3;
        # both collect 3 from O. S6 +6, S3F +3 -3 = 0, O -6.
        ("standard", {"S6": 6, "S3F": 0, "O": -6}),
        # indocapsa: 18 each: S6 +36, S3F 0, O -36
        ("indocapsa", {"S6": 36, "S3F": 0, "O": -36}),
        # chinese-poker: 3 each, as standard
        ("chinese-poker", {"S6": 6, "S3F": 0, "O": -6}),
    ],
)
def test_table_3_two_specials(rules, expected) -> None:
    result = score(rules, [T3_SIX, T3_FLUSHES, T3_PLAIN])
    assert totals(result) == expected
    p, points = pair(result, "S6", "S3F")
    assert p.special == "six_pairs" and points > 0


def test_table_3_specials_not_paid_by_sayapoker_are_refused() -> None:
    with pytest.raises(CapsaError, match="six_pairs"):
        score("sayapoker", [T3_SIX, T3_PLAIN])
    with pytest.raises(CapsaError, match="three_flushes"):
        score("sayapoker", [T3_FLUSHES, T3_PLAIN])


# Table 4: the same special twice. X1's back (9-K) beats X2's back (8-Q).
T4_X1 = seat("X1", "9S TH JD QC KS", "4S 5H 6D 7C 8S", "AS 2H 3D", declare="three_straights")
T4_X2 = seat("X2", "8H 9D TC JS QS", "3C 4C 5C 6C 7D", "QD KC AH", declare="three_straights")
T4_O = seat("O", "2S 2C 2D KH KD", "9H 9C TS TD 3H", "JH JC 4H")


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        # standard: same special ties (X1-X2 0); each collects 3 from O
        ("standard", {"X1": 3, "X2": 3, "O": -6}),
        # indocapsa compares: X2 pays X1 18; each collects 18 from O. X1 36, X2 0, O -36
        ("indocapsa", {"X1": 36, "X2": 0, "O": -36}),
        # chinese-poker compares: X1 6, X2 0, O -6
        ("chinese-poker", {"X1": 6, "X2": 0, "O": -6}),
    ],
)
def test_table_4_same_special(rules, expected) -> None:
    assert totals(score(rules, [T4_X1, T4_X2, T4_O])) == expected


# --- other rules --------------------------------------------------------------------------------


def test_both_fouled_settle_zero() -> None:
    a = seat("A", "2S 3H 5D 7C 9S", "KS KH 4C 4D 2C", "AH AD 3D")
    b = seat("B", "2H 3S 5C 7D 9H", "QS QH 8C 8D 2D", "AS AC 3C")
    for rules in ("standard", "sayapoker", "indocapsa", "chinese-poker"):
        result = score(rules, [a, b])
        assert totals(result) == {"A": 0, "B": 0}
        assert result.pairs[0].kind == "both_fouled"


def test_fouled_special_declarer_is_not_fouled_and_still_collects() -> None:
    # D's setting would be fouled (middle straight flush J-high over back 6-high)
    result = score("standard", [T2_D, T2_F])
    d, f = result.players
    assert not d.fouled and d.special == "dragon"
    assert f.fouled
    assert totals(result) == {"D": 13, "F": -13}


def test_declaring_a_special_not_held_is_refused() -> None:
    with pytest.raises(CapsaError, match="dragon"):
        score("standard", [seat("A", *rows_of(T1_W), declare="dragon"), T1_X])


def test_declaring_an_unknown_special_is_refused() -> None:
    with pytest.raises(CapsaError, match="royal"):
        score("standard", [seat("A", *rows_of(T1_W), declare="royal"), T1_X])


def test_pushes_with_suit_tiebreak_none() -> None:
    # back and front have equal ranks; P1 wins the middle (A K 9 7 4 over A K 9 7 3)
    p1 = seat("P1", "AS KH 9D 7C 5S", "AH KD 9C 7S 4D", "QS JS 2S")
    p2 = seat("P2", "AD KC 9S 7H 5H", "AC KS 9H 7D 3C", "QD JD 2D")
    # 1-6: one row: P1 +1
    result = score("chinese-poker", [p1, p2])
    assert [r.winner for r in result.pairs[0].rows] == [None, 0, None]
    assert totals(result) == {"P1": 1, "P2": -1}
    # 2-4: one row won, two pushed (count for nobody): 1 + majority 1 = 2
    assert totals(score("chinese-poker", [p1, p2], method="2-4")) == {"P1": 2, "P2": -2}
    # standard: the key card gives every row to P1 (A♠ > A♦, A♥.., Q♠ > Q♦): 3 x2 = 6
    assert totals(score("standard", [p1, p2])) == {"P1": 6, "P2": -6}
    # sayapoker: high cards compare as key_card: 2 x 3 = 6
    assert totals(score("sayapoker", [p1, p2])) == {"P1": 6, "P2": -6}


def test_chinese_poker_2_4_majority_with_one_push() -> None:
    # rows 2-0 with one push: 2 + majority 1 = 3
    p1 = seat("P1", "AS KH 9D 7C 5S", "AH KD 9C 7S 4D", "QS JS 3S")
    p2 = seat("P2", "AD KC 9S 7H 5H", "AC KS 9H 7D 3C", "QD JD 2D")
    result = score("chinese-poker", [p1, p2], method="2-4")
    assert [r.winner for r in result.pairs[0].rows] == [None, 0, 0]
    assert totals(result) == {"P1": 3, "P2": -3}
    # 1-6: 2 rows, no sweep
    assert totals(score("chinese-poker", [p1, p2])) == {"P1": 2, "P2": -2}


def test_room_fee() -> None:
    # Table 1 under sayapoker: W +72 pays 3% = 2.16; the others are negative and pay nothing
    result = score("sayapoker", TABLE_1, room_fee=True)
    w = result.players[0]
    assert (w.points, w.fee, w.total) == (72, 2.16, 69.84)
    assert totals(result) == {"W": 69.84, "X": -13, "Y": -11, "F": -48}
    assert round(sum(totals(result).values()), 2) == -2.16  # the fee breaks the zero sum
    assert all(p.fee == 0 for p in result.players[1:])
    # off by default
    assert totals(score("sayapoker", TABLE_1))["W"] == 72


def test_room_fee_on_several_winners() -> None:
    # Table 2 without the dragon, sayapoker, room fee on: P +20 (Q) +26 (F) = 46,
    # Q -20 +12 = -8, F -26 -12 = -38. P pays 3% of 46 = 1.38.
    result = score("sayapoker", [T2_P, T2_Q, T2_F], room_fee=True)
    assert totals(result) == {"P": 44.62, "Q": -8, "F": -38}


def test_room_fee_only_for_sayapoker() -> None:
    with pytest.raises(CapsaError, match="room_fee"):
        get_preset("standard", {"room_fee": True})


def test_chinese_poker_surrender() -> None:
    # F surrenders instead of playing its fouled hand: it pays 3 to each of W, X, Y.
    # W-X 15, W-Y 15 (1-6: rows 3 + royalties 9 + sweep 3), X-Y: Y +1.
    # W 30 + 3 = 33, X -15 -1 +3 = -13, Y -15 +1 +3 = -11, F -9.
    quitter = seat("F", surrender=True)
    result = score("chinese-poker", [T1_W, T1_X, T1_Y, quitter], surrender=True)
    assert totals(result) == {"W": 33, "X": -13, "Y": -11, "F": -9}
    f = result.players[3]
    assert f.surrendered and not f.fouled and f.rows is None
    # royalties are never multiplied: W-X is exactly 3 + 9 + 3
    p, points = pair(result, "W", "X")
    assert points == 15 and p.multiplier == 1 and p.extra == 3
    # a surrender with the rows shown pays the same
    shown = seat("F", *rows_of(T1_F), surrender=True)
    assert totals(score("chinese-poker", [T1_W, T1_X, T1_Y, shown], surrender=True)) == {
        "W": 33,
        "X": -13,
        "Y": -11,
        "F": -9,
    }


def test_two_surrenders_pay_each_other_nothing() -> None:
    # X and F surrender: each pays 3 to W and Y. W-Y 15. W 15 + 6 = 21, Y -15 + 6 = -9.
    result = score(
        "chinese-poker",
        [T1_W, seat("X", surrender=True), T1_Y, seat("F", surrender=True)],
        surrender=True,
    )
    assert totals(result) == {"W": 21, "X": -6, "Y": -9, "F": -6}


def test_surrender_needs_the_option() -> None:
    with pytest.raises(CapsaError, match="surrender"):
        score("chinese-poker", [T1_W, seat("F", surrender=True)])
    with pytest.raises(CapsaError, match="surrender"):
        score("standard", [T1_W, seat("F", surrender=True)])


def test_invalid_tables_are_refused() -> None:
    with pytest.raises(CapsaError, match="2 to 4"):
        score("standard", [T1_W])
    with pytest.raises(CapsaError, match="2 to 4"):
        score("standard", [*TABLE_1, seat("Z", "2S 3S 4S 5S 6S", "7S 8S 9S TS JS", "QS KS AS")])
    with pytest.raises(CapsaError, match="same name"):
        score("standard", [T1_W, seat("W", *rows_of(T1_X))])
    with pytest.raises(CapsaError, match="7S"):  # a card held by two players
        score("standard", [T1_W, seat("Z", "7S 8S 9S TS JS", "2D 3D 4D 5D 6D", "2C 3C 4C")])
    with pytest.raises(CapsaError, match="middle"):
        score("standard", [T1_W, seat("Z", "AS KS QS JS 9S", "2D 3D 4D 5D", "2C 3C 4C 5C")])
    with pytest.raises(CapsaError, match="unknown preset 'poker'"):
        get_preset("poker")


def test_result_to_dict_is_json_and_complete() -> None:
    result = score("standard", [EX4_A, EX4_B, EX4_C])
    data = json.loads(json.dumps(result.to_dict()))
    assert data["rules"] == "standard"
    assert data["table_sweep"] == "C"
    assert [p["name"] for p in data["players"]] == ["A", "B", "C"]
    assert [p["total"] for p in data["players"]] == [-18, -6, 24]
    assert data["players"][0]["fouled"] is True
    assert data["players"][2]["back"]["category"] == "flush"
    cb = next(p for p in data["pairs"] if set(p["players"]) == {"B", "C"})
    assert cb["points"] == {"B": -12, "C": 12}
    assert cb["sweep"] == "C" and cb["multiplier"] == 4 and cb["table_sweep"] is True
    assert cb["rows"]["front"] == {"winner": "C", "value": 1, "bonus": None}


def test_result_is_immutable() -> None:
    result = score("standard", [EX1_A, EX1_B])
    with pytest.raises(AttributeError):
        result.players[0].total = 99  # type: ignore[misc]


def test_sweeps_and_best_row_per_player() -> None:
    strong = Seat("Strong", *map(parse_cards, ("AS AH AD AC 2S", "KS KH KD QS QH", "JS JH JD")))
    weak1 = Seat("Weak 1", *map(parse_cards, ("3S 4H 6D 8C JC", "3H 5C 7D 9S TS", "2H 4C 6S")))
    weak2 = Seat("Weak 2", *map(parse_cards, ("3D 5H 7C 9H QC", "4D 6C 8S TH 2D", "3C 5S 7S")))
    result = score_round([strong, weak1, weak2], get_preset("standard"))
    assert [p.kind for p in result.pairs] == ["rows"] * 3
    assert result.sweeps_of(0) == (2, 0)
    assert result.sweeps_of(1) == (0, 1) and result.sweeps_of(2) == (0, 1)
    position, row = result.best_row(0)
    assert position == "back" and row.category == "four_of_a_kind"
    fouled = Seat("Fouled", *map(parse_cards, ("3D 5H 7C 9H QC", "TD TH TC 4D 4C", "3C 5S 7S")))
    assert score_round([strong, fouled], get_preset("standard")).best_row(1) is None
