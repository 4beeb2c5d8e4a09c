"""What both backends share that is not SQL: card lists as stored, the checks of a submitted
setting and of a new match, leaderboard periods and orders, JSON as stored, and the records
built from stored rows."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

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
    """A stored row read by column name, position or slice (``sqlite3.Row``,
    ``asyncpg.Record``)."""

    def __getitem__(self, key: str | int | slice, /) -> Any: ...


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
    text = " ".join(codes)
    # n codes, none empty, joined by exactly n - 1 spaces: none holds a space (one check
    # in C for the usual case, then the culprit named)
    if "" in codes or text.count(" ") != max(len(codes) - 1, 0):
        bad = next(code for code in codes if not code or " " in code)
        raise ValueError(f"bad card code {bad!r}")
    return text


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
    placed: list[str] = []
    for name, size in ROW_SIZES.items():
        row = cards_tuple(texts[name]) or ()
        if len(row) != size:
            raise ValueError(f"the {name} row needs {size} cards, not {len(row)}")
        placed += row
    if sorted(placed) != sorted(dealt):  # the same cards, each as often (a sort: 13 codes)
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


# The columns each record is built from, in the order its builder reads them: the loaders
# (data/sql.py) select exactly these, a record's parts first, so a builder unpacks a row by
# position. (By name, sqlite3.Row compares the name with each column's in turn: in a row of
# thirty columns that cost more than building the record.) A builder fails at once on a row
# of another width.
SEAT_COLUMNS = ("seat", "user_id", "name", "is_bot", "level", "place", "language")
MATCH_COLUMNS = (
    "id",
    "guild_id",
    "channel_id",
    "host_id",
    "preset",
    "options",
    "rounds_total",
    "countdown",
    "bot_level",
    "timeout_action",
    "seats_count",
    "status",
    "lobby_message_id",
    "created_at",
    "started_at",
    "finished_at",
    "lobby_expires_at",
    "language",
    "standings_message_id",
)
HAND_COLUMNS = (
    "seat",
    "cards",
    "back",
    "middle",
    "front",
    "declare",
    "fouled",
    "auto",
    "submitted_at",
    "points",
    "dm_channel_id",
    "dm_message_id",
    "dm_refused",
    "arranged",
    "surrendered",
)
ROUND_COLUMNS = (
    "id",
    "match_id",
    "number",
    "seed",
    "deadline",
    "status",
    "status_message_id",
    "showdown_message_id",
    "result",
    "created_at",
    "scored_at",
)


def seat_record(v: Sequence[Any]) -> SeatRecord:
    """A ``match_seats`` row's ``SEAT_COLUMNS``."""
    seat, user_id, name, is_bot, level, place, language = v
    return SeatRecord(
        seat=seat,
        user_id=user_id,
        name=name,
        is_bot=bool(is_bot),
        level=level,
        place=place,
        language=language,
    )


def match_record(v: Sequence[Any], seats: Sequence[SeatRecord], secs: Seconds) -> MatchRecord:
    """A ``matches`` row's ``MATCH_COLUMNS`` with its seats (in seat order)."""
    (
        id_,
        guild_id,
        channel_id,
        host_id,
        preset,
        options,
        rounds_total,
        countdown,
        bot_level,
        timeout_action,
        seats_count,
        status,
        lobby_message_id,
        created_at,
        started_at,
        finished_at,
        lobby_expires_at,
        language,
        standings_message_id,
    ) = v
    return MatchRecord(
        id=id_,
        guild_id=guild_id,
        channel_id=channel_id,
        host_id=host_id,
        preset=preset,
        options=from_json(options) or {},
        rounds_total=rounds_total,
        countdown=countdown,
        bot_level=bot_level,
        timeout_action=timeout_action,
        seats_count=seats_count,
        status=MatchStatus(status),
        lobby_message_id=lobby_message_id,
        created_at=secs(created_at) or 0.0,
        started_at=secs(started_at),
        finished_at=secs(finished_at),
        lobby_expires_at=secs(lobby_expires_at),
        seats=tuple(seats),
        language=language,
        standings_message_id=standings_message_id,
    )


def hand_record(v: Sequence[Any], secs: Seconds) -> HandRecord:
    """A ``hands`` row's ``HAND_COLUMNS``."""
    (
        seat,
        cards,
        back,
        middle,
        front,
        declare,
        fouled,
        auto,
        submitted_at,
        points,
        dm_channel_id,
        dm_message_id,
        dm_refused,
        arranged,
        surrendered,
    ) = v
    return HandRecord(
        seat=seat,
        cards=cards_tuple(cards) or (),
        back=cards_tuple(back),
        middle=cards_tuple(middle),
        front=cards_tuple(front),
        declare=declare,
        fouled=bool(fouled),
        auto=bool(auto),
        submitted_at=secs(submitted_at),
        points=points,
        dm_channel_id=dm_channel_id,
        dm_message_id=dm_message_id,
        dm_refused=bool(dm_refused),
        arranged=bool(arranged),
        surrendered=bool(surrendered),
    )


def timer_conflict(if_absent: bool, owner: bool = False) -> str:
    """``set_timer``'s ON CONFLICT action (the same SQL on both backends): keep the timer, or
    replace it with a new version (the new row's, drawn at random: a timer dropped and set
    again never has the version of the one before, which a late ``finish_timer`` of that
    one would drop) that has not failed yet, held as the new row says;
    ``owner``: only if nobody holds it or the process named by the last parameter does."""
    if if_absent:
        return "DO NOTHING"
    return (
        "DO UPDATE SET arg = excluded.arg, due_at = excluded.due_at,"
        " version = excluded.version, attempts = 0, lease_until = excluded.lease_until,"
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


def round_record(v: Sequence[Any], hands: Sequence[HandRecord], secs: Seconds) -> RoundRecord:
    """A ``rounds`` row's ``ROUND_COLUMNS`` with its hands (in seat order)."""
    (
        id_,
        match_id,
        number,
        seed,
        deadline,
        status,
        status_message_id,
        showdown_message_id,
        result,
        created_at,
        scored_at,
    ) = v
    return RoundRecord(
        id=id_,
        match_id=match_id,
        number=number,
        seed=int(seed),
        deadline=secs(deadline) or 0.0,
        status=RoundStatus(status),
        status_message_id=status_message_id,
        showdown_message_id=showdown_message_id,
        result=from_json(result),
        created_at=secs(created_at) or 0.0,
        scored_at=secs(scored_at),
        hands=tuple(hands),
    )


def matches_with_seats(
    matches: Sequence[Row], seats: Sequence[Row], secs: Seconds
) -> list[MatchRecord]:
    """Matches from their rows' ``MATCH_COLUMNS`` (the id first) and the rows of their
    seats, each the match's id then its ``SEAT_COLUMNS``, in seat order."""
    by_match: dict[int, list[SeatRecord]] = {m[0]: [] for m in matches}
    for s in seats:
        by_match[s[0]].append(seat_record(s[1:]))
    return [match_record(m[:], by_match[m[0]], secs) for m in matches]


def rounds_with_hands(
    rounds: Sequence[Row], hands: Sequence[Row], secs: Seconds
) -> list[RoundRecord]:
    """Rounds from their rows' ``ROUND_COLUMNS`` (the id first) and the rows of their hands,
    each the round's id then its ``HAND_COLUMNS``, in seat order."""
    by_round: dict[int, list[HandRecord]] = {r[0]: [] for r in rounds}
    for h in hands:
        by_round[h[0]].append(hand_record(h[1:], secs))
    return [round_record(r[:], by_round[r[0]], secs) for r in rounds]


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
