"""Copy an existing SQLite database into an empty PostgreSQL one:

    python -m data.migrate --from data/capsa.sqlite3 --to postgresql://user:pass@host:5432/db

Stop the bot first. The SQLite file is brought up to this version's schema (as the bot's next
start would) and read in one transaction; the PostgreSQL database gets its schema (the
migrations in data/migrations/postgres/) and then, in one transaction that locks the tables,
every row with its id. The id sequences continue after the copied ids. Before that
transaction commits, each table's row count is compared with SQLite's; the counts are
printed. A target that already holds rows is refused (exit 2); so is a source that is not
there or a database that cannot be reached. A count that differs undoes the whole copy
(exit 1).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import asyncpg
from dotenv import find_dotenv, load_dotenv

from .postgres_db import DatabaseUnavailable, connect, redact
from .postgres_db import migrate as migrate_postgres
from .sqlite_db import SqliteConnection
from .sqlite_db import migrate as migrate_sqlite

# The data tables, parents before children (foreign keys); schema_migrations is each
# database's own.
TABLES = (
    "guild_settings",
    "players",
    "matches",
    "match_seats",
    "rounds",
    "hands",
    "round_scores",
    "hand_reviews",
    "timers",
    "preferences",
    "dm_channels",
    "channel_tokens",
    "message_tokens",
    # not rating_queue: the bot queues again at start each finished match that is not rated
    "rating_guilds",
    "rated_matches",
    "ratings",
    "rating_changes",
    "daily_hands",
    "daily_plays",
)
# Tables whose ids are identities: their sequences continue after the copied ids.
IDENTITIES = ("matches", "rounds")
CHUNK = 5000  # rows sent per COPY


class Refused(Exception):
    """The copy was not started: the message says why (exit 2)."""


class CountMismatch(Exception):
    """A table's row count differs after the copy; nothing was committed (exit 1)."""


@dataclass(frozen=True)
class Copied:
    table: str
    sqlite: int
    postgres: int


def _time(value: Any) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(float(value), UTC)


def _bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


# SQLite value -> the value asyncpg sends for a column of that PostgreSQL type.
CONVERT: dict[str, Callable[[Any], Any]] = {
    "timestamp with time zone": _time,
    "boolean": _bool,
    "double precision": _float,
    "bigint": _int,
    "integer": _int,
    "text": _text,
    "jsonb": _text,  # the JSON text as SQLite holds it
}


async def _columns(conn: asyncpg.Connection[asyncpg.Record], table: str) -> dict[str, str]:
    """The table's columns in PostgreSQL, in order, with their types."""
    rows = await conn.fetch(
        "SELECT column_name, data_type FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
        table,
    )
    return {r["column_name"]: r["data_type"] for r in rows}


def _read_counts(db: sqlite3.Connection) -> dict[str, int]:
    return {t: int(db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]) for t in TABLES}


def _next(chunks: Iterator[list[tuple[Any, ...]]], _db: sqlite3.Connection) -> Any:
    """On the SQLite thread: the next chunk, or None."""
    return next(chunks, None)


def _chunks(
    db: sqlite3.Connection, *, table: str, columns: dict[str, str]
) -> Iterator[list[tuple[Any, ...]]]:
    """The SQLite table's rows, converted for PostgreSQL, CHUNK at a time."""
    have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
    if have != set(columns):
        raise Refused(
            f"table {table} has other columns in SQLite ({', '.join(sorted(have))}) than in"
            f" PostgreSQL ({', '.join(columns)}): are both at this version's schema?"
        )
    convert = [CONVERT[kind] for kind in columns.values()]
    cursor = db.execute(f"SELECT {', '.join(columns)} FROM {table}")
    while rows := cursor.fetchmany(CHUNK):
        yield [tuple(f(v) for f, v in zip(convert, row, strict=True)) for row in rows]


async def copy(source: Path, target_url: str) -> list[Copied]:
    """Copy ``source`` (a SQLite file) into the empty PostgreSQL database at ``target_url``;
    the row counts per table."""
    if not source.is_file():
        raise Refused(f"no SQLite database at {source}")
    conn = await connect(target_url)
    try:
        await migrate_postgres(conn)
        lite = await SqliteConnection.open(source)
        try:
            await migrate_sqlite(lite)
            await lite.run(lambda db: db.execute("BEGIN"))  # one snapshot for all the reads
            try:
                return await _copy(lite, conn)
            finally:
                await lite.run(lambda db: db.execute("ROLLBACK"))
        finally:
            await lite.close()
    finally:
        await conn.close()


async def _copy(lite: SqliteConnection, conn: asyncpg.Connection[asyncpg.Record]) -> list[Copied]:
    counts = await lite.run(_read_counts)
    async with conn.transaction():
        await conn.execute(f"LOCK TABLE {', '.join(TABLES)} IN ACCESS EXCLUSIVE MODE")
        there = {t: int(await conn.fetchval(f"SELECT COUNT(*) FROM {t}")) for t in TABLES}
        if any(there.values()):
            held = ", ".join(f"{t}: {n}" for t, n in there.items() if n)
            raise Refused(
                f"the target database is not empty ({held} rows): copy only into an empty"
                " database (a new one, or drop this one's tables first)"
            )
        for table in TABLES:
            columns = await _columns(conn, table)
            chunks = await lite.run(partial(_chunks, table=table, columns=columns))
            while (rows := await lite.run(partial(_next, chunks))) is not None:
                await conn.copy_records_to_table(table, records=rows, columns=list(columns))
        for table in IDENTITIES:
            await conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                f" COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
            )
        copied = [
            Copied(t, counts[t], int(await conn.fetchval(f"SELECT COUNT(*) FROM {t}")))
            for t in TABLES
        ]
        wrong = [c for c in copied if c.sqlite != c.postgres]
        if wrong:
            raise CountMismatch(
                "row counts differ after the copy, so nothing was kept: "
                + ", ".join(f"{c.table}: {c.sqlite} in SQLite, {c.postgres} copied" for c in wrong)
            )
    return copied


def report(source: Path, target_url: str, copied: list[Copied]) -> str:
    width = max(len(c.table) for c in copied)
    lines = [
        f"copied {source} -> {redact(target_url)}",
        f"{'table':<{width}}  {'sqlite':>8}  {'postgres':>8}",
        *(f"{c.table:<{width}}  {c.sqlite:>8}  {c.postgres:>8}" for c in copied),
        f"{'total':<{width}}  {sum(c.sqlite for c in copied):>8}"
        f"  {sum(c.postgres for c in copied):>8}",
        "every table's row count matches",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m data.migrate",
        description="Copy the bot's SQLite database into an empty PostgreSQL database.",
    )
    parser.add_argument(
        "--from", dest="source", required=True, metavar="SQLITE_FILE", help="data/capsa.sqlite3"
    )
    load_dotenv(find_dotenv(usecwd=True))  # DATABASE_URL of .env, as the bot reads it
    url = os.environ.get("DATABASE_URL", "").strip()
    parser.add_argument(
        "--to",
        dest="target",
        required=not url,
        default=url or None,
        metavar="DATABASE_URL",
        help="postgresql://user:password@host:port/database (default: DATABASE_URL, from"
        " the environment or .env)",
    )
    args = parser.parse_args(argv)
    source = Path(args.source)
    try:
        copied = asyncio.run(copy(source, args.target))
    except (Refused, DatabaseUnavailable, ValueError) as exc:
        print(f"data.migrate: {exc}", file=sys.stderr)
        return 2
    except CountMismatch as exc:
        print(f"data.migrate: {exc}", file=sys.stderr)
        return 1
    except (asyncpg.PostgresError, sqlite3.Error) as exc:
        print(f"data.migrate: the copy failed, nothing was kept: {exc}", file=sys.stderr)
        return 1
    print(report(source, args.target, copied))
    return 0


if __name__ == "__main__":
    sys.exit(main())
