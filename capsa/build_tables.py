"""Regenerate capsa/row_tables.npz: ``python -m capsa.build_tables`` (fixed seed).

Deals many 4-handed hands from a fixed seed and sets them; the table is, per position,
how often an opponent's row falls in each strength class. Iteration 0 sets hands
greedily (best back, best middle, rest front); every later iteration sets them with the
``normal`` setter using the previous iteration's table (self-play, as in Hankin's
setter). The last iteration also measures ``sweep``: how often a hand sweeps another.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from capsa.evaluator import MASK3, MASK5, STRENGTHS, HandTables
from capsa.presets import get_preset
from capsa.solver_model import TABLE_PATH, RowModel

SEED = 20240611


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


def _chunk(args) -> tuple[np.ndarray, int, int]:
    seed, deals, counts, sweep = args
    rng = np.random.default_rng(seed)
    model = None
    if counts is not None:
        model = RowModel(get_preset("standard"), 3, counts, sweep)
    out = np.zeros((3, len(STRENGTHS)), dtype=np.int64)
    swept = pairs = 0
    for _ in range(deals):
        deck = rng.permutation(52)
        rows = []
        for h in range(4):
            tables = HandTables(deck[h * 13 : (h + 1) * 13])
            if model is None:
                rows.append(greedy_rows(tables))
            else:
                ev = model.split_ev(tables.back, tables.middle, tables.front)
                k = int(np.argmax(ev))
                rows.append((int(tables.back[k]), int(tables.middle[k]), int(tables.front[k])))
        for r in rows:
            for pos in range(3):
                out[pos, r[pos]] += 1
        for i in range(4):
            for j in range(4):
                if i != j:
                    pairs += 1
                    swept += all(rows[i][p] > rows[j][p] for p in range(3))
    return out, swept, pairs


def build(iterations: int, deals: int, workers: int, seed: int = SEED, log=print):
    counts, sweep = None, 0.0
    for it in range(iterations + 1):
        n = deals * 2 if it == 0 else deals
        chunks = [(seed + 1000 * it + c, n // workers, counts, sweep) for c in range(workers)]
        start = time.perf_counter()
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(_chunk, chunks))
        counts = np.sum([r[0] for r in results], axis=0).astype(np.float64)
        swept = sum(r[1] for r in results)
        pairs = sum(r[2] for r in results)
        sweep = swept / pairs
        log(
            f"iteration {it}: {n} deals in {time.perf_counter() - start:.0f}s, "
            f"sweep chance {sweep:.4f}"
        )
    return counts, sweep


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m capsa.build_tables", description=__doc__)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--deals", type=int, default=20000, help="4-handed deals per iteration")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", default=str(TABLE_PATH))
    args = parser.parse_args(argv)
    counts, sweep = build(args.iterations, args.deals, args.workers, args.seed)
    np.savez_compressed(
        args.out,
        counts=counts.astype(np.int32),
        sweep=np.float64(sweep),
        strengths=STRENGTHS,
        meta=np.array([args.seed, args.iterations, args.deals], dtype=np.int64),
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

__all__ = ["build", "greedy_rows", "main"]
