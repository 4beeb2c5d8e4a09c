"""The SQLite connection and its versioned migrations (``data/migrations/sqlite/``).

A ``SqliteConnection`` is one ``sqlite3`` connection and the one thread that uses it: the
event loop hands it whole functions (``run``), so a transaction of any number of statements
is one round trip to that thread. This is the standard library's public API only (sqlite3
and a thread of its own); the README says why not aiosqlite, with the numbers.

Migrations are applied in version order, each in its own transaction together with its row
in ``schema_migrations``. Applied versions are never re-applied.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from capsa.timings import SQLITE_HAND_BACK_SECONDS

from .schema import SQLITE_MIGRATIONS, Migration, discover_migrations

log = logging.getLogger(__name__)

T = TypeVar("T")


# A bool parameter is bound as the integer it is, as any int. (Without an adapter of its own
# sqlite3 looks for one on each bool it binds, raising and clearing an AttributeError on the
# way: about 1% of a round's instructions in bench/repository.py, whose rounds bind 21 bools.
# data/sql.py binds bools, which PostgreSQL's BOOLEAN columns need.)
sqlite3.register_adapter(bool, int)


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
    """One ``sqlite3`` connection and the one thread that uses it. Open it with ``open``.

    The thread takes the functions it is given from a queue, one at a time, in order, and
    hands each result back to the caller's event loop, as aiosqlite's thread does. (A
    one-thread ``ThreadPoolExecutor`` does the same with more machinery: with thousands of
    calls waiting, a round trip through it cost about five times as much here.)"""

    def __init__(self, name: str) -> None:
        self._db: sqlite3.Connection | None = None
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._closed = False
        self._thread = threading.Thread(target=self._work, name=f"sqlite {name}", daemon=True)
        self._thread.start()

    @classmethod
    async def open(cls, path: str | Path) -> SqliteConnection:
        """Open (creating the directory if needed) the database file at ``path``."""
        path = Path(path)
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        conn = cls(path.name)
        try:
            await conn._call(lambda: conn._connect(str(path)))
        except BaseException:
            conn._stop()
            raise
        return conn

    def _connect(self, path: str) -> None:
        self._db = _connect(path)

    def _work(self) -> None:
        """Run the jobs in order. Results go back together: while more jobs wait, up to
        HAND_BACK_JOBS results, or those done within SQLITE_HAND_BACK_SECONDS of the first
        (checked after each job, so a long job in between holds them too), so that a busy
        queue wakes the event loop once for several (each wake-up is a write to its pipe,
        and the GIL passed back and forth). With nothing waiting, a result goes back at
        once."""
        done: list[_Done] = []
        since = 0.0
        while True:
            if done:
                try:
                    job = self._queue.get_nowait()
                except queue.Empty:  # nothing waits: hand back what is done, then wait
                    done = _hand_back(done)
                    job = self._queue.get()
            else:
                job = self._queue.get()
            if job is None:
                break
            loop, future, fn = job
            if future.cancelled():  # its caller gave up before it started: skip it
                continue
            try:
                value, error = fn(), None
            except BaseException as exc:
                value, error = None, exc
            if not done:
                since = time.monotonic()
            done.append((loop, future, value, error))
            if len(done) >= HAND_BACK_JOBS or time.monotonic() - since >= SQLITE_HAND_BACK_SECONDS:
                done = _hand_back(done)
        _hand_back(done)

    async def _call(self, fn: Callable[[], T]) -> T:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._queue.put((loop, future, fn))
        return await future

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn(connection)`` on the connection's thread, whole: a caller cancelled while it
        runs stops waiting, but ``fn`` is never cut short (one whose caller was cancelled
        before it started is skipped). Calls run one at a time, in the order they were
        made."""
        if self._closed or self._db is None:
            raise RuntimeError("the SQLite connection is closed")
        db = self._db
        return await self._call(lambda: fn(db))

    def _stop(self) -> None:
        self._closed = True
        self._queue.put(None)

    async def close(self) -> None:
        if self._closed:
            return
        db, self._db = self._db, None
        try:
            if db is not None:
                await self._call(db.close)
        finally:
            self._stop()


_Job = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]", Callable[[], Any]]
_Done = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]", Any, BaseException | None]

HAND_BACK_JOBS = 16  # results handed back to the event loop at once, at most


def _hand_back(done: list[_Done]) -> list[_Done]:
    """Settle ``done``'s futures on their loops, one wake-up a loop; an empty list."""
    by_loop: dict[asyncio.AbstractEventLoop, list[_Done]] = {}
    for item in done:
        by_loop.setdefault(item[0], []).append(item)
    for loop, items in by_loop.items():
        try:
            loop.call_soon_threadsafe(_settle_all, items)
        except RuntimeError:  # the caller's loop is closed: nobody waits for them
            pass
    return []


def _settle_all(items: list[_Done]) -> None:
    for _loop, future, value, error in items:
        _settle(future, value, error)


def _settle(future: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


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
    # Foreign keys are off while migrations run (SQLite's procedure for rebuilding a table:
    # dropping a parent would delete its children) and checked before each COMMIT.
    db.execute("PRAGMA foreign_keys = OFF")
    try:
        for migration in migrations:
            if migration.version in applied_versions(db):
                continue
            if _apply(db, migration):
                applied.append(migration.version)
    finally:
        db.execute("PRAGMA foreign_keys = ON")
    return applied


def _apply(db: sqlite3.Connection, migration: Migration) -> bool:
    """Apply one migration in its own transaction; False if another process applied it
    meanwhile."""
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
        broken = db.execute("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise sqlite3.IntegrityError(
                f"migration {migration.version:04d} breaks foreign keys: {broken[:5]}"
            )
        db.execute("COMMIT")
    except sqlite3.IntegrityError:
        if db.in_transaction:
            db.execute("ROLLBACK")
        if migration.version in applied_versions(db):
            return False
        raise
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    log.info("applied SQLite migration %04d_%s", migration.version, migration.name)
    return True


async def migrate(conn: SqliteConnection, migrations: list[Migration] | None = None) -> list[int]:
    """Apply the pending migrations (by default ``data/migrations/sqlite/``) in order; return
    the versions applied now."""
    if migrations is None:
        migrations = discover_migrations(SQLITE_MIGRATIONS)
    return await conn.run(partial(apply_migrations, migrations=migrations))
