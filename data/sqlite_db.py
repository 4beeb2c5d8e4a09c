"""The SQLite connection and its versioned migrations (``data/migrations/sqlite/``).

A ``SqliteConnection`` is one ``sqlite3`` connection and the one thread that uses it: the
event loop hands it whole functions (``run``), so a transaction of any number of statements
is one round trip to that thread. This is the standard library's public API only (a
one-thread executor); see the README ("Why not aiosqlite") for the numbers behind it.

Migrations are applied in version order, each in its own transaction together with its row
in ``schema_migrations``. Applied versions are never re-applied.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TypeVar

from .schema import SQLITE_MIGRATIONS, Migration, discover_migrations

log = logging.getLogger(__name__)

T = TypeVar("T")


def _connect(path: str) -> sqlite3.Connection:
    """On the connection's thread: open ``path`` in WAL mode with foreign keys on.

    The connection is in autocommit mode (``isolation_level=None``): transactions are explicit
    ``BEGIN IMMEDIATE`` ... ``COMMIT``, so every group of writes is exactly one transaction.
    """
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA busy_timeout = 5000")
        row = db.execute("PRAGMA journal_mode = WAL").fetchone()
        if path != ":memory:" and (row is None or str(row[0]).lower() != "wal"):
            raise RuntimeError(f"could not switch {path} to WAL mode (got {row and row[0]!r})")
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        db.close()
        raise
    return db


class SqliteConnection:
    """One ``sqlite3`` connection, used only by its own thread. Open it with ``open``."""

    def __init__(self, db: sqlite3.Connection, executor: ThreadPoolExecutor) -> None:
        self._db = db
        self._executor = executor
        self._closed = False

    @classmethod
    async def open(cls, path: str | Path) -> SqliteConnection:
        """Open (creating the directory if needed) the database file at ``path``."""
        path = Path(path)
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite")
        try:
            db = await asyncio.get_running_loop().run_in_executor(executor, _connect, str(path))
        except BaseException:
            executor.shutdown(wait=False)
            raise
        return cls(db, executor)

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn(connection)`` on the connection's thread, whole: a caller cancelled while it
        runs stops waiting, but ``fn`` is never cut short (one that has not started yet is
        dropped). Calls run one at a time, in the order they were made."""
        if self._closed:
            raise RuntimeError("the SQLite connection is closed")
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, self._db)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            await asyncio.get_running_loop().run_in_executor(self._executor, self._db.close)
        finally:
            self._executor.shutdown(wait=True)  # its queue is empty: returns at once


def applied_versions(db: sqlite3.Connection) -> set[int]:
    return {int(r[0]) for r in db.execute("SELECT version FROM schema_migrations")}


def apply_migrations(db: sqlite3.Connection, migrations: list[Migration]) -> list[int]:
    """On the connection's thread: apply the pending ``migrations`` in order; return the
    versions applied now."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY,"
        " name TEXT NOT NULL,"
        " applied_at REAL NOT NULL)"
    )
    applied: list[int] = []
    for migration in migrations:
        if migration.version in applied_versions(db):
            continue
        # executescript() commits any open transaction before it runs, so the whole unit is
        # one script: BEGIN, the record, the migration; the COMMIT follows once it all ran.
        # The record goes first: if another process applied this version meanwhile, its
        # primary key fails before any DDL runs, and we skip it.
        script = (
            "BEGIN IMMEDIATE;\n"
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES "
            f"({migration.version:d}, '{migration.name}', {time.time()!r});\n"
            f"{migration.sql()}\n"
        )
        try:
            db.executescript(script)
            db.execute("COMMIT")
        except sqlite3.IntegrityError:
            if db.in_transaction:
                db.execute("ROLLBACK")
            if migration.version in applied_versions(db):
                continue
            raise
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        log.info("applied SQLite migration %04d_%s", migration.version, migration.name)
        applied.append(migration.version)
    return applied


async def migrate(conn: SqliteConnection, migrations: list[Migration] | None = None) -> list[int]:
    """Apply the pending migrations (by default ``data/migrations/sqlite/``) in order; return
    the versions applied now."""
    if migrations is None:
        migrations = discover_migrations(SQLITE_MIGRATIONS)
    return await conn.run(partial(apply_migrations, migrations=migrations))
