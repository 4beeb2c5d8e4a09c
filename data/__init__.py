"""Persistence: the ``Repository`` protocol and its records (data/repository.py), its methods
written once (data/sql.py), its two backends, SQLite (data/sqlite.py, with
data/sqlite_batch.py) and PostgreSQL (data/postgres.py), and ``open_repository``, the one
place that picks the backend."""

from __future__ import annotations

from pathlib import Path

from .common import is_database_outage
from .postgres import PostgresRepository
from .postgres_db import DatabaseUnavailable, DatabaseUnreachable, check_reachable
from .postgres_db import address as database_address
from .repository import (
    AlreadySeated,
    GuildSettings,
    HandRecord,
    LeaderRow,
    MatchRecord,
    NotInLobby,
    NotPlaying,
    NotSeated,
    PlayerStats,
    Repository,
    RepositoryError,
    RoundRecord,
    RoundScore,
    SeatRecord,
    TableExists,
    TableFull,
)
from .sqlite_batch import BatchedSqliteRepository

DEFAULT_PATH = "data/capsa.sqlite3"


async def open_repository(
    path: str | Path | None = None, *, database_url: str | None = None
) -> Repository:
    """The bot's database, opened and migrated.

    ``database_url`` (``DATABASE_URL``: ``postgresql://user:password@host:port/db``), if
    given and not blank, selects PostgreSQL; ``DatabaseUnavailable`` (``DatabaseUnreachable``
    naming the host and port when nothing answers) if it cannot be opened, ValueError for a
    URL that is not PostgreSQL's. Otherwise the SQLite file at ``path`` (default
    data/capsa.sqlite3; directory created, WAL on), for one bot process.
    """
    if database_url is not None and database_url.strip():
        return await PostgresRepository.open(database_url.strip())
    return await BatchedSqliteRepository.open(DEFAULT_PATH if path is None else path)


__all__ = [
    "AlreadySeated",
    "DatabaseUnavailable",
    "DatabaseUnreachable",
    "GuildSettings",
    "HandRecord",
    "LeaderRow",
    "MatchRecord",
    "NotInLobby",
    "NotPlaying",
    "NotSeated",
    "PlayerStats",
    "Repository",
    "RepositoryError",
    "RoundRecord",
    "RoundScore",
    "SeatRecord",
    "TableExists",
    "TableFull",
    "check_reachable",
    "database_address",
    "is_database_outage",
    "open_repository",
]
