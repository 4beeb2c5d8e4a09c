"""The `normal` and `easy` setters: expected points of a split from per-row win probabilities.

As in Paul Hankin's cpoker setter, each row's chance to beat a random opponent's row is
read from a table indexed by the row's showdown class and position
(``capsa/solver/row_tables.npz``: one table per preset, scoring method and table size,
``table_name``; each learned by self-play on its own table with
``python -m capsa.build_tables`` until ``normal``'s own play matches it). A showdown
class (capsa.solver.evaluator.ShowdownClasses) orders rows as the preset's showdown does,
less the key card's suit: the strength class, except under sayapoker's ``early`` rule
(flushes by suit first, pairs by their rank alone). The table holds, per position, how
often an opponent's row of each class was seen; from it we derive for every class:

- ``p``: chance to win the row (suit ties split 50/50 unless the preset pushes ties),
- ``q``: chance to lose it,
- ``v``: the row's value when it wins (preset bonus, or 1 + royalty for chinese-poker),
- ``L``: expected value paid when it loses (the opponent's bonus rows included),

and the expected points against one opponent::

    E = sum(p v - L) + (m - 1) [W3 sum(mv) - S3 sum_r mL_r / q_r]
        + (T - m) [W3^k sum(mv) - s^(k-1) S3 sum_r mL_r / q_r]

with W3 the chance to win all three rows (a sweep), S3 the chance to lose all three, m the
sweep multiplier, T the table-sweep multiplier, k opponents, s the chance that a hand
sweeps another random hand, ``mv``/``mL`` the part of a row's value the multiplier
applies to (everything for ``multiply``, the base 1 for ``base``; ``mL / q`` is what a
lost row pays). ``units`` scoring (chinese-poker) adds +3 for a sweep (1-6) or +-1 for
the majority of rows (2-4) instead.

W3 and S3 are not the product of the rows' chances: an opponent's three rows are set from
one hand, under one rule (back >= middle >= front), so they are far from independent (one
whose middle is weak has a weak front too, one whose front holds a pair has a middle that
beats it). Each table also holds the joint of the three (``RowJoint``): how often an
opponent's rows fell in each cell of a JOINT_BINS-cube of their mid-ranks (the share of
opponents' rows below the row, plus half of those equal), learned by the same self-play
and read at the split's own mid-ranks. The hands it mends most are the ones with a big
bonus row (four of a kind in the back): a sweep doubles the bonus, and which split wins
all three rows more often decides (docs/SOLVER.md, "Solver regret").

A hand's own cards change what its opponents can hold (card removal): a hand that leaves
many pairs in the unseen cards meets stronger backs, one holding the high cards meets
weaker fronts. A table may be learned per stratum of the hand's cards (``unseen_stratum``:
the pairs left unseen, the cards of rank J or better held): ``models_for`` gives one
RowModel per stratum, sharing the joint, and ``model_for`` the one a hand reads. A hand
holding trips is far from its stratum's average hand: it reads the stratum's counts
weighed by its own unseen cards (``RowModel.for_hand``: each class by the ways the unseen
cards give its ranks, ``availability``, over the stratum's average). ``normal_splits``,
which sets hard's opponents many at once, reads the strata as they are
(``by_hand=False``), and so do the opponents hard sets one by one.

What declaring a special is worth (``special_odds``, ``declare_value``, ``ordinary_value``)
and the rules (``should_declare``: by expected points; ``should_surrender``: where the
table allows it, when the rows lose more than the surrender costs) live here too: every
level uses them for the hand being solved and capsa.solver.monte_carlo for every opponent
it sets. The room fee is left to hard's Monte Carlo (a share of a positive round total,
it does not split into rows).

``normal_choice`` values every valid split (``hard`` picks its candidates from them);
``normal_best`` finds the same split and value valuing only the splits whose bound
(``RowModel.cap``) reaches a value already found, about one in twenty; ``normal_splits`` is
``normal`` for many hands at once (the opponents of ``hard`` and of bench/arrange.py): the
same splits, found back by back.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

import numpy as np

from capsa.hands import ALL_CATEGORIES, TieBreak
from capsa.presets import POSITIONS, PRESETS, SPECIALS, Preset
from capsa.scoring import pair_multiplier, row_win_value, table_sweep_applies, units_extra
from capsa.solver.evaluator import (
    BY_BACK_FRONT,
    BY_BACK_IS_A,
    BY_BACK_MIDDLE,
    BY_BACK_SPLIT,
    CATEGORY,
    CLASS_RANKS,
    FLUSH_SUITS,
    MASK3,
    MASK5,
    SPLIT_A,
    STRENGTHS,
    THREE_STRAIGHT_RANKS,
    HandTables,
    ShowdownClasses,
    rank_counts,
    showdown_classes,
    subset_classes,
    subset_showdown,
)
from capsa.specials import special_order

TABLE_PATH = Path(__file__).with_name("row_tables.npz")
# feature columns of RowModel.columns[position]: a row's expected points, its chances to
# win and to lose, the value a sweep multiplies when it wins and what it pays when it loses
R, P, Q, MV, LOST = range(5)
SLACK = 1e-5  # what RowModel.extra_bound adds, relative to it, for the joint's rounding
JOINT_BINS = 16  # bins of a row's mid-rank per position in RowTable.joint
JOINT_GRID = 48  # steps per position of the grid RowJoint reads
# Card removal: a hand's own cards change what its opponents can hold. A table may be
# learned per stratum of the hand (unseen_stratum): by the pairs the unseen cards can still
# make (the sum over ranks of C(unseen of the rank, 2): holding a pair leaves the rank's
# last two, and a rank not held at all leaves six) and by the cards of rank J or better
# the hand holds. Of random hands, 27%, 47% and 26% fall in the pairs' three bands and 37%,
# 27% and 36% in the high cards' (100,000 hands).
PAIRS_LEFT_CUTS = (43, 45)
HIGH_HELD_CUTS = (4, 5)
HIGH_RANK = 9  # card index // 4 of a jack
STRATA = (len(PAIRS_LEFT_CUTS) + 1) * (len(HIGH_HELD_CUTS) + 1)
Value = TypeVar("Value", float, np.ndarray)


@dataclass(frozen=True)
class RowTable:
    """One table of the row model: per stratum of the hand's own cards (unseen_stratum;
    one stratum: the hand's cards not counted) and position, how often an opponent's row
    fell in each showdown class (capsa.solver.evaluator.ShowdownClasses) in self-play, and
    the chance that a hand sweeps another."""

    counts: np.ndarray  # (1 or STRATA, 3, showdown classes)
    sweep: float
    joint: np.ndarray  # (JOINT_BINS,) * 3: the rows' mid-ranks together (RowJoint)

    @property
    def strata(self) -> int:
        return int(self.counts.shape[0])


def unseen_stratum(indices: np.ndarray) -> np.ndarray:
    """The card-removal stratum (0 .. STRATA - 1) of hands given as card indices (..., 13):
    the pairs left in the unseen cards (PAIRS_LEFT_CUTS), then the high cards held
    (HIGH_HELD_CUTS)."""
    held = rank_counts(indices)
    left = 4 - held
    pairs = (left * (left - 1) // 2).sum(axis=-1)
    high = held[..., HIGH_RANK:].sum(axis=-1)
    return np.searchsorted(PAIRS_LEFT_CUTS, pairs, side="right") * (
        len(HIGH_HELD_CUTS) + 1
    ) + np.searchsorted(HIGH_HELD_CUTS, high, side="right")


# A hand's cards count for more than its stratum (RowModel.for_hand): an opponent can only
# make a row of the cards the hand does not hold. A row of a class needs n_r cards of each
# rank r (a pair of nines two nines; a straight one of each of its five ranks), and the
# unseen cards hold C(u_r, n_r) ways to give them, u_r unseen of the rank: the product over
# the ranks is the class's availability. Weighing a stratum's counts by the hand's
# availability over the average of the stratum's hands (AVAILABILITY_HANDS random hands, a
# fixed seed) gives the class shares the hand meets. Suits are not counted (a flush needs
# its ranks; a showdown class that holds several strength classes, sayapoker's pairs of
# one rank, needs what they all need).
# Only hands holding trips or more read their own weights (OWN_WEIGHTS_FROM cards of a
# rank): on the others, whose removal their stratum already counts, the weights did not
# help (bench/arrange.py regret at 4 players, docs/SOLVER.md).
OWN_WEIGHTS_FROM = 3
AVAILABILITY_HANDS = 4096
AVAILABILITY_SEED = 2204
_WAYS = np.array([[math.comb(u, n) for n in range(5)] for u in range(5)], dtype=np.float64)


@lru_cache(maxsize=4)
def class_needs(tiebreak: TieBreak) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per showdown class of ``tiebreak``, the cards its rows all hold, as indices into a
    hand's ways to give them (availability): of two ranks' needs at once into the ways'
    outer product (65 x 65: ``5 * rank + count`` each, count 0 for none), twice, then of
    the fifth rank's into the ways themselves."""
    order = showdown_classes(tiebreak)
    need = np.full((order.count, 13), 4, dtype=np.int8)
    for column in (order.plain[:, None], order.flush):
        for suit in range(column.shape[1]):
            np.minimum.at(need, column[:, suit], CLASS_RANKS)
    ranks = np.argsort(-need, axis=1, kind="stable")[:, :5]
    index = (5 * ranks + np.take_along_axis(need, ranks, axis=1)).T
    return index[0] * 65 + index[1], index[2] * 65 + index[3], np.ascontiguousarray(index[4])


def availability(
    indices: np.ndarray, order: ShowdownClasses, needs: tuple[np.ndarray, ...] | None = None
) -> np.ndarray:
    """Each showdown class's availability in the unseen cards of hands given as card
    indices (..., 13): (..., classes), the product over ranks of C(unseen, needed). With
    ``needs`` (class_needs of some classes only), of those classes."""
    ways = _WAYS[4 - rank_counts(indices)]  # (..., 13, 5)
    ways = ways.reshape(*ways.shape[:-2], 65)
    pairs = (ways[..., :, None] * ways[..., None, :]).reshape(*ways.shape[:-1], 65 * 65)
    first, second, last = class_needs(order.tiebreak) if needs is None else needs
    return (
        np.take(pairs, first, axis=-1)
        * np.take(pairs, second, axis=-1)
        * np.take(ways, last, axis=-1)
    )


@lru_cache(maxsize=4)
def _availability_sums(tiebreak: TieBreak) -> tuple[np.ndarray, np.ndarray]:
    """(STRATA, classes): the classes' availability summed over AVAILABILITY_HANDS random
    hands by stratum, and (STRATA,) how many hands each stratum had."""
    order = showdown_classes(tiebreak)
    rng = np.random.default_rng(AVAILABILITY_SEED)
    hands = np.argsort(rng.random((AVAILABILITY_HANDS, 52)), axis=1)[:, :13]
    stratum = unseen_stratum(hands)
    total = np.zeros((STRATA, order.count))
    for at in range(0, len(hands), 256):
        np.add.at(total, stratum[at : at + 256], availability(hands[at : at + 256], order))
    return total, np.bincount(stratum, minlength=STRATA).astype(np.float64)


@lru_cache(maxsize=8)
def _availability_base(tiebreak: TieBreak, strata: int) -> np.ndarray:
    total, hands = _availability_sums(tiebreak)
    if strata == 1:
        total, hands = total.sum(axis=0, keepdims=True), hands.sum(keepdims=True)
    base = total / hands[:, None]
    return np.where(base > 0, base, 1.0)  # a class no hand leaves available: weight 0


def availability_base(order: ShowdownClasses, strata: int) -> np.ndarray:
    """(strata, classes): a class's average availability over random hands of each
    stratum (unseen_stratum; one stratum: all hands), where it is above 0, else 1. Orders
    that are the strength classes themselves share one (their classes need the same)."""
    return _availability_base("key_card" if order.identity else order.tiebreak, strata)


def prepare_availability() -> None:
    """Work out now what a process's first hand holding trips would (about a second for
    each showdown order the presets use): every availability_base."""
    for tiebreak in {preset.suit_tiebreak for preset in PRESETS.values()}:
        for strata in (1, STRATA):
            availability_base(showdown_classes(tiebreak), strata)


def table_name(preset: Preset, players: int) -> str:
    """The row table a preset and table size read: one per preset, scoring method and
    number of players (``chinese-poker.2-4.3p``). Options that change no row's value
    (the room fee, surrender) share their preset's tables."""
    method = f".{preset.method}" if preset.method else ""
    return f"{preset.name}{method}.{players}p"


@lru_cache(maxsize=1)
def load_tables(path: str | None = None) -> dict[str, RowTable]:
    """Every row table in ``row_tables.npz`` by table_name."""
    data = np.load(path or TABLE_PATH)
    if not np.array_equal(data["strengths"], STRENGTHS):
        raise RuntimeError("row_tables.npz does not match capsa.solver.evaluator: rebuild it")
    names = [str(n) for n in data["names"]]
    # (3, classes) in a file written before the strata: one stratum
    counts = [data[f"counts_{i}"].astype(np.float64) for i in range(len(names))]
    return {
        name: RowTable(
            counts[i].reshape(-1, 3, counts[i].shape[-1]),
            float(data["sweep"][i]),
            data[f"joint_{i}"].astype(np.float64),
        )
        for i, name in enumerate(names)
    }


def save_tables(tables: dict[str, RowTable], meta: dict[str, np.ndarray], path: Path) -> None:
    """Write ``tables`` (and each one's build parameters) as load_tables reads them."""
    names = sorted(tables)
    arrays: dict[str, np.ndarray] = {
        "names": np.array(names),
        "sweep": np.array([tables[n].sweep for n in names]),
        "strengths": STRENGTHS,
        "meta": np.stack([meta[n] for n in names]),
    }
    for i, name in enumerate(names):
        arrays[f"counts_{i}"] = np.rint(tables[name].counts).astype(np.int32)
        arrays[f"joint_{i}"] = np.rint(tables[name].joint).astype(np.int32)
    # numpy's stubs type **kwds as allow_pickle's bool; every value here is an array
    np.savez_compressed(path, **arrays)  # type: ignore[arg-type]


def table_for(preset: Preset, players: int) -> RowTable:
    """The preset's own table for ``players``; a preset that is not shipped (a custom one)
    reads the shipped preset's of its suit tie-break and scoring (standard's if none)."""
    tables = load_tables()
    name = table_name(preset, players)
    if name in tables:
        return tables[name]
    for other in PRESETS.values():
        if (other.suit_tiebreak, other.scoring) == (preset.suit_tiebreak, preset.scoring):
            fallback = table_name(replace(other, method=preset.method or other.method), players)
            if fallback in tables:
                return tables[fallback]
    return tables[table_name(PRESETS["standard"], players)]


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


def class_categories(order: ShowdownClasses) -> np.ndarray:
    """The category (index into capsa.hands.ALL_CATEGORIES) of each showdown class (a
    showdown class holds rows of one category)."""
    category = np.zeros(order.count, dtype=np.intp)
    category[order.plain] = CATEGORY
    category[order.flush.ravel()] = np.repeat(CATEGORY, 4)
    return category


def class_values(preset: Preset, position: str) -> np.ndarray:
    """The value of a winning row of each showdown class at ``position`` under ``preset``."""
    category = class_categories(showdown_classes(preset.suit_tiebreak))
    return value_table(preset)[POSITIONS.index(position)][category]


def value_runs(order: ShowdownClasses, preset: Preset) -> tuple[np.ndarray, ...]:
    """The runs of showdown classes of one category (a row's value at a position is its
    category's, class_values), for RowModel._set_rows, as flat indices into (3, classes)
    and (3, runs): (the class before each run's first, per position (3, runs); each
    (position, class)'s run; (3, runs) the runs' values per position)."""
    category = class_categories(order)
    first = np.flatnonzero(np.diff(category, prepend=-1))
    run_of = np.cumsum(np.diff(category, prepend=-1) != 0) - 1
    n, runs = order.count, len(first)
    ends = np.maximum(first - 1, 0) + np.arange(0, 3 * n, n)[:, None]
    values = np.stack([class_values(preset, position)[first] for position in POSITIONS])
    return ends, (run_of + np.arange(0, 3 * runs, runs)[:, None]).ravel(), values


def mid_ranks(counts: np.ndarray) -> np.ndarray:
    """(..., 3, showdown classes): per position, the share of a table's rows below each
    class plus half of those in it. An opponent's row's mid-rank is where RowJoint places
    it."""
    total = counts.sum(axis=-1, keepdims=True)
    return (np.cumsum(counts, axis=-1) - 0.5 * counts) / total


def joint_counts(
    rows: np.ndarray, counts: np.ndarray, strata: np.ndarray | None = None
) -> np.ndarray:
    """How many of the settings ``rows`` ((N, 3) showdown classes, back, middle, front)
    fall in each cell of the JOINT_BINS-cube of their mid-ranks under ``counts`` ((3,
    classes), or (strata, 3, classes) with each setting's stratum in ``strata``: the
    stratum of the hand it was set against)."""
    mid = mid_ranks(counts.reshape(-1, 3, counts.shape[-1]))
    strata = np.zeros(len(rows), dtype=np.intp) if strata is None else strata
    cell = np.zeros(len(rows), dtype=np.intp)
    for pos in range(3):
        at = mid[strata, pos, rows[:, pos]]
        cell = cell * JOINT_BINS + np.minimum((at * JOINT_BINS).astype(np.intp), JOINT_BINS - 1)
    return np.bincount(cell, minlength=JOINT_BINS**3).reshape((JOINT_BINS,) * 3)


class RowJoint:
    """The chance that one opponent's three rows all fall below (or all above) given
    points (mid-ranks): from a RowTable's ``joint`` (None: the rows independent), cumulated
    both ways, spread evenly over each cell (trilinear interpolation; with the rows
    independent that is exactly the product of the three chances) and kept on a finer
    grid of JOINT_GRID steps a position, read at the nearest point: a split's chances are
    then one lookup, not an interpolation (a step is 1/48 of a row's mid-rank, so a
    chance is off by at most about 1/96 of a row's)."""

    def __init__(self, joint: np.ndarray | None):
        g = JOINT_BINS
        cells = np.ones((g, g, g)) if joint is None else np.asarray(joint, dtype=np.float64)
        if cells.shape != (g, g, g) or not cells.sum() > 0:
            raise ValueError(f"a row joint is a {g}x{g}x{g} array of counts, not all zero")
        cells = cells / cells.sum()
        below = np.zeros((g + 1,) * 3)
        below[1:, 1:, 1:] = cells.cumsum(0).cumsum(1).cumsum(2)
        above = np.zeros((g + 1,) * 3)
        flip = cells[::-1, ::-1, ::-1].cumsum(0).cumsum(1).cumsum(2)
        above[:-1, :-1, :-1] = flip[::-1, ::-1, ::-1]
        self.below, self.above = (self._finer(t).ravel() for t in (below, above))
        # each position's share of the flat index at the grid's top (a row surely won)
        self.top = tuple(int(self.steps(np.ones(1), pos)[0]) for pos in range(3))

    @staticmethod
    def _finer(table: np.ndarray) -> np.ndarray:
        """``table`` on JOINT_BINS + 1 points a position, linearly interpolated to
        JOINT_GRID + 1 (one axis at a time: trilinear), as float32."""
        g = JOINT_BINS
        at = np.arange(JOINT_GRID + 1) * (g / JOINT_GRID)
        low = np.minimum(at.astype(np.intp), g - 1)
        frac = at - low
        for axis in range(3):
            shape = [1, 1, 1]
            shape[axis] = -1
            w = frac.reshape(shape)
            lower, upper = np.take(table, low, axis=axis), np.take(table, low + 1, axis=axis)
            table = lower * (1 - w) + upper * w
        return table.astype(np.float32)

    @staticmethod
    def grid(points: np.ndarray) -> np.ndarray:
        """The nearest grid step (0 .. JOINT_GRID) of mid-ranks."""
        return np.rint(np.clip(points, 0.0, 1.0) * JOINT_GRID).astype(np.intp)

    @staticmethod
    def steps(points: np.ndarray, position: int) -> np.ndarray:
        """The nearest grid point of mid-ranks at ``position`` (0 back, 1 middle, 2
        front), as its share of the flat index: the three positions' add up to it."""
        return RowJoint.grid(points) * (JOINT_GRID + 1) ** (2 - position)

    def all_below(self, pb: np.ndarray, pm: np.ndarray, pf: np.ndarray) -> np.ndarray:
        """P(the opponent's back, middle and front mid-ranks are all below pb, pm, pf)."""
        at = self.steps(pb, 0) + self.steps(pm, 1) + self.steps(pf, 2)
        return self.below.take(at)

    def all_above(self, xb: np.ndarray, xm: np.ndarray, xf: np.ndarray) -> np.ndarray:
        """P(the opponent's back, middle and front mid-ranks are all above xb, xm, xf)."""
        at = self.steps(xb, 0) + self.steps(xm, 1) + self.steps(xf, 2)
        return self.above.take(at)


def flat_rows(classes: tuple[np.ndarray, np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray]:
    """(position, class) pairs as flat indices into (3, n) classes, the ``classes`` of the
    back and the middle then of the front, and their positions."""
    five, three = classes
    at = np.concatenate([five, five + n, three + 2 * n])
    return at, np.repeat(np.arange(3), (len(five), len(five), len(three)))


class HandWeights:
    """What RowModel.for_hand reads of a stratum's model, worked out at its first hand: the
    classes its table has seen at some position (``seen``; the others' counts are 0 and
    weigh nothing), their needs (class_needs) and average availability (availability_base),
    the seen counts per position in class order (``values``, of seen class ``seen_of``,
    position p's in ``spans[p]``), and where each (position, class)'s rows up to it sit in
    a hand's running sums (``rank``: position p's sums start at ``prefix_at[p]`` with a 0,
    then one for each seen count; ``ends`` and ``last``: value_runs' ends and each
    position's last class)."""

    def __init__(self, model: RowModel):
        counts = model.counts
        self.n = n = counts.shape[1]
        self.order = showdown_classes(model.preset.suit_tiebreak)
        here, strata = model.stratum
        seen = np.flatnonzero(counts.any(axis=0))
        self.needs = tuple(need.take(seen) for need in class_needs(self.order.tiebreak))
        self.base = availability_base(self.order, strata)[here].take(seen)
        self.seen_index = np.full(n, len(seen), dtype=np.intp)
        self.seen_index[seen] = np.arange(len(seen))
        flat = counts.ravel()
        nonzero = np.flatnonzero(flat > 0)  # position by position, classes ascending
        self.values = flat.take(nonzero)
        self.seen_of = self.seen_index.take(nonzero % n)
        per_position = (counts > 0).sum(axis=1)
        stops = np.cumsum(per_position)
        self.spans = [
            (int(stop - k), int(stop)) for stop, k in zip(stops, per_position, strict=True)
        ]
        self.prefix_at = [start + p for p, (start, _) in enumerate(self.spans)]
        self.rank = (np.cumsum(counts > 0, axis=1) + np.array(self.prefix_at)[:, None]).ravel()
        self.ends = self.rank.take(model.runs[0])
        self.last = self.rank.take(np.arange(1, 4) * n - 1)


class RowModel:
    """Per-class features for one preset and table size; scores splits vectorised. Rows are
    given by showdown class (capsa.solver.evaluator.ShowdownClasses: the strength class
    itself except under sayapoker's ``early`` suit rule); ``counts`` (3, showdown classes)
    is one stratum of a RowTable's, ``joint`` its joint (None: the rows taken as
    independent; a RowJoint: shared with the table's other strata)."""

    def __init__(
        self,
        preset: Preset,
        opponents: int,
        counts: np.ndarray,
        sweep: float,
        joint: np.ndarray | RowJoint | None = None,
        stratum: tuple[int, int] = (0, 1),
    ):
        order = showdown_classes(preset.suit_tiebreak)
        if counts.shape != (3, order.count):
            raise ValueError(f"a {preset.suit_tiebreak} row table has {order.count} classes")
        self.preset = preset
        self.opponents = opponents
        self.units = preset.scoring == "units"
        self.push = preset.suit_tiebreak == "none"
        self.counts = counts
        self.stratum = stratum  # (this one, of how many in its table)
        self.runs = value_runs(order, preset)
        self.joint = joint if isinstance(joint, RowJoint) else RowJoint(joint)
        m = pair_multiplier(preset, table_sweep=False, foul=False)
        t = pair_multiplier(preset, table_sweep=True, foul=False)
        self.c_sweep = float(m - 1)
        self.c_table = float(t - m) if table_sweep_applies(preset, opponents + 1) else 0.0
        self.c_swept = float(m - 1) + (self.c_table * sweep ** (opponents - 1))
        self._weights: HandWeights | None = None  # for_hand's, at its first hand
        self._set_rows(counts)
        # the least non-decreasing bound of R, P and MV over strength classes, per
        # position: the best of a feature over the rows of no higher strength class than c
        # (whatever their showdown classes) is at most envelope[c]
        self.envelope = [
            {c: np.maximum.accumulate(order.rank_bound(column[c])) for c in (R, P, MV)}
            for column in self.columns
        ]
        # and the least non-decreasing bound of a row's point in the joint where it loses,
        # and per position the least that a row that can lose pays when it does
        self.lose_envelope = [np.maximum.accumulate(order.rank_bound(x)) for x in self.lose_point]
        self.least_lost = [
            float(min(column[LOST][column[Q] > 0], default=0.0)) for column in self.columns
        ]
        # the envelopes' points in the joint, where the strongest rows win and lose
        self.envelope_at = [RowJoint.steps(e[P], pos) for pos, e in enumerate(self.envelope)]
        self.envelope_lose_at = [RowJoint.steps(e, pos) for pos, e in enumerate(self.lose_envelope)]
        # per position, the largest chance that a row ties (pushes)
        self.most_tied = [float((1.0 - c[P] - c[Q]).max()) for c in self.columns]

    def _set_rows(self, counts: np.ndarray) -> None:
        """Every class's features from the opponents' rows per position and showdown class
        (``counts``, (3, classes)): _set_features with the rows up to each class."""
        n = counts.shape[1]
        through = np.cumsum(counts, axis=1)  # an opponent's rows of the class or below
        every = np.arange(n)
        self._set_features(
            flat_rows((every, every), n),
            counts.ravel(),
            through.ravel(),
            through.take(self.runs[0]),
            through[:, -1],
        )

    def _set_features(
        self,
        where: tuple[np.ndarray, np.ndarray],
        cnt: np.ndarray,
        upto: np.ndarray,
        before: np.ndarray,
        totals: np.ndarray,
    ) -> None:
        """The per-class features, their points in the joint and the bound ``cap`` at the
        (position, class) pairs ``where`` (flat_rows; the rest left unset: RowModel.for_hand
        reads a hand's model at its own rows' classes only), from
        the opponents' rows at those (position, class) pairs (``cnt``) and of those classes
        or below (``upto``), the rows below each run of classes of one value (``before``,
        (3, runs), at value_runs' ends; its first run's set to 0 here) and in all
        (``totals``, (3,))."""
        n = self.counts.shape[1]
        at, pos = where
        # a row's value is its category's, constant over runs of classes (self.runs): the
        # rows up to a class and their value follow from ``upto`` and the runs' ``before``
        _, run_of, run_values = self.runs  # run_of: flat
        before[:, 0] = 0.0
        worth = np.diff(before, axis=1, append=totals[:, None]) * run_values  # each run's
        worth_before = np.cumsum(worth, axis=1) - worth
        worth_total = worth_before[:, -1] + worth[:, -1]
        run = run_of.take(at)
        value = run_values.take(run)
        total = totals.take(pos)
        worth = worth_before.take(run) + value * (upto - before.take(run))
        share = 0.0 if self.push else 0.5
        less = (upto - cnt) / total
        equal = cnt / total
        # expected value paid to opponents' strictly stronger rows
        paid_above = (worth_total.take(pos) - worth) / total
        p = less + share * equal
        q = 1.0 - less - equal + share * equal
        loss = paid_above + share * equal * value
        if self.preset.scoring == "multiply":
            mv, ml = value, loss
        else:
            mv, ml = np.ones_like(q), q
        r = p * value - loss
        rows = [
            r,
            p,
            q,
            mv,
            np.divide(ml, q, out=np.zeros_like(ml), where=q > 0),  # what a lost row pays
            self._cap(r, p, mv),
        ]
        # where ties push, a row's point where it loses (at 1 - q) is not where it wins
        # (at p): one expression for its own point and for the envelope's (1 - Q and P
        # differ in the last bit, and a point at a half step of the grid must round the
        # same way in both)
        if self.push:
            rows.append(1.0 - q)
        # per feature, (3, n): R, P, Q, MV, LOST, cap [, the lose point]; then each
        # class's point in the joint where it wins [and where it loses]
        table = np.empty((len(rows), 3 * n))
        table[:, at] = rows
        table = table.reshape(len(rows), 3, n)
        stride = (JOINT_GRID + 1) ** (2 - pos)
        steps = np.empty((len(rows) - 5, 3 * n), dtype=np.intp)
        steps[:, at] = [RowJoint.grid(row) * stride for row in (p, *rows[6:])]
        steps = steps.reshape(len(rows) - 5, 3, n)
        self.columns = [[table[c, position] for c in range(5)] for position in range(3)]
        self.cap = list(table[5])
        self.lose_point = list(table[6] if self.push else table[P])
        self.win_at = list(steps[0])
        self.lose_at = list(steps[1]) if self.push else self.win_at

    def for_hand(self, indices: np.ndarray, classes: tuple | None = None) -> RowModel:
        """This model for one hand (card indices): each class's count weighed by how
        available its ranks are in the hand's unseen cards against the average hand of
        this model's stratum (``availability``). With ``classes`` (the showdown classes
        of the hand's five-card subsets, then of its three-card ones) the features are
        those classes' only, else every class's. The envelopes (normal_splits' bounds)
        stay the table's: a hand's model scores that hand's splits only.

        Only the classes the stratum's table has seen weigh anything (HandWeights): their
        weights are summed, per position, in the order of the classes, so the rows up to
        a class are what the cumulative sum of every weighed count gives, to the bit."""
        if classes is None:
            every = np.arange(self.counts.shape[1])
            classes = (every, every)
        known = self._weights
        if known is None:
            known = self._weights = HandWeights(self)
        weight = availability(indices, known.order, known.needs) / known.base
        prefix = np.zeros(len(known.values) + 3)
        weighed = known.values * weight.take(known.seen_of)
        for first, (start, stop) in zip(known.prefix_at, known.spans, strict=True):
            np.cumsum(weighed[start:stop], out=prefix[first + 1 : first + 1 + stop - start])
        weight = np.append(weight, 0.0)  # a class the table never saw: no rows to weigh
        where = flat_rows(classes, known.n)
        at = where[0]
        cnt = self.counts.take(at) * weight.take(known.seen_index.take(at % known.n))
        hand = copy.copy(self)  # (its counts, and so its HandWeights, are the stratum's)
        hand._set_features(
            where,
            cnt,
            prefix.take(known.rank.take(at)),
            prefix.take(known.ends),
            prefix.take(known.last),
        )
        return hand

    def _cap(self, r: np.ndarray, p: np.ndarray, mv: np.ndarray) -> np.ndarray:
        """A row's share of an upper bound of ``split_ev`` (per class of one position,
        from its R, P and MV): the rows' sum plus a bound of the extra that separates
        by row. The joint reads a chance at the nearest grid point, at most 1/(2
        JOINT_GRID) above the row's own (``step`` is twice that, to spare rounding):
        - sweeps (multiply): won3 * (vb + vm + vf) <= pb vb + pm vm + pf vf (won3 is at
          most each row's chance), the table sweep's won3 ** k no more, the swept term <= 0;
        - 1-6 units: won3 - lost3 <= won3 <= (pb + pm + pf) / 3;
        - 2-4 units: the majority <= P(two wins or more) + the one-win-two-ties term
          <= (pb + pm + pf) / 2 + (pb + pm + pf)."""
        step = 1.0 / JOINT_GRID
        if self.units and self.preset.method == "2-4":
            return r + units_extra(self.preset, 2, 1) * (1.5 * p + step)
        if self.units:
            return r + units_extra(self.preset, 3, 0) * (p + step) / 3
        return r + (self.c_sweep + self.c_table) * (p + step) * mv

    def points(self, back, middle, front) -> tuple[tuple, tuple]:
        """Each split's rows' points in the joint (RowJoint.steps, per position), where
        they win and where they lose (the same unless ties push)."""
        rows = (back, middle, front)
        won = tuple(at.take(row) for at, row in zip(self.win_at, rows, strict=True))
        if self.lose_at is self.win_at:
            return won, won
        return won, tuple(at.take(row) for at, row in zip(self.lose_at, rows, strict=True))

    def sweeps(self, back, middle, front) -> tuple[np.ndarray, np.ndarray]:
        """(chance to win all three rows, chance to lose all three) of each split, from the
        joint of an opponent's rows (RowJoint)."""
        won, lost = self.points(back, middle, front)
        return self.joint.below.take(sum(won)), self.joint.above.take(sum(lost))

    def split_ev(self, back: np.ndarray, middle: np.ndarray, front: np.ndarray) -> np.ndarray:
        """Expected points against ONE opponent for each split (class ids per row)."""
        fb, fm, ff = self.columns

        def col(c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            return fb[c].take(back), fm[c].take(middle), ff[c].take(front)

        rb, rm, rf = col(R)
        ev = rb + rm + rf
        if self.units and self.preset.method == "2-4":
            majority = units_extra(self.preset, 2, 1)
            won, lost = self.points(back, middle, front)
            return ev + majority * self._majority(won, lost, col(P), col(Q))
        won3, lost3 = self.sweeps(back, middle, front)
        if self.units:
            # the extra a sweep pays (capsa.scoring.units_extra) times its chance
            return ev + units_extra(self.preset, 3, 0) * (won3 - lost3)
        vb, vm, vf = col(MV)
        lb, lm, lf = col(LOST)
        won = won3 * (vb + vm + vf)
        lost = lost3 * (lb + lm + lf)
        ev += self.c_sweep * won
        ev -= self.c_swept * lost
        if self.c_table:
            extra = won
            for _ in range(self.opponents - 1):
                extra = extra * won3
            ev += self.c_table * extra
        return ev

    def best_split(
        self, back: np.ndarray, middle: np.ndarray, front: np.ndarray
    ) -> tuple[int, float]:
        """(index, value) of the split ``split_ev`` values most, the first of equals as
        ``np.argmax`` takes it, without valuing every split: the split with the highest
        bound (``cap``) is valued, then every split whose bound reaches its value."""
        cb, cm, cf = self.cap
        bound = cb.take(back) + cm.take(middle) + cf.take(front)
        top = np.array([np.argmax(bound)])
        floor = float(self.split_ev(back.take(top), middle.take(top), front.take(top))[0])
        keep = np.flatnonzero(bound >= floor - 1e-9 * (1.0 + abs(floor)))  # rounding
        ev = self.split_ev(back.take(keep), middle.take(keep), front.take(keep))
        at = int(np.argmax(ev))
        return int(keep[at]), float(ev[at])

    def _majority(self, won: tuple, lost: tuple, ps: tuple, qs: tuple) -> np.ndarray:
        """P(win more rows) - P(lose more rows), for the 2-4 method: winning two rows or
        more (the pairs' joint chances less twice all three's, RowJoint), less losing two
        or more, plus winning one row with the other two tied less the reverse (the rows
        taken as independent in this last, small term). ``won``/``lost``: the rows'
        points in the joint where they win and lose (RowJoint.steps), ``ps``/``qs`` their
        chances to win and to lose."""
        (lb, lm, lf) = lost
        above = self.joint.above
        two = self._two_or_more(*won)
        # losing: a row the opponent surely beats sits at the grid's 0
        two -= above.take(lb + lm) + above.take(lb + lf) + above.take(lm + lf)
        two += 2 * above.take(lb + lm + lf)
        (pb, pm, pf), (qb, qm, qf) = ps, qs
        xb, xm, xf = 1.0 - pb - qb, 1.0 - pm - qm, 1.0 - pf - qf
        db, dm, df = pb - qb, pm - qm, pf - qf
        return np.asarray(two + db * xm * xf + dm * xb * xf + df * xb * xm)

    def _two_or_more(self, wb: np.ndarray, wm: np.ndarray, wf: np.ndarray) -> np.ndarray:
        """P(winning two rows or more) of rows at these points in the joint (RowJoint.steps):
        the pairs' joint chances (a row at the grid's top is surely won) less twice all
        three's."""
        tb, tm, tf = self.joint.top
        below = self.joint.below
        two = below.take(wb + wm + tf) + below.take(wb + tm + wf) + below.take(tb + wm + wf)
        return np.asarray(two - 2 * below.take(wb + wm + wf))

    def extra_bound(self, back: np.ndarray, middle: np.ndarray, front: np.ndarray) -> np.ndarray:
        """An upper bound of what ``split_ev`` adds to the rows' sum (sweeps and being swept,
        table sweeps, the units extra) for splits whose back is of showdown class ``back``
        and whose middle and front are of no higher strength class than ``middle`` and
        ``front``; the middle and front are read as the strongest rows of their classes
        (the envelopes).

        - Sweeping grows with each row's chance (the joint is a distribution), and so does
          winning two rows or more (2-4); the sweep's values are at most the envelopes'.
        - Being swept shrinks as each row grows, and where a split can be swept each of its
          rows can lose, so its middle and front each pay at least ``least_lost`` of their
          position (the back pays its own); under 2-4,
          losing two rows or more (``_majority``) is at least losing all three.
        - 2-4's one-win-two-ties term is at most each row's chance times the others'
          largest chances to tie.

        The joint's chances are float32: the bound holds to about 1e-6 a point, and SLACK
        (relative to the back's row and the extra) is added for that.
        """
        fb, em, ef = self.columns[0], self.envelope[1], self.envelope[2]
        won = (
            self.win_at[0].take(back),
            self.envelope_at[1].take(middle),
            self.envelope_at[2].take(front),
        )
        lost3 = self.joint.above.take(
            self.lose_at[0].take(back)
            + self.envelope_lose_at[1].take(middle)
            + self.envelope_lose_at[2].take(front)
        )
        if self.units and self.preset.method == "2-4":
            pb, pm, pf = fb[P].take(back), em[P].take(middle), ef[P].take(front)
            xb, xm, xf = self.most_tied
            ties = pb * xm * xf + pm * xb * xf + pf * xb * xm
            most = self._two_or_more(*won) + ties
            extra = units_extra(self.preset, 2, 1) * (most - lost3)
        elif self.units:
            won3 = self.joint.below.take(won[0] + won[1] + won[2])
            extra = units_extra(self.preset, 3, 0) * (won3 - lost3)
        else:
            won3 = self.joint.below.take(won[0] + won[1] + won[2])
            values = fb[MV].take(back) + em[MV].take(middle) + ef[MV].take(front)
            factor = self.c_sweep + self.c_table * won3 ** (self.opponents - 1)
            paid = fb[LOST].take(back) + (self.least_lost[1] + self.least_lost[2])
            extra = factor * won3 * values - self.c_swept * lost3 * paid
        return extra + SLACK * (1.0 + np.abs(fb[R].take(back)) + np.abs(extra))

    def row_win(self, back, middle, front) -> np.ndarray:
        """Sum of the three rows' win chances (values and sweeps ignored): the easy setter."""
        fb, fm, ff = self.columns
        return fb[P].take(back) + fm[P].take(middle) + ff[P].take(front)


_MODELS: dict[tuple, tuple[RowModel, ...]] = {}


def table_models(preset: Preset, opponents: int, table: RowTable) -> tuple[RowModel, ...]:
    """A table's row models, one per stratum, sharing its joint."""
    joint = RowJoint(table.joint)
    return tuple(
        RowModel(preset, opponents, c, table.sweep, joint, (i, table.strata))
        for i, c in enumerate(table.counts)
    )


def models_for(preset: Preset, opponents: int) -> tuple[RowModel, ...]:
    """The row models of a preset at a table of ``opponents`` + 1 players (table_for), one
    per stratum of the table (unseen_stratum)."""
    key = (preset_key(preset), opponents)
    models = _MODELS.get(key)
    if models is None:
        models = _MODELS[key] = table_models(preset, opponents, table_for(preset, opponents + 1))
    return models


def strata_of(indices: np.ndarray, models: tuple[RowModel, ...]) -> np.ndarray:
    """Which of ``models`` each hand (card indices, (..., 13)) reads: its unseen_stratum,
    or the one model of a table learned without strata."""
    if len(models) == 1:
        return np.zeros(np.shape(indices)[:-1], dtype=np.intp)
    return unseen_stratum(indices)


def model_for(
    indices: np.ndarray,
    preset: Preset,
    opponents: int,
    by_hand: bool = True,
    tables: HandTables | None = None,
) -> RowModel:
    """The row model ``normal`` reads for one hand (card indices) of a preset at a table of
    ``opponents`` + 1 players: its table's, for the hand's stratum, weighed by the hand's
    own cards (RowModel.for_hand; with the hand's ``tables``, for its own rows' classes
    only); ``by_hand=False``: the stratum's as it is, which ``normal_splits`` reads (the
    opponents hard and the benchmark set)."""
    models = models_for(preset, opponents)
    model = models[int(strata_of(indices, models))]
    if not by_hand or rank_counts(indices).max() < OWN_WEIGHTS_FROM:
        return model
    if tables is None:
        return model.for_hand(indices)
    sd5, sd3 = tables.showdown(preset.suit_tiebreak)[:2]
    # the hand's subsets fall in few classes (a hand with trips: about 160 of its 1,287
    # fives, 90 of its 286 threes): each class once
    n = model.counts.shape[1]
    return model.for_hand(indices, (distinct(sd5, n), distinct(sd3, n)))


def distinct(classes: np.ndarray, n: int) -> np.ndarray:
    """The classes (of 0 .. n - 1) in ``classes``, each once, ascending."""
    held = np.zeros(n, dtype=bool)
    held[classes] = True
    return np.flatnonzero(held)


# --- the setters --------------------------------------------------------------------------


def normal_choice(
    tables: HandTables, preset: Preset, opponents: int, by_hand: bool = True
) -> tuple[int, np.ndarray]:
    """(index of the best valid split, expected points per opponent of every valid split)."""
    model = model_for(tables.indices, preset, opponents, by_hand, tables)
    _, _, back, middle, front = tables.showdown(preset.suit_tiebreak)
    ev = model.split_ev(back, middle, front)
    return int(np.argmax(ev)), ev


def normal_best(
    tables: HandTables, preset: Preset, opponents: int, by_hand: bool = True
) -> tuple[int, float]:
    """``normal_choice``'s split and its value, without the values of the other splits
    (RowModel.best_split)."""
    _, _, back, middle, front = tables.showdown(preset.suit_tiebreak)
    model = model_for(tables.indices, preset, opponents, by_hand, tables)
    return model.best_split(back, middle, front)


def normal_value(tables: HandTables, preset: Preset, opponents: int, split: int) -> float:
    """``normal_choice``'s value of one split (an index into the valid splits)."""
    _, _, back, middle, front = tables.showdown(preset.suit_tiebreak)
    at = np.array([split])
    model = model_for(tables.indices, preset, opponents, tables=tables)
    ev = model.split_ev(back.take(at), middle.take(at), front.take(at))
    return float(ev[0])


FIRST_BACKS = 8  # backs whose splits normal_splits scores first, for each hand
_CHUNK = 512  # (hand, back) pairs scored at once (their arrays stay in the cache)


def normal_splits(
    indices: np.ndarray,
    preset: Preset,
    opponents: int,
    models: tuple[RowModel, ...] | None = None,
) -> tuple:
    """``normal``'s choice for many hands at once, given as card indices sorted ascending
    (N, 13): (unordered split of each hand (index into capsa.solver.evaluator.SPLIT_A), its
    expected points per opponent, the hands' cls5 (N, 1287) and cls3 (N, 286)).

    The same split and value as ``normal_choice``, found back by back without scoring
    every split: each back gets an upper bound of its splits' values (its row, the best
    middle row of no higher class than it and the best front of no higher class than it or
    than the hand's strongest three, ``extra_bound``); the
    splits of the FIRST_BACKS backs with the highest bounds are scored, then those of every
    back whose bound still reaches the best value found, furthest above it first, in
    chunks of _CHUNK (hand, back) pairs, skipping a split whose rows' sum plus its back's
    extra bound falls short of it (90 to 150 backs of 1,287 a hand are scored). Ties go to
    the lowest split, as ``np.argmax`` does in ``normal_choice``. The hands are grouped by
    the model each reads (strata_of). ``models``: other row models than the preset's, one
    per stratum (capsa.solver.build_tables uses them while it learns the tables).
    """
    models = models or models_for(preset, opponents)
    if len(models) == 1:
        return _normal_splits(indices, models[0])
    strata = strata_of(indices, models)
    n = len(indices)
    choice, best = np.empty(n, dtype=np.intp), np.empty(n)
    cls5, cls3 = np.empty((n, len(MASK5)), dtype=np.intp), np.empty((n, len(MASK3)), dtype=np.intp)
    for stratum in np.unique(strata).tolist():
        at = np.flatnonzero(strata == stratum)
        choice[at], best[at], cls5[at], cls3[at] = _normal_splits(indices[at], models[stratum])
    return choice, best, cls5, cls3


def _normal_splits(indices: np.ndarray, model: RowModel) -> tuple:
    """normal_splits for hands that all read ``model``."""
    cls5, cls3 = subset_classes(indices)
    sd5, sd3 = subset_showdown(indices, cls5, cls3, model.preset.suit_tiebreak)
    n, n5 = cls5.shape
    n3 = cls3.shape[1]
    fb, fm, ff = model.columns
    # the front of a split is of no higher class than its back, nor than the hand's
    # strongest three; where the hand's weakest three is above the five, no split has it
    # as its back
    front_cls = np.minimum(cls5, cls3.max(axis=1, keepdims=True))
    no_front = cls5 < cls3.min(axis=1, keepdims=True)
    # a bound of each back's splits: its row, the best middle and front rows of no higher
    # class (the features' envelopes) and a bound of the extra (RowModel.extra_bound)
    _, em, ef = model.envelope
    r_back = fb[R][sd5]
    extra = model.extra_bound(sd5, cls5, front_cls)
    bound = r_back + extra + em[R][cls5] + ef[R][front_cls]
    bound[no_front] = -np.inf
    flat5, flat3 = cls5.ravel(), cls3.ravel()
    sd_flat5, sd_flat3 = sd5.ravel(), sd3.ravel()
    identity = sd5 is cls5
    best = np.full(n, -np.inf)
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def score(hand: np.ndarray, back: np.ndarray) -> None:
        """Score the splits of these (hand, back) pairs that can reach ``best``."""
        at = hand * n5 + back
        middle = BY_BACK_MIDDLE[back] + (hand * n5)[:, None]
        front = BY_BACK_FRONT[back] + (hand * n3)[:, None]
        cb = flat5.take(at)[:, None]
        cm = flat5.take(middle)
        cf = flat3.take(front)
        if identity:  # showdown classes are the strength classes
            sm, sf = cm, cf
        else:
            sm, sf = sd_flat5.take(middle), sd_flat3.take(front)
        rows_sum = r_back.ravel().take(at)[:, None] + fm[R].take(sm) + ff[R].take(sf)
        reach = rows_sum + extra.ravel().take(at)[:, None] >= best.take(hand)[:, None]
        # rows of one strength class go as HandTables orders them (the split's A in the
        # back): the showdown classes of the two orientations may differ (sayapoker's
        # flushes of the same ranks in two suits)
        order = (cm < cb) | BY_BACK_IS_A[back]
        keep = np.flatnonzero(((cm <= cb) & (cf <= cm) & order & reach).ravel())
        if not len(keep):
            return
        pair = keep // 56
        sb = cb.ravel().take(pair) if identity else sd_flat5.take(at.take(pair))
        ev = model.split_ev(sb, sm.ravel().take(keep), sf.ravel().take(keep))
        h = hand.take(pair)
        np.maximum.at(best, h, ev)
        found.append((h, BY_BACK_SPLIT[back].ravel().take(keep), ev))

    first = min(FIRST_BACKS, n5)
    top = np.argpartition(-bound, first - 1, axis=1)[:, :first]
    score(np.repeat(np.arange(n), first), top.ravel())
    rest = bound >= best[:, None]
    rest[np.arange(n)[:, None], top] = False
    hand, back = np.nonzero(rest)
    # the backs furthest above their hand's best first: a chunk's values raise the best,
    # and the next chunk drops the backs whose bounds it no longer reaches
    reach = bound[hand, back]
    order = np.argsort(best.take(hand) - reach, kind="stable")
    hand, back, reach = hand[order], back[order], reach[order]
    for start in range(0, len(hand), _CHUNK):
        live = start + np.flatnonzero(
            reach[start : start + _CHUNK] >= best.take(hand[start : start + _CHUNK])
        )
        score(hand.take(live), back.take(live))
    hands = np.concatenate([f[0] for f in found])
    splits = np.concatenate([f[1] for f in found])
    evs = np.concatenate([f[2] for f in found])
    win = evs == best.take(hands)
    choice = np.full(n, len(SPLIT_A))
    np.minimum.at(choice, hands[win], splits[win])
    return choice, best, cls5, cls3


def easy_choice(tables: HandTables, preset: Preset, opponents: int, seed: int) -> int:
    """The valid split whose rows win most often on their own (no bonuses, no sweeps),
    chosen with a little seeded noise among the best few."""
    model = model_for(tables.indices, preset, opponents, tables=tables)
    score = model.row_win(*tables.showdown(preset.suit_tiebreak)[2:])
    n = min(12, len(score))
    top = np.argpartition(-score, n - 1)[:n] if n < len(score) else np.arange(len(score))
    top = top[np.argsort(-score[top], kind="stable")]
    noise = np.random.default_rng(seed).normal(0.0, 0.06, len(top))
    return int(top[np.argmax(score[top] + noise)])


def best_special(found: Iterable[str], preset: Preset) -> str | None:
    """The special a holder of the specials ``found`` declares, if any: the most valuable,
    the higher-ranked one on equal value."""
    found = list(found)
    if not found:
        return None
    return max(found, key=lambda s: (preset.specials[s], -SPECIALS.index(s)))


# --- specials: what declaring one is worth ------------------------------------------------
#
# RULES §4: a declared special is paid its value by every other player, unless that player
# declared a higher-ranked special (then the higher one is paid by the lower one); two of
# the same kind tie (``same_special: tie``, and a dragon always) or are compared
# (``compare``). A player who declared is neither swept nor sweeps, and nobody's foul
# matters to it. Opponents are taken to declare the best special they hold
# (``best_special``). Against one opponent dealt 13 of the 39 cards the hand does not hold,
# with ``odds[t]`` the chance that the opponent declares ``t`` and ``rows`` the expected
# points of a split against an opponent who plays rows:
#
#     ordinary  = (1 - sum odds) rows - sum_t odds[t] value[t]
#     declare s = (1 - sum odds) value[s] + sum_{t below s} odds[t] value[s]
#                 - sum_{t above s} odds[t] value[t] + odds[s] edge value[s]
#
# ``edge`` is P(our s beats theirs) - P(it loses): 0 where the same special ties, exact for
# six pairs, 0 (an even contest) for three straights and three flushes. The odds are exact,
# card removal counted: dragon, six pairs and three straights from the unseen cards per
# rank, three flushes from the unseen cards per suit. A hand holding a rank-made and a
# suit-made special at once (under 1e-5 of hands) counts under each.

_CHOOSE = np.array([[math.comb(n, k) for k in range(14)] for n in range(14)], dtype=np.float64)


_TS_DRAGON = (THREE_STRAIGHT_RANKS == 1).all(axis=1)
_TS_SIX_PAIRS = (THREE_STRAIGHT_RANKS // 2).sum(axis=1) >= 6
_TS_ONLY = ~_TS_DRAGON & ~_TS_SIX_PAIRS
# where each three-straight rank count reads a hand's C(unseen, count) per rank: rank r's
# row of _CHOOSE[unseen] (13, 14), flattened
_TS_CHOOSE_AT = np.arange(13) * _CHOOSE.shape[1] + THREE_STRAIGHT_RANKS


@lru_cache(maxsize=4096)
def _six_pairs_hands(unseen: tuple[int, ...], mine: tuple[int, ...] | None) -> tuple[float, ...]:
    """How many 13-card hands from the unseen cards (``unseen[r]`` of rank r, ranks from
    the top) hold six pairs: (total,), or against ``mine`` (our pairs per rank, from the
    top) (equal, theirs higher, theirs lower)."""
    ways = np.zeros((3, 14, 7))  # [status, cards, pairs]: 0 equal so far, 1 higher, 2 lower
    ways[0, 0, 0] = 1.0
    for r, u in enumerate(unseen):
        new = np.zeros_like(ways)
        for c in range(u + 1):
            q = c // 2
            part = np.zeros_like(ways)
            part[:, c:, q:] = ways[:, : 14 - c, : 7 - q]
            if q:
                part[:, c:, 6] += ways[:, : 14 - c, 7 - q :].sum(axis=-1)
            part *= _CHOOSE[u, c]
            if mine is not None and q != mine[r]:
                part[1 if q > mine[r] else 2] += part[0]
                part[0] = 0.0
            new += part
        ways = new
    total = ways[:, 13, 6]
    return (float(total.sum()),) if mine is None else tuple(float(t) for t in total)


def special_odds(indices: np.ndarray, preset: Preset) -> dict[str, float]:
    """For one opponent dealt 13 of the 39 cards the hand ``indices`` does not hold: the
    chance that the special it declares (its best) is each special the preset pays."""
    idx = np.asarray(indices)
    unseen = 4 - np.bincount(idx // 4, minlength=13)
    suits = 13 - np.bincount(idx % 4, minlength=4)
    hands = float(math.comb(int(unseen.sum()), 13))
    straights = _CHOOSE[unseen].ravel().take(_TS_CHOOSE_AT).prod(axis=1)
    six_pairs = _six_pairs_hands(tuple(sorted(unseen.tolist())), None)[0]
    six_pairs_straights = float(straights[_TS_SIX_PAIRS].sum())
    held = (  # the specials a hand holds, and how many hands hold exactly those
        (("dragon", "three_straights"), float(straights[_TS_DRAGON].sum())),
        (("six_pairs", "three_straights"), six_pairs_straights),
        (("six_pairs",), six_pairs - six_pairs_straights),
        (("three_straights",), float(straights[_TS_ONLY].sum())),
        (("three_flushes",), float(_CHOOSE[suits[None, :], FLUSH_SUITS].prod(axis=1).sum())),
    )
    odds = {s: 0.0 for s in SPECIALS if preset.pays(s)}
    for specials, count in held:
        declared = best_special([s for s in specials if s in odds], preset)
        if declared is not None:
            odds[declared] += count / hands
    return odds


def special_edge(indices: np.ndarray, preset: Preset, special: str) -> float:
    """P(our declared ``special`` beats an opponent's same special) - P(it loses)."""
    if preset.same_special == "tie" or special != "six_pairs":
        return 0.0
    idx = np.asarray(indices)
    counts = np.bincount(idx // 4, minlength=13)[::-1]
    equal, higher, lower = _six_pairs_hands(
        tuple((4 - counts).tolist()), tuple((counts // 2).tolist())
    )
    total = equal + higher + lower
    return (lower - higher) / total if total else 0.0


def ordinary_value(preset: Preset, odds: dict[str, float], rows: Value) -> Value:
    """Expected points per opponent of playing rows worth ``rows`` against an opponent who
    plays rows, when the opponent declares each special with ``odds``."""
    return (1.0 - sum(odds.values())) * rows - sum(p * preset.specials[t] for t, p in odds.items())


def declare_value(preset: Preset, odds: dict[str, float], special: str, edge: float) -> float:
    """Expected points per opponent of declaring ``special`` (see the formula above)."""
    value = preset.specials[special]
    out = (1.0 - sum(odds.values())) * value
    for other, p in odds.items():
        order = special_order(special, other)
        if order > 0:
            out += p * value
        elif order < 0:
            out -= p * preset.specials[other]
        else:
            out += p * edge * value
    return out


def should_declare(special_value: float, ordinary_expected: float) -> bool:
    """Computer players declare a special when it is worth more points than the rows."""
    return special_value > ordinary_expected


def should_surrender(preset: Preset, rows: Value) -> Value:
    """``normal`` surrenders where the table allows it when its rows' expected points
    against one opponent who plays rows (``split_ev``) are below the surrender's price,
    which each opponent is paid (works on floats and numpy arrays)."""
    if not preset.surrender:
        return np.zeros(np.shape(rows), dtype=bool) if isinstance(rows, np.ndarray) else False
    return rows < -float(preset.surrender_cost)
