"""Persistence: the ``Repository`` protocol and its records (data/repository.py), the SQLite
backend (data/sqlite.py) and ``open_repository``, the one place that picks the backend."""

from __future__ import annotations

from pathlib import Path

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
from .sqlite import SqliteRepository


async def open_repository(path: str | Path) -> Repository:
    """Open the SQLite database at ``path`` (directory created, WAL on, migrations applied)."""
    return await SqliteRepository.open(path)


__all__ = [
    "AlreadySeated",
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
    "open_repository",
]
