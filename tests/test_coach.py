"""The coach (capsa/coach.py): reviews agree with ``arrange --level hard``, a played setting
is valued on hard's own deals, fouls and surrenders are priced as score_round prices them."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from capsa.cards import CapsaError, deal, parse_cards
from capsa.cli import main
from capsa.coach import Origin, Review, SpecialAdvice, review_hand, review_job
from capsa.hands import evaluate, is_fouled
from capsa.presets import PRESETS, SPECIALS, get_preset
from capsa.scoring import Seat, score_round
from capsa.solver import arrange
from capsa.solver import evaluator as ev
from capsa.solver.model import value_table
from capsa.solver.monte_carlo import foul_points, row_key
from capsa.specials import holds
from tests.test_solver import VARIANTS, _deal_with_specials, _random_setting, _sorted_cards

ROWS_OVER_DRAGON = "AS KS QS JS TS 9H 8H 7H 6H 5H 4D 3D 2D"  # rows +82, the dragon 39


# a hand whose rows lose far more than a surrender costs at four players (chinese-poker,
# either method): two low pairs, no straight, no flush
HOPELESS = "AD KC QS JS 9D 8H 7S 6C 4H 3H 3D 2C 2D"


def _rows(text: str):
    back, middle, front = (tuple(parse_cards(r)) for r in text.split("/"))
    return back, middle, front


def _fouled_setting(hand, rng):
    """A fouled setting of the hand: an unfouled one with back and front cards swapped
    until the order breaks (or the back and middle swapped)."""
    back, middle, front = _random_setting(hand, rng)
    for swapped in ((middle, back, front), (front + back[:2], back[2:] + middle[:2], middle[2:])):
        b, m, f = swapped
        if len(b) == 5 and len(m) == 5 and len(f) == 3 and is_fouled(*map(evaluate, swapped)):
            return swapped
    return None


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_best_setting_is_what_arrange_hard_prints(name):
    """On every preset and option, at every table size: the review's best is hard's choice
    (rows, special or surrender) and its value, and playing it costs nothing."""
    preset = VARIANTS[name]
    for seed in range(4):
        opponents = 1 + seed % 3
        hand = deal(4, seed=100 + seed)[0]
        a = arrange(hand, preset, "hard", opponents)
        rows = (a.back, a.middle, a.front)
        r = review_hand(hand, preset, opponents, rows, a.declare, surrendered=a.surrender)
        assert r.best == rows
        assert r.best_declare == a.declare
        assert r.best_surrender == a.surrender
        assert r.best_value == pytest.approx(a.expected)
        assert r.rows_value == pytest.approx(a.ordinary_expected)
        assert r.surrender_value == a.surrender_value
        assert r.played_value == pytest.approx(r.best_value)
        assert r.loss == 0.0 and r.is_best


@pytest.mark.parametrize("name", list(VARIANTS))
def test_a_hopeless_hand_is_best_surrendered_where_the_table_allows_it(name):
    """The coach's best for a hand hard surrenders is the surrender, at its value; on a
    table without surrender, the rows."""
    preset = VARIANTS[name]
    hand = parse_cards(HOPELESS)
    a = arrange(hand, preset, "hard", 3)
    r = review_hand(hand, preset, 3, a.ordinary)
    assert r.best_surrender == a.surrender == preset.surrender
    assert r.best_value == pytest.approx(a.expected)
    if preset.surrender:
        assert r.loss == pytest.approx(r.best_value - r.played_value) and r.loss > 0
        assert Review.from_dict(json.loads(json.dumps(r.to_dict()))) == r


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_review_agrees_with_arrange_hard_on_the_command_line_with_options(name):
    """For each preset, with each of its options switched on: ``review`` and ``arrange
    --level hard`` given the same --rules and --option print the same best choice and value."""
    preset = get_preset(name)
    options = [f"{o}={'2-4' if o == 'method' else 'true'}" for o in sorted(preset.allowed_options)]
    flags = [arg for option in options for arg in ("--option", option)]
    for hand_text in ("QS JS TS 9H 8H 7C 6H 5S 4D 3D 5H 2S 2D", HOPELESS):
        out = io.StringIO()
        args = ["arrange", "--rules", name, *flags, "--level", "hard", "--opponents", "2"]
        assert main([*args, *hand_text.split()], stdout=out) == 0
        printed = json.loads(out.getvalue())
        rows = [" ".join(printed[p]) for p in ("back", "middle", "front")]
        out = io.StringIO()
        review = ["review", "--rules", name, *flags, "--opponents", "2"]
        review += ["--back", rows[0], "--middle", rows[1], "--front", rows[2]]
        if printed.get("surrender"):
            review.append("--surrender")
        elif printed["declare"]:
            review += ["--declare", printed["declare"]]
        assert main(review, stdout=out) == 0
        reviewed = json.loads(out.getvalue())
        assert round(reviewed["best_value"], 4) == printed["expected"]
        assert reviewed["best"] == [printed["back"], printed["middle"], printed["front"]]
        assert reviewed["best_surrender"] == printed.get("surrender", False)
        assert reviewed["best_choice"] and reviewed["loss"] == 0.0


def test_the_review_agrees_with_the_command_line():
    cards = "QS JS TS 9H 8H 7C 6H 5S 4D 3D 5H 2S 2D"
    out = io.StringIO()
    code = main(
        ["arrange", "--rules", "indocapsa", "--level", "hard", "--opponents", "2", *cards.split()],
        stdout=out,
    )
    assert code == 0
    printed = json.loads(out.getvalue())
    played = _rows("QS JS TS 9H 8H / 7C 6H 5S 4D 3D / 5H 2S 2D")
    r = review_hand(parse_cards(cards), get_preset("indocapsa"), 2, played)
    assert round(r.best_value, 4) == printed["expected"]
    assert [[c.code for c in row] for row in r.best] == [
        printed["back"],
        printed["middle"],
        printed["front"],
    ]


def test_a_worse_setting_costs_what_the_values_say():
    preset = get_preset("standard")
    rng = np.random.default_rng(5)
    losses = []
    for seed in range(6):
        hand = deal(4, seed=seed)[0]
        played = _random_setting(hand, rng)
        r = review_hand(hand, preset, 3, played)
        assert r.loss == pytest.approx(max(0.0, r.best_value - r.played_value))
        assert r.played == played and not r.fouled and r.origin == Origin.PLAYED
        losses.append(r.loss)
    assert max(losses) > 1.0  # random settings give real points away
    # deterministic: the same review twice
    again = review_hand(hand, preset, 3, played)
    assert again == r


def test_the_played_value_is_hards_own_when_hard_weighs_that_setting():
    """A setting among hard's candidates gets the very score hard gave it: the played
    setting that is hard's choice is worth hard's expected points, to the last digit."""
    preset = get_preset("sayapoker")
    hand = deal(3, seed=42)[1]
    a = arrange(hand, preset, "hard", 2)
    r = review_hand(hand, preset, 2, a.ordinary)
    assert r.played_value == r.rows_value


@pytest.mark.parametrize("name", list(VARIANTS))
def test_foul_points_equal_score_round(name):
    """A fouled seat's points from foul_points equal score_round's, at random tables with
    sweeps, table sweeps and declared specials among the opponents."""
    preset = VARIANTS[name]
    values = value_table(preset)
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(60):
        players = int(rng.integers(2, 5))
        hands = _deal_with_specials(players, rng)
        mine = _fouled_setting(hands[0], rng)
        if mine is None:
            continue
        seats = [Seat("me", *mine)]
        keys, vals, special = [], [], []
        for i, hand in enumerate(hands[1:], start=1):
            a = arrange(hand, preset, "normal", opponents=players - 1)
            rows = (a.back, a.middle, a.front) if rng.random() < 0.5 else _random_setting(hand, rng)
            declare = a.special if a.special and holds(a.special, rows) else None
            seats.append(Seat(f"P{i}", *rows, declare=declare))
            keys.append([row_key(evaluate(r), preset.suit_tiebreak) for r in rows])
            vals.append(
                [
                    values[pos, ev.CATEGORY[ev.class_of(evaluate(r).strength)]]
                    for pos, r in enumerate(rows)
                ]
            )
            special.append(SPECIALS.index(declare) if declare else -1)
        result = score_round(seats, preset)
        assert result.players[0].fouled
        got = foul_points(preset, np.array([vals]), np.array([keys]), np.array([special]))
        assert got[0] == pytest.approx(result.players[0].points), seats
        checked += 1
    assert checked >= 30


def test_a_fouled_setting_is_reviewed_as_fouled():
    preset = get_preset("standard")
    hand = deal(4, seed=9)[0]
    fouled = _fouled_setting(hand, np.random.default_rng(1))
    assert fouled is not None
    r = review_hand(hand, preset, 3, fouled)
    assert r.fouled and r.loss > 5  # a foul pays every opponent double
    assert r.played_value < 0


def test_a_surrender_costs_its_price():
    """A surrender is valued as hard values it: its price to each opponent who stays in on
    hard's deals, the same value arrange reports."""
    preset = get_preset("chinese-poker", {"surrender": True})
    hand = deal(4, seed=2)[0]
    r = review_hand(hand, preset, 3, None, surrendered=True)
    a = arrange(hand, preset, "hard", 3)
    assert r.played_value == a.surrender_value == r.surrender_value
    assert -preset.surrender_cost * 3 <= r.played_value < 0
    assert r.played is None and r.surrendered
    with pytest.raises(CapsaError, match="surrender"):
        review_hand(hand, get_preset("chinese-poker"), 3, None, surrendered=True)
    # the worker job takes the surrender too (the cogs' background reviews)
    job = review_job(hand, preset, 3, None, None, False, Origin.PLAYED, True)
    assert job == r


def test_declaring_a_dragon_worth_less_than_its_rows_is_called_out():
    preset = get_preset("standard")
    cards = parse_cards(ROWS_OVER_DRAGON)
    rows = _rows("AS KS QS JS TS / 9H 8H 7H 6H 5H / 4D 3D 2D")
    declared = review_hand(cards, preset, 3, rows, "dragon")
    assert declared.advice == SpecialAdvice.DECLARED_WRONG
    assert declared.played_value == pytest.approx(declared.special_value)
    assert declared.loss == pytest.approx(declared.rows_value - declared.special_value)
    assert declared.loss > 30
    kept = review_hand(cards, preset, 3, rows)
    assert kept.advice == SpecialAdvice.ROWS_RIGHT and kept.is_best


def test_missing_a_declaration_that_pays_is_called_out():
    preset = get_preset("standard")
    # a dragon whose rows are poor: declaring is right
    cards = parse_cards("AS KD QC JH TS 9D 8C 7H 6S 5D 4C 3H 2S")
    a = arrange(cards, preset, "hard", 3)
    assert a.declare == "dragon"
    r = review_hand(cards, preset, 3, a.ordinary)
    assert r.advice == SpecialAdvice.SHOULD_DECLARE
    assert r.loss == pytest.approx(r.special_value - r.played_value)
    right = review_hand(cards, preset, 3, a.ordinary, "dragon")
    assert right.advice == SpecialAdvice.DECLARED_RIGHT and right.is_best


def test_a_review_survives_storage():
    preset = get_preset("standard")
    hand = deal(4, seed=77)[2]
    played = _random_setting(hand, np.random.default_rng(0))
    r = review_hand(hand, preset, 3, played, origin=Origin.AUTO)
    stored = json.loads(json.dumps(r.to_dict()))
    back = Review.from_dict(stored)
    assert back.to_dict() == r.to_dict()
    assert not back.counts  # auto-arranged: not part of the player's sharpness
    assert back == r


def test_bad_input_is_refused_with_a_reason():
    preset = get_preset("standard")
    hand = deal(4, seed=1)[0]
    other = deal(4, seed=1)[1]
    with pytest.raises(CapsaError, match="not these 13 cards"):
        review_hand(hand, preset, 3, (tuple(other[:5]), tuple(other[5:10]), tuple(other[10:])))
    with pytest.raises(CapsaError, match="rows played"):
        review_hand(hand, preset, 3, None)
    cards = _sorted_cards([c.index for c in hand])
    with pytest.raises(CapsaError, match="1 to 3 opponents"):
        review_hand(cards, preset, 4, (tuple(cards[:5]), tuple(cards[5:10]), tuple(cards[10:])))


def test_the_review_command_prints_the_review_as_json():
    out = io.StringIO()
    rows = ["--back", "AS KS QS JS TS", "--middle", "9H 8H 7H 6H 5H", "--front", "4D 3D 2D"]
    assert main(["review", "--opponents", "3", *rows, "--declare", "dragon"], stdout=out) == 0
    printed = json.loads(out.getvalue())
    expected = review_hand(
        parse_cards(ROWS_OVER_DRAGON),
        get_preset("standard"),
        3,
        _rows("AS KS QS JS TS / 9H 8H 7H 6H 5H / 4D 3D 2D"),
        "dragon",
    )
    answer = expected.to_dict() | {"best_choice": False}
    # values rounded as arrange rounds its "expected": four decimals
    rounded = {k: round(v, 4) if isinstance(v, float) else v for k, v in answer.items()}
    assert printed == json.loads(json.dumps(rounded))
    err = io.StringIO()
    short = ["--back", "AS KS QS JS TS", "--middle", "9H 8H 7H 6H 5H", "--front", "4D 3D"]
    assert main(["review", *short], stdout=io.StringIO(), stderr=err) == 2
    assert err.getvalue().strip().splitlines() == ["error: the front row needs 3 cards, not 2"]
