"""Benchmark: ``python -m capsa score --batch`` on 10,000 random 4-player tables.

Run from the repository root:  .venv/bin/python bench/score.py [--tables N] [--seed S]

The tables are made with a fixed seed: a fresh deal each time, every player's 13 cards set
into rows at random, most of them re-drawn until the setting is legal (so some hands are
fouled and most are not), under all four presets and their table options. The script feeds
them to the command line as JSON lines and prints the wall time; it checks nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from capsa.cards import deal  # noqa: E402
from capsa.hands import evaluate, is_fouled  # noqa: E402

RULES = [
    ("standard", None),
    ("sayapoker", None),
    ("sayapoker", {"room_fee": True}),
    ("indocapsa", None),
    ("chinese-poker", None),
    ("chinese-poker", {"method": "2-4"}),
]


def random_setting(hand, rng: random.Random, legal: bool):
    """A random split of 13 cards into 5/5/3; if ``legal``, re-drawn until it is not fouled."""
    for _ in range(60):
        cards = list(hand)
        rng.shuffle(cards)
        back, middle, front = cards[:5], cards[5:10], cards[10:]
        b, m, f = evaluate(back), evaluate(middle), evaluate(front)
        if b.strength < m.strength:
            back, middle, b, m = middle, back, m, b
        if not legal or not is_fouled(b, m, f):
            break
    return back, middle, front


def make_tables(count: int, seed: int) -> tuple[list[str], int]:
    rng = random.Random(seed)
    lines, fouled = [], 0
    for _ in range(count):
        rules, options = rng.choice(RULES)
        players = []
        for i, hand in enumerate(deal(4, seed=rng.getrandbits(64))):
            back, middle, front = random_setting(hand, rng, legal=rng.random() < 0.85)
            fouled += is_fouled(evaluate(back), evaluate(middle), evaluate(front))
            players.append(
                {
                    "name": f"P{i + 1}",
                    "back": [c.code for c in back],
                    "middle": [c.code for c in middle],
                    "front": [c.code for c in front],
                }
            )
        payload: dict = {"rules": rules, "players": players}
        if options:
            payload["options"] = options
        lines.append(json.dumps(payload))
    return lines, fouled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()

    lines, fouled = make_tables(args.tables, args.seed)
    data = ("\n".join(lines) + "\n").encode()
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "capsa", "score", "--batch"],
        input=data,
        capture_output=True,
        cwd=ROOT,
    )
    elapsed = time.perf_counter() - start
    answers = proc.stdout.decode().splitlines()
    errors = sum('"error"' in line[:12] for line in answers)
    print(f"tables: {args.tables}")
    print(f"fouled hands: {fouled} of {4 * args.tables}")
    print(f"exit status: {proc.returncode}")
    print(f"result lines: {len(answers)}, errors: {errors}")
    print(f"wall time: {elapsed:.3f} s")
    print(f"tables per second: {args.tables / elapsed:.0f}")


if __name__ == "__main__":
    main()
