"""SQLite connection and versioned migrations.

Migrations are the files ``data/migrations/NNNN_name.sql``, applied in version order, each in
its own transaction together with its row in ``schema_migrations``. A migration file must not
contain ``BEGIN``/``COMMIT`` itself. Applied versions are never re-applied.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import aiosqlite

log = logging.getLogger(__name__)

T = TypeVar("T")

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_MIGRATION_NAME = re.compile(r"^(\d+)_([A-Za-z0-9_\-]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    path: Path

    def sql(self) -> str:
        return self.path.read_text(encoding="utf-8")


def discover_migrations(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """The migration files in ``directory``, sorted by version (duplicates are an error)."""
    found: dict[int, Migration] = {}
    for path in sorted(directory.glob("*.sql")):
        m = _MIGRATION_NAME.match(path.name)
        if not m:
            raise RuntimeError(f"bad migration file name {path.name!r}: expected NNNN_name.sql")
        version = int(m.group(1))
        if version in found:
            raise RuntimeError(
                f"two migrations with version {version}: {found[version].path.name}, {path.name}"
            )
        found[version] = Migration(version, m.group(2), path)
    return [found[v] for v in sorted(found)]


async def connect(path: str | Path) -> aiosqlite.Connection:
    """Open (creating the directory if needed) a connection in WAL mode with foreign keys on.

    The connection is in autocommit mode (``isolation_level=None``): transactions are explicit
    ``BEGIN IMMEDIATE`` ... ``COMMIT``, so every group of writes is exactly one transaction.
    """
    path = Path(path)
    if str(path) != ":memory:":
        path.parent.mkdir(parents=True, exist_ok=True)
    conn = await aiosqlite.connect(str(path), isolation_level=None)
    try:
        conn.row_factory = aiosqlite.Row
        await conn.execute("PRAGMA busy_timeout = 5000")
        async with conn.execute("PRAGMA journal_mode = WAL") as cur:
            row = await cur.fetchone()
        if str(path) != ":memory:" and (row is None or str(row[0]).lower() != "wal"):
            raise RuntimeError(f"could not switch {path} to WAL mode (got {row and row[0]!r})")
        await conn.execute("PRAGMA synchronous = FULL")
        await conn.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        await conn.close()
        raise
    return conn


async def run_in_thread(conn: aiosqlite.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``fn(raw connection)`` on the connection's own thread: one round trip, however
    many statements ``fn`` runs.

    aiosqlite sends every statement (and every fetch and cursor close) to its thread on its
    own, and each answer waits for the event loop to come round again. A transaction of eight
    statements on a busy loop therefore held the database for eight loop turns: under load
    that queue, not SQLite, set the pace. aiosqlite has no public call for a function of
    statements (its maintainer agreed it would be faster: omnilib/aiosqlite#19), so this uses
    ``Connection._execute``, the queue its own methods use, and ``Connection._conn``. They are
    unchanged from 0.17 to 0.22; requirements.txt caps the version and every repository test
    goes through here.
    """
    return await conn._execute(lambda: fn(conn._conn))


async def applied_versions(conn: aiosqlite.Connection) -> set[int]:
    async with conn.execute("SELECT version FROM schema_migrations") as cur:
        return {int(r[0]) for r in await cur.fetchall()}


async def migrate(
    conn: aiosqlite.Connection, migrations: list[Migration] | None = None
) -> list[int]:
    """Apply the pending migrations in order; return the versions applied now."""
    if migrations is None:
        migrations = discover_migrations()
    await conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY,"
        " name TEXT NOT NULL,"
        " applied_at REAL NOT NULL)"
    )
    applied: list[int] = []
    for migration in migrations:
        if migration.version in await applied_versions(conn):
            continue
        sql = migration.sql()
        # executescript() commits any open transaction before it runs, so the whole unit is
        # one script: BEGIN, the record, the migration; the COMMIT follows once it all ran.
        # The record goes first: if another process applied this version meanwhile, its
        # primary key fails before any DDL runs, and we skip it.
        script = (
            "BEGIN IMMEDIATE;\n"
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES "
            f"({migration.version:d}, '{migration.name}', {time.time()!r});\n"
            f"{sql}\n"
        )
        try:
            await conn.executescript(script)
            await conn.execute("COMMIT")
        except sqlite3.IntegrityError:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            if migration.version in await applied_versions(conn):
                continue
            raise
        except BaseException:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
        log.info("applied migration %04d_%s", migration.version, migration.name)
        applied.append(migration.version)
    return applied
