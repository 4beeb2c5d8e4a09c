"""Timing of the storage layer: how the way a transaction reaches the database sets the pace
when many tables write at once.

Run from the repository root:  .venv/bin/python -m bench.repository
    [--tables 200] [--rounds 5] [--work-ms 0] [--postgres URL | --no-postgres]
    [--only transport|rounds] [--sync FULL|NORMAL] [--repeat N]

Part 1, the SQLite transport. Every table runs score_round-shaped transactions (a guarded
UPDATE, two SELECTs, then an UPDATE and an INSERT per seat: 9 statements) on one SQLite file
in WAL mode with synchronous=FULL, all tables at once:
  - "aiosqlite, a statement at a time": aiosqlite's public API, each statement (and COMMIT)
    awaited on its own; one transaction at a time on the connection (an asyncio.Lock).
  - "aiosqlite statements, group commit": the same API with the transactions that wait
    together under one BEGIN ... COMMIT, each in a SAVEPOINT (what a repository on aiosqlite's
    public API with group commit would do).
  - "aiosqlite _execute, whole function": the private call the repository used before: the
    transaction as one function on aiosqlite's thread.
  - "own thread, whole function": what data/sqlite_db.py does now (the standard library's
    sqlite3 on a thread of its own, fed from a queue).
  - "own thread, group commit": the same, with transactions that wait together committed
    together (data/sqlite_batch.py).
Part 2, whole rounds through each repository (data/sqlite.py plain, data/sqlite_batch.py,
data/postgres.py): per table, deal a round, read it, three submits, read it, score it, read
the totals. Beside the rounds a second, the CPU time of the bench's process a round (all its
threads; what load on a shared machine moves least) and, for SQLite, the statements a round
(counted in a run of their own: counting slows what it counts). PostgreSQL runs on a
database the benchmark creates and drops (server: --postgres, default
$CAPSA_TEST_DATABASE_URL or the machine's own on 127.0.0.1:5432).

``--work-ms`` spends that much CPU on the event loop after each transaction of a table (what
a bot does between two: Discord events, embeds), so the loop is busy as it is under load.
It prints transactions (or rounds) a second and latency percentiles; it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiosqlite
import asyncpg

from capsa.cards import deal
from data import Repository, RoundScore
from data.postgres import PostgresRepository
from data.postgres_db import DatabaseUnavailable
from data.schema import SQLITE_MIGRATIONS, discover_migrations
from data.sqlite import SqliteRepository
from data.sqlite_batch import BatchedSqliteRepository
from data.sqlite_db import SqliteConnection, apply_migrations

SEATS = 3
SYNC = ["FULL"]  # PRAGMA synchronous of part 1 (--sync); the repositories use FULL
PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/postgres"


def busy(ms: float) -> None:
    """Spend ``ms`` of CPU on the event loop's thread."""
    if ms > 0:
        end = time.perf_counter() + ms / 1000
        while time.perf_counter() < end:
            pass


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def line(name: str, count: int, seconds: float, latencies: list[float], unit: str) -> str:
    return (
        f"{name:<38} {count / seconds:>9.0f} {unit}/s"
        f"   p50 {statistics.median(latencies) * 1000:>7.1f} ms"
        f"   p99 {percentile(latencies, 0.99) * 1000:>7.1f} ms"
    )


# ------------------------------------------------------------------- part 1: SQLite transport


def prepare_file(path: Path, tables: int, rounds: int) -> list[tuple[int, int]]:
    """A database with ``tables`` playing matches of 3 seats and ``rounds`` open rounds each;
    the (match id, round id) pairs to score."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    apply_migrations(db, discover_migrations(SQLITE_MIGRATIONS))
    todo = []
    db.execute("BEGIN")
    for t in range(tables):
        match_id = db.execute(
            "INSERT INTO matches (guild_id, channel_id, host_id, preset, rounds_total, countdown,"
            " bot_level, timeout_action, seats_count, status, created_at)"
            " VALUES (1, ?, ?, 'standard', 10, 120, 'normal', 'auto', 3, 'playing', 0)",
            (1000 + t, 5000 + t),
        ).lastrowid
        for seat in range(SEATS):
            db.execute(
                "INSERT INTO match_seats (match_id, seat, user_id, name) VALUES (?, ?, ?, ?)",
                (match_id, seat, 5000 + t * 4 + seat, f"p{seat}"),
            )
        for number in range(1, rounds + 1):
            round_id = db.execute(
                "INSERT INTO rounds (match_id, number, seed, deadline, created_at)"
                " VALUES (?, ?, '1', 0, 0)",
                (match_id, number),
            ).lastrowid
            for seat in range(SEATS):
                db.execute(
                    "INSERT INTO hands (round_id, seat, cards) VALUES (?, ?, 'AS')",
                    (round_id, seat),
                )
            assert match_id is not None and round_id is not None
            todo.append((match_id, round_id))
    db.execute("COMMIT")
    db.close()
    return todo


def score_statements(round_id: int, match_id: int) -> list[tuple[str, tuple[Any, ...]]]:
    """The statements of one score_round, in order (the two SELECTs read what they need)."""
    now = time.time()
    out: list[tuple[str, tuple[Any, ...]]] = [
        (
            "UPDATE rounds SET status = 'scored', result = '{}', scored_at = ?"
            " WHERE id = ? AND status = 'open'",
            (now, round_id),
        ),
        (
            "SELECT r.match_id, m.guild_id FROM rounds r JOIN matches m ON m.id = r.match_id"
            " WHERE r.id = ?",
            (round_id,),
        ),
        ("SELECT seat, user_id FROM match_seats WHERE match_id = ?", (match_id,)),
    ]
    for seat in range(SEATS):
        out.append(
            (
                "UPDATE hands SET points = ? WHERE round_id = ? AND seat = ?",
                (1.0, round_id, seat),
            )
        )
        out.append(
            (
                "INSERT INTO round_scores (round_id, seat, match_id, guild_id, points,"
                " scored_at) VALUES (?, ?, ?, 1, 1.0, ?)",
                (round_id, seat, match_id, now),
            )
        )
    return out


def score_in_thread(db: sqlite3.Connection, round_id: int, match_id: int) -> None:
    db.execute("BEGIN IMMEDIATE")
    try:
        for sql, params in score_statements(round_id, match_id):
            db.execute(sql, params).fetchall()
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


async def drive(
    todo: list[tuple[int, int]], one: Callable[[int, int], Awaitable[None]], work_ms: float
) -> tuple[float, list[float]]:
    """Every table's transactions, the tables at once; wall time and each one's latency."""
    by_match: dict[int, list[int]] = {}
    for match_id, round_id in todo:
        by_match.setdefault(match_id, []).append(round_id)
    latencies: list[float] = []

    async def table(match_id: int, round_ids: list[int]) -> None:
        for round_id in round_ids:
            t0 = time.perf_counter()
            await one(round_id, match_id)
            latencies.append(time.perf_counter() - t0)
            busy(work_ms)

    start = time.perf_counter()
    await asyncio.gather(*(table(m, r) for m, r in by_match.items()))
    return time.perf_counter() - start, latencies


async def transport_aiosqlite_statements(path: Path, todo, work_ms: float):
    conn = await aiosqlite.connect(path, isolation_level=None)
    await conn.execute(f"PRAGMA synchronous = {SYNC[0]}")
    lock = asyncio.Lock()

    async def one(round_id: int, match_id: int) -> None:
        async with lock:  # one transaction at a time on the connection
            await conn.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in score_statements(round_id, match_id):
                    async with conn.execute(sql, params) as cur:
                        await cur.fetchall()
                await conn.execute("COMMIT")
            except BaseException:
                await conn.execute("ROLLBACK")
                raise

    try:
        return await drive(todo, one, work_ms)
    finally:
        await conn.close()


async def transport_aiosqlite_group(path: Path, todo, work_ms: float):
    """Group commit through aiosqlite's public API: the waiting transactions under one
    BEGIN ... COMMIT, each in its SAVEPOINT, every statement awaited on its own."""
    conn = await aiosqlite.connect(path, isolation_level=None)
    await conn.execute(f"PRAGMA synchronous = {SYNC[0]}")
    pending: list[tuple[int, int, asyncio.Future[None]]] = []
    flusher: list[asyncio.Future[None]] = []

    async def flush() -> None:
        while pending:
            batch = pending[:]
            pending.clear()
            await conn.execute("BEGIN IMMEDIATE")
            for round_id, match_id, _ in batch:
                await conn.execute("SAVEPOINT tx")
                for sql, params in score_statements(round_id, match_id):
                    async with conn.execute(sql, params) as cur:
                        await cur.fetchall()
                await conn.execute("RELEASE tx")
            await conn.execute("COMMIT")
            for _, _, future in batch:
                future.set_result(None)

    async def one(round_id: int, match_id: int) -> None:
        future = asyncio.get_running_loop().create_future()
        pending.append((round_id, match_id, future))
        if not flusher or flusher[0].done():
            flusher[:] = [asyncio.ensure_future(flush())]
        await future

    try:
        return await drive(todo, one, work_ms)
    finally:
        await conn.close()


async def transport_aiosqlite_private(path: Path, todo, work_ms: float):
    conn = await aiosqlite.connect(path, isolation_level=None)
    await conn.execute(f"PRAGMA synchronous = {SYNC[0]}")

    async def one(round_id: int, match_id: int) -> None:
        raw = conn._conn  # private: what data/db.py used to do
        await conn._execute(score_in_thread, raw, round_id, match_id)

    try:
        return await drive(todo, one, work_ms)
    finally:
        await conn.close()


async def transport_own_thread(path: Path, todo, work_ms: float):
    conn = await SqliteConnection.open(path)
    await conn.run(lambda db: db.execute(f"PRAGMA synchronous = {SYNC[0]}"))

    async def one(round_id: int, match_id: int) -> None:
        await conn.run(lambda db: score_in_thread(db, round_id, match_id))

    try:
        return await drive(todo, one, work_ms)
    finally:
        await conn.close()


async def transport_group_commit(path: Path, todo, work_ms: float):
    repo = await BatchedSqliteRepository.open(path)
    await repo._conn.run(lambda db: db.execute(f"PRAGMA synchronous = {SYNC[0]}"))

    async def one(round_id: int, match_id: int) -> None:
        def tx() -> None:
            for sql, params in score_statements(round_id, match_id):
                assert repo._db is not None
                repo._db.execute(sql, params).fetchall()

        await repo._run(tx)

    try:
        return await drive(todo, one, work_ms)
    finally:
        await repo.close()


async def part1(tables: int, rounds: int, work_ms: float, folder: Path, repeat: int) -> None:
    print(
        f"SQLite transport: {tables} tables x {rounds} score_round-shaped transactions,"
        f" synchronous={SYNC[0]}, {repeat} run(s) of each, interleaved"
    )
    variants = [
        ("aiosqlite, a statement at a time", transport_aiosqlite_statements),
        ("aiosqlite statements, group commit", transport_aiosqlite_group),
        ("aiosqlite _execute, whole function", transport_aiosqlite_private),
        ("own thread, whole function", transport_own_thread),
        ("own thread, group commit", transport_group_commit),
    ]
    rates: dict[str, list[float]] = {name: [] for name, _ in variants}
    p50s: dict[str, list[float]] = {name: [] for name, _ in variants}
    for _ in range(repeat):
        for name, run in variants:
            path = folder / f"transport-{secrets.token_hex(3)}.sqlite3"
            todo = prepare_file(path, tables, rounds)
            seconds, latencies = await run(path, todo, work_ms)
            rates[name].append(len(todo) / seconds)
            p50s[name].append(statistics.median(latencies))
            if repeat == 1:
                print(line(name, len(todo), seconds, latencies, "tx"))
    if repeat > 1:
        for name, _ in variants:
            r = rates[name]
            print(
                f"{name:<38} {statistics.median(r):>9.0f} tx/s (median;"
                f" {min(r):.0f} to {max(r):.0f})"
                f"   p50 {statistics.median(p50s[name]) * 1000:>7.1f} ms"
            )


# ------------------------------------------------------------------- part 2: repositories


async def play(repo: Repository, table: int, rounds: int, work_ms: float, lat: dict) -> None:
    m = await repo.create_match(
        1, 10_000 + table, 50_000 + table * 4, "standard", {}, 10, 120, "normal", "auto",
        SEATS, "auto", None, "host",
    )  # fmt: skip
    for seat in range(1, SEATS):
        await repo.add_seat(m.id, 50_000 + table * 4 + seat, f"p{seat}")
    await repo.start_match(m.id)
    for number in range(1, rounds + 1):
        seed = table * 1000 + number
        hands = {i: [c.code for c in h] for i, h in enumerate(deal(SEATS, seed))}
        t0 = time.perf_counter()
        rnd = await repo.start_round(m.id, number, seed, time.time() + 120, hands)
        busy(work_ms)
        await repo.get_round(rnd.id)
        for seat, cards in hands.items():
            t1 = time.perf_counter()
            await repo.submit_hand(rnd.id, seat, cards[:5], cards[5:10], cards[10:], None, False)
            lat["submit_hand"].append(time.perf_counter() - t1)
            busy(work_ms)
        await repo.get_round(rnd.id)
        scores = [RoundScore(seat, float(seat - 1)) for seat in range(SEATS)]
        t1 = time.perf_counter()
        await repo.score_round(rnd.id, {"n": number}, scores)
        lat["score_round"].append(time.perf_counter() - t1)
        busy(work_ms)
        await repo.match_totals(m.id)
        lat["round"].append(time.perf_counter() - t0)


async def count_statements(
    opener: Callable[[], Awaitable[Repository]], tables: int, rounds: int
) -> float:
    """A SQLite repository's statements a round (a figure load cannot move), counted in a
    run of its own: the counting (a Python call from SQLite for each statement) would slow
    the timed run."""
    repo = await opener()
    statements = [0]
    try:
        conn = getattr(repo, "_conn", None)
        assert isinstance(conn, SqliteConnection)

        def counted(_sql: str) -> None:
            statements[0] += 1

        await conn.run(lambda db: db.set_trace_callback(counted))
        lat: dict[str, list[float]] = {"round": [], "submit_hand": [], "score_round": []}
        await asyncio.gather(*(play(repo, t, rounds, 0.0, lat) for t in range(tables)))
        return statements[0] / len(lat["round"])
    finally:
        await repo.close()


async def run_repository(
    name: str,
    opener: Callable[[], Awaitable[Repository]],
    tables: int,
    rounds: int,
    work_ms: float,
    *,
    sqlite: bool = False,
) -> None:
    repo = await opener()
    lat: dict[str, list[float]] = {"round": [], "submit_hand": [], "score_round": []}
    try:
        cpu = time.process_time()
        start = time.perf_counter()
        await asyncio.gather(*(play(repo, t, rounds, work_ms, lat) for t in range(tables)))
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu
    finally:
        await repo.close()
    print(line(name, len(lat["round"]), seconds, lat["round"], "rounds"))
    # CPU time of this process (every thread) a round: what load moves least (with
    # --work-ms 0; PostgreSQL's server is another process, not counted)
    print(f"{'':<4}{'CPU a round (this process)':<34} {cpu / len(lat['round']) * 1000:>7.3f} ms")
    if sqlite:
        per_round = await count_statements(opener, tables, rounds)
        print(f"{'':<4}{'SQL statements a round':<34} {per_round:>7.1f}")
    for call in ("submit_hand", "score_round"):
        print(
            f"{'':<4}{call:<34} p50 {statistics.median(lat[call]) * 1000:>7.1f} ms"
            f"   p99 {percentile(lat[call], 0.99) * 1000:>7.1f} ms"
        )


async def part2(tables: int, rounds: int, work_ms: float, folder: Path, pg: str | None) -> None:
    print(f"\nWhole rounds: {tables} tables x {rounds} rounds, every table at once")

    async def plain() -> Repository:
        return await SqliteRepository.open(folder / f"plain-{secrets.token_hex(3)}.sqlite3")

    async def batched() -> Repository:
        return await BatchedSqliteRepository.open(folder / f"batch-{secrets.token_hex(3)}.sqlite3")

    for name, opener in (
        ("SQLite, a transaction at a time", plain),
        ("SQLite, group commit + cache", batched),
    ):
        await run_repository(name, opener, tables, rounds, work_ms, sqlite=True)
    if pg is None:
        return
    name = f"capsa_bench_{secrets.token_hex(4)}"
    try:
        admin = await asyncpg.connect(pg, timeout=10)
    except (OSError, asyncpg.PostgresError) as exc:
        print(f"PostgreSQL: skipped, {pg} cannot be used ({exc})")
        return
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        url = urlunsplit(urlsplit(pg)._replace(path=f"/{name}"))
        for pool in (10, 20):

            async def pooled(pool: int = pool) -> Repository:
                return await PostgresRepository.open(url, max_size=pool)

            conn = await asyncpg.connect(url)
            with_tables = await conn.fetchval("SELECT to_regclass('matches') IS NOT NULL")
            if with_tables:
                await conn.execute("TRUNCATE matches, guild_settings, players CASCADE")
            await conn.close()
            label = f"PostgreSQL, pool of {pool}"
            await run_repository(label, pooled, tables, rounds, work_ms)
    except DatabaseUnavailable as exc:
        print(f"PostgreSQL: skipped ({exc})")
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--work-ms", type=float, default=0.0)
    parser.add_argument("--dir", type=Path, default=None, help="where the SQLite files go")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("CAPSA_TEST_DATABASE_URL") or PG_DEFAULT,
        help="a PostgreSQL server URL (a database is created on it and dropped)",
    )
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--only", choices=("transport", "rounds"), default=None)
    parser.add_argument("--repeat", type=int, default=1, help="part 1's runs of each variant")
    parser.add_argument(
        "--sync",
        choices=("FULL", "NORMAL"),
        default="FULL",
        help="part 1's PRAGMA synchronous (NORMAL: no disk sync per commit in WAL mode, so"
        " what is left is the transport)",
    )
    args = parser.parse_args()
    SYNC[0] = args.sync
    print(
        f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version},"
        f" aiosqlite {aiosqlite.__version__}, asyncpg {asyncpg.__version__},"
        f" {os.cpu_count()} cores, work {args.work_ms:g} ms after each transaction\n"
    )
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        folder = Path(tmp)
        if args.only in (None, "transport"):
            await part1(args.tables, args.rounds, args.work_ms, folder, args.repeat)
        if args.only in (None, "rounds"):
            pg = None if args.no_postgres else args.postgres
            await part2(args.tables, args.rounds, args.work_ms, folder, pg)


if __name__ == "__main__":
    asyncio.run(main())
