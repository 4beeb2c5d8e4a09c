"""The coach's cost: one review (capsa.coach.review_hand) and its picture, a hand.

Run from the repository root (prints numbers; checks nothing):

    .venv/bin/python bench/review.py                 # 200 hands, 3 opponents, standard
    .venv/bin/python bench/review.py --hands 500 --opponents 1 2 3 --rules sayapoker

Each hand is dealt at random and "played" the way a person might set it: the ``normal``
level's rows (most hands), a random legal setting (one in four) or a fouled one (one in
twenty), so the review scores the person's setting beside hard's own candidates as it
does in the bot. The process keeps its freed memory between hands as the bot's workers do
(capsa.solver.keep_memory). Times are wall-clock per call on this machine, after one
warm-up call; ``hard`` alone (``arrange --level hard``) is printed beside them, since a
review is one hard solve plus the person's setting.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from capsa.cards import deal  # noqa: E402
from capsa.coach import review_hand  # noqa: E402
from capsa.hands import evaluate, is_fouled  # noqa: E402
from capsa.presets import PRESETS, get_preset  # noqa: E402
from capsa.render import render_review  # noqa: E402
from capsa.solver import arrange, keep_memory  # noqa: E402


def played_setting(hand, preset, opponents, rng: random.Random):
    roll = rng.random()
    if roll < 0.05:  # fouled: the normal rows with back and middle swapped, if that fouls
        a = arrange(hand, preset, "normal", opponents, seed=1)
        swapped = (a.ordinary[1], a.ordinary[0], a.ordinary[2])
        if is_fouled(*(evaluate(r) for r in swapped)):
            return swapped
    if roll < 0.30:
        cards = list(hand)
        for _ in range(200):
            rng.shuffle(cards)
            rows = (tuple(cards[:5]), tuple(cards[5:10]), tuple(cards[10:]))
            if not is_fouled(*(evaluate(r) for r in rows)):
                return rows
    return arrange(hand, preset, "normal", opponents, seed=1).ordinary


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hands", type=int, default=200)
    p.add_argument("--opponents", type=int, nargs="+", default=[3], choices=(1, 2, 3))
    p.add_argument("--rules", default="standard", choices=list(PRESETS))
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args(argv)
    keep_memory()
    preset = get_preset(args.rules)
    rng = random.Random(args.seed)
    print(f"{args.hands} hands a row, rules {args.rules}; ms a hand (median / p90)")
    print("| opponents | review | review picture | hard alone | mean loss |")
    print("|---|---|---|---|---|")
    for opponents in args.opponents:
        hands = [deal(opponents + 1, seed=rng.randrange(2**32))[0] for _ in range(args.hands)]
        settings = [played_setting(h, preset, opponents, rng) for h in hands]
        review_hand(hands[0], preset, opponents, settings[0])  # warm-up
        reviews, pictures, hards, losses = [], [], [], []
        for hand, played in zip(hands, settings, strict=True):
            t0 = time.perf_counter()
            review = review_hand(hand, preset, opponents, played)
            t1 = time.perf_counter()
            render_review(review, "en")
            t2 = time.perf_counter()
            arrange(hand, preset, "hard", opponents)
            t3 = time.perf_counter()
            reviews.append((t1 - t0) * 1000)
            pictures.append((t2 - t1) * 1000)
            hards.append((t3 - t2) * 1000)
            losses.append(review.loss)
        print(
            f"| {opponents} | {statistics.median(reviews):.1f} / {pct(reviews, 90):.1f} "
            f"| {statistics.median(pictures):.1f} / {pct(pictures, 90):.1f} "
            f"| {statistics.median(hards):.1f} / {pct(hards, 90):.1f} "
            f"| {statistics.fmean(losses):.2f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
