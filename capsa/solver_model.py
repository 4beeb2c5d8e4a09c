"""The `normal` and `easy` setters: expected points of a split from per-row win probabilities.

As in Paul Hankin's cpoker setter, each row's chance to beat a random opponent's row is
read from a table indexed by the row's strength and position (``capsa/row_tables.npz``,
built by ``python -m capsa.build_tables``). The table holds, per position, how often an
opponent's row of each strength class was seen; from it we derive for every class:

- ``p``: chance to win the row (suit ties split 50/50 unless the preset pushes ties),
- ``q``: chance to lose it,
- ``v``: the row's value when it wins (preset bonus, or 1 + royalty for chinese-poker),
- ``L``: expected value paid when it loses (the opponent's bonus rows included),

and the expected points against one opponent, rows assumed independent::

    E = sum(p v - L) + (m - 1) [P3 sum(mv) - sum_r mL_r prod_{o != r} q_o]
        + (T - m) [P3^k sum(mv) - s^(k-1) sum_r mL_r prod_{o != r} q_o]

with P3 = p_b p_m p_f (a sweep), m the sweep multiplier, T the table-sweep multiplier, k
opponents, s the chance that a hand sweeps another random hand, ``mv``/``mL`` the part of
a row's value the multiplier applies to (everything for ``multiply``, the base 1 for
``base``). ``units`` scoring (chinese-poker) adds +3 for a sweep (1-6) or +-1 for the
majority of rows (2-4) instead.

The rule for declaring a special (``should_declare``) lives here too: ``normal`` uses it for
the hand being solved and, in capsa.solver_mc, for every opponent it sets.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from capsa.evaluator import CATEGORY, N_CLASSES, STRENGTHS, HandTables, SplitRows
from capsa.hands import ALL_CATEGORIES
from capsa.presets import POSITIONS, SPECIALS, Preset
from capsa.scoring import pair_multiplier, row_win_value, table_sweep_applies, units_extra

TABLE_PATH = Path(__file__).with_name("row_tables.npz")
# feature columns of RowModel.features[position]
R, P, Q, MV, ML = range(5)


@lru_cache(maxsize=1)
def load_tables(path: str | None = None) -> tuple[np.ndarray, float]:
    """(counts[3, N_CLASSES] of opponents' rows per position, sweep chance s)."""
    data = np.load(path or TABLE_PATH)
    if not np.array_equal(data["strengths"], STRENGTHS):
        raise RuntimeError("row_tables.npz does not match capsa.evaluator: rebuild it")
    return data["counts"].astype(np.float64), float(data["sweep"])


def preset_key(preset: Preset) -> tuple:
    return (
        preset.name,
        preset.suit_tiebreak,
        preset.scoring,
        tuple(sorted(preset.row_values.items())),
        preset.sweep_multiplier,
        preset.table_sweep_multiplier,
        preset.table_sweep_min_opponents,
        preset.method,
    )


def value_table(preset: Preset) -> np.ndarray:
    """values[position, category index] of a winning row (capsa.scoring.row_win_value)."""
    return np.array(
        [[row_win_value(preset, p, c) for c in ALL_CATEGORIES] for p in POSITIONS],
        dtype=np.float64,
    )


def class_values(preset: Preset, position: str) -> np.ndarray:
    """The value of a winning row of each class at ``position`` under ``preset``."""
    return value_table(preset)[POSITIONS.index(position)][CATEGORY]


class RowModel:
    """Per-class features for one preset and table size; scores splits vectorised."""

    def __init__(self, preset: Preset, opponents: int, counts: np.ndarray, sweep: float):
        self.preset = preset
        self.opponents = opponents
        self.units = preset.scoring == "units"
        push = preset.suit_tiebreak == "none"
        self.features = []
        for pos, position in enumerate(POSITIONS):
            cnt = counts[pos]
            total = cnt.sum()
            less = (np.cumsum(cnt) - cnt) / total
            equal = cnt / total
            value = class_values(preset, position)
            # expected value paid to opponents' strictly stronger rows
            paid_above = (np.cumsum((cnt * value)[::-1])[::-1] - cnt * value) / total
            greater = 1.0 - less - equal
            share = 0.0 if push else 0.5
            p = less + share * equal
            q = greater + share * equal
            loss = paid_above + share * equal * value
            if preset.scoring == "multiply":
                mv, ml = value, loss
            else:
                mv, ml = np.ones(N_CLASSES), q
            self.features.append(np.stack([p * value - loss, p, q, mv, ml], axis=1))
        # one contiguous array per feature, for fast 1-D take()
        self.columns = [[np.ascontiguousarray(f[:, c]) for c in range(5)] for f in self.features]
        m = pair_multiplier(preset, table_sweep=False, foul=False)
        t = pair_multiplier(preset, table_sweep=True, foul=False)
        self.c_sweep = float(m - 1)
        self.c_table = float(t - m) if table_sweep_applies(preset, opponents + 1) else 0.0
        self.c_swept = float(m - 1) + (self.c_table * sweep ** (opponents - 1))

    def split_ev(self, back: np.ndarray, middle: np.ndarray, front: np.ndarray) -> np.ndarray:
        """Expected points against ONE opponent for each split (class ids per row)."""
        fb, fm, ff = self.columns

        def col(c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            return fb[c].take(back), fm[c].take(middle), ff[c].take(front)

        rb, rm, rf = col(R)
        pb, pm, pf = col(P)
        qb, qm, qf = col(Q)
        ev = rb + rm + rf
        p3 = pb * pm * pf
        if self.units:
            # the extra a pair pays (capsa.scoring.units_extra) times its chance
            if self.preset.method == "2-4":
                majority = units_extra(self.preset, 2, 1)
                return ev + majority * _majority((pb, pm, pf), (qb, qm, qf))
            return ev + units_extra(self.preset, 3, 0) * (p3 - qb * qm * qf)
        vb, vm, vf = col(MV)
        lb, lm, lf = col(ML)
        won = p3 * (vb + vm + vf)
        lost = lb * qm * qf + lm * qb * qf + lf * qb * qm
        ev += self.c_sweep * won
        ev -= self.c_swept * lost
        if self.c_table:
            extra = won
            for _ in range(self.opponents - 1):
                extra = extra * p3
            ev += self.c_table * extra
        return ev

    def row_win(self, back, middle, front) -> np.ndarray:
        """Sum of the three rows' win chances (values and sweeps ignored): the easy setter."""
        fb, fm, ff = self.columns
        return fb[P].take(back) + fm[P].take(middle) + ff[P].take(front)


def _majority(ps, qs) -> np.ndarray:
    """P(win more rows) - P(lose more rows), for the 2-4 method."""
    dist = {0: np.ones(len(ps[0]))}
    for p, q in zip(ps, qs, strict=True):
        tie = 1.0 - p - q
        new: dict[int, np.ndarray] = {}
        for d, w in dist.items():
            for step, pr in ((1, p), (0, tie), (-1, q)):
                new[d + step] = new.get(d + step, 0.0) + w * pr
        dist = new
    ahead = sum(w for d, w in dist.items() if d > 0)
    behind = sum(w for d, w in dist.items() if d < 0)
    return np.asarray(ahead - behind)


_MODELS: dict[tuple, RowModel] = {}


def model_for(preset: Preset, opponents: int) -> RowModel:
    key = (preset_key(preset), opponents)
    model = _MODELS.get(key)
    if model is None:
        counts, sweep = load_tables()
        model = _MODELS[key] = RowModel(preset, opponents, counts, sweep)
    return model


# --- the setters --------------------------------------------------------------------------


def normal_choice(tables: HandTables, preset: Preset, opponents: int) -> tuple[int, np.ndarray]:
    """(index of the best valid split, expected points per opponent of every valid split)."""
    model = model_for(preset, opponents)
    ev = model.split_ev(tables.back, tables.middle, tables.front)
    return int(np.argmax(ev)), ev


def easy_choice(tables: HandTables, preset: Preset, opponents: int, seed: int) -> int:
    """The valid split whose rows win most often on their own (no bonuses, no sweeps),
    chosen with a little seeded noise among the best few."""
    model = model_for(preset, opponents)
    score = model.row_win(tables.back, tables.middle, tables.front)
    n = min(12, len(score))
    top = np.argpartition(-score, n - 1)[:n] if n < len(score) else np.arange(len(score))
    top = top[np.argsort(-score[top], kind="stable")]
    noise = np.random.default_rng(seed).normal(0.0, 0.06, len(top))
    return int(top[np.argmax(score[top] + noise)])


def best_special(found: dict[str, SplitRows | None], preset: Preset) -> str | None:
    """The most valuable of the specials found (the higher-ranked one on equal value)."""
    if not found:
        return None
    return max(found, key=lambda s: (preset.specials[s], -SPECIALS.index(s)))


def should_declare(special: str, special_value: float, ordinary_expected: float) -> bool:
    """The expected-value rule. A dragon is always declared: nothing outranks it, so its
    points are certain (a choice of this solver, not a rule of the game)."""
    return special == "dragon" or special_value > ordinary_expected
