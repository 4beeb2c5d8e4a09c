"""The SQLite (aiosqlite) implementation of ``Repository``.

One connection per repository, and its one thread does all the work: every public method is
exactly one transaction, a function run there whole (``data.db.run_in_thread``) and rolled
back whole on any error. Transactions that wait together go as one batch (a group commit):
each in its own SAVEPOINT, one after the other, under a single ``BEGIN IMMEDIATE`` ...
``COMMIT``, so one disk sync serves them all while each stays all-or-nothing. They never
interleave; a caller cancelled while its transaction runs does not cut it short.

The records every interaction reads (guild settings, matches, rounds) are cached. Only the
database thread changes the caches: a write drops the entries it touches before it writes, and
the records it loads are put back after its COMMIT. So a cached record is always one that was
committed, and the event loop reads it without a round trip (one bot process per file).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from capsa.settings import SEAT_RANGE, TIMEOUT_ACTIONS

from .db import connect, migrate, run_in_thread
from .repository import (
    ACTIVE_STATUSES,
    GUILD_SETTING_FIELDS,
    LEADERBOARD_SORTS,
    AlreadySeated,
    GuildSettings,
    HandRecord,
    LeaderRow,
    MatchRecord,
    MatchStatus,
    NotInLobby,
    NotPlaying,
    NotSeated,
    PlayerStats,
    RoundRecord,
    RoundScore,
    RoundStatus,
    SeatRecord,
    TableExists,
    TableFull,
    validate_guild_settings,
)

T = TypeVar("T")

_DAY = 86400.0
_ROW_SIZES = {"back": 5, "middle": 5, "front": 3}
_CACHE_SIZE = 4096  # records per cache; the oldest half goes when it is full
_GONE = object()  # a cache entry to drop after the COMMIT

# "IN ('lobby', 'playing')": written out, not bound, so SQLite can use the partial unique
# index on matches (channel_id) WHERE status IN ('lobby', 'playing').
_ACTIVE = "IN ({})".format(", ".join(f"'{status}'" for status in ACTIVE_STATUSES))

# Matches played and won, counted over the seats at finished matches of a guild: a select
# list and its FROM ... WHERE, for the caller to narrow (AND ...) and maybe GROUP BY.
_RESULTS = (
    " COUNT(*) AS matches, COALESCE(SUM(CASE WHEN s.place = 1 THEN 1 ELSE 0 END), 0) AS wins"
    " FROM matches m JOIN match_seats s ON s.match_id = m.id"
    " WHERE m.guild_id = ? AND m.status = 'finished'"
)

# ORDER BY for each leaderboard sort; user_id last so pages are stable.
_LEADER_ORDER = {
    "points": "points DESC, wins DESC, rounds DESC, user_id ASC",
    "wins": "wins DESC, points DESC, matches ASC, user_id ASC",
    "matches": "matches DESC, wins DESC, points DESC, user_id ASC",
    "sweeps": "sweeps DESC, points DESC, user_id ASC",
}


def _now(now: float | None) -> float:
    return time.time() if now is None else float(now)


def _cards_text(cards: Iterable[Any] | None) -> str | None:
    """Card codes as stored: ``"AS KD 2C"``. Accepts strings or ``capsa.cards.Card``."""
    if cards is None:
        return None
    codes = [str(c).strip() for c in cards]
    for code in codes:
        if not code or " " in code:
            raise ValueError(f"bad card code {code!r}")
    return " ".join(codes)


def _cards_tuple(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    return tuple(text.split()) if text else ()


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"), sort_keys=True)


def _unjson(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _placeholders(n: int) -> str:
    return ", ".join("?" * n)


class _Cache(dict):
    """A dict of immutable records that forgets its oldest half when it is full."""

    def put(self, key: Any, value: Any) -> None:
        self.pop(key, None)
        self[key] = value
        if len(self) > _CACHE_SIZE:
            for old in list(self)[: _CACHE_SIZE // 2]:
                del self[old]


class SqliteRepository:
    """``Repository`` on one aiosqlite connection; create it with ``SqliteRepository.open``."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn
        self._settings_cache = _Cache()  # guild id -> GuildSettings
        self._match_cache = _Cache()  # match id -> MatchRecord
        self._round_cache = _Cache()  # round id -> RoundRecord
        self._latest_round = _Cache()  # match id -> id of its latest round
        self._pending: list[tuple[Callable[[], Any], asyncio.Future[Any]]] = []
        self._flusher: asyncio.Future[None] | None = None
        # Set by the database thread for the transaction it runs.
        self._db: sqlite3.Connection | None = None
        self._loaded: list[tuple[_Cache, Any, Any]] = []

    @classmethod
    async def open(cls, path: str | Path) -> SqliteRepository:
        conn = await connect(path)
        try:
            await migrate(conn)
        except BaseException:
            await conn.close()
            raise
        return cls(conn)

    async def close(self) -> None:
        while self._flusher is not None and not self._flusher.done():
            await asyncio.shield(self._flusher)  # what is queued is written first
        await self._conn.close()

    # ------------------------------------------------------------------ plumbing

    async def _run(self, fn: Callable[[], T]) -> T:
        """``fn`` as one transaction on the database thread (reads too: a consistent
        snapshot)."""
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
                    outcomes = await run_in_thread(self._conn, partial(self._group, fns=fns))
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

    def _group(self, db: sqlite3.Connection, *, fns: list[Callable[[], Any]]) -> list[tuple]:
        """On the database thread: each queued transaction inside its own SAVEPOINT, all
        under one ``BEGIN IMMEDIATE`` ... ``COMMIT`` (a group commit: one sync of the disk
        for the lot, with synchronous=FULL). One that raises is rolled back alone; if the
        COMMIT fails, none happened. The records they loaded are cached after the COMMIT."""
        self._db = db
        outcomes: list[tuple] = []
        loaded: list[tuple[_Cache, Any, Any]] = []
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                for fn in fns:
                    self._loaded = []
                    db.execute("SAVEPOINT tx")
                    try:
                        value = fn()
                    except Exception as exc:
                        if not db.in_transaction:
                            raise  # SQLite ended the whole transaction: all of it failed
                        db.execute("ROLLBACK TO tx")
                        db.execute("RELEASE tx")
                        outcomes.append((False, exc))
                        continue
                    db.execute("RELEASE tx")
                    outcomes.append((True, value))
                    loaded += self._loaded
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
            self._db, self._loaded = None, []

    def _remember(self, cache: _Cache, key: Any, value: Any) -> None:
        """Cache ``value`` once the running transaction has committed."""
        self._loaded.append((cache, key, value))

    def _forget(self, cache: _Cache, key: Any) -> None:
        """Before a write: drop the cached record now, and again after the COMMIT (an
        earlier transaction of the same batch may have loaded it)."""
        cache.pop(key, None)
        self._loaded.append((cache, key, _GONE))

    def _one(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        assert self._db is not None, "only inside a transaction"
        return self._db.execute(sql, params).fetchone()

    def _all(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        assert self._db is not None, "only inside a transaction"
        return self._db.execute(sql, params).fetchall()

    def _exec(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a write; return the number of rows it changed."""
        assert self._db is not None, "only inside a transaction"
        return self._db.execute(sql, params).rowcount

    def _insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        assert self._db is not None, "only inside a transaction"
        rowid = self._db.execute(sql, params).lastrowid
        assert rowid is not None
        return rowid

    # ------------------------------------------------------------------ loading records

    def _load_matches(self, where: str, params: Sequence[Any] = ()) -> list[MatchRecord]:
        rows = self._all(f"SELECT * FROM matches WHERE {where} ORDER BY id", params)
        if not rows:
            return []
        ids = [r["id"] for r in rows]
        seats: dict[int, list[SeatRecord]] = {i: [] for i in ids}
        for s in self._all(
            f"SELECT * FROM match_seats WHERE match_id IN ({_placeholders(len(ids))})"
            " ORDER BY match_id, seat",
            ids,
        ):
            seats[s["match_id"]].append(
                SeatRecord(
                    seat=s["seat"],
                    user_id=s["user_id"],
                    name=s["name"],
                    is_bot=bool(s["is_bot"]),
                    level=s["level"],
                    place=s["place"],
                )
            )
        found = [
            MatchRecord(
                id=r["id"],
                guild_id=r["guild_id"],
                channel_id=r["channel_id"],
                host_id=r["host_id"],
                preset=r["preset"],
                options=_unjson(r["options"]) or {},
                rounds_total=r["rounds_total"],
                countdown=r["countdown"],
                bot_level=r["bot_level"],
                timeout_action=r["timeout_action"],
                seats_count=r["seats_count"],
                status=MatchStatus(r["status"]),
                lobby_message_id=r["lobby_message_id"],
                created_at=r["created_at"],
                started_at=r["started_at"],
                finished_at=r["finished_at"],
                lobby_expires_at=r["lobby_expires_at"],
                seats=tuple(seats[r["id"]]),
                language=r["language"],
            )
            for r in rows
        ]
        for match in found:
            self._remember(self._match_cache, match.id, match)
        return found

    def _match(self, match_id: int) -> MatchRecord | None:
        found = self._load_matches("id = ?", (match_id,))
        return found[0] if found else None

    def _load_rounds(self, where: str, params: Sequence[Any] = ()) -> list[RoundRecord]:
        rows = self._all(f"SELECT * FROM rounds WHERE {where} ORDER BY number", params)
        if not rows:
            return []
        ids = [r["id"] for r in rows]
        hands: dict[int, list[HandRecord]] = {i: [] for i in ids}
        for h in self._all(
            f"SELECT * FROM hands WHERE round_id IN ({_placeholders(len(ids))})"
            " ORDER BY round_id, seat",
            ids,
        ):
            hands[h["round_id"]].append(
                HandRecord(
                    seat=h["seat"],
                    cards=_cards_tuple(h["cards"]) or (),
                    back=_cards_tuple(h["back"]),
                    middle=_cards_tuple(h["middle"]),
                    front=_cards_tuple(h["front"]),
                    declare=h["declare"],
                    fouled=bool(h["fouled"]),
                    auto=bool(h["auto"]),
                    submitted_at=h["submitted_at"],
                    points=h["points"],
                    dm_channel_id=h["dm_channel_id"],
                    dm_message_id=h["dm_message_id"],
                    dm_refused=bool(h["dm_refused"]),
                )
            )
        found = [
            RoundRecord(
                id=r["id"],
                match_id=r["match_id"],
                number=r["number"],
                seed=int(r["seed"]),
                deadline=r["deadline"],
                status=RoundStatus(r["status"]),
                status_message_id=r["status_message_id"],
                showdown_message_id=r["showdown_message_id"],
                result=_unjson(r["result"]),
                created_at=r["created_at"],
                scored_at=r["scored_at"],
                hands=tuple(hands[r["id"]]),
            )
            for r in rows
        ]
        for rnd in found:
            self._remember(self._round_cache, rnd.id, rnd)
        return found

    def _round(self, round_id: int) -> RoundRecord | None:
        found = self._load_rounds("id = ?", (round_id,))
        return found[0] if found else None

    def _changed_round(self, round_id: int) -> None:
        """Before a write to a round or its hands: drop it; it is loaded again after."""
        self._forget(self._round_cache, round_id)

    # ------------------------------------------------------------------ settings

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        cached = self._settings_cache.get(guild_id)
        if cached is not None:
            return cached
        return await self._run(lambda: self._settings(guild_id))

    def _settings(self, guild_id: int) -> GuildSettings:
        row = self._one("SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,))
        if row is None:
            settings = GuildSettings(guild_id=guild_id)
        else:
            settings = GuildSettings(guild_id=guild_id, **{f: row[f] for f in GUILD_SETTING_FIELDS})
        self._remember(self._settings_cache, guild_id, settings)
        return settings

    async def update_guild_settings(self, guild_id: int, **fields: Any) -> GuildSettings:
        clean = validate_guild_settings(fields)

        def tx() -> GuildSettings:
            self._forget(self._settings_cache, guild_id)
            if clean:
                names = list(clean)
                self._exec(
                    f"INSERT INTO guild_settings (guild_id, {', '.join(names)}, updated_at)"
                    f" VALUES (?, {_placeholders(len(names))}, ?)"
                    " ON CONFLICT (guild_id) DO UPDATE SET "
                    + ", ".join(f"{n} = excluded.{n}" for n in [*names, "updated_at"]),
                    (guild_id, *clean.values(), time.time()),
                )
            return self._settings(guild_id)

        return await self._run(tx)

    # ------------------------------------------------------------------ matches

    def _active_match_id_of_user(self, user_id: int) -> int | None:
        row = self._one(
            "SELECT m.id FROM match_seats s JOIN matches m ON m.id = s.match_id"
            f" WHERE s.user_id = ? AND m.status {_ACTIVE} ORDER BY m.id LIMIT 1",
            (user_id,),
        )
        return None if row is None else row[0]

    def _remember_player(self, guild_id: int, user_id: int, name: str, now: float) -> None:
        self._exec(
            "INSERT INTO players (guild_id, user_id, name, updated_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (guild_id, user_id) DO UPDATE SET"
            " name = excluded.name, updated_at = excluded.updated_at",
            (guild_id, user_id, name, now),
        )

    async def create_match(
        self,
        guild_id: int,
        channel_id: int,
        host_id: int,
        preset: str,
        options: dict[str, Any],
        rounds_total: int,
        countdown: int,
        bot_level: str,
        timeout_action: str,
        seats_count: int,
        language: str,
        lobby_expires_at: float | None,
        host_name: str,
        *,
        now: float | None = None,
    ) -> MatchRecord:
        lo, hi = SEAT_RANGE
        if not lo <= seats_count <= hi:
            raise ValueError(f"seats_count must be between {lo} and {hi}, not {seats_count}")
        if rounds_total < 1:
            raise ValueError(f"rounds_total must be positive, not {rounds_total}")
        if timeout_action not in TIMEOUT_ACTIONS:
            raise ValueError(f"timeout_action must be one of {', '.join(TIMEOUT_ACTIONS)}")
        t = _now(now)

        def tx() -> MatchRecord:
            existing = self._one(
                f"SELECT id FROM matches WHERE channel_id = ? AND status {_ACTIVE}",
                (channel_id,),
            )
            if existing is not None:
                raise TableExists(f"channel {channel_id} already has table #{existing[0]}")
            other = self._active_match_id_of_user(host_id)
            if other is not None:
                raise AlreadySeated(f"user {host_id} already sits at table #{other}")
            try:
                match_id = self._insert(
                    "INSERT INTO matches (guild_id, channel_id, host_id, preset, options,"
                    " rounds_total, countdown, bot_level, timeout_action, seats_count, language,"
                    " status, created_at, lobby_expires_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'lobby', ?, ?)",
                    (
                        guild_id,
                        channel_id,
                        host_id,
                        preset,
                        _json(dict(options or {})),
                        rounds_total,
                        countdown,
                        bot_level,
                        timeout_action,
                        seats_count,
                        language,
                        t,
                        lobby_expires_at,
                    ),
                )
            except sqlite3.IntegrityError as exc:  # the partial unique index (another process)
                raise TableExists(f"channel {channel_id} already has a table") from exc
            self._exec(
                "INSERT INTO match_seats (match_id, seat, user_id, name, is_bot, level)"
                " VALUES (?, 0, ?, ?, 0, NULL)",
                (match_id, host_id, host_name),
            )
            self._remember_player(guild_id, host_id, host_name, t)
            match = self._match(match_id)
            assert match is not None
            return match

        return await self._run(tx)

    async def set_lobby_message(self, match_id: int, message_id: int | None) -> None:
        def tx() -> None:
            self._forget(self._match_cache, match_id)
            self._exec(
                "UPDATE matches SET lobby_message_id = ? WHERE id = ?", (message_id, match_id)
            )

        await self._run(tx)

    async def add_seat(
        self,
        match_id: int,
        user_id: int | None,
        name: str,
        level: str | None = None,
        *,
        now: float | None = None,
    ) -> MatchRecord:
        t = _now(now)

        def tx() -> MatchRecord:
            self._forget(self._match_cache, match_id)
            row = self._one(
                "SELECT guild_id, status, seats_count FROM matches WHERE id = ?", (match_id,)
            )
            if row is None:
                raise NotInLobby(f"table #{match_id} does not exist")
            if row["status"] != "lobby":
                raise NotInLobby(f"table #{match_id} is {row['status']}, not in its lobby")
            if user_id is not None:
                other = self._active_match_id_of_user(user_id)
                if other is not None:
                    raise AlreadySeated(f"user {user_id} already sits at table #{other}")
            taken = {
                r[0]
                for r in self._all("SELECT seat FROM match_seats WHERE match_id = ?", (match_id,))
            }
            free = [s for s in range(row["seats_count"]) if s not in taken]
            if not free:
                raise TableFull(f"table #{match_id} is full ({row['seats_count']} seats)")
            self._exec(
                "INSERT INTO match_seats (match_id, seat, user_id, name, is_bot, level)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (match_id, free[0], user_id, name, int(user_id is None), level),
            )
            if user_id is not None:
                self._remember_player(row["guild_id"], user_id, name, t)
            match = self._match(match_id)
            assert match is not None
            return match

        return await self._run(tx)

    async def remove_seat(self, match_id: int, user_id: int) -> MatchRecord:
        def tx() -> MatchRecord:
            self._forget(self._match_cache, match_id)
            row = self._one("SELECT status FROM matches WHERE id = ?", (match_id,))
            if row is None:
                raise NotInLobby(f"table #{match_id} does not exist")
            if row["status"] != "lobby":
                raise NotInLobby(f"table #{match_id} is {row['status']}, not in its lobby")
            removed = self._exec(
                "DELETE FROM match_seats WHERE match_id = ? AND user_id = ?", (match_id, user_id)
            )
            if not removed:
                raise NotSeated(f"user {user_id} has no seat at table #{match_id}")
            match = self._match(match_id)
            assert match is not None
            return match

        return await self._run(tx)

    async def _set_match_status(self, match_id: int, sql: str, params: Sequence[Any]) -> bool:
        """One status change of a match; True if it changed."""

        def tx() -> bool:
            self._forget(self._match_cache, match_id)
            return 1 == self._exec(sql, params)

        return await self._run(tx)

    async def start_match(self, match_id: int, *, now: float | None = None) -> bool:
        return await self._set_match_status(
            match_id,
            "UPDATE matches SET status = 'playing', started_at = ?"
            " WHERE id = ? AND status = 'lobby'",
            (_now(now), match_id),
        )

    async def cancel_match(self, match_id: int, *, now: float | None = None) -> bool:
        return await self._set_match_status(
            match_id,
            "UPDATE matches SET status = 'cancelled', finished_at = ?"
            f" WHERE id = ? AND status {_ACTIVE}",
            (_now(now), match_id),
        )

    async def finish_match(
        self, match_id: int, places: dict[int, int], *, now: float | None = None
    ) -> bool:
        t = _now(now)

        def tx() -> bool:
            self._forget(self._match_cache, match_id)
            changed = self._exec(
                "UPDATE matches SET status = 'finished', finished_at = ?"
                " WHERE id = ? AND status = 'playing'",
                (t, match_id),
            )
            if not changed:
                return False
            for seat, place in places.items():
                if not self._exec(
                    "UPDATE match_seats SET place = ? WHERE match_id = ? AND seat = ?",
                    (int(place), match_id, int(seat)),
                ):
                    raise ValueError(f"table #{match_id} has no seat {seat}")
            return True

        return await self._run(tx)

    async def get_match(self, match_id: int) -> MatchRecord | None:
        cached = self._match_cache.get(match_id)
        if cached is not None:
            return cached
        return await self._run(lambda: self._match(match_id))

    async def active_match_in_channel(self, channel_id: int) -> MatchRecord | None:
        found = await self._run(
            lambda: self._load_matches(f"channel_id = ? AND status {_ACTIVE}", (channel_id,))
        )
        return found[0] if found else None

    async def active_match_of_user(self, user_id: int) -> MatchRecord | None:
        def tx() -> MatchRecord | None:
            match_id = self._active_match_id_of_user(user_id)
            return None if match_id is None else self._match(match_id)

        return await self._run(tx)

    async def active_matches(self) -> list[MatchRecord]:
        return await self._run(lambda: self._load_matches(f"status {_ACTIVE}"))

    # ------------------------------------------------------------------ rounds

    async def start_round(
        self,
        match_id: int,
        number: int,
        seed: int,
        deadline: float,
        hands: dict[int, list[str]],
        *,
        now: float | None = None,
    ) -> RoundRecord:
        t = _now(now)

        def tx() -> RoundRecord:
            existing = self._one(
                "SELECT id FROM rounds WHERE match_id = ? AND number = ?", (match_id, number)
            )
            if existing is None:
                row = self._one("SELECT status FROM matches WHERE id = ?", (match_id,))
                if row is None or row["status"] != "playing":
                    state = "does not exist" if row is None else f"is {row['status']}"
                    raise NotPlaying(f"table #{match_id} {state}: no round can start")
                seats = {
                    r[0]
                    for r in self._all(
                        "SELECT seat FROM match_seats WHERE match_id = ?", (match_id,)
                    )
                }
                unknown = sorted(set(hands) - seats)
                if unknown:
                    raise ValueError(f"table #{match_id} has no seat(s) {unknown}")
                self._forget(self._latest_round, match_id)
                round_id = self._insert(
                    "INSERT INTO rounds (match_id, number, seed, deadline, status, created_at)"
                    " VALUES (?, ?, ?, ?, 'open', ?)",
                    (match_id, number, str(int(seed)), float(deadline), t),
                )
                for seat, cards in sorted(hands.items()):
                    self._exec(
                        "INSERT INTO hands (round_id, seat, cards) VALUES (?, ?, ?)",
                        (round_id, int(seat), _cards_text(cards)),
                    )
                self._remember(self._latest_round, match_id, round_id)
            else:
                round_id = existing[0]
            record = self._round(round_id)
            assert record is not None
            return record

        return await self._run(tx)

    async def current_round(self, match_id: int) -> RoundRecord | None:
        round_id = self._latest_round.get(match_id)
        cached = None if round_id is None else self._round_cache.get(round_id)
        if cached is not None:
            return cached

        def tx() -> RoundRecord | None:
            found = self._load_rounds(
                "match_id = ? AND number = (SELECT MAX(number) FROM rounds WHERE match_id = ?)",
                (match_id, match_id),
            )
            if not found:
                return None
            self._remember(self._latest_round, match_id, found[0].id)
            return found[0]

        return await self._run(tx)

    async def get_round(self, round_id: int) -> RoundRecord | None:
        cached = self._round_cache.get(round_id)
        if cached is not None:
            return cached
        return await self._run(lambda: self._round(round_id))

    async def set_round_messages(
        self,
        round_id: int,
        status_message_id: int | None = None,
        showdown_message_id: int | None = None,
    ) -> None:
        sets = {
            k: v
            for k, v in (
                ("status_message_id", status_message_id),
                ("showdown_message_id", showdown_message_id),
            )
            if v is not None
        }
        if not sets:
            return

        def tx() -> None:
            self._changed_round(round_id)
            self._exec(
                f"UPDATE rounds SET {', '.join(f'{k} = ?' for k in sets)} WHERE id = ?",
                (*sets.values(), round_id),
            )
            self._round(round_id)

        await self._run(tx)

    async def set_dm_message(
        self, round_id: int, seat: int, channel_id: int | None, message_id: int | None
    ) -> None:
        def tx() -> None:
            self._changed_round(round_id)
            self._exec(
                "UPDATE hands SET dm_channel_id = ?, dm_message_id = ?"
                " WHERE round_id = ? AND seat = ?",
                (channel_id, message_id, round_id, seat),
            )
            self._round(round_id)

        await self._run(tx)

    async def mark_dm_refused(self, round_id: int, seat: int) -> None:
        def tx() -> None:
            self._changed_round(round_id)
            self._exec(
                "UPDATE hands SET dm_refused = 1, dm_channel_id = NULL, dm_message_id = NULL"
                " WHERE round_id = ? AND seat = ?",
                (round_id, seat),
            )
            self._round(round_id)

        await self._run(tx)

    async def submit_hand(
        self,
        round_id: int,
        seat: int,
        back: Sequence[str] | None,
        middle: Sequence[str] | None,
        front: Sequence[str] | None,
        declare: str | None,
        fouled: bool,
        auto: bool = False,
        *,
        now: float | None = None,
    ) -> bool:
        rows = {"back": back, "middle": middle, "front": front}
        given = [name for name, cards in rows.items() if cards is not None]
        texts = {name: _cards_text(cards) for name, cards in rows.items()}
        t = _now(now)

        def tx() -> bool:
            row = self._one(
                "SELECT h.cards, h.submitted_at, r.status FROM hands h"
                " JOIN rounds r ON r.id = h.round_id WHERE h.round_id = ? AND h.seat = ?",
                (round_id, seat),
            )
            if row is None or row["status"] != "open" or row["submitted_at"] is not None:
                return False
            if given:
                if len(given) != 3:
                    raise ValueError("give all three rows (back, middle, front) or none")
                for name, size in _ROW_SIZES.items():
                    n = len(_cards_tuple(texts[name]) or ())
                    if n != size:
                        raise ValueError(f"the {name} row needs {size} cards, not {n}")
                placed = Counter(c for name in _ROW_SIZES for c in _cards_tuple(texts[name]) or ())
                if placed != Counter(_cards_tuple(row["cards"]) or ()):
                    raise ValueError("the setting does not use exactly the cards dealt to the seat")
            self._changed_round(round_id)
            stored = 1 == self._exec(
                "UPDATE hands SET back = ?, middle = ?, front = ?, declare = ?, fouled = ?,"
                " auto = ?, submitted_at = ?"
                " WHERE round_id = ? AND seat = ? AND submitted_at IS NULL",
                (
                    texts["back"],
                    texts["middle"],
                    texts["front"],
                    declare,
                    int(bool(fouled)),
                    int(bool(auto)),
                    t,
                    round_id,
                    seat,
                ),
            )
            self._round(round_id)
            return stored

        return await self._run(tx)

    async def score_round(
        self,
        round_id: int,
        result: dict[str, Any],
        scores: list[RoundScore],
        now: float | None = None,
    ) -> bool:
        t = _now(now)
        result_text = _json(result)
        seats = [s.seat for s in scores]
        if len(set(seats)) != len(seats):
            raise ValueError(f"a seat is scored twice in {seats}")

        def tx() -> bool:
            self._changed_round(round_id)
            # The guard: only an open round of a playing match flips to 'scored', once.
            flipped = self._exec(
                "UPDATE rounds SET status = 'scored', result = ?, scored_at = ?"
                " WHERE id = ? AND status = 'open' AND EXISTS (SELECT 1 FROM matches m"
                " WHERE m.id = rounds.match_id AND m.status = 'playing')",
                (result_text, t, round_id),
            )
            if flipped != 1:
                return False
            ctx = self._one(
                "SELECT r.match_id, m.guild_id FROM rounds r JOIN matches m ON m.id = r.match_id"
                " WHERE r.id = ?",
                (round_id,),
            )
            assert ctx is not None
            users = {
                r["seat"]: r["user_id"]
                for r in self._all(
                    "SELECT seat, user_id FROM match_seats WHERE match_id = ?", (ctx["match_id"],)
                )
            }
            for s in scores:
                changed = self._exec(
                    "UPDATE hands SET points = ?, fouled = CASE WHEN ? THEN 1 ELSE fouled END"
                    " WHERE round_id = ? AND seat = ?",
                    (float(s.points), int(bool(s.fouled)), round_id, s.seat),
                )
                if changed != 1:
                    raise ValueError(f"round {round_id} has no hand for seat {s.seat}")
                strength = (s.best_row or {}).get("strength")
                self._exec(
                    "INSERT INTO round_scores (round_id, seat, match_id, guild_id, user_id,"
                    " points, fouled, special, sweeps_given, sweeps_taken, table_sweep,"
                    " best_strength, best_row, scored_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        round_id,
                        s.seat,
                        ctx["match_id"],
                        ctx["guild_id"],
                        users.get(s.seat),
                        float(s.points),
                        int(bool(s.fouled)),
                        s.special,
                        int(s.sweeps_given),
                        int(s.sweeps_taken),
                        int(bool(s.table_sweep)),
                        int(strength) if isinstance(strength, int | float) else None,
                        _json(s.best_row),
                        t,
                    ),
                )
            self._round(round_id)
            return True

        return await self._run(tx)

    async def completed_rounds(self, match_id: int) -> list[RoundRecord]:
        return await self._run(
            lambda: self._load_rounds("match_id = ? AND status = 'scored'", (match_id,))
        )

    async def match_totals(self, match_id: int) -> dict[int, float]:
        def tx() -> dict[int, float]:
            totals = {
                r[0]: 0.0
                for r in self._all(
                    "SELECT seat FROM match_seats WHERE match_id = ? ORDER BY seat", (match_id,)
                )
            }
            for r in self._all(
                "SELECT seat, SUM(points) FROM round_scores WHERE match_id = ? GROUP BY seat",
                (match_id,),
            ):
                totals[r[0]] = float(r[1] or 0.0)
            return dict(sorted(totals.items()))

        return await self._run(tx)

    # ------------------------------------------------------------------ stats

    @staticmethod
    def _since(period_days: int | None, now: float | None) -> float | None:
        if period_days is None:
            return None
        if period_days <= 0:
            raise ValueError(f"period_days must be positive, not {period_days}")
        return _now(now) - period_days * _DAY

    @staticmethod
    def _leader_cte(guild_id: int, since: float | None) -> tuple[str, list[Any]]:
        """Per-user totals of one guild (since ``since``, if given) as a CTE named ``board``,
        and its parameters."""
        score_time = "" if since is None else " AND scored_at >= ?"
        finish_time = "" if since is None else " AND m.finished_at >= ?"
        when = [] if since is None else [since]
        sql = (
            "WITH pts AS ("
            "  SELECT user_id, SUM(points) AS points, SUM(sweeps_given) AS sweeps,"
            "   COUNT(*) AS rounds FROM round_scores"
            f"  WHERE guild_id = ? AND user_id IS NOT NULL{score_time} GROUP BY user_id"
            "), res AS ("
            f"  SELECT s.user_id,{_RESULTS} AND s.user_id IS NOT NULL{finish_time}"
            "  GROUP BY s.user_id"
            "), board AS ("
            "  SELECT u.user_id, COALESCE(pts.points, 0) AS points, COALESCE(res.wins, 0) AS wins,"
            "   COALESCE(res.matches, 0) AS matches, COALESCE(pts.sweeps, 0) AS sweeps,"
            "   COALESCE(pts.rounds, 0) AS rounds"
            "  FROM (SELECT user_id FROM pts UNION SELECT user_id FROM res) u"
            "  LEFT JOIN pts ON pts.user_id = u.user_id"
            "  LEFT JOIN res ON res.user_id = u.user_id"
            ") "
        )
        return sql, [guild_id, *when, guild_id, *when]

    async def leaderboard(
        self,
        guild_id: int,
        sort: str = "points",
        period_days: int | None = None,
        limit: int = 10,
        offset: int = 0,
        now: float | None = None,
    ) -> list[LeaderRow]:
        if sort not in LEADERBOARD_SORTS:
            raise ValueError(f"sort must be one of {', '.join(LEADERBOARD_SORTS)}, not {sort!r}")
        since = self._since(period_days, now)
        cte, params = self._leader_cte(guild_id, since)
        rows = await self._run(
            lambda: self._all(
                cte + "SELECT b.*, COALESCE(p.name, '') AS name FROM board b"
                " LEFT JOIN players p ON p.guild_id = ? AND p.user_id = b.user_id"
                f" ORDER BY {_LEADER_ORDER[sort]} LIMIT ? OFFSET ?",
                (*params, guild_id, max(0, int(limit)), max(0, int(offset))),
            )
        )
        return [
            LeaderRow(
                user_id=r["user_id"],
                name=r["name"],
                points=float(r["points"]),
                wins=int(r["wins"]),
                matches=int(r["matches"]),
                sweeps=int(r["sweeps"]),
                rounds=int(r["rounds"]),
            )
            for r in rows
        ]

    async def leaderboard_count(
        self, guild_id: int, period_days: int | None = None, now: float | None = None
    ) -> int:
        since = self._since(period_days, now)
        cte, params = self._leader_cte(guild_id, since)
        row = await self._run(lambda: self._one(cte + "SELECT COUNT(*) FROM board", params))
        return int(row[0]) if row else 0

    async def player_stats(self, guild_id: int, user_id: int) -> PlayerStats:
        where = "guild_id = ? AND user_id = ?"
        key = (guild_id, user_id)

        def tx() -> tuple[Any, Any, Any, Any]:
            agg = self._one(
                "SELECT COUNT(*) AS rounds, COALESCE(SUM(points), 0) AS points,"
                " COALESCE(SUM(sweeps_given), 0) AS sweeps_given,"
                " COALESCE(SUM(sweeps_taken), 0) AS sweeps_taken,"
                " COALESCE(SUM(table_sweep), 0) AS table_sweeps,"
                f" COALESCE(SUM(fouled), 0) AS fouls FROM round_scores WHERE {where}",
                key,
            )
            specials = self._all(
                f"SELECT special, COUNT(*) FROM round_scores WHERE {where}"
                " AND special IS NOT NULL GROUP BY special ORDER BY special",
                key,
            )
            best = self._one(
                f"SELECT best_row FROM round_scores WHERE {where} AND best_strength IS NOT NULL"
                " ORDER BY best_strength DESC, scored_at ASC, round_id ASC LIMIT 1",
                key,
            )
            res = self._one(f"SELECT{_RESULTS} AND s.user_id = ?", key)
            return agg, specials, best, res

        agg, specials, best, res = await self._run(tx)
        assert agg is not None and res is not None
        rounds = int(agg["rounds"])
        points = float(agg["points"])
        return PlayerStats(
            user_id=user_id,
            matches=int(res["matches"]),
            wins=int(res["wins"]),
            points=points,
            rounds=rounds,
            points_per_round=points / rounds if rounds else 0.0,
            sweeps_given=int(agg["sweeps_given"]),
            sweeps_taken=int(agg["sweeps_taken"]),
            table_sweeps=int(agg["table_sweeps"]),
            fouls=int(agg["fouls"]),
            specials={r[0]: int(r[1]) for r in specials},
            best_hand=_unjson(best["best_row"]) if best else None,
        )
