"""Regenerate the row tables in capsa/solver/row_tables.npz, any or all of them:
``python -m capsa.build_tables`` (every table), ``--table chinese-poker.2-4.3p``
(one; ``--list`` names them all). Fixed seeds: the same command writes the same tables.

There is one table per preset, scoring method and table size (capsa.solver.model.table_name:
``standard.4p``, ``chinese-poker.2-4.2p``, ...): the options that change no row's value
(the room fee, surrender) share their preset's. A table is, per position, how often an
opponent's row falls in each showdown class (capsa.solver.evaluator.ShowdownClasses),
learned by self-play on that table: deal many hands to that many players from a fixed seed
and set them. Iteration 0 sets them greedily (best back, best middle, rest front); every
later iteration sets them with the ``normal`` setter of that preset and table size using
the current table, and the next table is the average of the last half of the iterations'
plays (fictitious play, so the table settles where ``normal``'s own play matches it
instead of swinging). Each iteration prints the largest gap between the table it used and
the play it produced (cumulative distribution, per position). The last iteration also
measures ``sweep``: how often a hand sweeps another.

The joint of the three rows (capsa.solver.model.RowJoint: how often a setting's rows fell in
each cell of their mid-ranks) comes after: JOINT_ROUNDS more plays under the final counts,
each set with the joint the one before learned, each row placed by its mid-rank under those
counts; the last round's is shipped. (While the counts are learned, ``normal`` plays with a
joint counted from the same averaged plays; it is not shipped: those plays were chosen under
tables that came and went.)
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

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
    TABLE_PATH,
    RowJoint,
    RowModel,
    RowTable,
    joint_counts,
    load_tables,
    normal_splits,
    save_tables,
    table_name,
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


def normal_rows(hands: np.ndarray, preset: Preset, model: RowModel) -> np.ndarray:
    """Showdown classes (back, middle, front) of normal's settings of hands (N, 13) under
    ``model``."""
    out = np.empty((len(hands), 3), dtype=np.intp)
    for start in range(0, len(hands), BLOCK):
        cards = np.sort(hands[start : start + BLOCK], axis=1)
        choice, _, cls5, cls3 = normal_splits(cards, preset, model.opponents, model)
        sd5, sd3 = subset_showdown(cards, cls5, cls3, preset.suit_tiebreak)
        at = np.arange(len(choice))
        a, b = SPLIT_A[choice], SPLIT_B[choice]
        a_back = cls5[at, a] >= cls5[at, b]
        back, middle = np.where(a_back, a, b), np.where(a_back, b, a)
        out[start : start + len(choice)] = np.stack(
            [sd5[at, back], sd5[at, middle], sd3[at, SPLIT_F[choice]]], axis=1
        )
    return out


def _chunk(args) -> tuple[np.ndarray, np.ndarray, int, int]:
    """One worker's share of an iteration: (how many rows fell in each showdown class per
    position, the settings' rows (N, 3), sweeps seen, pairs of hands compared)."""
    preset, players, seed, deals, counts, sweep, joint = args
    rng = np.random.default_rng(seed)
    hands = np.stack(
        [rng.permutation(52)[: 13 * players].reshape(players, 13) for _ in range(deals)]
    )
    if counts is None:
        rows = np.array([greedy_rows(HandTables(h), preset) for h in hands.reshape(-1, 13)])
    else:
        model = RowModel(preset, players - 1, counts, sweep, joint)
        rows = normal_rows(hands.reshape(-1, 13), preset, model)
    n = showdown_classes(preset.suit_tiebreak).count
    out = np.stack([np.bincount(rows[:, pos], minlength=n) for pos in range(3)])
    settings = rows.astype(np.int16)
    rows = rows.reshape(deals, players, 3)
    swept = sum(
        int((rows[:, i] > rows[:, j]).all(axis=1).sum())
        for i in range(players)
        for j in range(players)
        if i != j
    )
    return out, settings, swept, deals * players * (players - 1)


def _cdf(counts: np.ndarray) -> np.ndarray:
    return np.cumsum(counts, axis=1) / counts.sum(axis=1, keepdims=True)


def _gap(table: np.ndarray, play: np.ndarray) -> float:
    """Largest difference of the cumulative distributions, over the positions."""
    return float(np.abs(_cdf(table) - _cdf(play)).max())


# the joint's last rounds: plays under the final row counts, each learning the joint from
# the one before, as multiples of --hands (the last one larger: it is the one shipped)
JOINT_ROUNDS = (1, 1, 3)


def _play(chunks: list[tuple], workers: int) -> list[tuple]:
    if workers == 1:
        return [_chunk(chunks[0])]
    with ProcessPoolExecutor(workers, initializer=keep_memory) as pool:
        return list(pool.map(_chunk, chunks))


def build(
    preset: Preset,
    players: int,
    iterations: int,
    hands: int,
    workers: int,
    seed: int = SEED,
    log: Callable[[str], object] = print,
) -> RowTable:
    """Learn one table by self-play: ``hands`` hands set per iteration (dealt ``players``
    to a deal), then the joint of the rows by JOINT_ROUNDS more plays under the final
    counts."""
    deals = max(workers, hands // players)
    counts: np.ndarray | None = None
    joint: np.ndarray | None = None
    sweep = 0.0
    plays: list[np.ndarray] = []
    settings: list[np.ndarray] = []
    for it in range(iterations + 1):
        chunks = [
            (preset, players, seed + 1000 * it + c, deals // workers, counts, sweep, joint)
            for c in range(workers)
        ]
        start = time.perf_counter()
        results = _play(chunks, workers)
        play = np.sum([r[0] for r in results], axis=0).astype(np.float64)
        rows = np.concatenate([r[1] for r in results]).astype(np.intp)
        sweep = sum(r[2] for r in results) / sum(r[3] for r in results)
        gap = "" if counts is None else f", table-to-play gap {_gap(counts, play):.4f}"
        log(
            f"  iteration {it}: {deals} deals in {time.perf_counter() - start:.1f}s, "
            f"sweep chance {sweep:.4f}{gap}"
        )
        if it == 0:
            counts, joint = play, joint_counts(rows, play)
            continue
        plays.append(play)
        settings.append(rows)
        counts = np.mean(plays[len(plays) // 2 :], axis=0)
        last = settings[len(settings) // 2 :]
        joint = joint_counts(np.concatenate(last), counts) / len(last)
    assert counts is not None and joint is not None
    # The joint must be the play's under the table it ships with: the averaged plays above
    # mix settings chosen under tables that came and went (on 120 standard hands at four
    # players, normal's regret was 0.077 with that joint, 0.012 with its play's). A play
    # under a joint learns the next; two or three rounds settle it.
    for round_no, scale in enumerate(JOINT_ROUNDS, start=1):
        size = max(workers, hands * scale // players) // workers
        chunks = [
            (preset, players, seed + 1000 * (iterations + round_no) + c, size, counts, sweep, joint)
            for c in range(workers)
        ]
        start = time.perf_counter()
        results = _play(chunks, workers)
        rows = np.concatenate([r[1] for r in results]).astype(np.intp)
        before = RowJoint(joint)
        joint = joint_counts(rows, counts).astype(np.float64)
        moved = np.abs(RowJoint(joint).below - before.below).max()
        log(
            f"  joint round {round_no}: {size * workers} deals in "
            f"{time.perf_counter() - start:.1f}s, moved by {moved:.4f}"
        )
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
        print(f"{name}: {iterations} iterations x {args.hands} hands")
        start = time.perf_counter()
        tables[name] = build(preset, players, iterations, args.hands, args.workers, args.seed)
        meta[name] = np.array([args.seed, iterations, args.hands, players], dtype=np.int64)
        print(f"{name}: built in {time.perf_counter() - start:.0f}s")
        save_tables(tables, meta, args.out)  # after each table: an interrupted run keeps it
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

__all__ = ["build", "greedy_rows", "iterations_for", "main", "table_presets"]
