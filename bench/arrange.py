"""Benchmark the solver: speed, duplicate strength, regret. Prints; never asserts.

    .venv/bin/python bench/arrange.py                      # everything, issue sizes
    .venv/bin/python bench/arrange.py --deals 200 --regret-hands 50 --regret-samples 2000
    .venv/bin/python bench/arrange.py --only speed

Strength: duplicate 4-handed play on fixed deals, standard preset. For a pairing X vs Y,
X sits in each seat in turn against three Y; X's points are compared with what Y scored
in that seat when all four seats were Y (same cards), so the luck of the deal cancels.
Reported: X's mean gain per hand over Y and its standard error (over deals).

Regret: on fixed hands, candidates (the 20 best Pareto-undominated splits by normal's
estimate, plus the special) are scored by a long Monte Carlo run against opponents set
by normal; regret = best candidate's mean - the level's choice's mean, in points a hand.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from capsa.cards import DECK, deal
from capsa.evaluator import C3, C5, MASK5, HandTables
from capsa.presets import get_preset
from capsa.scoring import Seat, score_round
from capsa.solver import arrange, keep_memory
from capsa.solver_mc import top_candidates
from capsa.solver_model import normal_choice

PRESET = get_preset("standard")
SEED = 424242


def greedy(hand):
    """Best back, then best middle, the rest in front."""
    idx = np.array([c.index for c in hand])
    tables = HandTables(idx)
    back = int(np.argmax(tables.cls5))
    mids = np.flatnonzero((MASK5 & MASK5[back]) == 0)
    middle = int(mids[np.argmax(tables.cls5[mids])])
    order = np.argsort(idx, kind="stable")
    cards = [hand[i] for i in order]
    used = set(C5[back].tolist()) | set(C5[middle].tolist())
    front = [p for p in range(13) if p not in used]
    assert len(front) == 3 and len(C3) == 286

    def row(ps):
        return tuple(cards[p] for p in ps)

    return Seat("", row(C5[back]), row(C5[middle]), row(front))


def setting(hand, level, seed):
    if level == "greedy":
        return greedy(hand)
    a = arrange(hand, PRESET, level, 3, seed=seed)
    return Seat("", a.back, a.middle, a.front, declare=a.declare)


def named(seat: Seat, i: int) -> Seat:
    return Seat(f"P{i}", seat.back, seat.middle, seat.front, declare=seat.declare)


def _speed(level: str, hands: int) -> tuple[float, float]:
    times = []
    for n in range(hands):
        hand = deal(4, seed=SEED + n)[0]
        start = time.perf_counter()
        arrange(hand, PRESET, level, 3, seed=n)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3, float(np.percentile(times, 90)) * 1e3


def _strength_chunk(args):
    deals, pairings = args
    levels = sorted({lv for p in pairings for lv in p})
    out = {p: [] for p in pairings}
    for d in deals:
        hands = deal(4, seed=SEED + 100000 + d)
        seats = {lv: [setting(h, lv, d * 4 + i) for i, h in enumerate(hands)] for lv in levels}
        for x, y in pairings:
            base = score_round([named(s, i) for i, s in enumerate(seats[y])], PRESET)
            diffs = []
            for i in range(4):
                table = [named(seats[x][j] if j == i else seats[y][j], j) for j in range(4)]
                result = score_round(table, PRESET)
                diffs.append(result.players[i].points - base.players[i].points)
            out[(x, y)].append(float(np.mean(diffs)))
    return out


def strength(n_deals: int, workers: int, pairings) -> None:
    chunks = [(list(range(w, n_deals, workers)), pairings) for w in range(workers)]
    start = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        parts = list(pool.map(_strength_chunk, chunks))
    print(
        f"\nDuplicate strength, standard, 4 players, {n_deals} deals "
        f"({time.perf_counter() - start:.0f}s)"
    )
    print(f"{'pairing':<20} {'gain/hand':>10} {'s.e.':>7}")
    for p in pairings:
        values = np.array([v for part in parts for v in part[p]])
        se = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
        print(f"{p[0] + ' vs ' + p[1]:<20} {values.mean():>+10.3f} {se:>7.3f}")


def _regret_chunk(args):
    from capsa.evaluator import find_specials
    from capsa.solver_mc import mc_points
    from capsa.solver_model import best_special

    hands, samples = args
    out = []
    for n in hands:
        hand = deal(4, seed=SEED + 200000 + n)[0]
        idx = np.array([c.index for c in hand])
        tables = HandTables(idx)
        best, ev = normal_choice(tables, PRESET, 3)
        cands = top_candidates(tables, ev, 20)
        found = find_specials(tables, PRESET)
        special = best_special(found, PRESET)
        points = mc_points(
            tables,
            PRESET,
            3,
            cands,
            special,
            found.get(special) if special else None,
            max(1, samples // 3),
            seed=n + 7,
        )
        mean = points.mean(axis=1)
        top = float(mean.max())
        row = {}
        for level in ("normal", "hard"):
            a = arrange(hand, PRESET, level, 3, seed=n)
            if a.declare:
                value = float(mean[-1])
            else:
                value = _value_of(a, hand, tables, cands, mean)
            row[level] = top - value
        out.append(row)
    return out


def _value_of(a, hand, tables, cands, mean) -> float:
    order = np.argsort(np.array([c.index for c in hand]), kind="stable")
    pos = {hand[i]: p for p, i in enumerate(order)}
    target = tuple(sorted(pos[c] for c in row) for row in a.ordinary)
    for k, cand in enumerate(cands):
        rows = tables.rows(int(cand))
        if tuple(sorted(r.tolist()) for r in rows) == target:
            return float(mean[k])
    # the same strengths as a kept candidate (splits differing only in suits are deduped)
    from capsa.evaluator import class_of
    from capsa.hands import evaluate

    triple = tuple(class_of(evaluate(r).strength) for r in a.ordinary)
    for k, cand in enumerate(cands):
        c = int(cand)
        if (tables.back[c], tables.middle[c], tables.front[c]) == triple:
            return float(mean[k])
    return float("nan")


def regret(n_hands: int, samples: int, workers: int) -> None:
    chunks = [(list(range(w, n_hands, workers)), samples) for w in range(workers)]
    start = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        rows = [r for part in pool.map(_regret_chunk, chunks) for r in part]
    print(
        f"\nRegret vs a {samples}-opponent-hand Monte Carlo, {n_hands} hands, standard, "
        f"4 players ({time.perf_counter() - start:.0f}s)"
    )
    for level in ("normal", "hard"):
        values = np.array([r[level] for r in rows])
        ok = values[~np.isnan(values)]
        se = ok.std(ddof=1) / np.sqrt(len(ok)) if len(ok) > 1 else float("nan")
        print(
            f"{level:<8} regret {ok.mean():.3f} points/hand (s.e. {se:.3f}; "
            f"{len(ok)} hands, {np.mean(ok > 0):.0%} not the MC best)"
        )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--speed-hands", type=int, default=200)
    parser.add_argument("--hard-speed-hands", type=int, default=50)
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--regret-hands", type=int, default=200)
    parser.add_argument(
        "--regret-samples",
        type=int,
        default=20000,
        help="opponent hands per regret hand (dealt 3 at a time)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", choices=("speed", "strength", "regret"))
    parser.add_argument("--pairings", default="hard:normal,normal:greedy,easy:normal,easy:greedy")
    parser.add_argument(
        "--no-keep-memory",
        action="store_true",
        help="leave glibc's allocator thresholds alone (the bot's workers raise them)",
    )
    args = parser.parse_args(argv)
    if not args.no_keep_memory:
        keep_memory()
    pairings = [tuple(p.split(":")) for p in args.pairings.split(",")]
    arrange(deal(4, seed=1)[0], PRESET)  # load tables
    if args.only in (None, "speed"):
        memory = "default allocator" if args.no_keep_memory else "keep_memory() as in the workers"
        print(f"Speed per hand, standard, 3 opponents (one process, {memory})")
        for level, n in (("normal", args.speed_hands), ("hard", args.hard_speed_hands)):
            med, p90 = _speed(level, n)
            print(f"{level:<8} median {med:7.2f} ms   p90 {p90:7.2f} ms   ({n} hands)")
    if args.only in (None, "strength"):
        strength(args.deals, args.workers, pairings)
    if args.only in (None, "regret"):
        regret(args.regret_hands, args.regret_samples, args.workers)
    assert DECK
    return 0


if __name__ == "__main__":
    sys.exit(main())
