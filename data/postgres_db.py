"""The PostgreSQL connection pool, the errors of opening it, and the versioned migrations
(``data/migrations/postgres/``).

``DATABASE_URL`` is ``postgresql://user:password@host:port/database``. Migrations run when a
pool opens: under a session advisory lock (so of several processes starting at once, one
applies them and the others wait and find them applied), each pending file in its own
transaction together with its row in ``schema_migrations``.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, TypeAlias
from urllib.parse import parse_qs, urlsplit

import asyncpg

from capsa.timings import DATABASE_CONNECT_SECONDS

from .schema import POSTGRES_MIGRATIONS, Migration, discover_migrations

if TYPE_CHECKING:  # asyncpg's classes are generic in its stubs only
    from asyncpg.pool import PoolConnectionProxy

    # A connection (from a pool or not): what the queries run on.
    Connection: TypeAlias = asyncpg.Connection[asyncpg.Record] | PoolConnectionProxy[asyncpg.Record]

log = logging.getLogger(__name__)

DEFAULT_PORT = 5432
# The key of the session advisory lock that migrations run under ("Capsa" in ASCII).
MIGRATION_LOCK = 0x4361707361


class DatabaseUnavailable(Exception):
    """The database could not be opened; the message is one line for the person starting
    the bot (the password is never in it)."""


class DatabaseUnreachable(DatabaseUnavailable):
    """Nothing answered at the database's host and port (or the name does not resolve)."""

    def __init__(self, host: str, port: int, reason: str) -> None:
        self.host, self.port, self.reason = host, port, reason
        super().__init__(
            f"cannot reach the PostgreSQL database at {host_port(host, port)} ({reason}):"
            " is it running, and are DATABASE_URL's host and port right?"
        )


def host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def is_postgres_url(url: str) -> bool:
    return urlsplit(url).scheme in ("postgresql", "postgres")


def address(url: str) -> tuple[str, int]:
    """The host and port a ``postgresql://`` URL names (asyncpg's defaults where it names
    none). ValueError for anything that is not such a URL."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise ValueError(
            "DATABASE_URL must look like postgresql://user:password@host:port/database,"
            f" not {redact(url)!r}"
        )
    query = parse_qs(parts.query)
    try:
        port = parts.port or int(query.get("port", [DEFAULT_PORT])[0])
    except ValueError:
        raise ValueError(f"DATABASE_URL has a bad port: {redact(url)!r}") from None
    host = parts.hostname or query.get("host", ["localhost"])[0]
    return host, port


def redact(url: str) -> str:
    """``url`` without its password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def _unreachable(url: str, exc: BaseException) -> DatabaseUnavailable:
    host, port = address(url)
    if isinstance(exc, TimeoutError):
        return DatabaseUnreachable(host, port, f"no answer within {DATABASE_CONNECT_SECONDS:g} s")
    if isinstance(exc, OSError):
        reason = os.strerror(exc.errno) if exc.errno else str(exc) or type(exc).__name__
        return DatabaseUnreachable(host, port, reason)
    if isinstance(exc, asyncpg.CannotConnectNowError):
        return DatabaseUnreachable(host, port, str(exc))
    return DatabaseUnavailable(
        f"the PostgreSQL database at {host_port(host, port)} refused the connection: {exc}"
    )


_CONNECT_ERRORS = (
    OSError,
    asyncpg.CannotConnectNowError,
    asyncpg.InvalidAuthorizationSpecificationError,
    asyncpg.InvalidPasswordError,
    asyncpg.InvalidCatalogNameError,
)


async def connect(url: str) -> asyncpg.Connection[asyncpg.Record]:
    """One connection; ``DatabaseUnavailable`` (``DatabaseUnreachable``: no answer) if it
    cannot be had."""
    address(url)  # a ValueError for a URL that is not PostgreSQL's
    try:
        return await asyncpg.connect(url, timeout=DATABASE_CONNECT_SECONDS)
    except _CONNECT_ERRORS as exc:
        raise _unreachable(url, exc) from exc


async def _nothing_to_reset(conn: asyncpg.Connection[asyncpg.Record]) -> None:
    """A released connection goes back to the pool as it is. The repository leaves no session
    state on a pooled connection: its advisory locks are transaction-scoped (the migrations'
    session lock is released in a ``finally``), it sets no settings, opens no cursor outside
    a transaction and LISTENs only on a connection it keeps. asyncpg itself still rolls back
    a transaction left open; its default reset query (unlock, CLOSE ALL, UNLISTEN *, RESET
    ALL) would cost a round trip on every release: on a busy bot, every repository call."""


async def create_pool(
    url: str, *, min_size: int = 1, max_size: int = 10
) -> asyncpg.Pool[asyncpg.Record]:
    """A pool of connections; ``DatabaseUnavailable`` (``DatabaseUnreachable``: no answer)
    if the first cannot be had."""
    address(url)
    try:
        return await asyncpg.create_pool(
            url,
            min_size=min_size,
            max_size=max_size,
            timeout=DATABASE_CONNECT_SECONDS,
            reset=_nothing_to_reset,
        )
    except _CONNECT_ERRORS as exc:
        raise _unreachable(url, exc) from exc


async def check_reachable(url: str) -> None:
    """Connect once and close: ``DatabaseUnavailable`` (``DatabaseUnreachable`` naming the
    host and port) if that fails. For a start-up check before anything else."""
    conn = await connect(url)
    await conn.close()


async def applied_versions(conn: Connection) -> set[int]:
    return {int(r[0]) for r in await conn.fetch("SELECT version FROM schema_migrations")}


async def migrate(conn: Connection, migrations: list[Migration] | None = None) -> list[int]:
    """Apply the pending migrations (by default ``data/migrations/postgres/``) in order;
    return the versions applied now. Concurrent callers on the same database take turns (a
    session advisory lock): each version is applied once."""
    if migrations is None:
        migrations = discover_migrations(POSTGRES_MIGRATIONS)
    await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY,"
            " name TEXT NOT NULL,"
            " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        applied: list[int] = []
        done = await applied_versions(conn)
        for migration in migrations:
            if migration.version in done:
                continue
            async with conn.transaction():
                await conn.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                    migration.version,
                    migration.name,
                )
                await conn.execute(migration.sql())  # no arguments: several statements
            log.info("applied PostgreSQL migration %04d_%s", migration.version, migration.name)
            applied.append(migration.version)
        return applied
    finally:
        if not conn.is_closed():
            await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
