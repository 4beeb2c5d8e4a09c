"""The PostgreSQL (asyncpg) implementation of ``Repository``: data/sql.py's methods on a
pool of connections, for one or many bot processes on one database.

Every state change is one transaction that first locks the table's row (``Tx.lock_match``:
``SELECT ... FOR UPDATE``), then reads what it checks (round, seat, status) with the lock
held, applies the change and commits: two processes handling the same click take turns, and
the second sees what the first did. Joining a table or opening one also takes a
transaction-scoped advisory lock on the person's user id, so nobody sits at two tables
however the clicks are spread over processes. Reads of several statements see one snapshot.

What is PostgreSQL's own: the SQL's ``?`` become ``$1..$n`` (once per text, cached), times
are ``timestamptz`` (unix seconds in the records, converted here) on the database's clock,
timers are claimed with ``FOR UPDATE SKIP LOCKED`` and a timer due soon is announced with
``NOTIFY``. Nothing mutable is kept in memory: every read goes to the database.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Self, TypeVar

import asyncpg

from .common import timer_record
from .postgres_db import create_pool, migrate
from .repository import TimerRecord
from .sql import Kind, SqlRepository, Tx, claimable, dead_args, reads, writes

if TYPE_CHECKING:
    from .postgres_db import Connection

T = TypeVar("T")
TIMERS_CHANNEL = "capsa_timers"  # NOTIFY'd when a timer due soon is set: processes look again


def ts(seconds: float | None) -> datetime | None:
    """Unix seconds -> ``timestamptz``."""
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC)


def secs(value: datetime | None) -> float | None:
    """``timestamptz`` -> unix seconds."""
    return None if value is None else value.timestamp()


def _count(status: str) -> int:
    """The row count of a command tag (``UPDATE 1`` -> 1)."""
    return int(status.rsplit(" ", 1)[-1])


@lru_cache(maxsize=1024)
def dollars(sql: str) -> str:
    """data/sql.py's ``?`` placeholders as PostgreSQL's ``$1``, ``$2`` ... (the SQL has no
    ``?`` of its own: no string literal holds one)."""
    numbers = iter(range(1, sql.count("?") + 1))
    return re.sub(r"\?", lambda _: f"${next(numbers)}", sql)


class PostgresTx(Tx):
    """Statements on one pooled connection, inside its transaction."""

    NOW = "now()"
    LATER = "(now() + make_interval(secs => ?))"
    UP_SINCE = "pg_postmaster_start_time()"
    LOCK = " FOR UPDATE"

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def all(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        return await self._conn.fetch(dollars(sql), *args)

    async def one(self, sql: str, *args: Any) -> asyncpg.Record | None:
        return await self._conn.fetchrow(dollars(sql), *args)

    async def run(self, sql: str, *args: Any) -> int:
        return _count(await self._conn.execute(dollars(sql), *args))

    async def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        await self._conn.executemany(dollars(sql), rows)

    def stamp(self, seconds: float | None) -> datetime | None:
        return ts(seconds)

    def secs(self, value: Any) -> float | None:
        return secs(value)

    async def lock_user(self, user_id: int) -> None:
        await self._conn.execute("SELECT pg_advisory_xact_lock($1)", user_id)


class PostgresRepository(SqlRepository):
    """``Repository`` on a pool of asyncpg connections; create it with ``open``."""

    UNIQUE_VIOLATION = asyncpg.UniqueViolationError
    one_process = False
    TX = PostgresTx

    def __init__(self, pool: asyncpg.Pool[asyncpg.Record]) -> None:
        self._pool = pool
        # a connection of the pool kept for LISTEN capsa_timers (watch_timers)
        self._listener: asyncpg.pool.PoolConnectionProxy[asyncpg.Record] | None = None
        self._timer_watchers: list[Callable[[], None]] = []

    @classmethod
    async def open(cls, url: str, *, min_size: int = 1, max_size: int = 10) -> Self:
        """Connect to the database at ``url`` and apply its pending migrations.
        ``data.postgres_db.DatabaseUnavailable`` if it cannot be opened."""
        pool = await create_pool(url, min_size=min_size, max_size=max_size)
        try:
            async with pool.acquire() as conn:
                await migrate(conn)
        except BaseException:
            await pool.close()
            raise
        return cls(pool)

    async def close(self) -> None:
        if self._listener is not None:
            listener, self._listener = self._listener, None
            try:
                await listener.remove_listener(TIMERS_CHANNEL, self._notified)
                await self._pool.release(listener)
            except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
                pass  # a broken connection (the server restarted): the pool has it back
        await self._pool.close()

    # ------------------------------------------------------------------ plumbing

    async def _tx(
        self, body: Callable[[Tx], Awaitable[T]], *, read: bool = False, snapshot: bool = False
    ) -> T:
        """A write: READ COMMITTED (each statement sees what committed before it, so what
        is read after a lock is current), committed at the end, rolled back on any error. A
        read of one statement: on its own. A read of several: read-only, on one snapshot."""
        async with self._transaction(read, snapshot) as conn:
            return await body(self.TX(conn))

    @asynccontextmanager
    async def _transaction(self, read: bool, snapshot: bool) -> AsyncIterator[Connection]:
        async with self._pool.acquire() as conn:
            if read:
                yield conn
            elif snapshot:
                async with conn.transaction(isolation="repeatable_read", readonly=True):
                    yield conn
            else:
                async with conn.transaction():
                    yield conn

    # ------------------------------------------------------------------ timers

    async def _timers_due_soon(self) -> None:
        await self._pool.execute(f"NOTIFY {TIMERS_CHANNEL}")

    @writes(Kind.TIMER)
    async def claim_timers(
        self, owner: str, lease: float, limit: int = 50, *, judging: bool = True
    ) -> list[TimerRecord]:
        async def tx(db: Tx) -> Sequence[Any]:
            return await db.all(
                f"UPDATE timers SET lease_until = {db.LATER}, lease_owner = ?"
                f" FROM (SELECT match_id, kind FROM timers t WHERE {claimable(db)}"
                "  ORDER BY due_at, match_id LIMIT ? FOR UPDATE SKIP LOCKED) due"
                " WHERE timers.match_id = due.match_id AND timers.kind = due.kind"
                " RETURNING timers.match_id, timers.kind, timers.arg, timers.version,"
                " timers.attempts, timers.due_at",
                float(lease),
                owner,
                owner,
                *dead_args(db, judging),
                max(0, int(limit)),
            )

        rows = await self._tx(tx)
        return [timer_record(r) for r in sorted(rows, key=lambda r: (r["due_at"], r["match_id"]))]

    @reads
    async def next_timer_in(self) -> float | None:
        value = await self._pool.fetchval(
            "SELECT EXTRACT(EPOCH FROM MIN(CASE WHEN lease_until >= now()"
            " THEN GREATEST(due_at, lease_until) ELSE due_at END) - now()) FROM timers"
        )
        return None if value is None else max(0.0, float(value))

    async def watch_timers(self, wake: Callable[[], None]) -> None:
        if self._listener is None:
            listener = await self._pool.acquire()
            try:
                await listener.add_listener(TIMERS_CHANNEL, self._notified)
            except BaseException:
                await self._pool.release(listener)
                raise
            self._listener = listener
        self._timer_watchers.append(wake)

    def _notified(self, *_: object) -> None:
        for wake in self._timer_watchers:
            wake()
