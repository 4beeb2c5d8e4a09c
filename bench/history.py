"""Timing of /capsa history and /capsa replay's reads on a server with a long past.

Run from the repository root:

    .venv/bin/python -m bench.history [--matches N] [--runs N] [--database-url URL]

Fills a new database (a temporary SQLite file, or the empty PostgreSQL database at
``--database-url``) through the repository with N finished 5-round matches of one server,
two people and a computer each (people from a pool of 200), then times what a history page
and a replay step read: ``finished_matches`` (first page, last page, one member's first
page), ``finished_matches_count``, and ``completed_rounds`` + ``replay_round`` for one
round (on PostgreSQL after an ``ANALYZE``, as autovacuum would have run one on a live
database). Prints the median and p90 of ``--runs`` runs of each in milliseconds. The
picture of a replayed round is ``render_showdown``, timed by ``bench/render.py``. It
measures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from capsa.cards import deal, sort_hand
from cogs.history import replay_round
from cogs.table_base import round_result, round_scores
from data import open_repository
from data.repository import Repository

GUILD = 1
PEOPLE = 200
BATCH = 50  # matches played at once (their people all differ)
T0 = 1_700_000_000.0


async def play(repo: Repository, n: int) -> None:
    """Match ``n``: created, seated, five rounds dealt, set, scored, finished."""
    a, b = 1000 + (2 * n) % PEOPLE, 1000 + (2 * n + 1) % PEOPLE
    when = T0 + n * 60
    match = await repo.create_match(
        GUILD, 10_000 + n, a, "standard", {}, 5, 60, "normal", "auto", 3, "en",
        when + 600, f"p{a}", now=when,
    )  # fmt: skip
    await repo.add_seat(match.id, b, f"p{b}", now=when)
    await repo.add_seat(match.id, None, "Computer 1", "normal", now=when)
    await repo.start_match(match.id, now=when)
    started = await repo.get_match(match.id)
    assert started is not None
    for number in range(1, 6):
        hands = [sort_hand(h) for h in deal(3, n * 10 + number)]
        rnd = await repo.start_round(
            match.id, number, n, when + 60, {s: [c.code for c in h] for s, h in enumerate(hands)},
            now=when,
        )  # fmt: skip
        for seat, cards in enumerate(hands):
            rows = [c.code for c in cards]
            await repo.submit_hand(
                rnd.id, seat, rows[8:], rows[3:8], rows[:3], None, False, now=when
            )
        scored = await repo.get_round(rnd.id)
        assert scored is not None
        result = round_result(started, scored)
        await repo.score_round(rnd.id, result.to_dict(), round_scores(result), now=when)
    totals = await repo.match_totals(match.id)
    order = sorted(totals, key=lambda seat: -totals[seat])
    await repo.finish_match(match.id, {s: i + 1 for i, s in enumerate(order)}, now=when + 300)


async def timed(fn: Callable[[], Awaitable[object]], runs: int) -> tuple[float, float]:
    await fn()  # warm
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        await fn()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.9))]


async def run(matches: int, runs: int, url: str | None, path: str) -> None:
    repo = await (open_repository(database_url=url) if url else open_repository(path))
    try:
        start = time.perf_counter()
        for first in range(0, matches, BATCH):
            await asyncio.gather(
                *(play(repo, n) for n in range(first, min(first + BATCH, matches)))
            )
        filled = time.perf_counter() - start
        print(f"{'postgres' if url else 'sqlite'}: {matches} finished matches in {filled:.1f} s")
        if url:  # the planner's statistics, as autovacuum keeps them on a live database
            conn = await asyncpg.connect(url)
            try:
                await conn.execute("ANALYZE")
            finally:
                await conn.close()
        count = await repo.finished_matches_count(GUILD)
        last = (count - 1) // 10 * 10
        some = (await repo.finished_matches(GUILD, limit=1, offset=count // 2))[0].match
        member = some.seats[0].user_id
        rounds_of = await repo.completed_rounds(some.id)

        async def replay_step() -> object:
            rounds = await repo.completed_rounds(some.id)
            return replay_round(some, rounds, 3)

        cases: list[tuple[str, Callable[[], Awaitable[object]]]] = [
            ("history, first page", lambda: repo.finished_matches(GUILD)),
            (
                f"history, last page (offset {last})",
                lambda: repo.finished_matches(GUILD, offset=last),
            ),
            ("history, one member's first page", lambda: repo.finished_matches(GUILD, member)),
            ("history, count", lambda: repo.finished_matches_count(GUILD)),
            (f"replay step ({len(rounds_of)} rounds read)", replay_step),
        ]
        print(f"{'':38} {'median ms':>10} {'p90 ms':>8}")
        for name, fn in cases:
            median, p90 = await timed(fn, runs)
            print(f"{name:38} {median:10.2f} {p90:8.2f}")
    finally:
        await repo.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--database-url", default=None, help="an empty PostgreSQL database")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run(args.matches, args.runs, args.database_url, f"{tmp}/history.sqlite3"))


if __name__ == "__main__":
    main()
