"""Timing of capsa.render (issue 6 targets: 4-player showdown <= 60 ms, hand <= 20 ms).

Run from the repository root:  .venv/bin/python -m bench.render  [--runs N]

Prints the first (cold: fonts and card sprites not cached yet) time of each picture, then
the median and p90 of N warm runs. It measures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from capsa import render
from capsa.cards import deal
from capsa.match import standings
from capsa.presets import get_preset
from capsa.scoring import Seat, score_round


def _round():
    """A seeded 4-player deal, each hand set naively (sorted, high cards to the back)."""
    seats = []
    for k, hand in enumerate(deal(4, seed=2024)):
        seats.append(Seat(f"Player {k + 1}", tuple(hand[:5]), tuple(hand[5:10]), tuple(hand[10:])))
    return seats, score_round(seats, get_preset("standard"))


def _time(fn: Callable[[], bytes], runs: int) -> tuple[float, float, float, int]:
    start = time.perf_counter()
    size = len(fn())
    cold = time.perf_counter() - start
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    samples.sort()
    p90 = samples[min(len(samples) - 1, int(len(samples) * 0.9))]
    return cold * 1000, statistics.median(samples) * 1000, p90 * 1000, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    seats, result = _round()
    me = seats[0]
    table = standings({"Andi": 23, "Budi": -41, "Citra": 12, "Dewi": 6})
    cases = [
        ("hand, 13 cards", lambda: render.render_hand(me.cards), 20),
        ("hand, rows", lambda: render.render_hand(me.cards, me.setting), 20),
        ("showdown, 4 players", lambda: render.render_showdown(result), 60),
        ("standings, 4 players", lambda: render.render_standings(table), None),
    ]
    print(
        f"{'picture':<22} {'cold ms':>8} {'median ms':>10} {'p90 ms':>8} {'target':>7} {'bytes':>7}"
    )
    for name, fn, target in cases:
        cold, median, p90, size = _time(fn, args.runs)
        goal = f"{target}" if target else "-"
        print(f"{name:<22} {cold:8.1f} {median:10.1f} {p90:8.1f} {goal:>7} {size:7d}")


if __name__ == "__main__":
    main()
