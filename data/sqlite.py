"""The SQLite implementation of ``Repository``: data/sql.py's methods on one SQLite
connection.

Every public method is exactly one transaction: a function run whole on the connection's own
thread (``data.sqlite_db.SqliteConnection``) between ``BEGIN IMMEDIATE`` and ``COMMIT``, and
rolled back whole on any error. data/sql.py's transaction bodies are coroutines; over
``SqliteTx`` they never wait (each statement runs at once on the thread), so the thread runs
one to its end in one go (``drive``). ``SqliteRepository`` runs each transaction on its own;
``data.sqlite_batch.BatchedSqliteRepository``, the one ``open_repository`` gives, adds the
single-process parts: the group commit and the cache of committed records, told through
``_loaded`` / ``_loaded_latest`` / ``_changing`` (no-ops here) what a transaction read and
what it declared it writes.

What is SQLite's own: times are REAL unix seconds (the clock: ``julianday('now')``), nothing
locks a row (one writer at a time), and timers are claimed by one process per file.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Self, TypeVar

from .common import timer_record
from .repository import TimerRecord
from .sql import Kind, SqlRepository, Tx, claimable, dead_args, declared_changes, reads, writes
from .sqlite_db import SqliteConnection, migrate

T = TypeVar("T")


def drive(coro: Coroutine[Any, Any, T]) -> T:
    """Run a transaction body over ``SqliteTx`` to its end, here and now (it never waits)."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    raise RuntimeError("a SQLite transaction waited for something else than its statements")


class SqliteTx(Tx):
    """Statements on the repository's connection, inside the transaction that runs."""

    NOW = "((julianday('now') - 2440587.5) * 86400.0)"
    LATER = f"({NOW} + ?)"
    UP_SINCE = "0.0"  # no server: one process has the file (start_process)

    def __init__(self, repo: SqliteRepository) -> None:
        self._repo = repo

    @property
    def _db(self) -> sqlite3.Connection:
        db = self._repo._db
        assert db is not None, "only inside a transaction"
        return db

    async def all(self, sql: str, *args: Any) -> list[sqlite3.Row]:
        return self._db.execute(sql, args).fetchall()

    async def one(self, sql: str, *args: Any) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self._db.execute(sql, args).fetchone()
        return row

    # run, many and insert are the statements that write (data/sql.py writes through no
    # other): each tells the repository, whose cache knows then what it read before it.

    async def run(self, sql: str, *args: Any) -> int:
        self._repo._wrote()
        return self._db.execute(sql, args).rowcount

    async def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._repo._wrote()
        self._db.executemany(sql, rows)

    async def insert(self, sql: str, *args: Any) -> int:
        """The new rowid, without ``RETURNING`` (which SQLite runs through two temporary
        tables)."""
        self._repo._wrote()
        rowid = self._db.execute(sql, args).lastrowid
        assert rowid is not None
        return rowid

    async def lock_user(self, user_id: int) -> None:
        """Nothing to hold: SQLite writes one transaction at a time."""

    def stamp(self, seconds: float | None) -> float | None:
        return seconds

    def secs(self, value: Any) -> float | None:
        return None if value is None else float(value)


class SqliteRepository(SqlRepository):
    """``Repository`` on one SQLite connection, each transaction on its own; create it with
    ``open``."""

    UNIQUE_VIOLATION = sqlite3.IntegrityError
    one_process = True
    TX = SqliteTx

    def __init__(self, conn: SqliteConnection) -> None:
        self._conn = conn
        self._db: sqlite3.Connection | None = None  # set on the thread while a transaction runs
        self._cursor = self.TX(self)
        self._timer_watchers: list[Callable[[], None]] = []

    @classmethod
    async def open(cls, path: str | Path) -> Self:
        """Open the database file at ``path`` (directory created, WAL on, migrations
        applied)."""
        conn = await SqliteConnection.open(path)
        try:
            await migrate(conn)
        except BaseException:
            await conn.close()
            raise
        return cls(conn)

    async def close(self) -> None:
        await self._conn.close()

    # ------------------------------------------------------------------ plumbing

    async def _tx(
        self, body: Callable[[Tx], Awaitable[T]], *, read: bool = False, snapshot: bool = False
    ) -> T:
        """Reads too: one transaction (a consistent snapshot) on the thread."""
        return await self._run(partial(self._body, body, declared_changes()))

    def _body(self, body: Callable[[Tx], Awaitable[T]], changes: Sequence[tuple[Kind, Any]]) -> T:
        """On the thread, inside the transaction: say what it changes, then run it."""
        for kind, key in changes:
            self._changing(kind, key)
        return drive(body(self._cursor))  # type: ignore[arg-type]

    def _changing(self, kind: Kind, key: Any) -> None:
        """The running transaction is about to write to that record."""

    def _wrote(self) -> None:
        """The running transaction is about to run a statement that writes."""

    async def _run(self, fn: Callable[[], T]) -> T:
        """``fn`` as one transaction on the connection's thread (reads too: a consistent
        snapshot)."""
        return await self._conn.run(partial(self._transaction, fn=fn))

    def _transaction(self, db: sqlite3.Connection, *, fn: Callable[[], T]) -> T:
        self._db = db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                value = fn()
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            return value
        finally:
            self._db = None

    # ------------------------------------------------------------------ timers

    async def _timers_due_soon(self) -> None:
        for wake in self._timer_watchers:
            wake()  # one process per file: only this one sets them

    @writes(Kind.TIMER)
    async def claim_timers(
        self, owner: str, lease: float, limit: int = 50, *, judging: bool = True
    ) -> list[TimerRecord]:
        async def tx(db: Tx) -> list[TimerRecord]:
            now = time.time()
            rows = await db.all(
                "SELECT match_id, kind, arg, version, attempts FROM timers t"
                f" WHERE {claimable(db)} ORDER BY due_at, match_id LIMIT ?",
                owner,
                *dead_args(db, judging),
                max(0, int(limit)),
            )
            await db.many(
                "UPDATE timers SET lease_until = ?, lease_owner = ?"
                " WHERE match_id = ? AND kind = ?",
                [(now + lease, owner, r["match_id"], r["kind"]) for r in rows],
            )
            return [timer_record(r) for r in rows]

        return await self._tx(tx)

    @reads
    async def next_timer_in(self) -> float | None:
        async def tx(db: Tx) -> float | None:
            now = time.time()
            due = await db.value(
                "SELECT MIN(CASE WHEN lease_until IS NOT NULL AND lease_until >= ?"
                " THEN MAX(due_at, lease_until) ELSE due_at END) FROM timers",
                now,
            )
            return None if due is None else max(0.0, float(due) - now)

        return await self._tx(tx, read=True)

    async def watch_timers(self, wake: Callable[[], None]) -> None:
        self._timer_watchers.append(wake)
