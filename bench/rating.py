"""Ratings: how fast capsa/rating.py learns, and what rating a server's past costs.

Run from the repository root:

    .venv/bin/python -m bench.rating [--players N] [--matches N] [--seed N] [--backfill N]
        [--postgres URL]

1. Learning (why PROVISIONAL_MATCHES is 10): a server of ``--players`` people with a true
   skill each (normal, sd 1) plays ``--matches`` matches at 2-4 seat tables; a match's
   places are its players' true skill plus noise (sd 1.5: Capsa's deal is most of a match).
   For each number of matches played, it prints the mean sigma of the players who played
   that many, and the rank correlation (Spearman) between the conservative rating and the
   true skill over the players with at least that many matches.
2. The past (migration 0009 rates it at start): ``--backfill`` finished matches of one
   server stored in a temporary SQLite file (and with ``--postgres``, a fresh database of
   that server) without ratings, then timed: ``rate_finished_matches`` once, with the
   longest time the event loop stood still meanwhile (PostgreSQL's transactions compute on
   the loop), then 50 more matches' ``finish_match`` one at a time (the places and the
   rating in one transaction) on that server.

It measures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import pg_create, pg_drop, pg_problem
from capsa.rating import Placing, RatedPlayer, Rating, rate_match
from data import Repository, open_repository

CHECKPOINTS = (1, 2, 3, 5, 8, 10, 15, 20, 30, 50)
GUILD = 1


def spearman(xs: list[float], ys: list[float]) -> float:
    def ranks(values: list[float]) -> list[float]:
        order = sorted(range(len(values)), key=values.__getitem__)
        out = [0.0] * len(values)
        for rank, i in enumerate(order):
            out[i] = float(rank)
        return out

    return statistics.correlation(ranks(xs), ranks(ys))


def learning(players: int, matches: int, seed: int) -> None:
    rng = random.Random(seed)
    skill = {RatedPlayer.member(i): rng.gauss(0, 1) for i in range(players)}
    ratings: dict[RatedPlayer, Rating] = {}
    sigmas: dict[int, list[float]] = {}
    snapshots: dict[int, dict[RatedPlayer, Rating]] = {}
    for _ in range(matches):
        seated = rng.sample(sorted(skill), rng.choice((2, 3, 4)))
        form = {p: skill[p] + rng.gauss(0, 1.5) for p in seated}
        order = sorted(seated, key=lambda p: -form[p])
        after = rate_match(ratings, [Placing(p, i + 1) for i, p in enumerate(order)])
        ratings.update(after)
        for player, rating in after.items():
            sigmas.setdefault(rating.matches, []).append(rating.sigma)
            if rating.matches in CHECKPOINTS:
                snapshots.setdefault(rating.matches, {})[player] = rating
    print(f"learning: {players} players, {matches} matches at 2-4 seats, seed {seed}")
    print(f"{'matches':>7}  {'sigma':>6}  {'spearman':>8}  {'players':>7}")
    for n in CHECKPOINTS:
        if n not in snapshots or len(snapshots[n]) < 3:
            continue
        seen = snapshots[n]
        rho = spearman([r.conservative for r in seen.values()], [skill[p] for p in seen])
        print(f"{n:>7}  {statistics.fmean(sigmas[n]):>6.2f}  {rho:>8.3f}  {len(seen):>7}")


PAST_FORGOTTEN = (  # a database as migration 0009 leaves it: its finished matches queued
    "DELETE FROM rating_changes; DELETE FROM ratings; DELETE FROM rated_matches;"
    " DELETE FROM rating_guilds; INSERT INTO rating_queue (match_id, guild_id)"
    " SELECT id, guild_id FROM matches WHERE status IN ('finished', 'ended')"
    " ON CONFLICT (match_id) DO NOTHING;"
)


class LoopWatch:
    """The longest time the event loop went without running a 5 ms ticker."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            self.longest = max(self.longest, now - last - 0.005)
            last = now

    def __enter__(self) -> LoopWatch:
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *_: object) -> None:
        assert self._task is not None
        self._task.cancel()


async def forget_ratings(where: str) -> None:
    if where.startswith("postgresql://"):
        conn = await asyncpg.connect(where)
        try:
            await conn.execute(PAST_FORGOTTEN)
        finally:
            await conn.close()
    else:
        lite = sqlite3.connect(where, isolation_level=None)
        lite.executescript(PAST_FORGOTTEN)
        lite.close()


async def opened(where: str) -> Repository:
    if where.startswith("postgresql://"):
        return await open_repository(database_url=where)
    return await open_repository(where)


async def backfill(count: int, where: str, backend: str) -> None:
    repo = await opened(where)
    rng = random.Random(7)
    try:
        for n in range(count):
            people = rng.sample(range(100, 300), 2)
            m = await repo.create_match(
                GUILD, 10 + n, people[0], "standard", {}, 5, 60, "normal", "auto", 3,
                "en", None, "p", now=n,
            )  # fmt: skip
            await repo.add_seat(m.id, people[1], "q")
            await repo.add_seat(m.id, None, "Computer 1", "normal")
            await repo.start_match(m.id, now=n)
            places = dict(enumerate(rng.sample((1, 2, 3), 3)))
            await repo.finish_match(m.id, places, now=n + 1)
    finally:
        await repo.close()
    await forget_ratings(where)
    repo = await opened(where)
    try:
        with LoopWatch() as watch:
            start = time.perf_counter()
            rated = await repo.rate_finished_matches()
            took = time.perf_counter() - start
        print(
            f"backfill ({backend}): {rated} finished matches rated at start in"
            f" {took * 1000:.0f} ms; the event loop's longest stall meanwhile"
            f" {watch.longest * 1000:.0f} ms"
        )
        finishes = []
        for n in range(count, count + 50):  # then matches finish one at a time
            m = await repo.create_match(
                GUILD, 10 + n, 100, "standard", {}, 5, 60, "normal", "auto", 2, "en", None,
                "p", now=n,
            )  # fmt: skip
            await repo.add_seat(m.id, 101, "q")
            await repo.start_match(m.id, now=n)
            start = time.perf_counter()
            await repo.finish_match(m.id, {0: 1, 1: 2}, now=n + 1)
            finishes.append(time.perf_counter() - start)
        print(
            f"finish_match (places and rating in one transaction) on a server with {count}"
            f" rated matches ({backend}): median {statistics.median(finishes) * 1000:.2f} ms"
            f" over {len(finishes)}"
        )
    finally:
        await repo.close()


async def backfills(count: int, postgres: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        await backfill(count, str(Path(tmp) / "capsa.sqlite3"), "sqlite")
    if postgres is None:
        return
    name, url = await pg_create(postgres)
    try:
        await backfill(count, url, "postgres")
    finally:
        await pg_drop(postgres, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--matches", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backfill", type=int, default=2000)
    parser.add_argument(
        "--postgres",
        metavar="URL",
        help="also time the backfill on a fresh database of this server (loopback only)",
    )
    args = parser.parse_args()
    if args.postgres and (problem := pg_problem(args.postgres)):
        parser.error(problem)
    learning(args.players, args.matches, args.seed)
    asyncio.run(backfills(args.backfill, args.postgres))


if __name__ == "__main__":
    main()
