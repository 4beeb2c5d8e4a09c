"""Regenerate the row tables in capsa/solver/row_tables.npz, any or all of them:
``python -m capsa.build_tables`` (every table), ``--table chinese-poker.2-4.3p``
(one; ``--list`` names them all). Fixed seeds: the same command writes the same tables.

There is one table per preset, scoring method and table size (capsa.solver.model.table_name:
``standard.4p``, ``chinese-poker.2-4.2p``, ...): the options that change no row's value
(the room fee, surrender) share their preset's. A table is, per position, how often an
opponent's row falls in each showdown class (capsa.solver.evaluator.ShowdownClasses),
learned by self-play on that table: deal many hands to that many players from a fixed seed
and set them, and count each hand's opponents' rows; a table of STRATA_BY_PLAYERS' sizes
(but under UNSTRATIFIED_METHODS) counts them per card-removal stratum of the hand they
face (capsa.solver.model.unseen_stratum). Iteration 0 sets them greedily (best back, best
middle, rest front); every later iteration sets them with the ``normal`` setter of that
preset and table size using the current table, and the next table is the average of the
last half of the iterations' plays (fictitious play, so the play settles instead of
swinging). Then SETTLE_ROUNDS
settling plays, each under the sum of the SETTLE_WINDOW plays before it: the table shipped
is the last window's, ``normal``'s own play under a table close to it. Each round prints
the largest gap between the table it used and the play it produced (cumulative
distribution, per stratum and position) and ``sweep``: how often a hand sweeps another.

The joint of the three rows (capsa.solver.model.RowJoint: how often an opponent's rows fell
in each cell of a cube of their mid-ranks, each placed under the counts of the stratum of
the hand it faced) is counted from the same plays, one for all strata.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import NamedTuple

import numpy as np

from capsa.presets import PRESETS, Preset, get_preset
from capsa.solver.evaluator import (
    MASK3,
    MASK5,
    SPLIT_A,
    SPLIT_B,
    SPLIT_F,
    HandTables,
    showdown_classes,
    subset_showdown,
)
from capsa.solver.front import keep_memory
from capsa.solver.model import (
    STRATA,
    TABLE_PATH,
    RowModel,
    RowTable,
    joint_counts,
    load_tables,
    normal_splits,
    save_tables,
    table_models,
    table_name,
    unseen_stratum,
)

SEED = 20240611
BLOCK = 1000  # hands set at once
PLAYERS = (2, 3, 4)
# Self-play iterations a table is learned over (its counts: the average of the last half
# of the plays). Under chinese-poker's 2-4 method the play still swings at 16 and averaging
# more settles it: normal's regret at 4 players was 0.024 with 16 and 0.018 with 24 (0.009
# offline: the 16-iteration run's deals and opponents); on the other tables 24 measured no
# better (docs/SOLVER.md).
ITERATIONS = 16
ITERATIONS_BY_METHOD = {"2-4": 24}


def iterations_for(preset: Preset) -> int:
    """How many self-play iterations the shipped table of ``preset`` is learned over."""
    return ITERATIONS_BY_METHOD.get(preset.method or "", ITERATIONS)


def table_presets() -> dict[str, tuple[Preset, int]]:
    """Every table the solver ships: name -> (preset, players)."""
    out = {}
    for preset in PRESETS.values():
        methods = [{"method": m} for m in ("1-6", "2-4")] if preset.method else [{}]
        for options in methods:
            variant = get_preset(preset.name, options)
            for players in PLAYERS:
                out[table_name(variant, players)] = (variant, players)
    return out


def greedy_rows(tables: HandTables, preset: Preset) -> tuple[int, int, int]:
    """Showdown classes (back, middle, front) of the greedy setting."""
    back = int(np.argmax(tables.cls5))
    disjoint = (MASK5 & MASK5[back]) == 0
    mids = np.flatnonzero(disjoint)
    middle = int(mids[np.argmax(tables.cls5[mids])])
    used = int(MASK5[back] | MASK5[middle])
    front = int(np.flatnonzero(MASK3 == ((1 << 13) - 1) ^ used)[0])
    sd5, sd3 = tables.showdown(preset.suit_tiebreak)[:2]
    return int(sd5[back]), int(sd5[middle]), int(sd3[front])


def normal_rows(hands: np.ndarray, preset: Preset, models: tuple[RowModel, ...]) -> np.ndarray:
    """Showdown classes (back, middle, front) of normal's settings of hands (N, 13) under
    ``models`` (one per stratum)."""
    out = np.empty((len(hands), 3), dtype=np.intp)
    for start in range(0, len(hands), BLOCK):
        cards = np.sort(hands[start : start + BLOCK], axis=1)
        choice, _, cls5, cls3 = normal_splits(cards, preset, models[0].opponents, models)
        sd5, sd3 = subset_showdown(cards, cls5, cls3, preset.suit_tiebreak)
        at = np.arange(len(choice))
        a, b = SPLIT_A[choice], SPLIT_B[choice]
        a_back = cls5[at, a] >= cls5[at, b]
        back, middle = np.where(a_back, a, b), np.where(a_back, b, a)
        out[start : start + len(choice)] = np.stack(
            [sd5[at, back], sd5[at, middle], sd3[at, SPLIT_F[choice]]], axis=1
        )
    return out


class Play(NamedTuple):
    """Hands dealt and set in one round of self-play, seen from each hand: its opponents'
    rows, each under the hand's stratum."""

    counts: np.ndarray  # (strata, 3, showdown classes): how many opponents' rows in each
    rows: np.ndarray  # (N, 3): every opponent's setting, once for each hand it faced
    strata: np.ndarray  # (N,): the stratum of that hand
    swept: int  # sweeps seen
    pairs: int  # pairs of hands compared


def _chunk(args) -> Play:
    """One worker's share of a round of self-play (greedy settings where ``counts`` is
    None)."""
    preset, players, seed, deals, counts, sweep, joint, strata = args
    rng = np.random.default_rng(seed)
    hands = np.stack(
        [rng.permutation(52)[: 13 * players].reshape(players, 13) for _ in range(deals)]
    )
    if counts is None:
        rows = np.array([greedy_rows(HandTables(h), preset) for h in hands.reshape(-1, 13)])
    else:
        models = table_models(preset, players - 1, RowTable(counts, sweep, joint))
        rows = normal_rows(hands.reshape(-1, 13), preset, models)
    rows = rows.reshape(deals, players, 3)
    hand_strata = unseen_stratum(hands) if strata > 1 else np.zeros((deals, players), np.intp)
    pairs = [(i, j) for i in range(players) for j in range(players) if i != j]
    theirs = np.concatenate([rows[:, j] for _, j in pairs])
    against = np.concatenate([hand_strata[:, i] for i, _ in pairs])
    n = showdown_classes(preset.suit_tiebreak).count
    cells = [
        np.bincount((against * 3 + pos) * n + theirs[:, pos], minlength=strata * 3 * n)
        for pos in range(3)
    ]
    out = np.sum(cells, axis=0).reshape(strata, 3, n)
    swept = sum(int((rows[:, i] > rows[:, j]).all(axis=1).sum()) for i, j in pairs)
    return Play(out, theirs.astype(np.int16), against.astype(np.int8), swept, deals * len(pairs))


def _cdf(counts: np.ndarray) -> np.ndarray:
    return np.cumsum(counts, axis=-1) / np.maximum(counts.sum(axis=-1, keepdims=True), 1)


def _gap(table: np.ndarray, play: np.ndarray) -> float:
    """Largest difference of the cumulative distributions, over the positions."""
    return float(np.abs(_cdf(table) - _cdf(play)).max())


# Settling: after the averaged iterations, SETTLE_ROUNDS plays of SETTLE_SCALE times
# --hands, each under the counts and joint of the SETTLE_WINDOW plays before it (summed:
# whole counts), so the table shipped is normal's own play under it, not an average of
# plays under tables that came and went (the middle row's distribution was 0.04 to 0.07
# from the play under a table learned without them). The last settling play is 0.012 to
# 0.020 from the table it was set under (0.031 to 0.036 under the 2-4 method, whose play
# swings; 0.030 to 0.041 per stratum, over thinner counts).
SETTLE_ROUNDS = 8
SETTLE_WINDOW = 3
SETTLE_SCALE = 2
# Tables learned per card-removal stratum (capsa.solver.model.unseen_stratum), by table
# size; the others have one stratum. Not under chinese-poker's 2-4 method: its normal at
# four players measured 0.039 with strata and 0.018 without (docs/SOLVER.md).
STRATA_BY_PLAYERS = {4: STRATA}
UNSTRATIFIED_METHODS = ("2-4",)


def strata_for(preset: Preset, players: int) -> int:
    """How many strata the shipped table of a preset and table size is learned over."""
    if preset.method in UNSTRATIFIED_METHODS:
        return 1
    return STRATA_BY_PLAYERS.get(players, 1)


def _play(chunks: list[tuple], workers: int) -> Play:
    if workers == 1:
        return _chunk(chunks[0])
    with ProcessPoolExecutor(workers, initializer=keep_memory) as pool:
        parts = list(pool.map(_chunk, chunks))
    return Play(
        np.sum([p.counts for p in parts], axis=0),
        np.concatenate([p.rows for p in parts]),
        np.concatenate([p.strata for p in parts]),
        sum(p.swept for p in parts),
        sum(p.pairs for p in parts),
    )


def _joint(plays: list[Play], counts: np.ndarray) -> np.ndarray:
    """The joint of the plays' rows, each under its stratum's counts."""
    rows = np.concatenate([p.rows for p in plays]).astype(np.intp)
    strata = np.concatenate([p.strata for p in plays]).astype(np.intp)
    return joint_counts(rows, counts, strata).astype(np.float64)


def build(
    preset: Preset,
    players: int,
    iterations: int,
    hands: int,
    workers: int,
    seed: int = SEED,
    log: Callable[[str], object] = print,
    strata: int = 1,
) -> RowTable:
    """Learn one table by self-play: ``hands`` hands set per iteration (dealt ``players``
    to a deal), averaged over the last half of the iterations, then SETTLE_ROUNDS
    settling plays; per ``strata`` card-removal strata (1 or capsa.solver.model.STRATA)."""
    counts: np.ndarray | None = None
    joint: np.ndarray | None = None
    sweep = 0.0

    def play(round_no: int, size: int, label: str) -> Play:
        """One round of self-play under the current table, logged; sets ``sweep``."""
        nonlocal sweep
        start = time.perf_counter()
        deals = max(workers, size // players) // workers
        chunks = [
            (preset, players, seed + 1000 * round_no + c, deals, counts, sweep, joint, strata)
            for c in range(workers)
        ]
        got = _play(chunks, workers)
        sweep = got.swept / got.pairs
        gap = "" if counts is None else f", table-to-play gap {_gap(counts, got.counts):.4f}"
        log(
            f"  {label}: {len(got.rows) // (players - 1)} hands in "
            f"{time.perf_counter() - start:.1f}s, sweep chance {sweep:.4f}{gap}"
        )
        return got

    plays: list[Play] = []
    for it in range(iterations + 1):
        got = play(it, hands, f"iteration {it}")
        if it:
            plays.append(got)
        last = plays[len(plays) // 2 :] or [got]
        counts = np.mean([p.counts for p in last], axis=0)
        joint = _joint(last, counts) / len(last)
    window: list[Play] = []
    for round_no in range(1, SETTLE_ROUNDS + 1):
        got = play(iterations + round_no, hands * SETTLE_SCALE, f"settling {round_no}")
        window = [*window, got][-SETTLE_WINDOW:]
        counts = np.sum([p.counts for p in window], axis=0)
        joint = _joint(window, counts)
    assert counts is not None and joint is not None
    return RowTable(counts, sweep, joint)


def main(argv=None) -> int:
    every = table_presets()
    parser = argparse.ArgumentParser(
        prog="python -m capsa.build_tables",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--table",
        action="append",
        choices=sorted(every),
        metavar="NAME",
        help="a table to rebuild (repeat for several; default: every table)",
    )
    parser.add_argument("--list", action="store_true", help="name every table and stop")
    parser.add_argument(
        "--iterations",
        type=int,
        help=f"self-play iterations (default: {ITERATIONS}, "
        + ", ".join(f"{n} under the {m} method" for m, n in ITERATIONS_BY_METHOD.items())
        + ")",
    )
    parser.add_argument("--hands", type=int, default=12000, help="hands set per iteration")
    parser.add_argument(
        "--strata",
        type=int,
        choices=(1, STRATA),
        help=f"card-removal strata (default: {STRATA} at "
        + ", ".join(f"{p}" for p in STRATA_BY_PLAYERS)
        + " players but under the "
        + ", ".join(UNSTRATIFIED_METHODS)
        + " method, else 1)",
    )
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", default=str(TABLE_PATH))
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(every))
        return 0
    names = args.table or list(every)
    keep_memory()
    tables: dict[str, RowTable] = {}
    meta: dict[str, np.ndarray] = {}
    try:
        stored = np.load(args.out)
        old_meta = dict(zip((str(n) for n in stored["names"]), stored["meta"], strict=True))
        tables = dict(load_tables(args.out))
        meta = {n: old_meta[n] for n in tables}
    except (OSError, KeyError, RuntimeError):
        print(f"{args.out} holds no tables (or none of this evaluator's): starting afresh")
    for name in names:
        preset, players = every[name]
        iterations = iterations_for(preset) if args.iterations is None else args.iterations
        strata = strata_for(preset, players) if args.strata is None else args.strata
        print(f"{name}: {iterations} iterations x {args.hands} hands, {strata} strata")
        start = time.perf_counter()
        tables[name] = build(
            preset, players, iterations, args.hands, args.workers, args.seed, strata=strata
        )
        meta[name] = np.array([args.seed, iterations, args.hands, players, strata], dtype=np.int64)
        print(f"{name}: built in {time.perf_counter() - start:.0f}s")
        save_tables(tables, meta, args.out)  # after each table: an interrupted run keeps it
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

__all__ = ["build", "greedy_rows", "iterations_for", "main", "strata_for", "table_presets"]
