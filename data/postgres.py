"""The PostgreSQL (asyncpg) implementation of ``Repository``, for one or many bot processes
on one database.

Every state change is one transaction that first locks the table's row
(``SELECT ... FROM matches WHERE id = $1 FOR UPDATE``), then reads what it checks (round,
seat, status) with the lock held, applies the change and commits: two processes handling the
same click take turns, and the second sees what the first did. Joining a table or opening
one also takes a transaction-scoped advisory lock on the person's user id, so nobody sits at
two tables however the clicks are spread over processes. A write of one statement that
checks nothing (a message id) is its own transaction and locks the row it changes.

Nothing mutable is kept in memory here: every read goes to the database (a record and its
seats or hands in one statement). Times are ``timestamptz`` in the database and unix seconds
in the records, converted at this boundary.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Self

import asyncpg

from .common import (
    LEADER_ORDER,
    cards_text,
    cards_tuple,
    check_new_match,
    check_scores_seats,
    check_setting,
    check_sort,
    coach_fields,
    from_json,
    hand_record,
    match_record,
    match_summary,
    now_or,
    period_start,
    ranked_where,
    round_record,
    seat_language,
    seat_record,
    timer_conflict,
    timer_record,
    to_json,
)
from .postgres_db import create_pool, migrate
from .repository import (
    ACTIVE_STATUSES,
    DEALT_STATUSES,
    FINISHED_STATUSES,
    GUILD_SETTING_FIELDS,
    RECENT_REVIEWS,
    SCORED_STATUSES,
    TIMER_WAKE_SECONDS,
    UNFINISHED_STATUSES,
    AlreadySeated,
    GuildSettings,
    HandRecord,
    LeaderRow,
    MatchRecord,
    MatchStatus,
    MatchSummary,
    NotInLobby,
    NotPlaying,
    NotSeated,
    PlayerStats,
    RoundRecord,
    RoundScore,
    SeatRecord,
    TableExists,
    TableFull,
    TimerRecord,
    validate_guild_settings,
)

if TYPE_CHECKING:
    from .postgres_db import Connection

TIMERS_CHANNEL = "capsa_timers"  # NOTIFY'd when a timer due soon is set: processes look again


def _in(statuses: tuple[str, ...]) -> str:
    """``IN ('a', 'b')``: written out, not bound, so the planner can use the partial index."""
    return "IN ({})".format(", ".join(f"'{status}'" for status in statuses))


_ACTIVE = _in(ACTIVE_STATUSES)
_FINISHED = _in(FINISHED_STATUSES)
_SCORED = _in(SCORED_STATUSES)
_DEALT = _in(DEALT_STATUSES)

# A match and its seats, one row per seat (one row with NULL seat columns if it has none).
_MATCH_ROWS = (
    "SELECT m.*, s.seat, s.user_id, s.name, s.is_bot, s.level, s.place,"
    " s.language AS seat_language"
    " FROM matches m LEFT JOIN match_seats s ON s.match_id = m.id"
)
# A round and its hands, one row per hand.
_ROUND_ROWS = (
    "SELECT r.*, h.seat, h.cards, h.back, h.middle, h.front, h.declare, h.fouled, h.auto,"
    " h.submitted_at, h.points, h.dm_channel_id, h.dm_message_id, h.dm_refused, h.arranged"
    " FROM rounds r LEFT JOIN hands h ON h.round_id = r.id"
)

# Lock the row of the match a round belongs to; its status and guild, read under the lock.
_LOCK_MATCH_OF_ROUND = (
    "SELECT m.id, m.status, m.guild_id FROM matches m JOIN rounds r ON r.match_id = m.id"
    " WHERE r.id = $1 FOR UPDATE OF m"
)


def ts(seconds: float | None) -> datetime | None:
    """Unix seconds -> ``timestamptz``."""
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC)


def secs(value: datetime | None) -> float | None:
    """``timestamptz`` -> unix seconds."""
    return None if value is None else value.timestamp()


def _count(status: str) -> int:
    """The row count of a command tag (``UPDATE 1`` -> 1)."""
    return int(status.rsplit(" ", 1)[-1])


class _Params(list[Any]):
    """Query parameters: ``p(value)`` adds one and gives its ``$n``."""

    def __call__(self, value: Any) -> str:
        self.append(value)
        return f"${len(self)}"


def _matches(rows: Sequence[asyncpg.Record]) -> list[MatchRecord]:
    """Matches from ``_MATCH_ROWS`` rows: one row a seat (no seat: NULL seat columns)."""
    seats: dict[int, list[SeatRecord]] = {}
    heads: dict[int, asyncpg.Record] = {}
    for r in rows:
        heads.setdefault(r["id"], r)
        found = seats.setdefault(r["id"], [])
        if r["seat"] is not None:
            found.append(seat_record(r))
    return [
        match_record(r, sorted(seats[match_id], key=lambda s: s.seat), secs)
        for match_id, r in heads.items()
    ]


def _rounds(rows: Sequence[asyncpg.Record]) -> list[RoundRecord]:
    """Rounds from ``_ROUND_ROWS`` rows: one row a hand (no hand: NULL hand columns)."""
    hands: dict[int, list[HandRecord]] = {}
    heads: dict[int, asyncpg.Record] = {}
    for r in rows:
        heads.setdefault(r["id"], r)
        found = hands.setdefault(r["id"], [])
        if r["seat"] is not None:
            found.append(hand_record(r, secs))
    return [
        round_record(r, sorted(hands[round_id], key=lambda h: h.seat), secs)
        for round_id, r in heads.items()
    ]


class PostgresRepository:
    """``Repository`` on a pool of asyncpg connections; create it with ``open``."""

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
            except (asyncpg.PostgresError, OSError):
                pass  # a broken connection: the pool closes it
            await self._pool.release(listener)
        await self._pool.close()

    # ------------------------------------------------------------------ plumbing

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[Connection]:
        """A transaction (READ COMMITTED: each statement sees what committed before it, so
        what is read after a lock is current); committed at the end, rolled back on any
        error."""
        async with self._pool.acquire() as conn, conn.transaction():
            yield conn

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[Connection]:
        """A read-only transaction on one snapshot, for reads of several statements."""
        async with (
            self._pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            yield conn

    async def _exec(self, conn: Connection, sql: str, *args: Any) -> int:
        """Run a write; return the number of rows it changed."""
        return _count(await conn.execute(sql, *args))

    @staticmethod
    async def _lock_match(conn: Connection, match_id: int) -> asyncpg.Record | None:
        """Lock the match's row for the rest of the transaction; its state, or None."""
        return await conn.fetchrow(
            "SELECT guild_id, status, seats_count FROM matches WHERE id = $1 FOR UPDATE",
            match_id,
        )

    @staticmethod
    async def _lock_user(conn: Connection, user_id: int) -> None:
        """Take the user's advisory lock until the transaction ends (one table at a time)."""
        await conn.execute("SELECT pg_advisory_xact_lock($1)", user_id)

    @staticmethod
    async def _match(conn: Connection, match_id: int) -> MatchRecord | None:
        found = _matches(await conn.fetch(f"{_MATCH_ROWS} WHERE m.id = $1", match_id))
        return found[0] if found else None

    @staticmethod
    async def _round(conn: Connection, round_id: int) -> RoundRecord | None:
        found = _rounds(await conn.fetch(f"{_ROUND_ROWS} WHERE r.id = $1", round_id))
        return found[0] if found else None

    # ------------------------------------------------------------------ settings

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        row = await self._pool.fetchrow(
            "SELECT * FROM guild_settings WHERE guild_id = $1", guild_id
        )
        return self._settings(guild_id, row)

    @staticmethod
    def _settings(guild_id: int, row: asyncpg.Record | None) -> GuildSettings:
        if row is None:
            return GuildSettings(guild_id=guild_id)
        return GuildSettings(guild_id=guild_id, **{f: row[f] for f in GUILD_SETTING_FIELDS})

    async def update_guild_settings(self, guild_id: int, **fields: Any) -> GuildSettings:
        clean = validate_guild_settings(fields)
        if not clean:
            return await self.guild_settings(guild_id)
        p = _Params()
        names = list(clean)
        values = ", ".join(p(v) for v in clean.values())
        sql = (
            f"INSERT INTO guild_settings (guild_id, {', '.join(names)}, updated_at)"
            f" VALUES ({p(guild_id)}, {values}, now())"
            " ON CONFLICT (guild_id) DO UPDATE SET "
            + ", ".join(f"{n} = excluded.{n}" for n in [*names, "updated_at"])
            + " RETURNING *"
        )
        return self._settings(guild_id, await self._pool.fetchrow(sql, *p))

    # ------------------------------------------------------------------ matches

    @staticmethod
    async def _active_match_id_of_user(conn: Connection, user_id: int) -> int | None:
        return await conn.fetchval(
            "SELECT m.id FROM match_seats s JOIN matches m ON m.id = s.match_id"
            f" WHERE s.user_id = $1 AND m.status {_ACTIVE} ORDER BY m.id LIMIT 1",
            user_id,
        )

    @staticmethod
    async def _remember_player(
        conn: Connection, guild_id: int, user_id: int, name: str, now: float
    ) -> None:
        await conn.execute(
            "INSERT INTO players (guild_id, user_id, name, updated_at) VALUES ($1, $2, $3, $4)"
            " ON CONFLICT (guild_id, user_id) DO UPDATE SET"
            " name = excluded.name, updated_at = excluded.updated_at",
            guild_id,
            user_id,
            name,
            ts(now),
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
        host_language: str | None = None,
    ) -> MatchRecord:
        check_new_match(seats_count, rounds_total, timeout_action)
        t = now_or(now)
        host_lang = seat_language(host_language)
        async with self._write() as conn:
            await self._lock_user(conn, host_id)
            existing = await conn.fetchval(
                f"SELECT id FROM matches WHERE channel_id = $1 AND status {_ACTIVE}", channel_id
            )
            if existing is not None:
                raise TableExists(f"channel {channel_id} already has table #{existing}")
            other = await self._active_match_id_of_user(conn, host_id)
            if other is not None:
                raise AlreadySeated(f"user {host_id} already sits at table #{other}")
            try:
                match_id = await conn.fetchval(
                    "INSERT INTO matches (guild_id, channel_id, host_id, preset, options,"
                    " rounds_total, countdown, bot_level, timeout_action, seats_count, language,"
                    " status, created_at, lobby_expires_at)"
                    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'lobby', $12, $13)"
                    " RETURNING id",
                    guild_id,
                    channel_id,
                    host_id,
                    preset,
                    to_json(dict(options or {})),
                    rounds_total,
                    countdown,
                    bot_level,
                    timeout_action,
                    seats_count,
                    language,
                    ts(t),
                    ts(lobby_expires_at),
                )
            except asyncpg.UniqueViolationError as exc:  # the partial unique index
                raise TableExists(f"channel {channel_id} already has a table") from exc
            await conn.execute(
                "INSERT INTO match_seats (match_id, seat, user_id, name, is_bot, level, language)"
                " VALUES ($1, 0, $2, $3, FALSE, NULL, $4)",
                match_id,
                host_id,
                host_name,
                host_lang,
            )
            await self._remember_player(conn, guild_id, host_id, host_name, t)
            match = await self._match(conn, match_id)
            assert match is not None
            return match

    async def set_lobby_message(self, match_id: int, message_id: int | None) -> None:
        await self._pool.execute(
            "UPDATE matches SET lobby_message_id = $1 WHERE id = $2", message_id, match_id
        )

    async def add_seat(
        self,
        match_id: int,
        user_id: int | None,
        name: str,
        level: str | None = None,
        *,
        now: float | None = None,
        language: str | None = None,
    ) -> MatchRecord:
        t = now_or(now)
        lang = seat_language(language)
        async with self._write() as conn:
            if user_id is not None:
                await self._lock_user(conn, user_id)
            row = await self._lock_match(conn, match_id)
            if row is None:
                raise NotInLobby(f"table #{match_id} does not exist")
            if row["status"] != "lobby":
                raise NotInLobby(f"table #{match_id} is {row['status']}, not in its lobby")
            if user_id is not None:
                other = await self._active_match_id_of_user(conn, user_id)
                if other is not None:
                    raise AlreadySeated(f"user {user_id} already sits at table #{other}")
            taken = {
                r[0]
                for r in await conn.fetch(
                    "SELECT seat FROM match_seats WHERE match_id = $1", match_id
                )
            }
            free = [s for s in range(row["seats_count"]) if s not in taken]
            if not free:
                raise TableFull(f"table #{match_id} is full ({row['seats_count']} seats)")
            await conn.execute(
                "INSERT INTO match_seats (match_id, seat, user_id, name, is_bot, level, language)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7)",
                match_id,
                free[0],
                user_id,
                name,
                user_id is None,
                level,
                lang,
            )
            if user_id is not None:
                await self._remember_player(conn, row["guild_id"], user_id, name, t)
            match = await self._match(conn, match_id)
            assert match is not None
            return match

    async def set_seat_language(self, match_id: int, user_id: int, language: str | None) -> bool:
        lang = seat_language(language)
        async with self._write() as conn:
            await self._lock_match(conn, match_id)
            return 1 == await self._exec(
                conn,
                "UPDATE match_seats SET language = $1 WHERE match_id = $2 AND user_id = $3",
                lang,
                match_id,
                user_id,
            )

    async def remove_seat(self, match_id: int, user_id: int) -> MatchRecord:
        async with self._write() as conn:
            row = await self._lock_match(conn, match_id)
            if row is None:
                raise NotInLobby(f"table #{match_id} does not exist")
            if row["status"] != "lobby":
                raise NotInLobby(f"table #{match_id} is {row['status']}, not in its lobby")
            removed = await self._exec(
                conn,
                "DELETE FROM match_seats WHERE match_id = $1 AND user_id = $2",
                match_id,
                user_id,
            )
            if not removed:
                raise NotSeated(f"user {user_id} has no seat at table #{match_id}")
            match = await self._match(conn, match_id)
            assert match is not None
            return match

    async def _set_match_status(
        self, match_id: int, allowed: tuple[str, ...], sql: str, *args: Any
    ) -> bool:
        """Lock the match; if its status is one of ``allowed``, run ``sql`` ($1: the match
        id). True if it ran."""
        async with self._write() as conn:
            row = await self._lock_match(conn, match_id)
            if row is None or row["status"] not in allowed:
                return False
            await self._exec(conn, sql, match_id, *args)
            return True

    async def start_match(self, match_id: int, *, now: float | None = None) -> bool:
        return await self._set_match_status(
            match_id,
            (MatchStatus.LOBBY,),
            "UPDATE matches SET status = 'playing', started_at = $2 WHERE id = $1",
            ts(now_or(now)),
        )

    async def cancel_match(
        self, match_id: int, *, now: float | None = None, lobby_only: bool = False
    ) -> bool:
        return await self._set_match_status(
            match_id,
            (MatchStatus.LOBBY,) if lobby_only else ACTIVE_STATUSES,
            "UPDATE matches SET status = 'cancelled', finished_at = $2 WHERE id = $1",
            ts(now_or(now)),
        )

    async def finish_match(
        self, match_id: int, places: dict[int, int], *, now: float | None = None
    ) -> bool:
        t = now_or(now)
        async with self._write() as conn:
            row = await self._lock_match(conn, match_id)
            if row is None or row["status"] != MatchStatus.PLAYING:
                return False
            await self._exec(
                conn,
                "UPDATE matches SET status = 'finished', finished_at = $1 WHERE id = $2",
                ts(t),
                match_id,
            )
            for seat, place in places.items():
                if not await self._exec(
                    conn,
                    "UPDATE match_seats SET place = $1 WHERE match_id = $2 AND seat = $3",
                    int(place),
                    match_id,
                    int(seat),
                ):
                    raise ValueError(f"table #{match_id} has no seat {seat}")
            return True

    async def claim_standings(self, match_id: int, lease: float) -> bool:
        status = await self._pool.execute(
            "UPDATE matches SET standings_claim_until = now() + make_interval(secs => $2)"
            " WHERE id = $1 AND status = 'finished'"
            " AND (standings_claim_until IS NULL OR standings_claim_until < now())",
            match_id,
            float(lease),
        )
        return _count(status) == 1

    async def release_standings(self, match_id: int) -> None:
        await self._pool.execute(
            "UPDATE matches SET standings_claim_until = NULL WHERE id = $1", match_id
        )

    async def mark_standings_posted(self, match_id: int, message_id: int | None) -> bool:
        return await self._set_match_status(
            match_id,
            (MatchStatus.FINISHED,),
            "UPDATE matches SET status = 'ended', standings_message_id = $2,"
            " standings_claim_until = NULL WHERE id = $1",
            message_id,
        )

    async def get_match(self, match_id: int) -> MatchRecord | None:
        found = _matches(await self._pool.fetch(f"{_MATCH_ROWS} WHERE m.id = $1", match_id))
        return found[0] if found else None

    async def active_match_in_channel(self, channel_id: int) -> MatchRecord | None:
        found = _matches(
            await self._pool.fetch(
                f"{_MATCH_ROWS} WHERE m.channel_id = $1 AND m.status {_ACTIVE} ORDER BY m.id",
                channel_id,
            )
        )
        return found[0] if found else None

    async def active_match_of_user(self, user_id: int) -> MatchRecord | None:
        found = _matches(
            await self._pool.fetch(
                f"{_MATCH_ROWS} WHERE m.id = (SELECT m2.id FROM match_seats s2"
                " JOIN matches m2 ON m2.id = s2.match_id"
                f" WHERE s2.user_id = $1 AND m2.status {_ACTIVE} ORDER BY m2.id LIMIT 1)",
                user_id,
            )
        )
        return found[0] if found else None

    async def active_matches(self) -> list[MatchRecord]:
        return _matches(
            await self._pool.fetch(f"{_MATCH_ROWS} WHERE m.status {_ACTIVE} ORDER BY m.id")
        )

    async def unfinished_matches(self) -> list[MatchRecord]:
        return _matches(
            await self._pool.fetch(
                f"{_MATCH_ROWS} WHERE m.status {_in(UNFINISHED_STATUSES)} ORDER BY m.id"
            )
        )

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
        t = now_or(now)
        async with self._write() as conn:
            row = await self._lock_match(conn, match_id)
            round_id = await conn.fetchval(
                "SELECT id FROM rounds WHERE match_id = $1 AND number = $2", match_id, number
            )
            if round_id is None:
                if row is None or row["status"] != MatchStatus.PLAYING:
                    state = "does not exist" if row is None else f"is {row['status']}"
                    raise NotPlaying(f"table #{match_id} {state}: no round can start")
                seats = {
                    r[0]
                    for r in await conn.fetch(
                        "SELECT seat FROM match_seats WHERE match_id = $1", match_id
                    )
                }
                unknown = sorted(set(hands) - seats)
                if unknown:
                    raise ValueError(f"table #{match_id} has no seat(s) {unknown}")
                dealt = sorted(hands.items())
                texts = [cards_text(cards) for _, cards in dealt]
                round_id = await conn.fetchval(
                    "INSERT INTO rounds (match_id, number, seed, deadline, status, created_at)"
                    " VALUES ($1, $2, $3, $4, 'dealing', $5) RETURNING id",
                    match_id,
                    number,
                    str(int(seed)),
                    ts(float(deadline)),
                    ts(t),
                )
                await conn.execute(
                    "INSERT INTO hands (round_id, seat, cards)"
                    " SELECT $1, seat, cards FROM unnest($2::int[], $3::text[]) AS d(seat, cards)",
                    round_id,
                    [int(seat) for seat, _ in dealt],
                    texts,
                )
            record = await self._round(conn, round_id)
            assert record is not None
            return record

    async def current_round(self, match_id: int) -> RoundRecord | None:
        found = _rounds(
            await self._pool.fetch(
                f"{_ROUND_ROWS} WHERE r.match_id = $1"
                " AND r.number = (SELECT MAX(number) FROM rounds WHERE match_id = $1)",
                match_id,
            )
        )
        return found[0] if found else None

    async def get_round(self, round_id: int) -> RoundRecord | None:
        found = _rounds(await self._pool.fetch(f"{_ROUND_ROWS} WHERE r.id = $1", round_id))
        return found[0] if found else None

    async def set_round_deadline(self, round_id: int, deadline: float) -> bool:
        async with self._write() as conn:
            await conn.fetchrow(_LOCK_MATCH_OF_ROUND, round_id)
            return 1 == await self._exec(
                conn,
                "UPDATE rounds SET deadline = $2 WHERE id = $1 AND status IN ('dealing', 'open')",
                round_id,
                ts(deadline),
            )

    async def mark_round_open(self, round_id: int) -> bool:
        async with self._write() as conn:
            await conn.fetchrow(_LOCK_MATCH_OF_ROUND, round_id)
            return 1 == await self._exec(
                conn,
                "UPDATE rounds SET status = 'open' WHERE id = $1 AND status = 'dealing'",
                round_id,
            )

    async def mark_showdown_posted(self, round_id: int, message_id: int | None) -> bool:
        async with self._write() as conn:
            await conn.fetchrow(_LOCK_MATCH_OF_ROUND, round_id)
            return 1 == await self._exec(
                conn,
                "UPDATE rounds SET status = 'shown',"
                " showdown_message_id = COALESCE($2, showdown_message_id),"
                " showdown_claim_until = NULL WHERE id = $1 AND status = 'scored'",
                round_id,
                message_id,
            )

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
        p = _Params()
        assignments = ", ".join(f"{k} = {p(v)}" for k, v in sets.items())
        await self._pool.execute(f"UPDATE rounds SET {assignments} WHERE id = {p(round_id)}", *p)

    async def set_dm_message(
        self, round_id: int, seat: int, channel_id: int | None, message_id: int | None
    ) -> None:
        await self._pool.execute(
            "UPDATE hands SET dm_channel_id = $1, dm_message_id = $2"
            " WHERE round_id = $3 AND seat = $4",
            channel_id,
            message_id,
            round_id,
            seat,
        )

    async def mark_dm_refused(self, round_id: int, seat: int) -> None:
        await self._pool.execute(
            "UPDATE hands SET dm_refused = TRUE, dm_channel_id = NULL, dm_message_id = NULL"
            " WHERE round_id = $1 AND seat = $2",
            round_id,
            seat,
        )

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
        arranged: bool = False,
        now: float | None = None,
    ) -> bool:
        rows = {"back": back, "middle": middle, "front": front}
        texts = {name: cards_text(cards) for name, cards in rows.items()}
        t = now_or(now)
        async with self._write() as conn:
            if await conn.fetchrow(_LOCK_MATCH_OF_ROUND, round_id) is None:
                return False  # no such round
            row = await conn.fetchrow(
                "SELECT h.cards, h.submitted_at, r.status FROM hands h"
                " JOIN rounds r ON r.id = h.round_id WHERE h.round_id = $1 AND h.seat = $2",
                round_id,
                seat,
            )
            if row is None or row["status"] not in DEALT_STATUSES:
                return False
            if row["submitted_at"] is not None:
                return False
            check_setting(texts, cards_tuple(row["cards"]) or ())
            return 1 == await self._exec(
                conn,
                "UPDATE hands SET back = $1, middle = $2, front = $3, declare = $4, fouled = $5,"
                " auto = $6, submitted_at = $7, arranged = $10"
                " WHERE round_id = $8 AND seat = $9 AND submitted_at IS NULL",
                texts["back"],
                texts["middle"],
                texts["front"],
                declare,
                bool(fouled),
                bool(auto),
                ts(t),
                round_id,
                seat,
                bool(arranged),
            )

    async def score_round(
        self,
        round_id: int,
        result: dict[str, Any],
        scores: list[RoundScore],
        now: float | None = None,
    ) -> bool:
        t = ts(now_or(now))
        check_scores_seats([s.seat for s in scores])
        result_text = to_json(result)
        best_rows = [to_json(s.best_row) for s in scores]  # (a bad one fails before writing)
        strengths = [(s.best_row or {}).get("strength") for s in scores]
        async with self._write() as conn:
            match = await conn.fetchrow(_LOCK_MATCH_OF_ROUND, round_id)
            # The guard: only a dealt round of a playing match flips to 'scored', once.
            if match is None or match["status"] != MatchStatus.PLAYING:
                return False
            flipped = await self._exec(
                conn,
                "UPDATE rounds SET status = 'scored', result = $1, scored_at = $2"
                f" WHERE id = $3 AND status {_DEALT}",
                result_text,
                t,
                round_id,
            )
            if flipped != 1:
                return False
            seats = [s.seat for s in scores]
            updated = await self._exec(
                conn,
                "UPDATE hands h SET points = v.points, fouled = h.fouled OR v.fouled"
                " FROM unnest($2::int[], $3::float8[], $4::bool[]) AS v(seat, points, fouled)"
                " WHERE h.round_id = $1 AND h.seat = v.seat",
                round_id,
                seats,
                [float(s.points) for s in scores],
                [bool(s.fouled) for s in scores],
            )
            if updated != len(seats):
                have = {
                    r[0]
                    for r in await conn.fetch(
                        "SELECT seat FROM hands WHERE round_id = $1", round_id
                    )
                }
                missing = sorted(set(seats) - have)
                raise ValueError(f"round {round_id} has no hand for seat {missing[0]}")
            await self._exec(
                conn,
                "INSERT INTO round_scores (round_id, seat, match_id, guild_id, user_id,"
                " points, fouled, special, sweeps_given, sweeps_taken, table_sweep,"
                " best_strength, best_row, scored_at)"
                " SELECT $1, v.seat, $2, $3, s.user_id, v.points, v.fouled, v.special,"
                " v.given, v.taken, v.table_sweep, v.strength, v.best_row::jsonb, $4"
                " FROM unnest($5::int[], $6::float8[], $7::bool[], $8::text[], $9::int[],"
                " $10::int[], $11::bool[], $12::bigint[], $13::text[])"
                " AS v(seat, points, fouled, special, given, taken, table_sweep, strength,"
                " best_row)"
                " LEFT JOIN match_seats s ON s.match_id = $2 AND s.seat = v.seat",
                round_id,
                match["id"],
                match["guild_id"],
                t,
                seats,
                [float(s.points) for s in scores],
                [bool(s.fouled) for s in scores],
                [s.special for s in scores],
                [int(s.sweeps_given) for s in scores],
                [int(s.sweeps_taken) for s in scores],
                [bool(s.table_sweep) for s in scores],
                [int(x) if isinstance(x, int | float) else None for x in strengths],
                best_rows,
            )
            return True

    async def completed_rounds(self, match_id: int) -> list[RoundRecord]:
        return _rounds(
            await self._pool.fetch(
                f"{_ROUND_ROWS} WHERE r.match_id = $1 AND r.status {_SCORED}"
                " ORDER BY r.number, h.seat",
                match_id,
            )
        )

    async def match_totals(self, match_id: int) -> dict[int, float]:
        rows = await self._pool.fetch(
            "SELECT s.seat, COALESCE(SUM(rs.points), 0) FROM match_seats s"
            " LEFT JOIN round_scores rs ON rs.match_id = s.match_id AND rs.seat = s.seat"
            " WHERE s.match_id = $1 GROUP BY s.seat ORDER BY s.seat",
            match_id,
        )
        return {r[0]: float(r[1]) for r in rows}

    # ------------------------------------------------------------------ stats

    @staticmethod
    def _leader_cte(p: _Params, guild: str, since: float | None) -> str:
        """Per-user totals of one guild (``guild``: its parameter; since ``since``, if
        given) as a CTE named ``board``; its parameters go into ``p``."""
        when = None if since is None else p(ts(since))
        score_time = "" if when is None else f" AND scored_at >= {when}"
        finish_time = "" if when is None else f" AND m.finished_at >= {when}"
        return (
            "WITH rev AS ("
            "  SELECT user_id, COUNT(*) AS reviewed, AVG(loss) AS loss FROM hand_reviews"
            f"  WHERE guild_id = {guild} AND counted{score_time} GROUP BY user_id"
            "), pts AS ("
            "  SELECT user_id, SUM(points) AS points, SUM(sweeps_given) AS sweeps,"
            "   COUNT(*) AS rounds FROM round_scores"
            f"  WHERE guild_id = {guild} AND user_id IS NOT NULL{score_time} GROUP BY user_id"
            "), res AS ("
            "  SELECT s.user_id, COUNT(*) AS matches,"
            "   COUNT(*) FILTER (WHERE s.place = 1) AS wins"
            "  FROM matches m JOIN match_seats s ON s.match_id = m.id"
            f"  WHERE m.guild_id = {guild} AND m.status {_FINISHED}"
            f"   AND s.user_id IS NOT NULL{finish_time}"
            "  GROUP BY s.user_id"
            "), board AS ("
            "  SELECT u.user_id, COALESCE(pts.points, 0) AS points, COALESCE(res.wins, 0) AS wins,"
            "   COALESCE(res.matches, 0) AS matches, COALESCE(pts.sweeps, 0) AS sweeps,"
            "   COALESCE(pts.rounds, 0) AS rounds, COALESCE(rev.reviewed, 0) AS reviewed,"
            "   rev.loss AS loss"
            "  FROM (SELECT user_id FROM pts UNION SELECT user_id FROM res) u"
            "  LEFT JOIN pts ON pts.user_id = u.user_id"
            "  LEFT JOIN res ON res.user_id = u.user_id"
            "  LEFT JOIN rev ON rev.user_id = u.user_id"
            ") "
        )

    async def leaderboard(
        self,
        guild_id: int,
        sort: str = "points",
        period_days: int | None = None,
        limit: int = 10,
        offset: int = 0,
        now: float | None = None,
    ) -> list[LeaderRow]:
        check_sort(sort)
        p = _Params()
        guild = p(guild_id)
        cte = self._leader_cte(p, guild, period_start(period_days, now))
        rows = await self._pool.fetch(
            cte + "SELECT b.*, COALESCE(pl.name, '') AS name FROM board b"
            f" LEFT JOIN players pl ON pl.guild_id = {guild} AND pl.user_id = b.user_id"
            f"{ranked_where(sort)} ORDER BY {LEADER_ORDER[sort]}"
            f" LIMIT {p(max(0, int(limit)))} OFFSET {p(max(0, int(offset)))}",
            *p,
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
                reviewed=int(r["reviewed"]),
                loss=None if r["loss"] is None else float(r["loss"]),
            )
            for r in rows
        ]

    async def leaderboard_count(
        self,
        guild_id: int,
        period_days: int | None = None,
        now: float | None = None,
        sort: str = "points",
    ) -> int:
        check_sort(sort)
        p = _Params()
        cte = self._leader_cte(p, p(guild_id), period_start(period_days, now))
        sql = cte + f"SELECT COUNT(*) FROM board b{ranked_where(sort)}"
        return int(await self._pool.fetchval(sql, *p))

    async def player_stats(self, guild_id: int, user_id: int) -> PlayerStats:
        where = "guild_id = $1 AND user_id = $2"
        async with self._read() as conn:
            agg = await conn.fetchrow(
                "SELECT COUNT(*) AS rounds, COALESCE(SUM(points), 0) AS points,"
                " COALESCE(SUM(sweeps_given), 0) AS sweeps_given,"
                " COALESCE(SUM(sweeps_taken), 0) AS sweeps_taken,"
                " COUNT(*) FILTER (WHERE table_sweep) AS table_sweeps,"
                f" COUNT(*) FILTER (WHERE fouled) AS fouls FROM round_scores WHERE {where}",
                guild_id,
                user_id,
            )
            specials = await conn.fetch(
                f"SELECT special, COUNT(*) FROM round_scores WHERE {where}"
                " AND special IS NOT NULL GROUP BY special ORDER BY special",
                guild_id,
                user_id,
            )
            best = await conn.fetchval(
                f"SELECT best_row FROM round_scores WHERE {where} AND best_strength IS NOT NULL"
                " ORDER BY best_strength DESC, scored_at ASC, round_id ASC LIMIT 1",
                guild_id,
                user_id,
            )
            res = await conn.fetchrow(
                "SELECT COUNT(*) AS matches, COUNT(*) FILTER (WHERE s.place = 1) AS wins"
                " FROM matches m JOIN match_seats s ON s.match_id = m.id"
                f" WHERE m.guild_id = $1 AND m.status {_FINISHED} AND s.user_id = $2",
                guild_id,
                user_id,
            )
            coach = await conn.fetchrow(
                "SELECT COUNT(*) FILTER (WHERE counted) AS reviewed,"
                " AVG(loss) FILTER (WHERE counted) AS loss_all,"
                " COUNT(*) FILTER (WHERE NOT counted) AS uncounted,"
                " (SELECT AVG(loss) FROM (SELECT loss FROM hand_reviews"
                f"   WHERE {where} AND counted"
                "   ORDER BY scored_at DESC, round_id DESC LIMIT $3) recent) AS loss_recent"
                f" FROM hand_reviews WHERE {where}",
                guild_id,
                user_id,
                RECENT_REVIEWS,
            )
        assert agg is not None and res is not None and coach is not None
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
            best_hand=from_json(best),
            **coach_fields(coach),
        )

    # ------------------------------------------------------------------ the coach

    async def store_review(
        self,
        round_id: int,
        seat: int,
        review: dict[str, Any],
        loss: float,
        counted: bool,
        *,
        now: float | None = None,
    ) -> bool:
        text = to_json(review)
        t = ts(now_or(now))
        status = await self._pool.execute(
            "INSERT INTO hand_reviews (round_id, seat, match_id, guild_id, user_id, loss,"
            " counted, review, scored_at, reviewed_at)"
            " SELECT r.id, s.seat, m.id, m.guild_id, s.user_id, $1, $2, $3, r.scored_at, $4"
            " FROM rounds r JOIN matches m ON m.id = r.match_id"
            " JOIN match_seats s ON s.match_id = m.id AND s.seat = $5"
            f" WHERE r.id = $6 AND r.status {_SCORED} AND s.user_id IS NOT NULL"
            " ON CONFLICT (round_id, seat) DO NOTHING",
            max(0.0, float(loss)),
            bool(counted),
            text,
            t,
            seat,
            round_id,
        )
        return _count(status) == 1

    async def hand_review(self, round_id: int, seat: int) -> dict[str, Any] | None:
        text = await self._pool.fetchval(
            "SELECT review FROM hand_reviews WHERE round_id = $1 AND seat = $2", round_id, seat
        )
        return from_json(text)

    async def unreviewed_hands(self, since: float, limit: int = 200) -> list[tuple[int, int]]:
        rows = await self._pool.fetch(
            "SELECT h.round_id, h.seat FROM hands h JOIN rounds r ON r.id = h.round_id"
            " JOIN match_seats s ON s.match_id = r.match_id AND s.seat = h.seat"
            f" WHERE r.status {_SCORED} AND r.scored_at >= $1 AND s.user_id IS NOT NULL"
            " AND NOT EXISTS (SELECT 1 FROM hand_reviews v"
            "  WHERE v.round_id = h.round_id AND v.seat = h.seat)"
            " ORDER BY r.scored_at, h.round_id, h.seat LIMIT $2",
            ts(since),
            max(0, int(limit)),
        )
        return [(int(r[0]), int(r[1])) for r in rows]

    # ------------------------------------------------------------------ timers

    async def set_timer(
        self,
        match_id: int,
        kind: str,
        arg: int,
        delay: float,
        *,
        if_absent: bool = False,
        holder: str | None = None,
        lease: float = 0.0,
    ) -> bool:
        conflict = timer_conflict(if_absent)
        async with self._write() as conn:
            changed = await self._exec(
                conn,
                "INSERT INTO timers (match_id, kind, arg, due_at, lease_until, lease_owner)"
                " SELECT id, $1, $2, now() + make_interval(secs => $3),"
                " CASE WHEN $5::text IS NULL THEN NULL"
                "  ELSE now() + make_interval(secs => $6) END, $5::text"
                f" FROM matches WHERE id = $4 ON CONFLICT (match_id, kind) {conflict}",
                kind,
                int(arg),
                max(0.0, float(delay)),
                match_id,
                holder,
                float(lease),
            )
            if changed and delay < TIMER_WAKE_SECONDS:
                await conn.execute(f"NOTIFY {TIMERS_CHANNEL}")  # sent at COMMIT
        return changed == 1

    async def cancel_timers(
        self, match_id: int, kinds: tuple[str, ...] | None = None, arg: int | None = None
    ) -> None:
        await self._pool.execute(
            "DELETE FROM timers WHERE match_id = $1"
            " AND ($2::text[] IS NULL OR kind = ANY($2::text[]))"
            " AND ($3::bigint IS NULL OR arg = $3)",
            match_id,
            None if kinds is None else list(kinds),
            arg,
        )

    async def claim_timers(self, owner: str, lease: float, limit: int = 50) -> list[TimerRecord]:
        rows = await self._pool.fetch(
            "UPDATE timers t SET lease_until = now() + make_interval(secs => $1),"
            " lease_owner = $2"
            " FROM (SELECT match_id, kind FROM timers"
            "  WHERE due_at <= now() AND (lease_until IS NULL OR lease_until < now())"
            "  ORDER BY due_at, match_id LIMIT $3 FOR UPDATE SKIP LOCKED) due"
            " WHERE t.match_id = due.match_id AND t.kind = due.kind"
            " RETURNING t.match_id, t.kind, t.arg, t.version, t.attempts, t.due_at",
            float(lease),
            owner,
            max(0, int(limit)),
        )
        return [timer_record(r) for r in sorted(rows, key=lambda r: (r["due_at"], r["match_id"]))]

    async def renew_timers(self, owner: str, lease: float) -> int:
        status = await self._pool.execute(
            "UPDATE timers SET lease_until = now() + make_interval(secs => $2)"
            " WHERE lease_owner = $1 AND lease_until >= now()",
            owner,
            float(lease),
        )
        return _count(status)

    async def finish_timer(self, match_id: int, kind: str, version: int) -> None:
        await self._pool.execute(
            "DELETE FROM timers WHERE match_id = $1 AND kind = $2 AND version = $3",
            match_id,
            kind,
            version,
        )

    async def retry_timer(self, match_id: int, kind: str, version: int, delay: float) -> None:
        await self._pool.execute(
            "UPDATE timers SET due_at = now() + make_interval(secs => $4),"
            " attempts = attempts + 1, lease_until = NULL, lease_owner = NULL"
            " WHERE match_id = $1 AND kind = $2 AND version = $3",
            match_id,
            kind,
            version,
            max(0.0, float(delay)),
        )

    async def next_timer_in(self) -> float | None:
        value = await self._pool.fetchval(
            "SELECT EXTRACT(EPOCH FROM MIN(CASE WHEN lease_until >= now()"
            " THEN GREATEST(due_at, lease_until) ELSE due_at END) - now()) FROM timers"
        )
        return None if value is None else max(0.0, float(value))

    async def timers_of(self, match_id: int) -> list[TimerRecord]:
        rows = await self._pool.fetch(
            "SELECT * FROM timers WHERE match_id = $1 ORDER BY kind", match_id
        )
        return [timer_record(r) for r in rows]

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

    async def claim_showdown(self, round_id: int, lease: float) -> bool:
        status = await self._pool.execute(
            "UPDATE rounds SET showdown_claim_until = now() + make_interval(secs => $2)"
            " WHERE id = $1 AND status = 'scored' AND showdown_message_id IS NULL"
            " AND (showdown_claim_until IS NULL OR showdown_claim_until < now())",
            round_id,
            float(lease),
        )
        return _count(status) == 1

    async def release_showdown(self, round_id: int) -> None:
        await self._pool.execute(
            "UPDATE rounds SET showdown_claim_until = NULL WHERE id = $1", round_id
        )

    # ------------------------------------------------------------------ history

    @staticmethod
    def _finished_where(p: _Params, guild_id: int, user_id: int | None) -> str:
        where = f"guild_id = {p(guild_id)} AND status {_FINISHED}"
        if user_id is not None:
            where += f" AND id IN (SELECT match_id FROM match_seats WHERE user_id = {p(user_id)})"
        return where

    async def finished_matches(
        self, guild_id: int, user_id: int | None = None, limit: int = 10, offset: int = 0
    ) -> list[MatchSummary]:
        p = _Params()
        where = self._finished_where(p, guild_id, user_id)
        async with self._read() as conn:
            ids = [
                r["id"]
                for r in await conn.fetch(
                    f"SELECT id FROM matches WHERE {where} ORDER BY finished_at DESC, id DESC"
                    f" LIMIT {p(max(0, int(limit)))} OFFSET {p(max(0, int(offset)))}",
                    *p,
                )
            ]
            if not ids:
                return []
            found = _matches(await conn.fetch(f"{_MATCH_ROWS} WHERE m.id = ANY($1::bigint[])", ids))
            rows = await conn.fetch(
                "SELECT match_id, seat, SUM(points) FROM round_scores"
                " WHERE match_id = ANY($1::bigint[]) GROUP BY match_id, seat",
                ids,
            )
        by_id = {m.id: m for m in found}
        sums: dict[int, list[tuple[int, float]]] = {i: [] for i in ids}
        for r in rows:
            sums[r[0]].append((r[1], r[2]))
        return [match_summary(by_id[i], sums[i]) for i in ids]

    async def finished_matches_count(self, guild_id: int, user_id: int | None = None) -> int:
        p = _Params()
        where = self._finished_where(p, guild_id, user_id)
        return int(await self._pool.fetchval(f"SELECT COUNT(*) FROM matches WHERE {where}", *p))
