"""hard's budget: where its choice is at risk it deals more; the 2-4 majority term."""

from __future__ import annotations

import copy
import itertools
import math

import numpy as np
import pytest

from capsa.cards import deal
from capsa.presets import get_preset
from capsa.solver import arrange
from capsa.solver import evaluator as ev
from capsa.solver import model as solver_model
from capsa.solver import monte_carlo as mc

STANDARD = get_preset("standard")


def test_majority_equals_the_27_outcomes():
    """The 2-4 majority term is P(more rows won) - P(more rows lost); with the rows
    independent (a model with no joint) it is the sum over the 27 outcomes, exactly at the
    joint grid's points (RowJoint reads the nearest)."""
    grid = solver_model.JOINT_GRID
    rng = np.random.default_rng(4)
    won = rng.integers(0, grid + 1, (3, 50))
    lost = (rng.random((3, 50)) * (grid - won + 1)).astype(int)  # won + lost <= grid
    p, q = won / grid, lost / grid
    model = copy.copy(solver_model.models_for(get_preset("chinese-poker", {"method": "2-4"}), 1)[0])
    model.joint = solver_model.RowJoint(None)
    steps = solver_model.RowJoint.steps
    at_won = tuple(steps(p[pos], pos) for pos in range(3))
    at_lost = tuple(steps(1.0 - q[pos], pos) for pos in range(3))
    got = model._majority(at_won, at_lost, tuple(p), tuple(q))
    want = np.zeros(50)
    for outcome in itertools.product((1, 0, -1), repeat=3):
        chance = np.ones(50)
        for row, result in enumerate(outcome):
            chance *= {1: p[row], -1: q[row], 0: 1.0 - p[row] - q[row]}[result]
        want += np.sign(sum(outcome)) * chance
    assert np.allclose(got, want, atol=1e-12)


def test_choice_risk_is_what_the_best_option_may_lose():
    rng = np.random.default_rng(1)
    noise = rng.normal(0.0, 3.0, 400)
    points = np.stack([noise + 0.1, noise, noise - 5.0, noise + 9.0])
    options = np.array([True, True, True, False])  # the last row is not an option
    # the others lose 0.1 and 5 on every deal: no error, nothing to lose
    assert mc.choice_risk(points, points.mean(axis=1), options) == 0.0
    assert mc.choice_risk(points[:1], points[:1].mean(axis=1), options[:1]) == 0.0
    # a rival 0.1 behind with an error of 0.1 (2 a deal over 400 deals): E[max(0, X)] for
    # X ~ N(-0.1, 0.1) is 0.1 (phi(1) - Phi(-1)) = 0.0083
    points[1] = noise + rng.normal(0.0, 2.0, 400)
    points[1] += 0.0 - points[1].mean() + points[0].mean() - 0.1
    error = (points[0] - points[1]).std() / 20.0
    z = 0.1 / error
    tail = 0.5 * math.erfc(z / math.sqrt(2.0))
    want = error * math.exp(-z * z / 2) / math.sqrt(2 * math.pi) - 0.1 * tail
    got = mc.choice_risk(points, points.mean(axis=1), options)
    assert got == pytest.approx(want) and 0.005 < got < 0.012
    # the same spread on a quarter of the deals: twice the error, more at risk
    assert mc.choice_risk(points[:, :100], points.mean(axis=1), options) > 2 * got


@pytest.fixture
def dealt(monkeypatch):
    """Count the opponent deals of each mc_points call hard makes."""
    calls: list[tuple[int, object]] = []
    real = mc.mc_points

    def counting(tables, preset, opponents, cands, special, rows, n_deals, seed, *rest):
        calls.append((n_deals, seed))
        return real(tables, preset, opponents, cands, special, rows, n_deals, seed, *rest)

    monkeypatch.setattr(mc, "mc_points", counting)
    return calls


def test_hard_deals_more_where_its_choice_is_at_risk(monkeypatch, dealt):
    hand = deal(4, seed=13)[0]  # a hand whose options differ on some deals
    monkeypatch.setattr(mc, "HARD_STAGES", ((600, -1.0),))  # every choice is at risk
    close = arrange(hand, STANDARD, "hard", 3, seed=5)
    first = mc.HARD_OPPONENT_HANDS // 3
    assert [n for n, _ in dealt] == [first, 200]
    assert dealt[0][1] != dealt[1][1]  # other deals, not the same ones again
    dealt.clear()
    monkeypatch.setattr(mc, "HARD_STAGES", ((600, 1e9),))  # no choice is
    clear = arrange(hand, STANDARD, "hard", 3, seed=5)
    assert [n for n, _ in dealt] == [first]
    # the same hand and seed give the same answer, whichever way it was reached
    assert arrange(hand, STANDARD, "hard", 3, seed=5) == clear
    monkeypatch.setattr(mc, "HARD_STAGES", ((600, -1.0),))
    assert arrange(hand, STANDARD, "hard", 3, seed=5) == close


def test_hard_deals_more_again_where_its_choice_is_still_at_risk(monkeypatch, dealt):
    """A choice still at risk after a stage's deals gets the next stage's, on deals of
    its own; one no longer at risk does not."""
    hand = deal(4, seed=13)[0]
    monkeypatch.setattr(mc, "HARD_STAGES", ((600, -1.0), (900, -1.0), (300, -1.0)))
    again = arrange(hand, STANDARD, "hard", 3, seed=5)
    first = mc.HARD_OPPONENT_HANDS // 3
    assert [n for n, _ in dealt] == [first, 200, 300, 100]
    assert len({seed for _, seed in dealt}) == 4
    dealt.clear()
    monkeypatch.setattr(mc, "HARD_STAGES", ((600, -1.0), (900, 1e9), (300, -1.0)))
    once = arrange(hand, STANDARD, "hard", 3, seed=5)
    assert [n for n, _ in dealt] == [first, 200]
    # the first stages' deals are the same either way: only the later ones are added
    monkeypatch.setattr(mc, "HARD_STAGES", ((600, -1.0), (900, -1.0), (300, -1.0)))
    assert arrange(hand, STANDARD, "hard", 3, seed=5) == again
    assert once.expected != again.expected


def test_hard_deals_more_on_some_hands_only(dealt):
    """With the shipped settings, some hands are settled on the first deals, some after the
    first extra ones and some get later ones too (the budget goes where the choice is at
    risk)."""
    assert len(mc.HARD_STAGES) >= 2 and all(hands > 0 for hands, _ in mc.HARD_STAGES)
    stages = []
    for seed in range(12):
        dealt.clear()
        arrange(deal(4, seed=400 + seed)[0], STANDARD, "hard", 3, seed=seed)
        stages.append(len(dealt))
    assert 1 in stages and 2 in stages and max(stages) >= 3


@pytest.mark.parametrize("name", ["standard", "sayapoker", "chinese-poker"])
def test_hard_candidates_bring_other_shapes_undominated(name):
    """The candidates kept for other shapes are the best split by normal's values of a
    shape (the rows' categories) none of the others has, and never dominated by the
    preset's showdown keys."""
    preset = get_preset(name)
    brought = 0
    rng = np.random.default_rng(8)
    for _ in range(20):
        tables = ev.HandTables(rng.permutation(52)[:13])
        _, values = solver_model.normal_choice(tables, preset, 3)
        keys = mc.subset_keys(tables, preset.suit_tiebreak)
        plain = mc.top_candidates(tables, preset, values, 12, keys)
        cands = mc.top_candidates(tables, preset, values, 16, keys, shapes=4)
        rows = mc.split_keys(tables, keys, np.arange(len(tables.valid)))
        for c in cands:
            assert not ((rows >= rows[c]).all(axis=1) & (rows > rows[c]).any(axis=1)).any()
        shape = _shapes(tables)
        raw = mc.top_candidates(tables, preset, values, 16, shapes=4)  # no suit variants
        assert len(set(raw.tolist())) == len(raw)  # each split once
        for c in set(cands.tolist()) - set(plain.tolist()):
            if shape[c] in shape[plain]:
                continue  # a suit variant or a fill-in of a shape the first twelve have
            # a shape the first twelve lack comes with its best split (a fill-in, the
            # next by values, may be another of its splits)
            brought += 1
            assert values[cands[shape[cands] == shape[c]]].max() == pytest.approx(
                values[shape == shape[c]].max()
            )
    assert brought > 0


def _shapes(tables) -> np.ndarray:
    """Each valid split's shape: its rows' categories as one number (back, middle, front)."""
    at = np.arange(len(tables.valid))
    return (
        ev.CATEGORY[tables.cls5[tables.back_subset(at)]].astype(int) * 100
        + ev.CATEGORY[tables.cls5[tables.middle_subset(at)]] * 10
        + ev.CATEGORY[tables.cls3[tables.front_subset(at)]]
    )


def test_opponents_set_in_chunks_are_the_same(monkeypatch):
    """deal_opponents sets its opponents SET_CHUNK at a time (a smaller working set): the
    same keys, values, specials (with their settings, by hand number) and surrenders as
    all at once."""
    preset = get_preset("chinese-poker", {"surrender": True})
    values = solver_model.value_table(preset)
    tables = ev.HandTables(np.random.default_rng(0).permutation(52)[:13])
    monkeypatch.setattr(mc, "SET_CHUNK", 10**6)
    whole = mc.deal_opponents(tables, preset, 3, 300, 0, values)
    monkeypatch.setattr(mc, "SET_CHUNK", 7)
    chunked = mc.deal_opponents(tables, preset, 3, 300, 0, values)
    for name in ("keys", "vals", "special", "surrender"):
        assert np.array_equal(getattr(whole, name), getattr(chunked, name)), name
    assert chunked.settings == whole.settings
    assert whole.settings and whole.surrender.any()  # the test saw what it checks
