"""What both backends share that is not SQL: card lists as stored, the checks of a submitted
setting and of a new match, leaderboard periods and orders, JSON as stored, and the records
built from stored rows."""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

import asyncpg

from capsa.i18n import LANGS
from capsa.presets import get_preset
from capsa.settings import ROUNDS, SEATS, TIMEOUT_ACTION, TableSetting

from .repository import (
    LEADERBOARD_SORTS,
    SHARPEST_MIN_ROUNDS,
    HandRecord,
    MatchRecord,
    MatchStatus,
    MatchSummary,
    RoundRecord,
    RoundStatus,
    SeatRecord,
    TimerRecord,
)


class Row(Protocol):
    """A stored row read by column name (``sqlite3.Row``, ``asyncpg.Record``)."""

    def __getitem__(self, key: str | int, /) -> Any: ...


P = TypeVar("P")

# A stored time -> unix seconds: SQLite stores REAL seconds, PostgreSQL timestamptz.
Seconds = Callable[[Any], float | None]

DAY = 86400.0
ROW_SIZES = {"back": 5, "middle": 5, "front": 3}

# ORDER BY for each leaderboard sort; user_id last so pages are stable.
LEADER_ORDER = {
    "points": "points DESC, wins DESC, rounds DESC, user_id ASC",
    "wins": "wins DESC, points DESC, matches ASC, user_id ASC",
    "matches": "matches DESC, wins DESC, points DESC, user_id ASC",
    "sweeps": "sweeps DESC, points DESC, user_id ASC",
    "sharpest": "loss ASC, reviewed DESC, user_id ASC",
    "rating": "rating DESC, rated DESC, user_id ASC",
}


def now_or(now: float | None) -> float:
    """``now`` as given (tests), or the time: unix seconds."""
    return time.time() if now is None else float(now)


def cards_text(cards: Iterable[Any] | None) -> str | None:
    """Card codes as stored: ``"AS KD 2C"``. Accepts strings or ``capsa.cards.Card``."""
    if cards is None:
        return None
    codes = [str(c).strip() for c in cards]
    for code in codes:
        if not code or " " in code:
            raise ValueError(f"bad card code {code!r}")
    return " ".join(codes)


def cards_tuple(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    return tuple(text.split()) if text else ()


def check_setting(texts: dict[str, str | None], dealt: tuple[str, ...]) -> None:
    """Refuse (ValueError) a submitted setting (``texts``: each row's stored text, or None)
    unless it is no rows at all, or all three of the right sizes using exactly the ``dealt``
    cards."""
    given = [name for name, text in texts.items() if text is not None]
    if not given:
        return
    if len(given) != 3:
        raise ValueError("give all three rows (back, middle, front) or none")
    for name, size in ROW_SIZES.items():
        n = len(cards_tuple(texts[name]) or ())
        if n != size:
            raise ValueError(f"the {name} row needs {size} cards, not {n}")
    placed = Counter(c for name in ROW_SIZES for c in cards_tuple(texts[name]) or ())
    if placed != Counter(dealt):
        raise ValueError("the setting does not use exactly the cards dealt to the seat")


def check_surrender(
    surrendered: bool, texts: dict[str, str | None], declare: str | None, fouled: bool
) -> None:
    """Refuse (ValueError) a surrender stored with rows, a special or a foul: a hand given
    up before the reveal has none of them."""
    if surrendered and (any(text is not None for text in texts.values()) or declare or fouled):
        raise ValueError("a surrendered hand is stored without rows, special or foul")


def check_surrender_allowed(preset: str, options: dict[str, Any] | None) -> None:
    """Refuse (ValueError) a surrender at a table whose preset and options do not allow it."""
    if not get_preset(preset, options or None).surrender:
        raise ValueError(f"a {preset} table with options {options or {}} allows no surrender")


def check_new_match(seats_count: int, rounds_total: int, timeout_action: str) -> None:
    """Refuse (ValueError) a new match whose settings capsa.settings' table does not allow,
    exactly as they would be stored."""
    given: tuple[tuple[TableSetting[Any], object], ...] = (
        (SEATS, seats_count),
        (ROUNDS, rounds_total),
        (TIMEOUT_ACTION, timeout_action),
    )
    for setting, value in given:
        if not setting.allows(value):
            raise ValueError(f"{setting.name} must be {setting.allowed()}, not {value!r}")


def seat_language(language: str | None) -> str | None:
    """A person's language as stored: a catalogue language (``capsa.i18n.LANGS``) in its
    own case, or None; ValueError for any other."""
    if language is None:
        return None
    chosen = {lang.lower(): lang for lang in LANGS}.get(language.strip().lower())
    if chosen is None:
        raise ValueError(f"language must be one of {', '.join(LANGS)}, not {language!r}")
    return chosen


def check_sort(sort: str) -> None:
    if sort not in LEADERBOARD_SORTS:
        raise ValueError(f"sort must be one of {', '.join(LEADERBOARD_SORTS)}, not {sort!r}")


def ranked_where(sort: str) -> str:
    """The WHERE of a leaderboard over the ``board`` CTE (aliased ``b``): ``sharpest``
    ranks only the players with SHARPEST_MIN_ROUNDS reviewed rounds that count, ``rating``
    only the rated ones."""
    if sort == "sharpest":
        return f" WHERE b.reviewed >= {SHARPEST_MIN_ROUNDS}"
    return " WHERE b.rating IS NOT NULL" if sort == "rating" else ""


def coach_fields(row: Row) -> dict[str, Any]:
    """PlayerStats' coach fields from a row of ``reviewed``, ``loss_all``, ``loss_recent``
    and ``uncounted``."""

    def mean(value: Any) -> float | None:
        return None if value is None else float(value)

    return {
        "reviewed": int(row["reviewed"] or 0),
        "loss_all": mean(row["loss_all"]),
        "loss_recent": mean(row["loss_recent"]),
        "uncounted": int(row["uncounted"] or 0),
    }


def period_start(period_days: int | None, now: float | None) -> float | None:
    """The start of a leaderboard period in unix seconds (None: all time)."""
    if period_days is None:
        return None
    if period_days <= 0:
        raise ValueError(f"period_days must be positive, not {period_days}")
    return now_or(now) - period_days * DAY


def check_scores_seats(seats: list[int]) -> None:
    if len(set(seats)) != len(seats):
        raise ValueError(f"a seat is scored twice in {seats}")


def to_json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"), sort_keys=True)


def from_json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


# ---------------------------------------------------------------------- records from rows


def seat_record(r: Row) -> SeatRecord:
    """A ``match_seats`` row, its language read as ``seat_language`` (a match's row has a
    ``language`` too)."""
    return SeatRecord(
        seat=r["seat"],
        user_id=r["user_id"],
        name=r["name"],
        is_bot=bool(r["is_bot"]),
        level=r["level"],
        place=r["place"],
        language=r["seat_language"],
    )


def match_record(r: Row, seats: Sequence[SeatRecord], secs: Seconds) -> MatchRecord:
    """A ``matches`` row with its seats (in seat order)."""
    return MatchRecord(
        id=r["id"],
        guild_id=r["guild_id"],
        channel_id=r["channel_id"],
        host_id=r["host_id"],
        preset=r["preset"],
        options=from_json(r["options"]) or {},
        rounds_total=r["rounds_total"],
        countdown=r["countdown"],
        bot_level=r["bot_level"],
        timeout_action=r["timeout_action"],
        seats_count=r["seats_count"],
        status=MatchStatus(r["status"]),
        lobby_message_id=r["lobby_message_id"],
        created_at=secs(r["created_at"]) or 0.0,
        started_at=secs(r["started_at"]),
        finished_at=secs(r["finished_at"]),
        lobby_expires_at=secs(r["lobby_expires_at"]),
        seats=tuple(seats),
        language=r["language"],
        standings_message_id=r["standings_message_id"],
    )


def hand_record(r: Row, secs: Seconds) -> HandRecord:
    return HandRecord(
        seat=r["seat"],
        cards=cards_tuple(r["cards"]) or (),
        back=cards_tuple(r["back"]),
        middle=cards_tuple(r["middle"]),
        front=cards_tuple(r["front"]),
        declare=r["declare"],
        fouled=bool(r["fouled"]),
        auto=bool(r["auto"]),
        submitted_at=secs(r["submitted_at"]),
        points=r["points"],
        dm_channel_id=r["dm_channel_id"],
        dm_message_id=r["dm_message_id"],
        dm_refused=bool(r["dm_refused"]),
        arranged=bool(r["arranged"]),
        surrendered=bool(r["surrendered"]),
    )


def timer_conflict(if_absent: bool, owner: bool = False) -> str:
    """``set_timer``'s ON CONFLICT action (the same SQL on both backends): keep the timer, or
    replace it with a new version that has not failed yet, held as the new row says;
    ``owner``: only if nobody holds it or the process named by the last parameter does."""
    if if_absent:
        return "DO NOTHING"
    return (
        "DO UPDATE SET arg = excluded.arg, due_at = excluded.due_at,"
        " version = timers.version + 1, attempts = 0, lease_until = excluded.lease_until,"
        " lease_owner = excluded.lease_owner"
    ) + (" WHERE timers.lease_owner IS NULL OR timers.lease_owner = ?" if owner else "")


def timer_record(r: Row) -> TimerRecord:
    return TimerRecord(
        match_id=int(r["match_id"]),
        kind=str(r["kind"]),
        arg=int(r["arg"]),
        version=int(r["version"]),
        attempts=int(r["attempts"]),
    )


def round_record(r: Row, hands: Sequence[HandRecord], secs: Seconds) -> RoundRecord:
    """A ``rounds`` row with its hands (in seat order)."""
    return RoundRecord(
        id=r["id"],
        match_id=r["match_id"],
        number=r["number"],
        seed=int(r["seed"]),
        deadline=secs(r["deadline"]) or 0.0,
        status=RoundStatus(r["status"]),
        status_message_id=r["status_message_id"],
        showdown_message_id=r["showdown_message_id"],
        result=from_json(r["result"]),
        created_at=secs(r["created_at"]) or 0.0,
        scored_at=secs(r["scored_at"]),
        hands=tuple(hands),
    )


def _grouped(rows: Sequence[Row], part: Callable[[Row], P]) -> list[tuple[Row, list[P]]]:
    """Rows of a record and one of its parts each (a record without parts: one row, NULL
    ``seat``), grouped by the record's ``id`` in the order they come."""
    groups: dict[int, tuple[Row, list[P]]] = {}
    for r in rows:
        _, parts = groups.setdefault(r["id"], (r, []))
        if r["seat"] is not None:
            parts.append(part(r))
    return list(groups.values())


def matches_from_rows(rows: Sequence[Row], secs: Seconds) -> list[MatchRecord]:
    """Matches from rows of a match and one of its seats each, in seat order."""
    return [match_record(r, seats, secs) for r, seats in _grouped(rows, seat_record)]


def rounds_from_rows(rows: Sequence[Row], secs: Seconds) -> list[RoundRecord]:
    """Rounds from rows of a round and one of its hands each, in seat order."""
    return [
        round_record(r, hands, secs) for r, hands in _grouped(rows, lambda h: hand_record(h, secs))
    ]


def match_summary(match: MatchRecord, sums: Iterable[tuple[int, float | None]]) -> MatchSummary:
    """A finished match with each seat's total: ``sums`` are (seat, points) from the
    ``round_scores`` ledger; a seat without a scored round has 0."""
    totals = {s.seat: 0.0 for s in match.seats}
    for seat, points in sums:
        totals[seat] = float(points or 0.0)
    return MatchSummary(match=match, totals=dict(sorted(totals.items())))


# SQLite's words for a database it cannot write or open now (a full disk, a read-only file
# system, another writer holding it too long, a lost device): an outage, not a bug.
_SQLITE_OUTAGE = ("full", "readonly", "read-only", "locked", "disk i/o", "unable to open")


def is_database_outage(error: BaseException) -> bool:
    """Whether ``error`` (or what caused it) says the database cannot be reached or
    written for now: a PostgreSQL server down or restarting, a connection it dropped, a
    SQLite file on a full or read-only disk. What a person did then is not stored, and
    trying again later works; any other error is a bug."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [error]
    while todo:
        err = todo.pop()
        if err is None or id(err) in seen:
            continue
        seen.add(id(err))
        if isinstance(err, sqlite3.OperationalError):
            text = str(err).lower()
            if any(word in text for word in _SQLITE_OUTAGE):
                return True
        if isinstance(
            err,
            asyncpg.PostgresConnectionError
            | asyncpg.exceptions.OperatorInterventionError
            | asyncpg.InterfaceError,
        ):
            return True
        if isinstance(err, ConnectionError | TimeoutError) and not _is_http(err):
            return True
        original = getattr(err, "original", None)
        todo += [err.__cause__, err.__context__]
        if isinstance(original, BaseException):
            todo.append(original)
    return False


def _is_http(error: BaseException) -> bool:
    """An error of the HTTP client (Discord's side), not of the database's connection."""
    return type(error).__module__.split(".")[0] in ("aiohttp", "discord")
