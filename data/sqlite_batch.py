"""The single-process parts of the SQLite backend: group commit and a cache of committed
records. ``BatchedSqliteRepository`` is what ``open_repository`` gives for SQLite; its SQL is
``data/sql.py``'s, run as ``data/sqlite.py`` runs it. One bot process per database file: the
cache is right only while nothing else writes to the file.

Group commit: transactions that wait together go to the connection's thread as one batch,
each in its own SAVEPOINT, one after the other, under a single ``BEGIN IMMEDIATE`` ...
``COMMIT``, so one disk sync serves them all while each stays all-or-nothing. They never
interleave; a caller cancelled while its transaction runs does not cut it short.

Cache: the records every interaction reads (guild settings, matches, rounds, a match's latest
round, a person's preferences) are kept. Only the database thread changes the caches: a
transaction that declared it writes a record (``@writes`` in data/sql.py) drops it at once,
reads it again at its end, and that record, like every record it read, is put back after
the COMMIT. So a cached record is always one that was committed, and the event loop reads it
without a round trip.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from .repository import GuildSettings, MatchRecord, Preferences, RoundRecord
from .sql import CachedRecord, Kind, reads
from .sqlite import SqliteRepository, drive
from .sqlite_db import SqliteConnection

T = TypeVar("T")

CACHE_SIZE = 4096  # records per cache; the oldest half goes when it is full
_GONE = object()  # a cache entry to drop after the COMMIT


class _Cache(dict[Any, Any]):
    """A dict of immutable records that forgets its oldest half when it is full."""

    def put(self, key: Any, value: Any) -> None:
        self.pop(key, None)
        self[key] = value
        if len(self) > CACHE_SIZE:
            for old in list(self)[: CACHE_SIZE // 2]:
                del self[old]


def _key_of(record: CachedRecord) -> tuple[Kind, int]:
    """The kind of a record the cache keeps, and its key."""
    if isinstance(record, GuildSettings):
        return Kind.SETTINGS, record.guild_id
    if isinstance(record, Preferences):
        return Kind.PREFERENCES, record.user_id
    if isinstance(record, MatchRecord):
        return Kind.MATCH, record.id
    return Kind.ROUND, record.id


class BatchedSqliteRepository(SqliteRepository):
    """``SqliteRepository`` with group commits and a cache of committed records."""

    def __init__(self, conn: SqliteConnection) -> None:
        super().__init__(conn)
        self._settings_cache = _Cache()  # guild id -> GuildSettings
        self._match_cache = _Cache()  # match id -> MatchRecord
        self._round_cache = _Cache()  # round id -> RoundRecord
        self._latest_round = _Cache()  # match id -> id of its latest round
        self._preferences_cache = _Cache()  # user id -> Preferences
        self._caches = {
            Kind.SETTINGS: self._settings_cache,
            Kind.MATCH: self._match_cache,
            Kind.ROUND: self._round_cache,
            Kind.LATEST_ROUND: self._latest_round,
            Kind.PREFERENCES: self._preferences_cache,
        }
        self._pending: list[tuple[Callable[[], Any], asyncio.Future[Any]]] = []
        self._flusher: asyncio.Future[None] | None = None
        # Kept by the database thread for the transaction it runs: what it read, what it
        # changes, and what it read after its last writing statement (already as it leaves it).
        self._loaded_now: list[tuple[_Cache, Any, Any]] = []
        self._changed_now: dict[tuple[Kind, int], None] = {}
        self._fresh_now: set[tuple[Kind, int]] = set()

    async def close(self) -> None:
        while self._flusher is not None and not self._flusher.done():
            await asyncio.shield(self._flusher)  # what is queued is written first
        await super().close()

    # ------------------------------------------------------------------ the cache

    @reads
    async def guild_settings(self, guild_id: int) -> GuildSettings:
        cached = self._settings_cache.get(guild_id)
        return cached if cached is not None else await super().guild_settings(guild_id)

    @reads
    async def get_match(self, match_id: int) -> MatchRecord | None:
        cached = self._match_cache.get(match_id)
        return cached if cached is not None else await super().get_match(match_id)

    @reads
    async def get_round(self, round_id: int) -> RoundRecord | None:
        cached = self._round_cache.get(round_id)
        return cached if cached is not None else await super().get_round(round_id)

    @reads
    async def current_round(self, match_id: int) -> RoundRecord | None:
        round_id = self._latest_round.get(match_id)
        cached = None if round_id is None else self._round_cache.get(round_id)
        return cached if cached is not None else await super().current_round(match_id)

    @reads
    async def preferences(self, user_id: int) -> Preferences:
        cached = self._preferences_cache.get(user_id)
        return cached if cached is not None else await super().preferences(user_id)

    def _loaded(self, record: CachedRecord) -> None:
        kind, key = _key_of(record)
        self._loaded_now.append((self._caches[kind], key, record))
        self._fresh_now.add((kind, key))

    def _loaded_latest(self, match_id: int, round_id: int) -> None:
        self._loaded_now.append((self._latest_round, match_id, round_id))
        self._fresh_now.add((Kind.LATEST_ROUND, match_id))

    def _wrote(self) -> None:
        self._fresh_now.clear()

    def _changing(self, kind: Kind, key: int) -> None:
        """Drop the record now, and again after the COMMIT (an earlier transaction of the
        same batch may have read it); it is read again when the transaction ends. (Kinds no
        record holds are not cached.)"""
        cache = self._caches.get(kind)
        if cache is None:
            return
        cache.pop(key, None)
        self._loaded_now.append((cache, key, _GONE))
        self._changed_now[(kind, key)] = None

    def _read_again(self) -> None:
        """At the end of a transaction: read the records it changed (so the ones it leaves
        are cached once it has committed), but for those it read after its last writing
        statement. A match's latest round comes last: when it is a round just read, only
        its id is looked up."""
        load = {
            Kind.SETTINGS: self._load_settings,
            Kind.MATCH: self._load_match,
            Kind.ROUND: self._load_round,
            Kind.PREFERENCES: self._load_preferences,
        }
        changed = [c for c in self._changed_now if c not in self._fresh_now]
        for kind, key in sorted(changed, key=lambda c: c[0] == Kind.LATEST_ROUND):
            if kind != Kind.LATEST_ROUND:
                drive(load[kind](self._cursor, key))
                continue
            round_id = drive(self._latest_round_id(self._cursor, key))
            if round_id is None:
                continue  # no round yet: nothing to keep
            if (Kind.ROUND, round_id) in self._fresh_now:
                self._loaded_latest(key, round_id)
            else:
                drive(self._load_current_round(self._cursor, key))

    # ------------------------------------------------------------------ group commit

    async def _run(self, fn: Callable[[], T]) -> T:
        """``fn`` as one transaction, in the next batch."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._pending.append((fn, future))
        if self._flusher is None or self._flusher.done():  # (done: cancelled before it ran)
            self._flusher = asyncio.ensure_future(self._flush())
        return await future

    async def _flush(self) -> None:
        """Send the waiting transactions to the database thread as one batch, then the next
        batch (those that came meanwhile), until none wait."""
        batch: list[tuple[Callable[[], Any], asyncio.Future[Any]]] = []
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                fns = [fn for fn, _ in batch]
                try:
                    outcomes = await self._conn.run(partial(self._group, fns=fns))
                except Exception as exc:  # BEGIN or COMMIT failed: none of them happened
                    outcomes = [(False, exc)] * len(batch)
                for (_, future), (ok, value) in zip(batch, outcomes, strict=True):
                    if not future.done():
                        future.set_result(value) if ok else future.set_exception(value)
                batch = []
        finally:
            self._flusher = None
            for _, future in [*batch, *self._pending]:  # only if this task was cancelled
                future.cancel()
            self._pending = []

    def _group(
        self, db: sqlite3.Connection, *, fns: list[Callable[[], Any]]
    ) -> list[tuple[bool, Any]]:
        """On the database thread: each queued transaction inside its own SAVEPOINT, all
        under one ``BEGIN IMMEDIATE`` ... ``COMMIT`` (a group commit: one sync of the disk
        for the lot, with synchronous=FULL). One that raises is rolled back alone; if the
        COMMIT fails, none happened. The records they loaded are cached after the COMMIT."""
        self._db = db
        outcomes: list[tuple[bool, Any]] = []
        loaded: list[tuple[_Cache, Any, Any]] = []
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                for fn in fns:
                    self._loaded_now, self._changed_now = [], {}
                    self._fresh_now = set()
                    db.execute("SAVEPOINT tx")
                    try:
                        value = fn()
                        self._read_again()
                    except Exception as exc:
                        if not db.in_transaction:
                            raise  # SQLite ended the whole transaction: all of it failed
                        db.execute("ROLLBACK TO tx")
                        db.execute("RELEASE tx")
                        outcomes.append((False, exc))
                        continue
                    db.execute("RELEASE tx")
                    outcomes.append((True, value))
                    loaded += self._loaded_now
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            for cache, key, value in loaded:
                if value is _GONE:
                    cache.pop(key, None)
                else:
                    cache.put(key, value)
            return outcomes
        finally:
            self._db, self._loaded_now, self._changed_now = None, [], {}
            self._fresh_now = set()
