"""Regenerate capsa/solver/row_tables.npz: ``python -m capsa.solver.build_tables`` (fixed seed).

The table is, per position, how often an opponent's row falls in each strength class,
learned by self-play: deal many 4-handed hands from a fixed seed and set them. Iteration
0 sets them greedily (best back, best middle, rest front); every later iteration sets
them with the ``normal`` setter (standard, 3 opponents) using the current table, and the
next table is the average of the last half of the iterations' plays (fictitious play, so
the table settles where ``normal``'s own play matches it instead of swinging). Each
iteration prints the largest gap between the table it used and the play it produced
(cumulative distribution, per position). The last iteration also measures ``sweep``: how
often a hand sweeps another.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from capsa.presets import get_preset
from capsa.solver.evaluator import MASK3, MASK5, SPLIT_A, SPLIT_B, SPLIT_F, STRENGTHS, HandTables
from capsa.solver.front import keep_memory
from capsa.solver.model import TABLE_PATH, RowModel, normal_splits

SEED = 20240611
BLOCK = 1000  # hands set at once


def greedy_rows(tables: HandTables) -> tuple[int, int, int]:
    """Class ids (back, middle, front) of the greedy setting."""
    back = int(np.argmax(tables.cls5))
    disjoint = (MASK5 & MASK5[back]) == 0
    mids = np.flatnonzero(disjoint)
    middle = int(mids[np.argmax(tables.cls5[mids])])
    used = int(MASK5[back] | MASK5[middle])
    front = [i for i in range(13) if not used >> i & 1]
    fcls = _front_class(tables, front)
    return int(tables.cls5[back]), int(tables.cls5[middle]), fcls


def _front_class(tables: HandTables, positions) -> int:
    mask = sum(1 << p for p in positions)
    f = int(np.flatnonzero(MASK3 == mask)[0])
    return int(tables.cls3[f])


def normal_rows(hands: np.ndarray, model: RowModel) -> np.ndarray:
    """Class ids (back, middle, front) of normal's settings of hands (N, 13) under model."""
    preset = get_preset("standard")
    out = np.empty((len(hands), 3), dtype=np.intp)
    for start in range(0, len(hands), BLOCK):
        cards = np.sort(hands[start : start + BLOCK], axis=1)
        choice, _, cls5, cls3 = normal_splits(cards, preset, 3, model)
        at = np.arange(len(choice))
        a, b = cls5[at, SPLIT_A[choice]], cls5[at, SPLIT_B[choice]]
        out[start : start + len(choice)] = np.stack(
            [np.maximum(a, b), np.minimum(a, b), cls3[at, SPLIT_F[choice]]], axis=1
        )
    return out


def _chunk(args) -> tuple[np.ndarray, int, int]:
    seed, deals, counts, sweep = args
    rng = np.random.default_rng(seed)
    hands = np.stack([rng.permutation(52).reshape(4, 13) for _ in range(deals)])
    if counts is None:
        rows = np.array([greedy_rows(HandTables(h)) for h in hands.reshape(-1, 13)])
    else:
        model = RowModel(get_preset("standard"), 3, counts, sweep)
        rows = normal_rows(hands.reshape(-1, 13), model)
    out = np.stack([np.bincount(rows[:, pos], minlength=len(STRENGTHS)) for pos in range(3)])
    rows = rows.reshape(deals, 4, 3)
    swept = sum(
        int((rows[:, i] > rows[:, j]).all(axis=1).sum())
        for i in range(4)
        for j in range(4)
        if i != j
    )
    return out, swept, deals * 12


def _cdf(counts: np.ndarray) -> np.ndarray:
    return np.cumsum(counts, axis=1) / counts.sum(axis=1, keepdims=True)


def _gap(table: np.ndarray, play: np.ndarray) -> float:
    """Largest difference of the cumulative distributions, over the positions."""
    return float(np.abs(_cdf(table) - _cdf(play)).max())


def build(iterations: int, deals: int, workers: int, seed: int = SEED, log=print):
    counts, sweep = None, 0.0
    plays: list[np.ndarray] = []
    for it in range(iterations + 1):
        chunks = [(seed + 1000 * it + c, deals // workers, counts, sweep) for c in range(workers)]
        start = time.perf_counter()
        with ProcessPoolExecutor(workers, initializer=keep_memory) as pool:
            results = list(pool.map(_chunk, chunks))
        play = np.sum([r[0] for r in results], axis=0).astype(np.float64)
        sweep = sum(r[1] for r in results) / sum(r[2] for r in results)
        gap = "" if counts is None else f", table-to-play gap {_gap(counts, play):.4f}"
        log(
            f"iteration {it}: {deals} deals in {time.perf_counter() - start:.0f}s, "
            f"sweep chance {sweep:.4f}{gap}"
        )
        if it == 0:
            counts = play
            continue
        plays.append(play)
        counts = np.mean(plays[len(plays) // 2 :], axis=0)
    assert counts is not None
    return counts, sweep


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m capsa.solver.build_tables", description=__doc__
    )
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--deals", type=int, default=10000, help="4-handed deals per iteration")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", default=str(TABLE_PATH))
    args = parser.parse_args(argv)
    counts, sweep = build(args.iterations, args.deals, args.workers, args.seed)
    np.savez_compressed(
        args.out,
        counts=np.rint(counts).astype(np.int32),
        sweep=np.float64(sweep),
        strengths=STRENGTHS,
        meta=np.array([args.seed, args.iterations, args.deals], dtype=np.int64),
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

__all__ = ["build", "greedy_rows", "main"]
