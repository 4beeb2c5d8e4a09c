"""The repository written once: every method's SQL and transaction, for both backends.

``SqlRepository`` holds the method bodies; each is one transaction (``_tx``), a coroutine over
a ``Tx``, the small connection interface a backend implements: run a statement (``one``,
``all``, ``run``, ``many``), lock a table's row (``lock_match``: ``FOR UPDATE`` on
PostgreSQL, nothing on SQLite, whose writer is single), and the stored time (REAL seconds or
``timestamptz``) with the database's clock (``NOW``, ``LATER``). The SQL is written with
``?`` placeholders; PostgreSQL's ``Tx`` turns them into ``$1..$n`` (data/postgres.py).

What a write changes is declared with it: ``@writes(Kind.ROUND.by("round_id"), ...)``
names the kinds of record it changes and the argument that gives each key, ``@reads`` marks
a read. The SQLite cache (data/sqlite_batch.py) drops and reloads what a write declares;
tests/test_life_repository.py fails when a method of the protocol declares nothing.
"""

from __future__ import annotations

import functools
import inspect
import secrets
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Any, ClassVar, TypeVar

from capsa.cards import DeckStyle
from capsa.rating import Placing, RatedPlayer, Rating, rate_match
from capsa.timings import PROCESS_DEAD_SECONDS, PROCESSES_KEPT_SECONDS, TIMER_WAKE_SECONDS

from .common import (
    HAND_COLUMNS,
    LEADER_ORDER,
    MATCH_COLUMNS,
    ROUND_COLUMNS,
    SEAT_COLUMNS,
    Row,
    cards_text,
    cards_tuple,
    check_new_match,
    check_scores_seats,
    check_setting,
    check_sort,
    check_surrender,
    check_surrender_allowed,
    coach_fields,
    from_json,
    match_summary,
    matches_with_seats,
    now_or,
    period_start,
    ranked_where,
    rounds_with_hands,
    seat_language,
    timer_conflict,
    timer_record,
    to_json,
)
from .repository import (
    ACTIVE_STATUSES,
    DEALT_STATUSES,
    FINISHED_STATUSES,
    RECENT_REVIEWS,
    SCORED_STATUSES,
    UNFINISHED_STATUSES,
    AlreadySeated,
    Claimed,
    DailyHand,
    DailyPlay,
    GuildSettings,
    HandsIn,
    LeaderRow,
    MatchRecord,
    MatchStatus,
    MatchSummary,
    NotInLobby,
    NotPlaying,
    NotSeated,
    PlayerStats,
    Preferences,
    ProcessRecord,
    RoundRecord,
    RoundScore,
    RoundStatus,
    TableExists,
    TableFull,
    TimerRecord,
    merge_guild_settings,
    validate_guild_settings,
    validate_preferences,
)

T = TypeVar("T")
R = TypeVar("R", GuildSettings, MatchRecord, RoundRecord)
F = TypeVar("F", bound=Callable[..., Awaitable[Any]])
# The records a backend may keep copies of (data/sqlite_batch.py), each of a Kind below.
CachedRecord = GuildSettings | MatchRecord | RoundRecord | Preferences

# ---------------------------------------------------------------------- declared changes


class Kind(StrEnum):
    """What a write changes. The first four and PREFERENCES are records a backend may keep
    copies of (key: guild id, match id, round id, match id, user id); the others are rows no
    record holds."""

    SETTINGS = "settings"
    MATCH = "match"
    ROUND = "round"
    LATEST_ROUND = "latest_round"  # a round was added to the match
    CLAIM = "claim"  # a claim on posting a showdown or the standings
    REVIEW = "review"
    TIMER = "timer"
    PROCESS = "process"  # a bot process's row (alive while it renews it)
    PREFERENCES = "preferences"  # a person's /capsa me choices
    DM_CHANNEL = "dm_channel"  # the DM channel opened with a person
    TOKEN = "token"  # an interaction token kept for a channel or a message
    RATING = "rating"  # a server's ratings (capsa/rating.py)
    DAILY = "daily"  # a server's daily hand and its plays (capsa/daily.py)

    def by(self, argument: str) -> Change:
        """This kind of record, keyed by the write's ``argument``."""
        return Change(self, argument)


@dataclass(frozen=True)
class Change:
    kind: Kind
    argument: str | None = None  # None: only new records, or rows no record holds


# (kind, key) of the write running in this task: read by ``_tx`` when it queues the write.
_CHANGES: ContextVar[tuple[tuple[Kind, Any], ...]] = ContextVar("changes", default=())


def writes(*changes: Change | Kind) -> Callable[[F], F]:
    """Declare what a write method changes (each ``Kind``, with ``.by(argument)`` when the
    record's key is an argument)."""
    if not changes:
        raise TypeError("a write declares what it changes")
    declared = tuple(c if isinstance(c, Change) else Change(c) for c in changes)

    def decorate(method: F) -> F:
        names = list(inspect.signature(method).parameters)[1:]  # after self
        keyed = [(c.kind, c.argument, names.index(c.argument)) for c in declared if c.argument]
        if not keyed:  # no record anyone keeps a copy of: nothing to tell
            method.changes = declared  # type: ignore[attr-defined]
            return method

        @functools.wraps(method)
        async def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            keys = tuple(
                [(kind, args[i] if i < len(args) else kwargs[name]) for kind, name, i in keyed]
            )
            token = _CHANGES.set(keys)
            try:
                return await method(self, *args, **kwargs)
            finally:
                _CHANGES.reset(token)

        wrapper.changes = declared  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def reads(method: F) -> F:
    """Declare a method that changes nothing stored."""
    method.reads = True  # type: ignore[attr-defined]
    return method


def declared_changes() -> tuple[tuple[Kind, Any], ...]:
    """The (kind, key) pairs the write running in this task declared."""
    return _CHANGES.get()


# ---------------------------------------------------------------------- the connection


class Tx(ABC):
    """One transaction's statements, as a backend runs them (``?`` placeholders)."""

    NOW: ClassVar[str]  # SQL: the database's clock, as stored
    LATER: ClassVar[str]  # SQL: the database's clock plus a parameter of seconds
    # SQL: when the database server last started, on its clock: no process could be seen
    # before (a file with no server: the dawn of time)
    UP_SINCE: ClassVar[str]
    LOCK: ClassVar[str] = ""  # appended to a SELECT that locks a table's row

    @abstractmethod
    async def all(self, sql: str, *args: Any) -> Sequence[Row]:
        """The rows of a query."""

    @abstractmethod
    async def one(self, sql: str, *args: Any) -> Row | None:
        """The first row of a query, or None."""

    @abstractmethod
    async def run(self, sql: str, *args: Any) -> int:
        """A write; the number of rows it changed."""

    @abstractmethod
    async def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """One write for each row of parameters."""

    @abstractmethod
    def stamp(self, seconds: float | None) -> Any:
        """Unix seconds as stored."""

    @abstractmethod
    def secs(self, value: Any) -> float | None:
        """A stored time in unix seconds."""

    async def value(self, sql: str, *args: Any) -> Any:
        row = await self.one(sql, *args)
        return None if row is None else row[0]

    async def insert(self, sql: str, *args: Any) -> int:
        """An ``INSERT`` of one row into a table keyed by ``id``; the new row's id."""
        return int(await self.value(f"{sql} RETURNING id", *args))

    @abstractmethod
    async def lock_user(self, user_id: int) -> None:
        """Hold the person until the transaction ends (one table at a time)."""

    async def lock_match(self, match_id: int) -> Row | None:
        """Lock the table's row until the transaction ends; its guild, status and seats."""
        return await self.one(
            f"SELECT guild_id, status, seats_count FROM matches WHERE id = ?{self.LOCK}",
            match_id,
        )

    async def hold_match(self, match_id: int) -> None:
        """Lock the table's row until the transaction ends, where rows are locked."""
        if self.LOCK:
            await self.lock_match(match_id)

    async def hold_match_of_round(self, round_id: int) -> None:
        """Lock the row of the round's table until the transaction ends, where rows are
        locked."""
        if self.LOCK:
            await self.lock_match_of_round(round_id)

    async def lock_match_of_round(self, round_id: int) -> Row | None:
        """Lock the row of the round's table; the table's id, status and guild."""
        return await self.one(
            "SELECT m.id, m.status, m.guild_id FROM matches m JOIN rounds r ON r.match_id = m.id"
            f" WHERE r.id = ?{self.LOCK and self.LOCK + ' OF m'}",
            round_id,
        )


# ---------------------------------------------------------------------- the SQL


def _in(statuses: tuple[str, ...]) -> str:
    """``IN ('a', 'b')``: written out, not bound, so the partial indexes can be used."""
    return "IN ({})".format(", ".join(f"'{status}'" for status in statuses))


def _columns(table: str, names: tuple[str, ...]) -> str:
    return ", ".join(f"{table}.{name}" for name in names)


def _marks(n: int) -> str:
    return ", ".join("?" * n)


def _dead(db: Tx, owner: str) -> str:
    """SQL: the process named by the column ``owner`` is known to be dead (its parameters:
    ``dead_args``): it stopped (its row says so), or, if the caller may judge, it was not
    seen for PROCESS_DEAD_SECONDS while the database server was up. An outage is not a
    death: while the server was down or restarting nobody could be seen, and a caller whose
    own contact broke does not judge (cogs.scheduler.Scheduler.judging). A name no process
    registered is not known dead: what it holds waits for its lease to run out."""
    return (
        f"EXISTS (SELECT 1 FROM processes p WHERE p.owner = {owner} AND (p.seen_at <= ?"
        f" OR (? AND p.seen_at < {db.LATER} AND {db.UP_SINCE} < {db.LATER})))"
    )


def dead_args(db: Tx, judging: bool) -> tuple[Any, ...]:
    """``_dead``'s parameters; ``judging``: whether a process not seen for a while counts
    as dead (else only one that stopped does)."""
    return (db.stamp(STOPPED), judging, -PROCESS_DEAD_SECONDS, -PROCESS_DEAD_SECONDS)


STOPPED = 0.0  # a process row's seen_at once it stopped (or was found dead at a start)
RATE_AT_ONCE = 200  # old matches rated a transaction at start: ~50 ms of openskill, which
# PostgreSQL's transactions run on the event loop
WATCHDOG_KIND = "watchdog"  # cogs.scheduler.TimerKind.WATCHDOG, as the timers table stores it


def claimable(db: Tx) -> str:
    """SQL over ``timers t``: a timer another process may claim now (parameters: the
    claimer, then ``dead_args``): one held by a dead process, whenever it is due (a
    watchdog over work that process will never finish), or one due that nobody holds."""
    return (
        f"((t.lease_owner IS NOT NULL AND t.lease_owner <> ? AND {_dead(db, 't.lease_owner')})"
        f" OR (t.due_at <= {db.NOW} AND (t.lease_until IS NULL OR t.lease_until < {db.NOW})))"
    )


_ACTIVE = _in(ACTIVE_STATUSES)
_SHOWDOWN_DUE = "status = 'scored' AND showdown_message_id IS NULL"  # a showdown to post
_STANDINGS_DUE = "status = 'finished'"  # a match's standings to post
# SQL over ``processes``: the process still holds a timer or a claim. Its row is kept so
# long: a claim whose owner has no row is no known dead one's and waits out its lease (a
# process that stopped with a showdown claimed, its row forgotten at the next start, left
# the showdown to nobody: the table's watchdog let go, the claim being "another's").
_HOLDS = (
    "(EXISTS (SELECT 1 FROM timers t WHERE t.lease_owner = processes.owner)"
    f" OR EXISTS (SELECT 1 FROM rounds WHERE {_SHOWDOWN_DUE}"
    " AND showdown_claim_owner = processes.owner)"
    f" OR EXISTS (SELECT 1 FROM matches WHERE {_STANDINGS_DUE}"
    " AND standings_claim_owner = processes.owner))"
)
_FINISHED = _in(FINISHED_STATUSES)
_SCORED = _in(SCORED_STATUSES)
_DEALT = _in(DEALT_STATUSES)

# A match's columns, then its seats' (the match id first); a round's, then its hands' (the
# round id first): as the builders (data/common.py) read them. Two statements each, not a
# join that would repeat the record's columns on each part's row.
_MATCH_ROWS = f"SELECT {_columns('m', MATCH_COLUMNS)} FROM matches m"
_SEAT_ROWS = f"SELECT s.match_id, {_columns('s', SEAT_COLUMNS)} FROM match_seats s"
_ROUND_ROWS = f"SELECT {_columns('r', ROUND_COLUMNS)} FROM rounds r"
_HAND_ROWS = f"SELECT h.round_id, {_columns('h', HAND_COLUMNS)} FROM hands h"
_ACTIVE_MATCH_OF_USER = (
    "SELECT m.id FROM match_seats s JOIN matches m ON m.id = s.match_id"
    f" WHERE s.user_id = ? AND m.status {_ACTIVE} ORDER BY m.id LIMIT 1"
)


def _leader_cte(since: bool) -> str:
    """Per-user totals of one guild (since a time, if ``since``) as a CTE named ``board``;
    its parameters are ``_leader_params``'."""
    score_time = " AND scored_at >= ?" if since else ""
    finish_time = " AND m.finished_at >= ?" if since else ""
    return (
        "WITH rev AS ("
        "  SELECT user_id, COUNT(*) AS reviewed, AVG(loss) AS loss FROM hand_reviews"
        f"  WHERE guild_id = ? AND counted = TRUE{score_time} GROUP BY user_id"
        "), pts AS ("
        "  SELECT user_id, SUM(points) AS points, SUM(sweeps_given) AS sweeps,"
        "   COUNT(*) AS rounds FROM round_scores"
        f"  WHERE guild_id = ? AND user_id IS NOT NULL{score_time} GROUP BY user_id"
        "), res AS ("
        "  SELECT s.user_id, COUNT(*) AS matches,"
        "   COUNT(*) FILTER (WHERE s.place = 1) AS wins"
        "  FROM matches m JOIN match_seats s ON s.match_id = m.id"
        f"  WHERE m.guild_id = ? AND m.status {_FINISHED} AND s.user_id IS NOT NULL{finish_time}"
        "  GROUP BY s.user_id"
        "), rat AS ("
        "  SELECT user_id, mu, sigma, rating, matches AS rated FROM ratings"
        "  WHERE guild_id = ? AND user_id IS NOT NULL"
        "), board AS ("
        "  SELECT u.user_id, COALESCE(pts.points, 0) AS points, COALESCE(res.wins, 0) AS wins,"
        "   COALESCE(res.matches, 0) AS matches, COALESCE(pts.sweeps, 0) AS sweeps,"
        "   COALESCE(pts.rounds, 0) AS rounds, COALESCE(rev.reviewed, 0) AS reviewed,"
        "   rev.loss AS loss, rat.mu, rat.sigma, rat.rating, COALESCE(rat.rated, 0) AS rated"
        "  FROM (SELECT user_id FROM pts UNION SELECT user_id FROM res) u"
        "  LEFT JOIN pts ON pts.user_id = u.user_id"
        "  LEFT JOIN res ON res.user_id = u.user_id"
        "  LEFT JOIN rev ON rev.user_id = u.user_id"
        "  LEFT JOIN rat ON rat.user_id = u.user_id"
        ") "
    )


def _finished_where(user_id: int | None) -> str:
    where = f"guild_id = ? AND status {_FINISHED}"
    if user_id is not None:
        where += " AND id IN (SELECT match_id FROM match_seats WHERE user_id = ?)"
    return where


# ---------------------------------------------------------------------- the repository


class SqlRepository(ABC):
    """``Repository``'s methods over a backend's ``_tx``."""

    UNIQUE_VIOLATION: type[Exception]  # the backend's error for a row a unique index refuses
    # One bot process per database (SQLite): a process that starts knows every other one in
    # the file is dead, and takes over what they held at once.
    one_process: ClassVar[bool]

    @abstractmethod
    async def _tx(
        self, body: Callable[[Tx], Awaitable[T]], *, read: bool = False, snapshot: bool = False
    ) -> T:
        """``body`` as one transaction, with the changes the running write declared; ``read``:
        a read of one statement, ``snapshot``: a read of several, on one snapshot."""

    @abstractmethod
    async def _timers_due_soon(self) -> None:
        """A timer due within TIMER_WAKE_SECONDS was set: wake the processes that watch."""

    # What a transaction read, for a backend that keeps copies of records.

    def _loaded(self, record: CachedRecord) -> None:  # noqa: B027
        """The running transaction read ``record``."""

    def _loaded_latest(self, match_id: int, round_id: int) -> None:  # noqa: B027
        """The running transaction found ``round_id`` to be the match's latest round."""

    # ------------------------------------------------------------------ loading records

    def _remember(self, found: list[R]) -> list[R]:
        for record in found:
            self._loaded(record)
        return found

    async def _load_matches(self, db: Tx, where: str, *args: Any) -> list[MatchRecord]:
        """The matches ``where`` picks (``m`` is ``matches``), then their seats: two
        statements, as rounds are loaded (``_load_rounds``)."""
        rows = await db.all(f"{_MATCH_ROWS} WHERE {where} ORDER BY m.id", *args)
        if not rows:
            return []
        seats = await db.all(
            f"{_SEAT_ROWS} WHERE s.match_id IN (SELECT m.id FROM matches m WHERE {where})"
            " ORDER BY s.match_id, s.seat",
            *args,
        )
        return self._remember(matches_with_seats(rows, seats, db.secs))

    async def _load_match(self, db: Tx, match_id: int) -> MatchRecord | None:
        found = await self._load_matches(db, "m.id = ?", match_id)
        return found[0] if found else None

    async def _load_rounds(self, db: Tx, where: str, *args: Any) -> list[RoundRecord]:
        """The rounds ``where`` picks (``r`` is ``rounds``), then their hands: two statements,
        so that a round's columns (its result's JSON among them) come once, not once a hand
        as from a join (which made loading a round the SQLite backend's largest cost)."""
        rows = await db.all(f"{_ROUND_ROWS} WHERE {where} ORDER BY r.number", *args)
        if not rows:
            return []
        ids = [r[0] for r in rows]
        hands = await db.all(
            f"{_HAND_ROWS} WHERE h.round_id IN ({_marks(len(ids))}) ORDER BY h.round_id, h.seat",
            *ids,
        )
        return self._remember(rounds_with_hands(rows, hands, db.secs))

    async def _load_round(self, db: Tx, round_id: int) -> RoundRecord | None:
        found = await self._load_rounds(db, "r.id = ?", round_id)
        return found[0] if found else None

    async def _latest_round_id(self, db: Tx, match_id: int) -> int | None:
        found = await db.value(
            "SELECT id FROM rounds WHERE match_id = ? ORDER BY number DESC LIMIT 1", match_id
        )
        return None if found is None else int(found)

    async def _load_current_round(self, db: Tx, match_id: int) -> RoundRecord | None:
        found = await self._load_rounds(
            db,
            "r.match_id = ? AND r.number = (SELECT MAX(number) FROM rounds WHERE match_id = ?)",
            match_id,
            match_id,
        )
        if not found:
            return None
        self._loaded_latest(match_id, found[0].id)
        return found[0]

    async def _load_settings(self, db: Tx, guild_id: int) -> GuildSettings:
        stored = await db.value("SELECT settings FROM guild_settings WHERE guild_id = ?", guild_id)
        settings = GuildSettings.from_stored(guild_id, from_json(stored))
        self._loaded(settings)
        return settings

    # ------------------------------------------------------------------ settings

    @reads
    async def guild_settings(self, guild_id: int) -> GuildSettings:
        return await self._tx(lambda db: self._load_settings(db, guild_id), read=True)

    @writes(Kind.SETTINGS.by("guild_id"))
    async def update_guild_settings(self, guild_id: int, **fields: Any) -> GuildSettings:
        clean = validate_guild_settings(fields)

        async def tx(db: Tx) -> GuildSettings:
            if clean:
                now = db.stamp(time.time())
                await db.run(
                    "INSERT INTO guild_settings (guild_id, updated_at) VALUES (?, ?)"
                    " ON CONFLICT (guild_id) DO NOTHING",
                    guild_id,
                    now,
                )
                stored = await db.value(
                    f"SELECT settings FROM guild_settings WHERE guild_id = ?{db.LOCK}", guild_id
                )
                await db.run(
                    "UPDATE guild_settings SET settings = ?, updated_at = ? WHERE guild_id = ?",
                    to_json(merge_guild_settings(from_json(stored), clean)),
                    now,
                    guild_id,
                )
            return await self._load_settings(db, guild_id)

        return await self._tx(tx)

    # ------------------------------------------------------------------ matches

    async def _remember_player(
        self, db: Tx, guild_id: int, user_id: int, name: str, now: float
    ) -> None:
        await db.run(
            "INSERT INTO players (guild_id, user_id, name, updated_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (guild_id, user_id) DO UPDATE SET"
            " name = excluded.name, updated_at = excluded.updated_at",
            guild_id,
            user_id,
            name,
            db.stamp(now),
        )

    async def _seats(self, db: Tx, match_id: int) -> set[int]:
        """The match's taken seats."""
        rows = await db.all("SELECT seat FROM match_seats WHERE match_id = ?", match_id)
        return {r[0] for r in rows}

    async def _seated(self, db: Tx, user_id: int) -> None:
        """Refuse a person who sits at a lobby or playing table already."""
        other = await db.value(_ACTIVE_MATCH_OF_USER, user_id)
        if other is not None:
            raise AlreadySeated(f"user {user_id} already sits at table #{other}")

    @writes(Kind.MATCH)  # a new one
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

        async def tx(db: Tx) -> MatchRecord:
            await db.lock_user(host_id)
            existing = await db.value(
                f"SELECT id FROM matches WHERE channel_id = ? AND status {_ACTIVE}", channel_id
            )
            if existing is not None:
                raise TableExists(f"channel {channel_id} already has table #{existing}")
            await self._seated(db, host_id)
            try:
                match_id = await db.insert(
                    "INSERT INTO matches (guild_id, channel_id, host_id, preset, options,"
                    " rounds_total, countdown, bot_level, timeout_action, seats_count, language,"
                    " status, created_at, lobby_expires_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'lobby', ?, ?)",
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
                    db.stamp(t),
                    db.stamp(lobby_expires_at),
                )
            except self.UNIQUE_VIOLATION as exc:  # the partial unique index (another process)
                raise TableExists(f"channel {channel_id} already has a table") from exc
            await db.run(
                "INSERT INTO match_seats (match_id, seat, user_id, name, is_bot, level, language)"
                " VALUES (?, 0, ?, ?, FALSE, NULL, ?)",
                match_id,
                host_id,
                host_name,
                host_lang,
            )
            await self._remember_player(db, guild_id, host_id, host_name, t)
            match = await self._load_match(db, match_id)
            assert match is not None
            return match

        return await self._tx(tx)

    @writes(Kind.MATCH.by("match_id"))
    async def set_lobby_message(self, match_id: int, message_id: int | None) -> None:
        async def tx(db: Tx) -> None:
            await db.run(
                "UPDATE matches SET lobby_message_id = ? WHERE id = ?", message_id, match_id
            )

        await self._tx(tx)

    async def _lobby(self, db: Tx, match_id: int) -> Row:
        """Lock the table; its row, if it is in its lobby (NotInLobby if not)."""
        row = await db.lock_match(match_id)
        if row is None:
            raise NotInLobby(f"table #{match_id} does not exist")
        if row["status"] != MatchStatus.LOBBY:
            raise NotInLobby(f"table #{match_id} is {row['status']}, not in its lobby")
        return row

    @writes(Kind.MATCH.by("match_id"))
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

        async def tx(db: Tx) -> MatchRecord:
            if user_id is not None:
                await db.lock_user(user_id)
            row = await self._lobby(db, match_id)
            if user_id is not None:
                await self._seated(db, user_id)
            taken = await self._seats(db, match_id)
            free = [s for s in range(row["seats_count"]) if s not in taken]
            if not free:
                raise TableFull(f"table #{match_id} is full ({row['seats_count']} seats)")
            await db.run(
                "INSERT INTO match_seats (match_id, seat, user_id, name, is_bot, level, language)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                match_id,
                free[0],
                user_id,
                name,
                user_id is None,
                level,
                lang,
            )
            if user_id is not None:
                await self._remember_player(db, row["guild_id"], user_id, name, t)
            match = await self._load_match(db, match_id)
            assert match is not None
            return match

        return await self._tx(tx)

    @writes(Kind.MATCH.by("match_id"))
    async def set_seat_language(self, match_id: int, user_id: int, language: str | None) -> bool:
        lang = seat_language(language)

        async def tx(db: Tx) -> bool:
            await db.hold_match(match_id)
            return 1 == await db.run(
                "UPDATE match_seats SET language = ? WHERE match_id = ? AND user_id = ?",
                lang,
                match_id,
                user_id,
            )

        return await self._tx(tx)

    @writes(Kind.MATCH.by("match_id"))
    async def remove_seat(self, match_id: int, user_id: int) -> MatchRecord:
        async def tx(db: Tx) -> MatchRecord:
            await self._lobby(db, match_id)
            removed = await db.run(
                "DELETE FROM match_seats WHERE match_id = ? AND user_id = ?", match_id, user_id
            )
            if not removed:
                raise NotSeated(f"user {user_id} has no seat at table #{match_id}")
            match = await self._load_match(db, match_id)
            assert match is not None
            return match

        return await self._tx(tx)

    async def _match_step(
        self, match_id: int, allowed: tuple[str, ...], sql: str, first: Any, *, time: bool
    ) -> bool:
        """Lock the match; if its status is one of ``allowed``, run ``sql`` (its parameters:
        ``first``, a time if ``time``, then the match id). True if it ran."""

        async def tx(db: Tx) -> bool:
            row = await db.lock_match(match_id)
            if row is None or row["status"] not in allowed:
                return False
            await db.run(sql, db.stamp(first) if time else first, match_id)
            return True

        return await self._tx(tx)

    @writes(Kind.MATCH.by("match_id"))
    async def start_match(self, match_id: int, *, now: float | None = None) -> bool:
        return await self._match_step(
            match_id,
            (MatchStatus.LOBBY,),
            "UPDATE matches SET status = 'playing', started_at = ? WHERE id = ?",
            now_or(now),
            time=True,
        )

    @writes(Kind.MATCH.by("match_id"))
    async def cancel_match(
        self, match_id: int, *, now: float | None = None, lobby_only: bool = False
    ) -> bool:
        return await self._match_step(
            match_id,
            (MatchStatus.LOBBY,) if lobby_only else ACTIVE_STATUSES,
            "UPDATE matches SET status = 'cancelled', finished_at = ? WHERE id = ?",
            now_or(now),
            time=True,
        )

    @writes(Kind.MATCH.by("match_id"), Kind.RATING)
    async def finish_match(
        self, match_id: int, places: dict[int, int], *, now: float | None = None
    ) -> bool:
        t = now_or(now)

        async def tx(db: Tx) -> bool:
            row = await db.lock_match(match_id)
            if row is None or row["status"] != MatchStatus.PLAYING:
                return False
            await db.run(
                "UPDATE matches SET status = 'finished', finished_at = ? WHERE id = ?",
                db.stamp(t),
                match_id,
            )
            for seat, place in places.items():
                if not await db.run(
                    "UPDATE match_seats SET place = ? WHERE match_id = ? AND seat = ?",
                    int(place),
                    match_id,
                    int(seat),
                ):
                    raise ValueError(f"table #{match_id} has no seat {seat}")
            await db.run(
                "INSERT INTO rating_queue (match_id, guild_id) VALUES (?, ?)",
                match_id,
                row["guild_id"],
            )
            await self._rate_pending(db, row["guild_id"], t)
            return True

        return await self._tx(tx)

    async def _claim(
        self,
        table: str,
        post: str,
        key: int,
        owner: str,
        lease: float,
        where: str,
        judging: bool,
    ) -> Claimed:
        """Hold ``table``'s row ``key`` for ``owner`` (``post``: the claim's columns,
        ``{post}_claim_until`` and ``{post}_claim_owner``) if ``where`` holds and nobody else
        holds it: no claim, one whose time ran out, or one of a dead process (``judging``:
        as ``dead_args``). Renewed by the owner's ``heartbeat``. Whether this caller got it,
        and whether from another holder (whose post may have landed unstored)."""
        until, holder = f"{post}_claim_until", f"{post}_claim_owner"

        async def tx(db: Tx) -> Claimed:
            before = await db.value(f"SELECT {holder} FROM {table} WHERE id = ?{db.LOCK}", key)
            got = await db.run(
                f"UPDATE {table} SET {until} = {db.LATER}, {holder} = ? WHERE id = ? AND {where}"
                f" AND ({until} IS NULL OR {until} < {db.NOW} OR {_dead(db, f'{table}.{holder}')})",
                float(lease),
                owner,
                key,
                *dead_args(db, judging),
            )
            if got != 1:
                return Claimed.NO
            return Claimed.FRESH if before is None else Claimed.AFTER_ANOTHER

        return await self._tx(tx)

    async def _holds(self, table: str, post: str, key: int, owner: str, where: str) -> bool:
        """Whether ``owner`` still holds ``table``'s claim ``post`` on row ``key`` while
        ``where`` holds (nobody took it over, it is not posted yet)."""
        found = await self._tx(
            lambda db: db.value(
                f"SELECT 1 FROM {table} WHERE id = ? AND {post}_claim_owner = ? AND {where}",
                key,
                owner,
            ),
            read=True,
        )
        return found is not None

    async def _release(self, table: str, post: str, key: int, owner: str) -> None:
        """The claim runs out now; its owner stays named, so the next claim is taken
        after another's (its post may have landed before the failure: the chaos run's
        showdowns and standings posted twice, their marks failing on a full disk)."""

        async def tx(db: Tx) -> None:
            await db.run(
                f"UPDATE {table} SET {post}_claim_until = NULL"
                f" WHERE id = ? AND {post}_claim_owner = ?",
                key,
                owner,
            )

        await self._tx(tx)

    @writes(Kind.CLAIM)
    async def claim_standings(
        self, match_id: int, lease: float, *, owner: str, judging: bool = True
    ) -> Claimed:
        return await self._claim(
            "matches", "standings", match_id, owner, lease, _STANDINGS_DUE, judging
        )

    @reads
    async def holds_standings(self, match_id: int, *, owner: str) -> bool:
        return await self._holds("matches", "standings", match_id, owner, _STANDINGS_DUE)

    @writes(Kind.CLAIM)
    async def release_standings(self, match_id: int, *, owner: str) -> None:
        await self._release("matches", "standings", match_id, owner)

    @writes(Kind.MATCH.by("match_id"))
    async def mark_standings_posted(self, match_id: int, message_id: int | None) -> bool:
        return await self._match_step(
            match_id,
            (MatchStatus.FINISHED,),
            "UPDATE matches SET status = 'ended', standings_message_id = ?,"
            " standings_claim_until = NULL WHERE id = ?",
            message_id,
            time=False,
        )

    @reads
    async def get_match(self, match_id: int) -> MatchRecord | None:
        return await self._tx(lambda db: self._load_match(db, match_id), read=True)

    @reads
    async def active_match_in_channel(self, channel_id: int) -> MatchRecord | None:
        found = await self._tx(
            lambda db: self._load_matches(
                db, f"m.channel_id = ? AND m.status {_ACTIVE}", channel_id
            ),
            read=True,
        )
        return found[0] if found else None

    @reads
    async def active_match_of_user(self, user_id: int) -> MatchRecord | None:
        found = await self._tx(
            lambda db: self._load_matches(db, f"m.id = ({_ACTIVE_MATCH_OF_USER})", user_id),
            read=True,
        )
        return found[0] if found else None

    @reads
    async def active_matches(self) -> list[MatchRecord]:
        return await self._tx(lambda db: self._load_matches(db, f"m.status {_ACTIVE}"), read=True)

    @reads
    async def unfinished_matches(self) -> list[MatchRecord]:
        where = f"m.status {_in(UNFINISHED_STATUSES)}"
        return await self._tx(lambda db: self._load_matches(db, where), read=True)

    # ------------------------------------------------------------------ rounds

    @writes(Kind.LATEST_ROUND.by("match_id"))  # and a new round
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
        dealt = [(int(seat), cards_text(cards)) for seat, cards in sorted(hands.items())]

        async def tx(db: Tx) -> RoundRecord:
            row = await db.lock_match(match_id)
            round_id = await db.value(
                "SELECT id FROM rounds WHERE match_id = ? AND number = ?", match_id, number
            )
            if round_id is None:
                if row is None or row["status"] != MatchStatus.PLAYING:
                    state = "does not exist" if row is None else f"is {row['status']}"
                    raise NotPlaying(f"table #{match_id} {state}: no round can start")
                unknown = sorted(set(hands) - await self._seats(db, match_id))
                if unknown:
                    raise ValueError(f"table #{match_id} has no seat(s) {unknown}")
                round_id = await db.insert(
                    "INSERT INTO rounds (match_id, number, seed, deadline, status, created_at)"
                    f" VALUES (?, ?, ?, ?, '{RoundStatus.DEALING}', ?)",
                    match_id,
                    number,
                    str(int(seed)),
                    db.stamp(float(deadline)),
                    db.stamp(t),
                )
                await db.many(
                    "INSERT INTO hands (round_id, seat, cards) VALUES (?, ?, ?)",
                    [(round_id, seat, cards) for seat, cards in dealt],
                )
            record = await self._load_round(db, round_id)
            assert record is not None
            return record

        return await self._tx(tx)

    @reads
    async def current_round(self, match_id: int) -> RoundRecord | None:
        return await self._tx(lambda db: self._load_current_round(db, match_id), read=True)

    @reads
    async def get_round(self, round_id: int) -> RoundRecord | None:
        return await self._tx(lambda db: self._load_round(db, round_id), read=True)

    async def _round_step(self, round_id: int, sql: str, *args: Any) -> bool:
        """Lock the round's table and run ``sql``; True if it changed the round."""

        async def tx(db: Tx) -> bool:
            await db.hold_match_of_round(round_id)
            return 1 == await db.run(sql, *args)

        return await self._tx(tx)

    @writes(Kind.ROUND.by("round_id"))
    async def set_round_deadline(self, round_id: int, deadline: float) -> bool:
        async def tx(db: Tx) -> bool:
            await db.hold_match_of_round(round_id)
            return 1 == await db.run(
                "UPDATE rounds SET deadline = ? WHERE id = ? AND status IN ('dealing', 'open')",
                db.stamp(float(deadline)),
                round_id,
            )

        return await self._tx(tx)

    @writes(Kind.ROUND.by("round_id"))
    async def mark_round_open(self, round_id: int) -> bool:
        return await self._round_step(
            round_id,
            "UPDATE rounds SET status = 'open' WHERE id = ? AND status = 'dealing'",
            round_id,
        )

    @writes(Kind.ROUND.by("round_id"))
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
        if sets:
            assignments = ", ".join(f"{k} = ?" for k in sets)
            sql = f"UPDATE rounds SET {assignments} WHERE id = ?"
            await self._round_step(round_id, sql, *sets.values(), round_id)

    @writes(Kind.ROUND.by("round_id"))
    async def set_dm_message(
        self, round_id: int, seat: int, channel_id: int | None, message_id: int | None
    ) -> None:
        await self._round_step(
            round_id,
            "UPDATE hands SET dm_channel_id = ?, dm_message_id = ? WHERE round_id = ? AND seat = ?",
            channel_id,
            message_id,
            round_id,
            seat,
        )

    @writes(Kind.ROUND.by("round_id"))
    async def mark_dm_refused(self, round_id: int, seat: int) -> None:
        await self._round_step(
            round_id,
            "UPDATE hands SET dm_refused = TRUE, dm_channel_id = NULL, dm_message_id = NULL"
            " WHERE round_id = ? AND seat = ?",
            round_id,
            seat,
        )

    @writes(Kind.DM_CHANNEL)
    async def remember_dm_channel(self, user_id: int, channel_id: int) -> None:
        async def tx(db: Tx) -> None:
            await db.run(
                "INSERT INTO dm_channels (user_id, channel_id, opened_at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET"
                " channel_id = excluded.channel_id, opened_at = excluded.opened_at",
                user_id,
                channel_id,
                db.stamp(time.time()),
            )

        await self._tx(tx)

    @reads
    async def dm_channel_of(self, user_id: int) -> int | None:
        return await self._tx(
            lambda db: db.value("SELECT channel_id FROM dm_channels WHERE user_id = ?", user_id),
            read=True,
        )

    @writes(Kind.TOKEN)
    async def keep_channel_token(self, channel_id: int, token: str, expires_at: float) -> None:
        async def tx(db: Tx) -> None:
            await db.run(f"DELETE FROM message_tokens WHERE expires_at <= {db.NOW}")
            await db.run(
                "INSERT INTO channel_tokens (channel_id, token, expires_at) VALUES (?, ?, ?)"
                " ON CONFLICT (channel_id) DO UPDATE SET"
                " token = excluded.token, expires_at = excluded.expires_at"
                " WHERE excluded.expires_at >= channel_tokens.expires_at",
                channel_id,
                token,
                db.stamp(float(expires_at)),
            )

        await self._tx(tx)

    @reads
    async def channel_token(self, channel_id: int) -> tuple[str, float] | None:
        async def tx(db: Tx) -> tuple[str, float] | None:
            row = await db.one(
                "SELECT token, expires_at FROM channel_tokens"
                f" WHERE channel_id = ? AND expires_at > {db.NOW}",
                channel_id,
            )
            expires = None if row is None else db.secs(row[1])
            return None if row is None or expires is None else (str(row[0]), expires)

        return await self._tx(tx, read=True)

    @writes(Kind.TOKEN)
    async def keep_message_token(self, message_id: int, token: str, expires_at: float) -> None:
        async def tx(db: Tx) -> None:
            await db.run(
                "INSERT INTO message_tokens (message_id, token, expires_at) VALUES (?, ?, ?)"
                " ON CONFLICT (message_id) DO UPDATE SET"
                " token = excluded.token, expires_at = excluded.expires_at",
                message_id,
                token,
                db.stamp(float(expires_at)),
            )

        await self._tx(tx)

    @reads
    async def message_token(self, message_id: int) -> str | None:
        return await self._tx(
            lambda db: db.value(
                f"SELECT token FROM message_tokens WHERE message_id = ? AND expires_at > {db.NOW}",
                message_id,
            ),
            read=True,
        )

    @writes(Kind.ROUND.by("round_id"))
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
        surrendered: bool = False,
        now: float | None = None,
    ) -> bool:
        rows = {"back": back, "middle": middle, "front": front}
        texts = {name: cards_text(cards) for name, cards in rows.items()}
        check_surrender(surrendered, texts, declare, fouled)
        t = now_or(now)

        async def tx(db: Tx) -> bool:
            await db.hold_match_of_round(round_id)
            row = await db.one(
                "SELECT h.cards, h.submitted_at, r.status, m.preset, m.options FROM hands h"
                " JOIN rounds r ON r.id = h.round_id JOIN matches m ON m.id = r.match_id"
                " WHERE h.round_id = ? AND h.seat = ?",
                round_id,
                seat,
            )
            if row is None or row["status"] not in DEALT_STATUSES:
                return False
            if row["submitted_at"] is not None:
                return False
            check_setting(texts, cards_tuple(row["cards"]) or ())
            if surrendered:
                check_surrender_allowed(row["preset"], from_json(row["options"]))
            return 1 == await db.run(
                "UPDATE hands SET back = ?, middle = ?, front = ?, declare = ?, fouled = ?,"
                " auto = ?, arranged = ?, surrendered = ?, submitted_at = ?"
                " WHERE round_id = ? AND seat = ? AND submitted_at IS NULL",
                texts["back"],
                texts["middle"],
                texts["front"],
                declare,
                bool(fouled),
                bool(auto),
                bool(arranged),
                bool(surrendered),
                db.stamp(t),
                round_id,
                seat,
            )

        return await self._tx(tx)

    @writes(Kind.ROUND.by("round_id"))
    async def score_round(
        self,
        round_id: int,
        result: dict[str, Any],
        scores: list[RoundScore],
        now: float | None = None,
    ) -> bool:
        t = now_or(now)
        result_text = to_json(result)
        check_scores_seats([s.seat for s in scores])
        best_rows = [to_json(s.best_row) for s in scores]  # (a bad one fails before writing)

        async def tx(db: Tx) -> bool:
            match = await db.lock_match_of_round(round_id)
            # The guard: only a dealt round of a playing match flips to 'scored', once.
            if match is None or match["status"] != MatchStatus.PLAYING:
                return False
            flipped = await db.run(
                "UPDATE rounds SET status = 'scored', result = ?, scored_at = ?"
                f" WHERE id = ? AND status {_DEALT}",
                result_text,
                db.stamp(t),
                round_id,
            )
            if flipped != 1:
                return False
            seats = await db.all(
                "SELECT h.seat, s.user_id FROM hands h"
                " LEFT JOIN match_seats s ON s.match_id = ? AND s.seat = h.seat"
                " WHERE h.round_id = ?",
                match["id"],
                round_id,
            )
            users = {r[0]: r[1] for r in seats}
            missing = [s.seat for s in scores if s.seat not in users]
            if missing:
                raise ValueError(f"round {round_id} has no hand for seat {missing[0]}")
            await db.many(
                "UPDATE hands SET points = ?, fouled = (fouled OR ?)"
                " WHERE round_id = ? AND seat = ?",
                [(float(s.points), bool(s.fouled), round_id, s.seat) for s in scores],
            )
            await db.many(
                "INSERT INTO round_scores (round_id, seat, match_id, guild_id, user_id,"
                " points, fouled, special, sweeps_given, sweeps_taken, table_sweep,"
                " best_strength, best_row, scored_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        round_id,
                        s.seat,
                        match["id"],
                        match["guild_id"],
                        users[s.seat],
                        float(s.points),
                        bool(s.fouled),
                        s.special,
                        int(s.sweeps_given),
                        int(s.sweeps_taken),
                        bool(s.table_sweep),
                        _strength(s.best_row),
                        best_row,
                        db.stamp(t),
                    )
                    for s, best_row in zip(scores, best_rows, strict=True)
                ],
            )
            return True

        return await self._tx(tx)

    @writes(Kind.ROUND.by("round_id"))
    async def mark_showdown_posted(self, round_id: int, message_id: int | None) -> bool:
        return await self._round_step(
            round_id,
            "UPDATE rounds SET status = 'shown',"
            " showdown_message_id = COALESCE(?, showdown_message_id),"
            " showdown_claim_until = NULL WHERE id = ? AND status = 'scored'",
            message_id,
            round_id,
        )

    @writes(Kind.CLAIM)
    async def claim_showdown(
        self, round_id: int, lease: float, *, owner: str, judging: bool = True
    ) -> Claimed:
        return await self._claim(
            "rounds", "showdown", round_id, owner, lease, _SHOWDOWN_DUE, judging
        )

    @reads
    async def holds_showdown(self, round_id: int, *, owner: str) -> bool:
        return await self._holds("rounds", "showdown", round_id, owner, _SHOWDOWN_DUE)

    @writes(Kind.CLAIM)
    async def release_showdown(self, round_id: int, *, owner: str) -> None:
        await self._release("rounds", "showdown", round_id, owner)

    @reads
    async def completed_rounds(self, match_id: int) -> list[RoundRecord]:
        where = f"r.match_id = ? AND r.status {_SCORED}"
        return await self._tx(lambda db: self._load_rounds(db, where, match_id), read=True)

    @reads
    async def match_totals(self, match_id: int) -> dict[int, float]:
        rows = await self._tx(
            lambda db: db.all(
                "SELECT s.seat, COALESCE(SUM(rs.points), 0) FROM match_seats s"
                " LEFT JOIN round_scores rs ON rs.match_id = s.match_id AND rs.seat = s.seat"
                " WHERE s.match_id = ? GROUP BY s.seat ORDER BY s.seat",
                match_id,
            ),
            read=True,
        )
        return {r[0]: float(r[1]) for r in rows}

    # ------------------------------------------------------------------ stats

    @reads
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
        since = period_start(period_days, now)

        async def tx(db: Tx) -> Sequence[Row]:
            return await db.all(
                _leader_cte(since is not None)
                + "SELECT b.*, COALESCE(pl.name, '') AS name FROM board b"
                " LEFT JOIN players pl ON pl.guild_id = ? AND pl.user_id = b.user_id"
                f"{ranked_where(sort)} ORDER BY {LEADER_ORDER[sort]} LIMIT ? OFFSET ?",
                *_leader_params(db, guild_id, since),
                guild_id,
                max(0, int(limit)),
                max(0, int(offset)),
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
                rating=None
                if r["mu"] is None
                else Rating(float(r["mu"]), float(r["sigma"]), int(r["rated"])),
            )
            for r in await self._tx(tx, read=True)
        ]

    @reads
    async def leaderboard_count(
        self,
        guild_id: int,
        period_days: int | None = None,
        now: float | None = None,
        sort: str = "points",
    ) -> int:
        check_sort(sort)
        since = period_start(period_days, now)
        sql = _leader_cte(since is not None) + f"SELECT COUNT(*) FROM board b{ranked_where(sort)}"
        count = await self._tx(
            lambda db: db.value(sql, *_leader_params(db, guild_id, since)), read=True
        )
        return int(count or 0)

    @reads
    async def player_stats(self, guild_id: int, user_id: int) -> PlayerStats:
        where = "guild_id = ? AND user_id = ?"
        key = (guild_id, user_id)

        async def tx(db: Tx) -> tuple[Any, ...]:
            agg = await db.one(
                "SELECT COUNT(*) AS rounds, COALESCE(SUM(points), 0) AS points,"
                " COALESCE(SUM(sweeps_given), 0) AS sweeps_given,"
                " COALESCE(SUM(sweeps_taken), 0) AS sweeps_taken,"
                " COUNT(*) FILTER (WHERE table_sweep = TRUE) AS table_sweeps,"
                f" COUNT(*) FILTER (WHERE fouled = TRUE) AS fouls FROM round_scores WHERE {where}",
                *key,
            )
            specials = await db.all(
                f"SELECT special, COUNT(*) FROM round_scores WHERE {where}"
                " AND special IS NOT NULL GROUP BY special ORDER BY special",
                *key,
            )
            best = await db.value(
                f"SELECT best_row FROM round_scores WHERE {where} AND best_strength IS NOT NULL"
                " ORDER BY best_strength DESC, scored_at ASC, round_id ASC LIMIT 1",
                *key,
            )
            res = await db.one(
                "SELECT COUNT(*) AS matches, COUNT(*) FILTER (WHERE s.place = 1) AS wins"
                " FROM matches m JOIN match_seats s ON s.match_id = m.id"
                f" WHERE m.guild_id = ? AND m.status {_FINISHED} AND s.user_id = ?",
                *key,
            )
            coach = await db.one(
                "SELECT COUNT(*) FILTER (WHERE counted = TRUE) AS reviewed,"
                " AVG(loss) FILTER (WHERE counted = TRUE) AS loss_all,"
                " COUNT(*) FILTER (WHERE counted = FALSE) AS uncounted,"
                " (SELECT AVG(loss) FROM (SELECT loss FROM hand_reviews"
                f"   WHERE {where} AND counted = TRUE"
                "   ORDER BY scored_at DESC, round_id DESC LIMIT ?) recent) AS loss_recent"
                f" FROM hand_reviews WHERE {where}",
                *key,
                RECENT_REVIEWS,
                *key,
            )
            rated = await db.one(
                "SELECT mu, sigma, matches FROM ratings WHERE guild_id = ? AND player = ?",
                guild_id,
                RatedPlayer.member(user_id).key,
            )
            change = await db.value(
                "SELECT rating_after - rating_before FROM rating_changes"
                f" WHERE {where} ORDER BY seq DESC LIMIT 1",
                *key,
            )
            return agg, specials, best, res, coach, rated, change

        agg, specials, best, res, coach, rated, change = await self._tx(tx, snapshot=True)
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
            rating=None
            if rated is None
            else Rating(float(rated["mu"]), float(rated["sigma"]), int(rated["matches"])),
            rating_change=None if change is None else float(change),
        )

    # ------------------------------------------------------------------ the coach

    @writes(Kind.REVIEW)
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
        t = now_or(now)

        async def tx(db: Tx) -> bool:
            return 1 == await db.run(
                "INSERT INTO hand_reviews (round_id, seat, match_id, guild_id, user_id, loss,"
                " counted, review, scored_at, reviewed_at)"
                " SELECT r.id, s.seat, m.id, m.guild_id, s.user_id, ?, ?, ?, r.scored_at, ?"
                " FROM rounds r JOIN matches m ON m.id = r.match_id"
                " JOIN match_seats s ON s.match_id = m.id AND s.seat = ?"
                f" WHERE r.id = ? AND r.status {_SCORED} AND s.user_id IS NOT NULL"
                " ON CONFLICT (round_id, seat) DO NOTHING",
                max(0.0, float(loss)),
                bool(counted),
                text,
                db.stamp(t),
                seat,
                round_id,
            )

        return await self._tx(tx)

    @reads
    async def hand_review(self, round_id: int, seat: int) -> dict[str, Any] | None:
        text = await self._tx(
            lambda db: db.value(
                "SELECT review FROM hand_reviews WHERE round_id = ? AND seat = ?", round_id, seat
            ),
            read=True,
        )
        return from_json(text)

    @reads
    async def unreviewed_hands(self, since: float, limit: int = 200) -> list[tuple[int, int]]:
        rows = await self._tx(
            lambda db: db.all(
                "SELECT h.round_id, h.seat FROM hands h JOIN rounds r ON r.id = h.round_id"
                " JOIN match_seats s ON s.match_id = r.match_id AND s.seat = h.seat"
                f" WHERE r.status {_SCORED} AND r.scored_at >= ? AND s.user_id IS NOT NULL"
                " AND NOT EXISTS (SELECT 1 FROM hand_reviews v"
                "  WHERE v.round_id = h.round_id AND v.seat = h.seat)"
                " ORDER BY r.scored_at, h.round_id, h.seat LIMIT ?",
                db.stamp(since),
                max(0, int(limit)),
            ),
            read=True,
        )
        return [(int(r[0]), int(r[1])) for r in rows]

    # ------------------------------------------------------------------ preferences

    async def _load_preferences(self, db: Tx, user_id: int) -> Preferences:
        row = await db.one(
            "SELECT language, deck, hands FROM preferences WHERE user_id = ?", user_id
        )
        if row is None:
            preferences = Preferences(user_id)
        else:
            preferences = Preferences(
                user_id, row["language"], DeckStyle(row["deck"]), HandsIn(row["hands"])
            )
        self._loaded(preferences)
        return preferences

    @reads
    async def preferences(self, user_id: int) -> Preferences:
        return await self._tx(lambda db: self._load_preferences(db, user_id), read=True)

    @writes(Kind.PREFERENCES.by("user_id"))
    async def update_preferences(self, user_id: int, **fields: Any) -> Preferences:
        clean = validate_preferences(fields)

        async def tx(db: Tx) -> Preferences:
            if clean:
                names = [*clean, "updated_at"]
                await db.run(
                    f"INSERT INTO preferences (user_id, {', '.join(names)})"
                    f" VALUES (?, {_marks(len(names))}) ON CONFLICT (user_id) DO UPDATE SET "
                    + ", ".join(f"{n} = excluded.{n}" for n in names),
                    user_id,
                    *(str(v) if v is not None else None for v in clean.values()),
                    db.stamp(time.time()),
                )
            return await self._load_preferences(db, user_id)

        return await self._tx(tx)

    # ------------------------------------------------------------------ timers

    @writes(Kind.TIMER)
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
        owner: str | None = None,
    ) -> bool:
        conflict = timer_conflict(if_absent, owner is not None)

        async def tx(db: Tx) -> int:
            return await db.run(
                "INSERT INTO timers"
                " (match_id, kind, arg, due_at, lease_until, lease_owner, version)"
                f" SELECT id, ?, ?, {db.LATER}, {db.LATER}, ?, ? FROM matches WHERE id = ?"
                f" ON CONFLICT (match_id, kind) {conflict}",
                kind,
                int(arg),
                max(0.0, float(delay)),
                None if holder is None else float(lease),  # NULL: not held
                holder,
                secrets.randbits(62),  # a new version (timer_conflict)
                match_id,
                *(() if owner is None else (owner,)),
            )

        changed = await self._tx(tx)
        if changed and delay < TIMER_WAKE_SECONDS:
            await self._timers_due_soon()
        return changed == 1

    @writes(Kind.TIMER)
    async def cancel_timers(
        self,
        match_id: int,
        kinds: tuple[str, ...] | None = None,
        arg: int | None = None,
        *,
        holder: str | None = None,
    ) -> None:
        where = "match_id = ?"
        params: list[Any] = [match_id]
        if kinds is not None:
            where += f" AND kind IN ({_marks(len(kinds))})"
            params += list(kinds)
        if arg is not None:
            where += " AND arg = ?"
            params.append(arg)
        if holder is not None:
            where += " AND lease_owner = ?"
            params.append(holder)

        async def tx(db: Tx) -> None:
            await db.run(f"DELETE FROM timers WHERE {where}", *params)

        await self._tx(tx)

    @writes(Kind.PROCESS, Kind.TIMER, Kind.CLAIM)
    async def heartbeat(self, owner: str, lease: float) -> None:
        async def tx(db: Tx) -> None:
            await self._seen(db, owner, "")
            for sql in (
                "UPDATE timers SET lease_until = {later} WHERE lease_owner = ?"
                " AND lease_until >= {now}",
                "UPDATE rounds SET showdown_claim_until = {later} WHERE showdown_claim_owner = ?"
                " AND showdown_claim_until >= {now} AND status = 'scored'",
                "UPDATE matches SET standings_claim_until = {later}"
                " WHERE standings_claim_owner = ? AND standings_claim_until >= {now}"
                " AND status = 'finished'",
            ):
                await db.run(sql.format(later=db.LATER, now=db.NOW), float(lease), owner)

        await self._tx(tx)

    async def _seen(self, db: Tx, owner: str, shards: str) -> None:
        """``owner`` lives: its row, seen now (made if missing, its shards kept if given
        none)."""
        await db.run(
            "INSERT INTO processes (owner, shards, started_at, seen_at)"
            f" VALUES (?, ?, {db.NOW}, {db.NOW}) ON CONFLICT (owner) DO UPDATE SET"
            " seen_at = excluded.seen_at, shards = CASE WHEN excluded.shards = ''"
            " THEN processes.shards ELSE excluded.shards END",
            owner,
            shards,
        )

    @writes(Kind.PROCESS)
    async def start_process(self, owner: str, shards: str) -> None:
        async def tx(db: Tx) -> None:
            await db.run(  # long dead (one that stopped: at once), holding nothing: forgotten
                f"DELETE FROM processes WHERE seen_at < {db.LATER} AND NOT {_HOLDS}",
                -PROCESSES_KEPT_SECONDS,
            )
            if self.one_process:  # every other process of this database is dead
                await db.run(
                    "UPDATE processes SET seen_at = ? WHERE owner <> ?", db.stamp(STOPPED), owner
                )
                # and so is the work each watchdog watched: it is due now, not once the
                # WATCHDOG_SECONDS its dead process gave itself have run out
                await db.run(
                    f"UPDATE timers SET due_at = {db.NOW} WHERE kind = ? AND due_at > {db.NOW}",
                    WATCHDOG_KIND,
                )
            await self._seen(db, owner, shards)

        await self._tx(tx)

    @writes(Kind.PROCESS)
    async def stop_process(self, owner: str) -> None:
        await self._tx(
            lambda db: db.run(
                "UPDATE processes SET seen_at = ? WHERE owner = ?", db.stamp(STOPPED), owner
            )
        )

    @reads
    async def live_processes(self) -> list[ProcessRecord]:
        async def tx(db: Tx) -> list[ProcessRecord]:
            rows = await db.all(
                "SELECT owner, shards, started_at, seen_at FROM processes"
                f" WHERE seen_at >= {db.LATER} ORDER BY started_at, owner",
                -PROCESS_DEAD_SECONDS,
            )
            return [
                ProcessRecord(
                    owner=r["owner"],
                    shards=r["shards"],
                    started_at=db.secs(r["started_at"]) or 0.0,
                    seen_at=db.secs(r["seen_at"]) or 0.0,
                )
                for r in rows
            ]

        return await self._tx(tx, read=True)

    @writes(Kind.TIMER)
    async def finish_timer(self, match_id: int, kind: str, version: int, *, owner: str) -> None:
        async def tx(db: Tx) -> None:
            await db.run(
                "DELETE FROM timers WHERE match_id = ? AND kind = ? AND version = ?"
                " AND lease_owner = ?",
                match_id,
                kind,
                version,
                owner,
            )

        await self._tx(tx)

    @writes(Kind.TIMER)
    async def retry_timer(
        self, match_id: int, kind: str, version: int, delay: float, *, owner: str
    ) -> None:
        async def tx(db: Tx) -> None:
            await db.run(
                f"UPDATE timers SET due_at = {db.LATER}, attempts = attempts + 1,"
                " lease_until = NULL, lease_owner = NULL"
                " WHERE match_id = ? AND kind = ? AND version = ? AND lease_owner = ?",
                max(0.0, float(delay)),
                match_id,
                kind,
                version,
                owner,
            )

        await self._tx(tx)

    @reads
    async def holds_timer(self, match_id: int, kind: str, *, owner: str) -> bool:
        found = await self._tx(
            lambda db: db.value(
                "SELECT 1 FROM timers WHERE match_id = ? AND kind = ? AND lease_owner = ?",
                match_id,
                kind,
                owner,
            ),
            read=True,
        )
        return found is not None

    @reads
    async def timers_of(self, match_id: int) -> list[TimerRecord]:
        rows = await self._tx(
            lambda db: db.all("SELECT * FROM timers WHERE match_id = ? ORDER BY kind", match_id),
            read=True,
        )
        return [timer_record(r) for r in rows]

    # ------------------------------------------------------------------ history

    @reads
    async def finished_matches(
        self, guild_id: int, user_id: int | None = None, limit: int = 10, offset: int = 0
    ) -> list[MatchSummary]:
        where = _finished_where(user_id)
        params = [guild_id] if user_id is None else [guild_id, user_id]

        async def tx(db: Tx) -> list[MatchSummary]:
            ids = [
                r[0]
                for r in await db.all(
                    f"SELECT id FROM matches WHERE {where}"
                    " ORDER BY finished_at DESC, id DESC LIMIT ? OFFSET ?",
                    *params,
                    max(0, int(limit)),
                    max(0, int(offset)),
                )
            ]
            if not ids:
                return []
            marks = _marks(len(ids))
            by_id = {m.id: m for m in await self._load_matches(db, f"m.id IN ({marks})", *ids)}
            sums: dict[int, list[tuple[int, float]]] = {i: [] for i in ids}
            for r in await db.all(
                "SELECT match_id, seat, SUM(points) FROM round_scores"
                f" WHERE match_id IN ({marks}) GROUP BY match_id, seat",
                *ids,
            ):
                sums[r[0]].append((r[1], r[2]))
            return [match_summary(by_id[i], sums[i]) for i in ids]

        return await self._tx(tx, snapshot=True)

    @reads
    async def finished_matches_count(self, guild_id: int, user_id: int | None = None) -> int:
        sql = f"SELECT COUNT(*) FROM matches WHERE {_finished_where(user_id)}"
        params = [guild_id] if user_id is None else [guild_id, user_id]
        return int(await self._tx(lambda db: db.value(sql, *params), read=True) or 0)

    # ------------------------------------------------------------------ ratings

    async def _rate_pending(
        self, db: Tx, guild_id: int, now: float, limit: int | None = None
    ) -> int:
        """Rate the server's matches in ``rating_queue`` (finished, not rated yet), in the
        order they finished, with capsa.rating, store them as rated and take them off the
        queue: the server's row in ``rating_guilds`` is locked first, so its matches are
        rated one at a time, each once. ``limit``: at most that many, the first to finish.
        How many it rated."""
        await db.run(
            "INSERT INTO rating_guilds (guild_id) VALUES (?) ON CONFLICT (guild_id) DO NOTHING",
            guild_id,
        )
        seq = int(
            await db.value(f"SELECT rated FROM rating_guilds WHERE guild_id = ?{db.LOCK}", guild_id)
        )
        rows = await db.all(
            "SELECT m.id, s.user_id, COALESCE(s.level, m.bot_level) AS level, s.place"
            " FROM rating_queue q JOIN matches m ON m.id = q.match_id"
            " JOIN match_seats s ON s.match_id = m.id"
            " WHERE q.guild_id = ?"
            + (
                ""
                if limit is None
                else " AND q.match_id IN (SELECT f.match_id FROM rating_queue f"
                " JOIN matches fm ON fm.id = f.match_id WHERE f.guild_id = ?"
                " ORDER BY fm.finished_at, fm.id LIMIT ?)"
            )
            + " ORDER BY m.finished_at, m.id, s.seat",
            guild_id,
            *(() if limit is None else (guild_id, limit)),
        )
        pending: dict[int, list[Placing]] = {}  # in the order they finished
        for r in rows:
            placings = pending.setdefault(r["id"], [])
            if r["place"] is not None:
                placings.append(Placing(_rated_player(r["user_id"], r["level"]), int(r["place"])))
        if not pending:
            return 0
        ratings = await self._load_ratings(
            db, guild_id, {p.player for placings in pending.values() for p in placings}
        )
        for match_id, placings in pending.items():
            seq += 1
            after = rate_match(ratings, placings)
            await db.many(
                "INSERT INTO rating_changes (match_id, player, guild_id, user_id, seq,"
                " rating_before, rating_after) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        match_id,
                        player.key,
                        guild_id,
                        player.user_id,
                        seq,
                        ratings.get(player, Rating()).conservative,
                        rating.conservative,
                    )
                    for player, rating in after.items()
                ],
            )
            await db.many(
                "INSERT INTO ratings (guild_id, player, user_id, mu, sigma, rating, matches)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, player) DO UPDATE SET"
                " mu = excluded.mu, sigma = excluded.sigma, rating = excluded.rating,"
                " matches = excluded.matches",
                [
                    (
                        guild_id,
                        player.key,
                        player.user_id,
                        rating.mu,
                        rating.sigma,
                        rating.conservative,
                        rating.matches,
                    )
                    for player, rating in after.items()
                ],
            )
            await db.run(
                "INSERT INTO rated_matches (match_id, guild_id, seq, rated_at) VALUES (?, ?, ?, ?)",
                match_id,
                guild_id,
                seq,
                db.stamp(now),
            )
            await db.run("DELETE FROM rating_queue WHERE match_id = ?", match_id)
            ratings.update(after)
        await db.run("UPDATE rating_guilds SET rated = ? WHERE guild_id = ?", seq, guild_id)
        return len(pending)

    async def _load_ratings(
        self, db: Tx, guild_id: int, players: set[RatedPlayer] | None = None
    ) -> dict[RatedPlayer, Rating]:
        """The stored ratings of the server's players (of ``players`` only, if given)."""
        where, keys = "guild_id = ?", [p.key for p in sorted(players or ())]
        if players is not None:
            if not keys:
                return {}
            where += f" AND player IN ({_marks(len(keys))})"
        rows = await db.all(
            f"SELECT player, mu, sigma, matches FROM ratings WHERE {where}", guild_id, *keys
        )
        return {
            RatedPlayer.from_key(r["player"]): Rating(
                float(r["mu"]), float(r["sigma"]), int(r["matches"])
            )
            for r in rows
        }

    @writes(Kind.RATING)
    async def rate_finished_matches(self, *, now: float | None = None) -> int:
        t = now_or(now)

        async def queue(db: Tx) -> Sequence[Row]:
            await db.run(  # any finished match neither rated nor queued (an older version's)
                "INSERT INTO rating_queue (match_id, guild_id) SELECT id, guild_id FROM matches m"
                f" WHERE status {_FINISHED}"
                " AND NOT EXISTS (SELECT 1 FROM rated_matches r WHERE r.match_id = m.id)"
                " ON CONFLICT (match_id) DO NOTHING"
            )
            return await db.all("SELECT DISTINCT guild_id FROM rating_queue ORDER BY guild_id")

        guilds = await self._tx(queue)
        rated = 0
        for row in guilds:
            rate = functools.partial(
                self._rate_pending, guild_id=int(row[0]), now=t, limit=RATE_AT_ONCE
            )
            while (done := await self._tx(rate)) > 0:  # a long past in short transactions
                rated += done
        return rated

    @reads
    async def ratings(self, guild_id: int) -> dict[RatedPlayer, Rating]:
        return await self._tx(lambda db: self._load_ratings(db, guild_id), read=True)

    @reads
    async def rated_placings(self, guild_id: int) -> list[tuple[Placing, ...]]:
        rows = await self._tx(
            lambda db: db.all(
                "SELECT r.match_id, s.user_id, COALESCE(s.level, m.bot_level) AS level, s.place"
                " FROM rated_matches r JOIN matches m ON m.id = r.match_id"
                " JOIN match_seats s ON s.match_id = r.match_id"
                " WHERE r.guild_id = ? AND s.place IS NOT NULL ORDER BY r.seq, s.seat",
                guild_id,
            ),
            read=True,
        )
        matches: dict[int, list[Placing]] = {}
        for r in rows:
            player = _rated_player(r["user_id"], r["level"])
            matches.setdefault(r["match_id"], []).append(Placing(player, int(r["place"])))
        return [tuple(placings) for placings in matches.values()]

    # ------------------------------------------------------------------ the daily hand

    @writes(Kind.DAILY)
    async def open_daily(
        self,
        guild_id: int,
        day: date,
        preset: str,
        cards: Sequence[str],
        *,
        now: float | None = None,
    ) -> DailyHand:
        text = cards_text(cards)
        if len(cards_tuple(text) or ()) != 13:
            raise ValueError(f"a daily hand has 13 cards, not {len(cards)}")
        t = now_or(now)

        async def tx(db: Tx) -> DailyHand:
            await db.run(
                "INSERT INTO daily_hands (guild_id, day, preset, cards, created_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, day) DO NOTHING",
                guild_id,
                day.isoformat(),
                preset,
                text,
                db.stamp(t),
            )
            found = await self._load_daily(db, guild_id, day)
            assert found is not None
            return found

        return await self._tx(tx)

    async def _load_daily(self, db: Tx, guild_id: int, day: date) -> DailyHand | None:
        row = await db.one(
            "SELECT preset, cards FROM daily_hands WHERE guild_id = ? AND day = ?",
            guild_id,
            day.isoformat(),
        )
        if row is None:
            return None
        return DailyHand(guild_id, day, row["preset"], cards_tuple(row["cards"]) or ())

    @reads
    async def daily_hand(self, guild_id: int, day: date) -> DailyHand | None:
        return await self._tx(lambda db: self._load_daily(db, guild_id, day), read=True)

    @writes(Kind.DAILY)
    async def record_daily_play(
        self,
        guild_id: int,
        day: date,
        user_id: int,
        rows: tuple[Sequence[str], ...],
        declare: str | None,
        fouled: bool,
        review: dict[str, Any],
        *,
        now: float | None = None,
    ) -> bool:
        back, middle, front = (cards_text(row) for row in rows)
        text = to_json(review)
        t = now_or(now)

        async def tx(db: Tx) -> bool:
            hand = await self._load_daily(db, guild_id, day)
            if hand is None:
                return False
            check_setting({"back": back, "middle": middle, "front": front}, hand.cards)
            return 1 == await db.run(
                "INSERT INTO daily_plays (guild_id, day, user_id, back, middle, front, declare,"
                " fouled, value, best_value, loss, review, played_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (guild_id, day, user_id) DO NOTHING",
                guild_id,
                day.isoformat(),
                user_id,
                back,
                middle,
                front,
                declare,
                bool(fouled),
                float(review["played_value"]),
                float(review["best_value"]),
                max(0.0, float(review["loss"])),
                text,
                db.stamp(t),
            )

        return await self._tx(tx)

    def _daily_play(self, db: Tx, r: Row) -> DailyPlay:
        return DailyPlay(
            guild_id=int(r["guild_id"]),
            day=date.fromisoformat(r["day"]),
            user_id=int(r["user_id"]),
            back=cards_tuple(r["back"]) or (),
            middle=cards_tuple(r["middle"]) or (),
            front=cards_tuple(r["front"]) or (),
            declare=r["declare"],
            fouled=bool(r["fouled"]),
            value=float(r["value"]),
            best_value=float(r["best_value"]),
            loss=float(r["loss"]),
            review=from_json(r["review"]),
            played_at=db.secs(r["played_at"]) or 0.0,
        )

    @reads
    async def daily_play(self, guild_id: int, day: date, user_id: int) -> DailyPlay | None:
        async def tx(db: Tx) -> DailyPlay | None:
            row = await db.one(
                "SELECT * FROM daily_plays WHERE guild_id = ? AND day = ? AND user_id = ?",
                guild_id,
                day.isoformat(),
                user_id,
            )
            return None if row is None else self._daily_play(db, row)

        return await self._tx(tx, read=True)

    @reads
    async def daily_plays(self, guild_id: int, day: date) -> list[DailyPlay]:
        async def tx(db: Tx) -> list[DailyPlay]:
            rows = await db.all(
                "SELECT * FROM daily_plays WHERE guild_id = ? AND day = ?"
                " ORDER BY loss, played_at, user_id",
                guild_id,
                day.isoformat(),
            )
            return [self._daily_play(db, r) for r in rows]

        return await self._tx(tx, read=True)

    @reads
    async def daily_days(self, guild_id: int, user_id: int) -> list[date]:
        rows = await self._tx(
            lambda db: db.all(
                "SELECT day FROM daily_plays WHERE guild_id = ? AND user_id = ? ORDER BY day",
                guild_id,
                user_id,
            ),
            read=True,
        )
        return [date.fromisoformat(r[0]) for r in rows]


def _leader_params(db: Tx, guild_id: int, since: float | None) -> list[Any]:
    """``_leader_cte``'s parameters."""
    when = [] if since is None else [db.stamp(since)]
    return [*[guild_id, *when] * 3, guild_id]


def _strength(best_row: dict[str, Any] | None) -> int | None:
    strength = (best_row or {}).get("strength")
    return int(strength) if isinstance(strength, int | float) else None


def _rated_player(user_id: int | None, level: str) -> RatedPlayer:
    """Who a seat's rating belongs to: its member, or the computers of its level."""
    return RatedPlayer.computer(level) if user_id is None else RatedPlayer.member(user_id)
