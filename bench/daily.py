"""The daily hand's Submit: how long the coach's valuation of one setting takes (the work a
worker process does before a member is told their value, loss and place).

Run from the repository root:

    .venv/bin/python -m bench.daily [--days N] [--rules NAME]

For N days of one server, the day's 13 cards (capsa.daily.daily_cards), set by the
``normal`` solver, valued by ``capsa.coach.review_job`` as cogs/daily.py asks (a table of
four). Prints the median, p90 and slowest time in seconds. It measures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from capsa.builder import Draft
from capsa.coach import Origin, review_job
from capsa.daily import DAILY_OPPONENTS, daily_cards
from capsa.presets import get_preset
from capsa.solver import arrange


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=20)
    parser.add_argument("--rules", default="standard")
    args = parser.parse_args()
    preset = get_preset(args.rules)
    took = []
    for n in range(args.days):
        hand = Draft.start(daily_cards(1, date(2026, 1, 1) + timedelta(days=n))).hand
        rows = arrange(hand, preset, "normal", DAILY_OPPONENTS, seed=n).ordinary
        start = time.perf_counter()
        review_job(hand, preset, DAILY_OPPONENTS, rows, None, False, Origin.PLAYED)
        took.append(time.perf_counter() - start)
    took.sort()
    p90 = took[min(len(took) - 1, int(0.9 * len(took)))]
    print(
        f"daily Submit's valuation ({args.rules}, {args.days} days): median"
        f" {statistics.median(took):.2f} s, p90 {p90:.2f} s, slowest {took[-1]:.2f} s"
    )


if __name__ == "__main__":
    main()
