"""The SQLite implementation of ``Repository``: its SQL.

Every public method is exactly one transaction: a function run whole on the connection's own
thread (``data.sqlite_db.SqliteConnection``) between ``BEGIN IMMEDIATE`` and ``COMMIT``, and
rolled back whole on any error. ``SqliteRepository`` runs each on its own;
``data.sqlite_batch.BatchedSqliteRepository``, the one ``open_repository`` gives, adds the
single-process parts: the group commit and the cache of committed records. For that it is
told, through ``_loaded`` / ``_loaded_latest`` / ``_changing`` (no-ops here), which records a
transaction read and which it is about to write.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Self, TypeVar

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
from .sqlite_db import SqliteConnection, migrate

T = TypeVar("T")

# The kinds of record a transaction says it is about to change (``_changing``).
SETTINGS = "settings"  # key: guild id
MATCH = "match"  # key: match id
ROUND = "round"  # key: round id
LATEST_ROUND = "latest_round"  # key: match id (a round was added to the match)


# "IN ('lobby', 'playing')": written out, not bound, so SQLite can use the partial unique
# index on matches (channel_id) WHERE status IN ('lobby', 'playing').
def _in(statuses: tuple[str, ...]) -> str:
    """``IN ('a', 'b')``: written out, not bound, so SQLite can use the partial index."""
    return "IN ({})".format(", ".join(f"'{status}'" for status in statuses))


_ACTIVE = _in(ACTIVE_STATUSES)
_FINISHED = _in(FINISHED_STATUSES)
_SCORED = _in(SCORED_STATUSES)
_DEALT = _in(DEALT_STATUSES)

# Matches played and won, counted over the seats at finished matches of a guild: a select
# list and its FROM ... WHERE, for the caller to narrow (AND ...) and maybe GROUP BY.
_RESULTS = (
    " COUNT(*) AS matches, COALESCE(SUM(CASE WHEN s.place = 1 THEN 1 ELSE 0 END), 0) AS wins"
    " FROM matches m JOIN match_seats s ON s.match_id = m.id"
    f" WHERE m.guild_id = ? AND m.status {_FINISHED}"
)


def _placeholders(n: int) -> str:
    return ", ".join("?" * n)


def _secs(value: float | None) -> float | None:
    """SQLite stores times as REAL unix seconds already."""
    return value


class SqliteRepository:
    """``Repository`` on one SQLite connection, each transaction on its own; create it with
    ``open``."""

    def __init__(self, conn: SqliteConnection) -> None:
        self._conn = conn
        self._db: sqlite3.Connection | None = None  # set on the thread while a transaction runs
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

    # What the running transaction read and is about to write; a subclass that keeps copies
    # of records listens (data/sqlite_batch.py).

    def _loaded(self, record: GuildSettings | MatchRecord | RoundRecord) -> None:
        """The running transaction read ``record``."""

    def _loaded_latest(self, match_id: int, round_id: int) -> None:
        """The running transaction found ``round_id`` to be the match's latest round."""

    def _changing(self, kind: str, key: int) -> None:
        """The running transaction is about to write to that record (SETTINGS, MATCH, ROUND
        or LATEST_ROUND and its key)."""

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
            "SELECT *, language AS seat_language FROM match_seats WHERE match_id"
            f" IN ({_placeholders(len(ids))})"
            " ORDER BY match_id, seat",
            ids,
        ):
            seats[s["match_id"]].append(seat_record(s))
        found = [match_record(r, seats[r["id"]], _secs) for r in rows]
        for match in found:
            self._loaded(match)
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
            hands[h["round_id"]].append(hand_record(h, _secs))
        found = [round_record(r, hands[r["id"]], _secs) for r in rows]
        for rnd in found:
            self._loaded(rnd)
        return found

    def _round(self, round_id: int) -> RoundRecord | None:
        found = self._load_rounds("id = ?", (round_id,))
        return found[0] if found else None

    # ------------------------------------------------------------------ settings

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        return await self._run(lambda: self._settings(guild_id))

    def _settings(self, guild_id: int) -> GuildSettings:
        row = self._one("SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,))
        if row is None:
            settings = GuildSettings(guild_id=guild_id)
        else:
            settings = GuildSettings(guild_id=guild_id, **{f: row[f] for f in GUILD_SETTING_FIELDS})
        self._loaded(settings)
        return settings

    async def update_guild_settings(self, guild_id: int, **fields: Any) -> GuildSettings:
        clean = validate_guild_settings(fields)

        def tx() -> GuildSettings:
            self._changing(SETTINGS, guild_id)
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
        host_language: str | None = None,
    ) -> MatchRecord:
        check_new_match(seats_count, rounds_total, timeout_action)
        t = now_or(now)
        host_lang = seat_language(host_language)

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
                        to_json(dict(options or {})),
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
                "INSERT INTO match_seats (match_id, seat, user_id, name, is_bot, level, language)"
                " VALUES (?, 0, ?, ?, 0, NULL, ?)",
                (match_id, host_id, host_name, host_lang),
            )
            self._remember_player(guild_id, host_id, host_name, t)
            match = self._match(match_id)
            assert match is not None
            return match

        return await self._run(tx)

    async def set_lobby_message(self, match_id: int, message_id: int | None) -> None:
        def tx() -> None:
            self._changing(MATCH, match_id)
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
        language: str | None = None,
    ) -> MatchRecord:
        t = now_or(now)
        lang = seat_language(language)

        def tx() -> MatchRecord:
            self._changing(MATCH, match_id)
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
                "INSERT INTO match_seats (match_id, seat, user_id, name, is_bot, level, language)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (match_id, free[0], user_id, name, int(user_id is None), level, lang),
            )
            if user_id is not None:
                self._remember_player(row["guild_id"], user_id, name, t)
            match = self._match(match_id)
            assert match is not None
            return match

        return await self._run(tx)

    async def set_seat_language(self, match_id: int, user_id: int, language: str | None) -> bool:
        lang = seat_language(language)

        def tx() -> bool:
            self._changing(MATCH, match_id)
            return 1 == self._exec(
                "UPDATE match_seats SET language = ? WHERE match_id = ? AND user_id = ?",
                (lang, match_id, user_id),
            )

        return await self._run(tx)

    async def remove_seat(self, match_id: int, user_id: int) -> MatchRecord:
        def tx() -> MatchRecord:
            self._changing(MATCH, match_id)
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
            self._changing(MATCH, match_id)
            return 1 == self._exec(sql, params)

        return await self._run(tx)

    async def start_match(self, match_id: int, *, now: float | None = None) -> bool:
        return await self._set_match_status(
            match_id,
            "UPDATE matches SET status = 'playing', started_at = ?"
            " WHERE id = ? AND status = 'lobby'",
            (now_or(now), match_id),
        )

    async def cancel_match(
        self, match_id: int, *, now: float | None = None, lobby_only: bool = False
    ) -> bool:
        statuses = "= 'lobby'" if lobby_only else _ACTIVE
        return await self._set_match_status(
            match_id,
            "UPDATE matches SET status = 'cancelled', finished_at = ?"
            f" WHERE id = ? AND status {statuses}",
            (now_or(now), match_id),
        )

    async def finish_match(
        self, match_id: int, places: dict[int, int], *, now: float | None = None
    ) -> bool:
        t = now_or(now)

        def tx() -> bool:
            self._changing(MATCH, match_id)
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

    async def claim_standings(self, match_id: int, lease: float) -> bool:
        def tx() -> bool:
            now = time.time()
            return 1 == self._exec(
                "UPDATE matches SET standings_claim_until = ? WHERE id = ? AND status = 'finished'"
                " AND (standings_claim_until IS NULL OR standings_claim_until < ?)",
                (now + lease, match_id, now),
            )

        return await self._run(tx)

    async def release_standings(self, match_id: int) -> None:
        await self._run(
            lambda: self._exec(
                "UPDATE matches SET standings_claim_until = NULL WHERE id = ?", (match_id,)
            )
        )

    async def mark_standings_posted(self, match_id: int, message_id: int | None) -> bool:
        return await self._set_match_status(
            match_id,
            "UPDATE matches SET status = 'ended', standings_message_id = ?,"
            " standings_claim_until = NULL WHERE id = ? AND status = 'finished'",
            (message_id, match_id),
        )

    async def get_match(self, match_id: int) -> MatchRecord | None:
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

    async def unfinished_matches(self) -> list[MatchRecord]:
        return await self._run(lambda: self._load_matches(f"status {_in(UNFINISHED_STATUSES)}"))

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
                self._changing(LATEST_ROUND, match_id)
                round_id = self._insert(
                    "INSERT INTO rounds (match_id, number, seed, deadline, status, created_at)"
                    " VALUES (?, ?, ?, ?, 'dealing', ?)",
                    (match_id, number, str(int(seed)), float(deadline), t),
                )
                for seat, cards in sorted(hands.items()):
                    self._exec(
                        "INSERT INTO hands (round_id, seat, cards) VALUES (?, ?, ?)",
                        (round_id, int(seat), cards_text(cards)),
                    )
            else:
                round_id = existing[0]
            record = self._round(round_id)
            assert record is not None
            return record

        return await self._run(tx)

    def _current_round(self, match_id: int) -> RoundRecord | None:
        found = self._load_rounds(
            "match_id = ? AND number = (SELECT MAX(number) FROM rounds WHERE match_id = ?)",
            (match_id, match_id),
        )
        if not found:
            return None
        self._loaded_latest(match_id, found[0].id)
        return found[0]

    async def current_round(self, match_id: int) -> RoundRecord | None:
        return await self._run(lambda: self._current_round(match_id))

    async def set_round_deadline(self, round_id: int, deadline: float) -> bool:
        def tx() -> bool:
            self._changing(ROUND, round_id)
            return 1 == self._exec(
                "UPDATE rounds SET deadline = ? WHERE id = ? AND status IN ('dealing', 'open')",
                (deadline, round_id),
            )

        return await self._run(tx)

    async def mark_round_open(self, round_id: int) -> bool:
        def tx() -> bool:
            self._changing(ROUND, round_id)
            return 1 == self._exec(
                "UPDATE rounds SET status = 'open' WHERE id = ? AND status = 'dealing'",
                (round_id,),
            )

        return await self._run(tx)

    async def mark_showdown_posted(self, round_id: int, message_id: int | None) -> bool:
        def tx() -> bool:
            self._changing(ROUND, round_id)
            return 1 == self._exec(
                "UPDATE rounds SET status = 'shown',"
                " showdown_message_id = COALESCE(?, showdown_message_id),"
                " showdown_claim_until = NULL WHERE id = ? AND status = 'scored'",
                (message_id, round_id),
            )

        return await self._run(tx)

    async def get_round(self, round_id: int) -> RoundRecord | None:
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
            self._changing(ROUND, round_id)
            self._exec(
                f"UPDATE rounds SET {', '.join(f'{k} = ?' for k in sets)} WHERE id = ?",
                (*sets.values(), round_id),
            )

        await self._run(tx)

    async def set_dm_message(
        self, round_id: int, seat: int, channel_id: int | None, message_id: int | None
    ) -> None:
        def tx() -> None:
            self._changing(ROUND, round_id)
            self._exec(
                "UPDATE hands SET dm_channel_id = ?, dm_message_id = ?"
                " WHERE round_id = ? AND seat = ?",
                (channel_id, message_id, round_id, seat),
            )

        await self._run(tx)

    async def mark_dm_refused(self, round_id: int, seat: int) -> None:
        def tx() -> None:
            self._changing(ROUND, round_id)
            self._exec(
                "UPDATE hands SET dm_refused = 1, dm_channel_id = NULL, dm_message_id = NULL"
                " WHERE round_id = ? AND seat = ?",
                (round_id, seat),
            )

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
        arranged: bool = False,
        now: float | None = None,
    ) -> bool:
        rows = {"back": back, "middle": middle, "front": front}
        texts = {name: cards_text(cards) for name, cards in rows.items()}
        t = now_or(now)

        def tx() -> bool:
            row = self._one(
                "SELECT h.cards, h.submitted_at, r.status FROM hands h"
                " JOIN rounds r ON r.id = h.round_id WHERE h.round_id = ? AND h.seat = ?",
                (round_id, seat),
            )
            if row is None or row["status"] not in DEALT_STATUSES:
                return False
            if row["submitted_at"] is not None:
                return False
            check_setting(texts, cards_tuple(row["cards"]) or ())
            self._changing(ROUND, round_id)
            return 1 == self._exec(
                "UPDATE hands SET back = ?, middle = ?, front = ?, declare = ?, fouled = ?,"
                " auto = ?, arranged = ?, submitted_at = ?"
                " WHERE round_id = ? AND seat = ? AND submitted_at IS NULL",
                (
                    texts["back"],
                    texts["middle"],
                    texts["front"],
                    declare,
                    int(bool(fouled)),
                    int(bool(auto)),
                    int(bool(arranged)),
                    t,
                    round_id,
                    seat,
                ),
            )

        return await self._run(tx)

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

        def tx() -> bool:
            self._changing(ROUND, round_id)
            # The guard: only a dealt round of a playing match flips to 'scored', once.
            flipped = self._exec(
                "UPDATE rounds SET status = 'scored', result = ?, scored_at = ?"
                f" WHERE id = ? AND status {_DEALT} AND EXISTS (SELECT 1 FROM matches m"
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
                        to_json(s.best_row),
                        t,
                    ),
                )
            return True

        return await self._run(tx)

    async def completed_rounds(self, match_id: int) -> list[RoundRecord]:
        return await self._run(
            lambda: self._load_rounds(f"match_id = ? AND status {_SCORED}", (match_id,))
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
    def _leader_cte(guild_id: int, since: float | None) -> tuple[str, list[Any]]:
        """Per-user totals of one guild (since ``since``, if given) as a CTE named ``board``,
        and its parameters."""
        score_time = "" if since is None else " AND scored_at >= ?"
        finish_time = "" if since is None else " AND m.finished_at >= ?"
        when = [] if since is None else [since]
        sql = (
            "WITH rev AS ("
            "  SELECT user_id, COUNT(*) AS reviewed, AVG(loss) AS loss FROM hand_reviews"
            f"  WHERE guild_id = ? AND counted = 1{score_time} GROUP BY user_id"
            "), pts AS ("
            "  SELECT user_id, SUM(points) AS points, SUM(sweeps_given) AS sweeps,"
            "   COUNT(*) AS rounds FROM round_scores"
            f"  WHERE guild_id = ? AND user_id IS NOT NULL{score_time} GROUP BY user_id"
            "), res AS ("
            f"  SELECT s.user_id,{_RESULTS} AND s.user_id IS NOT NULL{finish_time}"
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
        return sql, [guild_id, *when, guild_id, *when, guild_id, *when]

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
        cte, params = self._leader_cte(guild_id, since)
        rows = await self._run(
            lambda: self._all(
                cte + "SELECT b.*, COALESCE(p.name, '') AS name FROM board b"
                " LEFT JOIN players p ON p.guild_id = ? AND p.user_id = b.user_id"
                f"{ranked_where(sort)} ORDER BY {LEADER_ORDER[sort]} LIMIT ? OFFSET ?",
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
        since = period_start(period_days, now)
        cte, params = self._leader_cte(guild_id, since)
        row = await self._run(
            lambda: self._one(cte + f"SELECT COUNT(*) FROM board b{ranked_where(sort)}", params)
        )
        return int(row[0]) if row else 0

    async def player_stats(self, guild_id: int, user_id: int) -> PlayerStats:
        where = "guild_id = ? AND user_id = ?"
        key = (guild_id, user_id)

        def tx() -> tuple[Any, Any, Any, Any, Any]:
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
            coach = self._one(
                "SELECT COUNT(*) FILTER (WHERE counted = 1) AS reviewed,"
                " AVG(loss) FILTER (WHERE counted = 1) AS loss_all,"
                " COUNT(*) FILTER (WHERE counted = 0) AS uncounted,"
                " (SELECT AVG(loss) FROM (SELECT loss FROM hand_reviews"
                f"   WHERE {where} AND counted = 1"
                "   ORDER BY scored_at DESC, round_id DESC LIMIT ?)) AS loss_recent"
                f" FROM hand_reviews WHERE {where}",
                (*key, RECENT_REVIEWS, *key),
            )
            return agg, specials, best, res, coach

        agg, specials, best, res, coach = await self._run(tx)
        assert coach is not None
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
            best_hand=from_json(best["best_row"]) if best else None,
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
        t = now_or(now)
        return 1 == await self._run(
            lambda: self._exec(
                "INSERT INTO hand_reviews (round_id, seat, match_id, guild_id, user_id, loss,"
                " counted, review, scored_at, reviewed_at)"
                " SELECT r.id, s.seat, m.id, m.guild_id, s.user_id, ?, ?, ?, r.scored_at, ?"
                " FROM rounds r JOIN matches m ON m.id = r.match_id"
                " JOIN match_seats s ON s.match_id = m.id AND s.seat = ?"
                f" WHERE r.id = ? AND r.status {_SCORED} AND s.user_id IS NOT NULL"
                " ON CONFLICT (round_id, seat) DO NOTHING",
                (max(0.0, float(loss)), int(bool(counted)), text, t, seat, round_id),
            )
        )

    async def hand_review(self, round_id: int, seat: int) -> dict[str, Any] | None:
        row = await self._run(
            lambda: self._one(
                "SELECT review FROM hand_reviews WHERE round_id = ? AND seat = ?", (round_id, seat)
            )
        )
        return from_json(row["review"]) if row else None

    async def unreviewed_hands(self, since: float, limit: int = 200) -> list[tuple[int, int]]:
        rows = await self._run(
            lambda: self._all(
                "SELECT h.round_id, h.seat FROM hands h JOIN rounds r ON r.id = h.round_id"
                " JOIN match_seats s ON s.match_id = r.match_id AND s.seat = h.seat"
                f" WHERE r.status {_SCORED} AND r.scored_at >= ? AND s.user_id IS NOT NULL"
                " AND NOT EXISTS (SELECT 1 FROM hand_reviews v"
                "  WHERE v.round_id = h.round_id AND v.seat = h.seat)"
                " ORDER BY r.scored_at, h.round_id, h.seat LIMIT ?",
                (since, max(0, int(limit))),
            )
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

        def tx() -> int:
            now = time.time()
            until = now + lease if holder is not None else None
            return self._exec(
                "INSERT INTO timers (match_id, kind, arg, due_at, lease_until, lease_owner)"
                " SELECT id, ?, ?, ?, ?, ? FROM matches WHERE id = ?"
                f" ON CONFLICT (match_id, kind) {conflict}",
                (kind, int(arg), now + max(0.0, delay), until, holder, match_id),
            )

        changed = await self._run(tx)
        if changed and delay < TIMER_WAKE_SECONDS:
            for wake in self._timer_watchers:
                wake()
        return changed == 1

    async def cancel_timers(
        self, match_id: int, kinds: tuple[str, ...] | None = None, arg: int | None = None
    ) -> None:
        where = "match_id = ?"
        params: list[Any] = [match_id]
        if kinds is not None:
            where += f" AND kind IN ({_placeholders(len(kinds))})"
            params += list(kinds)
        if arg is not None:
            where += " AND arg = ?"
            params.append(arg)
        await self._run(lambda: self._exec(f"DELETE FROM timers WHERE {where}", params))

    async def claim_timers(self, owner: str, lease: float, limit: int = 50) -> list[TimerRecord]:
        def tx() -> list[TimerRecord]:
            now = time.time()
            rows = self._all(
                "SELECT match_id, kind, arg, version, attempts FROM timers"
                " WHERE due_at <= ? AND (lease_until IS NULL OR lease_until < ?)"
                " ORDER BY due_at, match_id LIMIT ?",
                (now, now, max(0, int(limit))),
            )
            for r in rows:
                self._exec(
                    "UPDATE timers SET lease_until = ?, lease_owner = ?"
                    " WHERE match_id = ? AND kind = ?",
                    (now + lease, owner, r["match_id"], r["kind"]),
                )
            return [timer_record(r) for r in rows]

        return await self._run(tx)

    async def renew_timers(self, owner: str, lease: float) -> int:
        def tx() -> int:
            now = time.time()
            return self._exec(
                "UPDATE timers SET lease_until = ? WHERE lease_owner = ? AND lease_until >= ?",
                (now + lease, owner, now),
            )

        return await self._run(tx)

    async def finish_timer(self, match_id: int, kind: str, version: int) -> None:
        await self._run(
            lambda: self._exec(
                "DELETE FROM timers WHERE match_id = ? AND kind = ? AND version = ?",
                (match_id, kind, version),
            )
        )

    async def retry_timer(self, match_id: int, kind: str, version: int, delay: float) -> None:
        await self._run(
            lambda: self._exec(
                "UPDATE timers SET due_at = ?, attempts = attempts + 1, lease_until = NULL,"
                " lease_owner = NULL WHERE match_id = ? AND kind = ? AND version = ?",
                (time.time() + max(0.0, delay), match_id, kind, version),
            )
        )

    async def next_timer_in(self) -> float | None:
        def tx() -> float | None:
            now = time.time()
            row = self._one(
                "SELECT MIN(CASE WHEN lease_until IS NOT NULL AND lease_until >= ?"
                " THEN MAX(due_at, lease_until) ELSE due_at END) FROM timers",
                (now,),
            )
            return None if row is None or row[0] is None else max(0.0, float(row[0]) - now)

        return await self._run(tx)

    async def timers_of(self, match_id: int) -> list[TimerRecord]:
        rows = await self._run(
            lambda: self._all("SELECT * FROM timers WHERE match_id = ? ORDER BY kind", (match_id,))
        )
        return [timer_record(r) for r in rows]

    async def watch_timers(self, wake: Callable[[], None]) -> None:
        self._timer_watchers.append(wake)  # one process per file: only this one sets them

    async def claim_showdown(self, round_id: int, lease: float) -> bool:
        def tx() -> bool:
            now = time.time()
            return 1 == self._exec(
                "UPDATE rounds SET showdown_claim_until = ? WHERE id = ? AND status = 'scored'"
                " AND showdown_message_id IS NULL"
                " AND (showdown_claim_until IS NULL OR showdown_claim_until < ?)",
                (now + lease, round_id, now),
            )

        return await self._run(tx)

    async def release_showdown(self, round_id: int) -> None:
        await self._run(
            lambda: self._exec(
                "UPDATE rounds SET showdown_claim_until = NULL WHERE id = ?", (round_id,)
            )
        )

    # ------------------------------------------------------------------ history

    @staticmethod
    def _finished_where(guild_id: int, user_id: int | None) -> tuple[str, list[Any]]:
        where = f"guild_id = ? AND status {_FINISHED}"
        if user_id is None:
            return where, [guild_id]
        where += " AND id IN (SELECT match_id FROM match_seats WHERE user_id = ?)"
        return where, [guild_id, user_id]

    async def finished_matches(
        self, guild_id: int, user_id: int | None = None, limit: int = 10, offset: int = 0
    ) -> list[MatchSummary]:
        where, params = self._finished_where(guild_id, user_id)

        def tx() -> list[MatchSummary]:
            ids = [
                r[0]
                for r in self._all(
                    f"SELECT id FROM matches WHERE {where}"
                    " ORDER BY finished_at DESC, id DESC LIMIT ? OFFSET ?",
                    (*params, max(0, int(limit)), max(0, int(offset))),
                )
            ]
            if not ids:
                return []
            marks = _placeholders(len(ids))
            by_id = {m.id: m for m in self._load_matches(f"id IN ({marks})", ids)}
            sums: dict[int, list[tuple[int, float]]] = {i: [] for i in ids}
            for r in self._all(
                "SELECT match_id, seat, SUM(points) FROM round_scores"
                f" WHERE match_id IN ({marks}) GROUP BY match_id, seat",
                ids,
            ):
                sums[r[0]].append((r[1], r[2]))
            return [match_summary(by_id[i], sums[i]) for i in ids]

        return await self._run(tx)

    async def finished_matches_count(self, guild_id: int, user_id: int | None = None) -> int:
        where, params = self._finished_where(guild_id, user_id)
        row = await self._run(
            lambda: self._one(f"SELECT COUNT(*) FROM matches WHERE {where}", params)
        )
        return int(row[0]) if row else 0
