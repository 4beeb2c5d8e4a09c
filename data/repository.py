"""The storage API the cogs see: frozen records, errors and the ``Repository`` protocol.

No SQL here. ``data/sql.py`` implements the protocol once, run on SQLite by ``data/sqlite.py``
(with ``data/sqlite_batch.py``) and on PostgreSQL by ``data/postgres.py``;
``data.open_repository`` picks one. Times are unix
seconds (``time.time()``; PostgreSQL keeps them to the microsecond); methods that stamp a time
take an optional ``now`` for tests.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from enum import IntEnum, StrEnum
from typing import Any, Protocol, TypeVar, cast, runtime_checkable

from capsa.cards import CapsaError, DeckStyle
from capsa.i18n import LANGS
from capsa.presets import PRESETS, Preset, get_preset
from capsa.rating import Placing, RatedPlayer, Rating
from capsa.settings import (
    PRESET,
    SERVER_SETTINGS,
    TABLE_SETTINGS,
    Setting,
    TableSetting,
)

T = TypeVar("T", int, str)
log = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------- values


class MatchStatus(StrEnum):
    LOBBY = "lobby"  # seats are being taken
    PLAYING = "playing"
    FINISHED = "finished"  # places stored; the final standings not posted yet
    ENDED = "ended"  # the final standings are posted
    CANCELLED = "cancelled"


class RoundStatus(StrEnum):
    DEALING = "dealing"  # row and hands stored; computers' rows, status message, DMs under way
    OPEN = "open"  # dealt: hands are being set
    SCORED = "scored"  # result and ledger stored; the showdown not posted yet
    SHOWN = "shown"  # the showdown is posted


ACTIVE_STATUSES = (MatchStatus.LOBBY, MatchStatus.PLAYING)
# What a starting process takes on: tables whose life is not over.
UNFINISHED_STATUSES = (MatchStatus.LOBBY, MatchStatus.PLAYING, MatchStatus.FINISHED)
FINISHED_STATUSES = (MatchStatus.FINISHED, MatchStatus.ENDED)  # places stored: it counts
SCORED_STATUSES = (RoundStatus.SCORED, RoundStatus.SHOWN)  # result stored: it counts
DEALT_STATUSES = (RoundStatus.DEALING, RoundStatus.OPEN)  # hands may be submitted
LEADERBOARD_SORTS = ("points", "wins", "matches", "sweeps", "sharpest", "rating")
SHARPEST_MIN_ROUNDS = 20  # reviewed rounds a player needs to be ranked by sharpness
RECENT_REVIEWS = 100  # the "recent" sharpness: over this many of a player's last rounds


# ---------------------------------------------------------------------------------- errors


class RepositoryError(Exception):
    """Base class of the errors the repository raises for a refused operation."""


class TableExists(RepositoryError):
    """The channel already has a lobby or playing match."""


class AlreadySeated(RepositoryError):
    """The user already sits at a lobby or playing table (this one or another)."""


class TableFull(RepositoryError):
    """Every seat of the table is taken."""


class NotInLobby(RepositoryError):
    """The match does not exist or is no longer in its lobby."""


class NotSeated(RepositoryError):
    """The user has no seat at this table."""


class NotPlaying(RepositoryError):
    """A round was requested for a match that does not exist or is not playing."""


# ---------------------------------------------------------------------------------- records


# The key of a server's settings object that holds its table options, by preset.
OPTIONS_KEY = "options"


def _server_defaults() -> dict[Setting, Any]:
    return {s: TABLE_SETTINGS[s].default for s in SERVER_SETTINGS}


@dataclass(frozen=True)
class GuildSettings:
    """A server's defaults for its tables: a value for each of capsa.settings'
    SERVER_SETTINGS (the table's default where the server chose none), read with
    ``get(ROUNDS)``, and the table options it chose for each preset."""

    guild_id: int
    values: Mapping[Setting, Any] = field(default_factory=_server_defaults)
    options: Mapping[str, Mapping[str, object]] = field(default_factory=dict)

    @classmethod
    def from_stored(cls, guild_id: int, stored: object) -> GuildSettings:
        """The settings as stored (the decoded JSON object), each value checked against
        capsa.settings' table and each preset's options against the preset: a value that
        is no longer allowed, or a key this version does not know, reads as the default,
        with a log line."""
        if not isinstance(stored, Mapping):
            if stored is not None:
                log.warning("server %s: its settings are not an object; defaults used", guild_id)
            stored = {}
        values = _server_defaults()
        options: dict[str, Mapping[str, object]] = {}
        chosen = stored.get(OPTIONS_KEY, {})
        if not isinstance(chosen, Mapping):
            log.warning("server %s: stored options %r are not an object; ignored", guild_id, chosen)
            chosen = {}
        for name, value in stored.items():
            if name == OPTIONS_KEY:
                continue
            if name not in GUILD_SETTING_FIELDS:
                log.warning("server %s: setting %r is unknown; ignored", guild_id, name)
                continue
            try:
                values[Setting(name)] = TABLE_SETTINGS[Setting(name)].check(value)
            except ValueError as err:
                log.warning("server %s: stored %s; the default is used", guild_id, err)
        for preset, value in chosen.items():
            try:
                options[preset] = check_preset_options(preset, value)
            except ValueError as err:
                log.warning("server %s: stored %s; the preset's own are used", guild_id, err)
        return cls(guild_id, values, options)

    def get(self, setting: TableSetting[T]) -> T:
        """The server's value of ``setting`` (its default if the server chose none)."""
        return cast(T, self.values.get(setting.name, setting.default))

    def preset_options(self, preset: str) -> dict[str, object]:
        """The table options the server chose for ``preset`` (none: the preset's own)."""
        return dict(self.options.get(preset, {}))

    def table_preset(self, name: str | None = None) -> Preset:
        """Preset ``name`` (the server's default preset if None) with the server's options
        for it."""
        plain = get_preset(name or self.get(PRESET))
        return plain.with_options(self.preset_options(plain.name))


GUILD_SETTING_FIELDS: tuple[str, ...] = tuple(SERVER_SETTINGS)


class Claimed(IntEnum):
    """What ``claim_showdown`` / ``claim_standings`` got: false when nothing."""

    NO = 0  # another process holds it, or it is posted
    FRESH = 1  # nobody had tried to post it
    AFTER_ANOTHER = 2  # taken from a process that died or ran out of time: its post may
    # have landed without being stored, so look for it before posting again


class HandsIn(StrEnum):
    """Where a person's hand goes at each deal: by DM (the default), or in the channel
    only, where "Show my hand" on the round's status opens their builder (no DM sent)."""

    DM = "dm"
    CHANNEL = "channel"


@dataclass(frozen=True)
class Preferences:
    """A person's own choices (``/capsa me``), the same in every server: the language of
    what they read privately (None: their Discord client's), their deck style, and where
    their hands go."""

    user_id: int
    language: str | None = None  # one of capsa.i18n.LANGS
    deck: DeckStyle = DeckStyle.CLASSIC
    hands: HandsIn = HandsIn.DM


PREFERENCE_FIELDS: tuple[str, ...] = ("language", "deck", "hands")


def validate_preferences(fields: dict[str, Any]) -> dict[str, Any]:
    """Check ``update_preferences`` fields; return them normalised or raise ValueError
    naming what is wrong and what to choose."""
    unknown = sorted(set(fields) - set(PREFERENCE_FIELDS))
    if unknown:
        choose = ", ".join(PREFERENCE_FIELDS)
        raise ValueError(f"unknown preference(s) {', '.join(unknown)}: choose from {choose}")
    clean = dict(fields)
    if "language" in clean and clean["language"] is not None and clean["language"] not in LANGS:
        raise ValueError(
            f"language {clean['language']!r} is not one of {', '.join(LANGS)} (or None: the"
            " client's)"
        )
    for name, kind in (("deck", DeckStyle), ("hands", HandsIn)):
        if name in clean:
            try:
                clean[name] = kind(clean[name])
            except ValueError:
                raise ValueError(
                    f"{name} {clean[name]!r} is not one of {', '.join(kind)}"
                ) from None
    return clean


@dataclass(frozen=True)
class ProcessRecord:
    """A live bot process: who (``host:pid``), its shards, when it started and was last
    seen (unix seconds)."""

    owner: str
    shards: str
    started_at: float
    seen_at: float


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    user_id: int | None  # None: computer player
    name: str
    is_bot: bool
    level: str | None
    place: int | None  # final place once the match is finished (1 = winner)
    language: str | None = None  # a person's catalogue language when they sat down


@dataclass(frozen=True)
class MatchRecord:
    id: int
    guild_id: int
    channel_id: int
    host_id: int
    preset: str
    options: dict[str, Any]
    rounds_total: int
    countdown: int
    bot_level: str
    timeout_action: str
    seats_count: int
    status: MatchStatus
    lobby_message_id: int | None
    created_at: float
    started_at: float | None
    finished_at: float | None  # finish time, or cancel time for a cancelled match
    lobby_expires_at: float | None
    seats: tuple[SeatRecord, ...]
    language: str
    standings_message_id: int | None = None  # the posted final standings

    @property
    def finished(self) -> bool:
        """Places stored (standings posted or not)."""
        return self.status in FINISHED_STATUSES

    def seat_of(self, user_id: int) -> SeatRecord | None:
        """The seat of a human player, or None."""
        return next((s for s in self.seats if s.user_id == user_id), None)

    @property
    def free_seats(self) -> int:
        return self.seats_count - len(self.seats)


@dataclass(frozen=True)
class HandRecord:
    seat: int
    cards: tuple[str, ...]  # the 13 dealt cards, in the order given to start_round
    back: tuple[str, ...] | None
    middle: tuple[str, ...] | None
    front: tuple[str, ...] | None
    declare: str | None
    fouled: bool
    auto: bool  # set by the countdown (the table's timeout action), not by the person
    submitted_at: float | None
    points: float | None  # set when the round is scored
    dm_channel_id: int | None
    dm_message_id: int | None
    dm_refused: bool  # the DM was refused and the player was told in the channel instead
    arranged: bool = False  # submitted as Auto-arrange suggested it
    surrendered: bool = False  # given up before the reveal: no rows, pays each player still in

    @property
    def submitted(self) -> bool:
        return self.submitted_at is not None


@dataclass(frozen=True)
class RoundRecord:
    id: int
    match_id: int
    number: int
    seed: int
    deadline: float
    status: RoundStatus
    status_message_id: int | None
    showdown_message_id: int | None
    result: dict[str, Any] | None
    created_at: float
    scored_at: float | None
    hands: tuple[HandRecord, ...]

    def hand(self, seat: int) -> HandRecord | None:
        return next((h for h in self.hands if h.seat == seat), None)

    @property
    def scored(self) -> bool:
        """Result and ledger stored (showdown posted or not)."""
        return self.status in SCORED_STATUSES

    @property
    def all_submitted(self) -> bool:
        return all(h.submitted_at is not None for h in self.hands)

    @property
    def pending_seats(self) -> tuple[int, ...]:
        return tuple(h.seat for h in self.hands if h.submitted_at is None)


@dataclass(frozen=True)
class LeaderRow:
    user_id: int
    name: str
    points: float
    wins: int
    matches: int
    sweeps: int  # sweeps given
    rounds: int
    reviewed: int = 0  # rounds the coach reviewed that count toward sharpness
    loss: float | None = None  # their average points lost to the best setting, a hand
    rating: Rating | None = None  # their rating on the server (capsa.rating), if rated


@dataclass(frozen=True)
class PlayerStats:
    user_id: int
    matches: int
    wins: int
    points: float
    rounds: int
    points_per_round: float
    sweeps_given: int
    sweeps_taken: int
    table_sweeps: int
    fouls: int
    specials: dict[str, int] = field(default_factory=dict)
    best_hand: dict[str, Any] | None = None  # {"category", "cards", "strength", "position"}
    # the coach: points lost to the best setting, a hand, over the rounds that count
    reviewed: int = 0  # reviewed rounds that count (set by the person)
    loss_all: float | None = None  # over all of them
    loss_recent: float | None = None  # over the last RECENT_REVIEWS of them
    uncounted: int = 0  # reviewed rounds that do not count (auto-arranged, timed out)
    rating: Rating | None = None  # their rating on the server (capsa.rating), if rated
    rating_change: float | None = None  # its conservative value's change in their last match


@dataclass(frozen=True)
class RoundScore:
    """One seat's outcome of a round: the input of ``score_round``."""

    seat: int
    points: float
    fouled: bool = False
    special: str | None = None
    sweeps_given: int = 0
    sweeps_taken: int = 0
    table_sweep: bool = False
    best_row: dict[str, Any] | None = None  # {"category", "cards", "strength", "position"}


@dataclass(frozen=True)
class TimerRecord:
    """A table's timer, as claimed by a process: run ``kind`` for the table (with ``arg``,
    say a round id), then ``finish_timer`` with this ``version`` (a timer set again since has
    a newer one, and stays)."""

    match_id: int
    kind: str
    arg: int
    version: int
    attempts: int  # failed runs so far


@dataclass(frozen=True)
class MatchSummary:
    """A finished match as ``/capsa history`` lists it: the match (its seats carry their
    places) and each seat's points over the whole match."""

    match: MatchRecord
    totals: dict[int, float]  # seat -> points, every seat of the match


@dataclass(frozen=True)
class DailyHand:
    """A server's daily hand of a (UTC) day: the rules it is valued by and its 13 cards."""

    guild_id: int
    day: date
    preset: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class DailyPlay:
    """A member's one play of a daily hand, as the coach valued it."""

    guild_id: int
    day: date
    user_id: int
    back: tuple[str, ...]
    middle: tuple[str, ...]
    front: tuple[str, ...]
    declare: str | None
    fouled: bool
    value: float  # expected points of the setting
    best_value: float  # of the coach's best setting
    loss: float
    review: dict[str, Any]  # capsa.coach.Review.to_dict
    played_at: float


def check_preset_options(preset: object, options: object) -> dict[str, object]:
    """``options`` for ``preset`` as a server stores them (every option the preset
    allows, with its value), or ValueError naming what is wrong."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ValueError(f"no preset {preset!r}: choose one of {', '.join(PRESETS)}")
    if not isinstance(options, Mapping):
        raise ValueError(f"{preset}'s options must be an object, not {options!r}")
    try:
        return PRESETS[preset].with_options(options).options
    except CapsaError as err:
        raise ValueError(str(err)) from err


def validate_guild_settings(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Check ``update_guild_settings`` fields against capsa.settings' table (and
    ``options``, by preset, against the presets); return them normalised or raise
    ValueError."""
    unknown = sorted(set(fields) - {*GUILD_SETTING_FIELDS, OPTIONS_KEY})
    if unknown:
        raise ValueError(
            f"unknown setting(s) {', '.join(unknown)}:"
            f" choose from {', '.join((*GUILD_SETTING_FIELDS, OPTIONS_KEY))}"
        )
    clean: dict[str, Any] = {
        name: TABLE_SETTINGS[Setting(name)].check(value)
        for name, value in fields.items()
        if name != OPTIONS_KEY
    }
    if OPTIONS_KEY in fields:
        chosen = fields[OPTIONS_KEY]
        if not isinstance(chosen, Mapping):
            raise ValueError(f"options must be an object by preset, not {chosen!r}")
        clean[OPTIONS_KEY] = {p: check_preset_options(p, o) for p, o in chosen.items()}
    return clean


def merge_guild_settings(stored: object, clean: Mapping[str, Any]) -> dict[str, Any]:
    """The stored settings object with ``clean`` (``validate_guild_settings``'s) written
    over it: a setting's value replaced, a preset's options replaced, the rest kept (keys
    this version does not know too, for a newer version sharing the database)."""
    merged = dict(stored) if isinstance(stored, Mapping) else {}
    for name, value in clean.items():
        if name == OPTIONS_KEY:
            old = merged.get(OPTIONS_KEY)
            merged[OPTIONS_KEY] = {**(old if isinstance(old, Mapping) else {}), **value}
        else:
            merged[name] = value
    return merged


# ---------------------------------------------------------------------------------- protocol


@runtime_checkable
class Repository(Protocol):
    """Everything the bot stores. Every method is one transaction (or one consistent read)."""

    async def close(self) -> None: ...

    # settings
    async def guild_settings(self, guild_id: int) -> GuildSettings: ...

    async def update_guild_settings(self, guild_id: int, **fields: Any) -> GuildSettings: ...

    # matches
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
        """Open a lobby with the host in seat 0 (``host_language``: their catalogue
        language)."""
        ...

    async def set_lobby_message(self, match_id: int, message_id: int | None) -> None: ...

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
        """Seat a person (``language``: their catalogue language) or a computer (no user)
        in the first free seat of a lobby."""
        ...

    async def set_seat_language(self, match_id: int, user_id: int, language: str | None) -> bool:
        """Store the person's catalogue language at that table; False if they have no seat
        there."""
        ...

    async def remove_seat(self, match_id: int, user_id: int) -> MatchRecord: ...

    async def start_match(self, match_id: int, *, now: float | None = None) -> bool: ...

    async def cancel_match(
        self, match_id: int, *, now: float | None = None, lobby_only: bool = False
    ) -> bool:
        """Cancel a lobby or playing match (with ``lobby_only``, only a lobby: an expiry
        never cancels a table that another process has just started)."""
        ...

    async def finish_match(
        self, match_id: int, places: dict[int, int], *, now: float | None = None
    ) -> bool:
        """A playing match becomes FINISHED with its places stored, once."""
        ...

    async def claim_standings(
        self, match_id: int, lease: float, *, owner: str, judging: bool = True
    ) -> Claimed:
        """The right to post a FINISHED match's final standings for the process ``owner``,
        for ``lease`` seconds (renewed by its ``heartbeat``): true for one caller at a time
        (in any process); a dead process's claim is taken over at once (``AFTER_ANOTHER``).
        ``judging``: as ``claim_timers``'."""
        ...

    async def holds_standings(self, match_id: int, *, owner: str) -> bool:
        """Whether ``owner`` still holds the claim on posting the standings (not taken over,
        not posted): asked just before the post."""
        ...

    async def release_standings(self, match_id: int, *, owner: str) -> None:
        """``owner`` gives up its claim on posting the standings (the post failed: another
        may try, after looking for it, as after a process that died: the failure may have
        come after the post landed, so the next claim is ``Claimed.AFTER_ANOTHER``); a
        claim another process took over stays."""
        ...

    async def mark_standings_posted(self, match_id: int, message_id: int | None) -> bool:
        """FINISHED -> ENDED, storing the standings' message id (None: the post failed for
        good); True only for the caller that made the change."""
        ...

    async def get_match(self, match_id: int) -> MatchRecord | None: ...

    async def active_match_in_channel(self, channel_id: int) -> MatchRecord | None: ...

    async def active_match_of_user(self, user_id: int) -> MatchRecord | None: ...

    async def active_matches(self) -> list[MatchRecord]: ...

    async def unfinished_matches(self) -> list[MatchRecord]:
        """Matches in their lobby, playing, or FINISHED with the standings not posted: what
        a starting process takes on."""
        ...

    # rounds
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
        """Store a round and its hands as DEALING, once per number: a second caller gets the
        round the first one stored (compare the seed)."""
        ...

    async def set_round_deadline(self, round_id: int, deadline: float) -> bool:
        """Move a round's deadline (unix seconds) while it is being dealt or set; True if
        it moved."""
        ...

    async def mark_round_open(self, round_id: int) -> bool:
        """DEALING -> OPEN (the computers' rows, the status message and the DMs are done);
        True only for the caller that made the change."""
        ...

    async def current_round(self, match_id: int) -> RoundRecord | None: ...

    async def get_round(self, round_id: int) -> RoundRecord | None: ...

    async def set_round_messages(
        self,
        round_id: int,
        status_message_id: int | None = None,
        showdown_message_id: int | None = None,
    ) -> None: ...

    async def set_dm_message(
        self, round_id: int, seat: int, channel_id: int | None, message_id: int | None
    ) -> None: ...

    async def mark_dm_refused(self, round_id: int, seat: int) -> None:
        """Remember that the seat's DM was refused (and the channel told): the hand gets
        ``dm_refused`` and no DM message."""
        ...

    async def remember_dm_channel(self, user_id: int, channel_id: int) -> None:
        """The DM channel opened with a person, for every later deal (any process)."""
        ...

    async def dm_channel_of(self, user_id: int) -> int | None:
        """The DM channel opened with a person before, or None."""
        ...

    async def keep_channel_token(self, channel_id: int, token: str, expires_at: float) -> None:
        """The latest interaction token of a table's channel (Start, Next), usable until
        ``expires_at`` (unix s), unless the one kept expires later. Never logged."""
        ...

    async def channel_token(self, channel_id: int) -> tuple[str, float] | None:
        """The channel's interaction token and its expiry, if one is still valid."""
        ...

    async def keep_message_token(self, message_id: int, token: str, expires_at: float) -> None:
        """The interaction token a message was sent with (its edits go through it)."""
        ...

    async def message_token(self, message_id: int) -> str | None:
        """The token a message was sent with, if it is still valid."""
        ...

    async def submit_hand(
        self,
        round_id: int,
        seat: int,
        back: list[str] | tuple[str, ...] | None,
        middle: list[str] | tuple[str, ...] | None,
        front: list[str] | tuple[str, ...] | None,
        declare: str | None,
        fouled: bool,
        auto: bool = False,
        *,
        arranged: bool = False,
        surrendered: bool = False,
        now: float | None = None,
    ) -> bool:
        """Lock a seat's setting in, once, while the round is DEALING or OPEN. ``auto``: the
        countdown set it; ``arranged``: the person submitted Auto-arrange's suggestion as it
        came; ``surrendered``: the seat gave its hand up (no rows, no special, not fouled;
        ValueError where the table does not allow surrender)."""
        ...

    async def score_round(
        self,
        round_id: int,
        result: dict[str, Any],
        scores: list[RoundScore],
        now: float | None = None,
    ) -> bool:
        """DEALING or OPEN -> SCORED with the result and the ledger, once, while the match
        is playing."""
        ...

    async def mark_showdown_posted(self, round_id: int, message_id: int | None) -> bool:
        """SCORED -> SHOWN, storing the showdown's message id (None: the post failed for
        good) and releasing the showdown claim; True only for the caller that made the
        change."""
        ...

    async def completed_rounds(self, match_id: int) -> list[RoundRecord]:
        """The match's scored rounds (SCORED or SHOWN), in order."""
        ...

    async def match_totals(self, match_id: int) -> dict[int, float]: ...

    # stats
    async def leaderboard(
        self,
        guild_id: int,
        sort: str = "points",
        period_days: int | None = None,
        limit: int = 10,
        offset: int = 0,
        now: float | None = None,
    ) -> list[LeaderRow]: ...

    async def leaderboard_count(
        self,
        guild_id: int,
        period_days: int | None = None,
        now: float | None = None,
        sort: str = "points",
    ) -> int:
        """How many rows ``leaderboard`` pages through (for ``sharpest``, only players with
        SHARPEST_MIN_ROUNDS reviewed rounds that count)."""
        ...

    async def player_stats(self, guild_id: int, user_id: int) -> PlayerStats: ...

    # the coach
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
        """Keep the coach's review of a person's hand in a scored round, once: False if it
        is already there (or the round is not scored, or the seat is a computer's)."""
        ...

    async def hand_review(self, round_id: int, seat: int) -> dict[str, Any] | None:
        """The stored review of a seat's hand, or None."""
        ...

    async def unreviewed_hands(self, since: float, limit: int = 200) -> list[tuple[int, int]]:
        """(round id, seat) of people's hands in rounds scored since ``since`` that have no
        review yet, oldest first."""
        ...

    # a person's preferences
    async def preferences(self, user_id: int) -> Preferences:
        """What ``user_id`` chose with ``/capsa me`` (the defaults if nothing)."""
        ...

    async def update_preferences(self, user_id: int, **fields: Any) -> Preferences:
        """Change some of a person's preferences (``PREFERENCE_FIELDS``; ``language=None``
        goes back to the client's language); ValueError names a wrong value."""
        ...

    # timers: every timed job of a table, claimed by one process at a time
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
        """Set the table's ``kind`` timer to fire in ``delay`` seconds (the database's clock),
        replacing one already set (a new version, no failures); with ``if_absent`` only if
        it has none; with ``owner`` (the caller) never one another process holds (it took
        the caller's work over). ``holder``: the timer is set already claimed by that
        process for ``lease`` seconds (a watchdog over work it does now; renewed by its
        ``heartbeat``).
        False: not set (``if_absent`` and one exists, or the table is gone). One due within
        TIMER_WAKE_SECONDS wakes every process that watches the timers."""
        ...

    async def cancel_timers(
        self,
        match_id: int,
        kinds: tuple[str, ...] | None = None,
        arg: int | None = None,
        *,
        holder: str | None = None,
    ) -> None:
        """Drop the table's timers (of ``kinds`` only, with ``arg`` only, and only those
        the process ``holder`` holds, if given)."""
        ...

    async def claim_timers(
        self, owner: str, lease: float, limit: int = 50, *, judging: bool = True
    ) -> list[TimerRecord]:
        """The timers ``owner`` may run now, oldest first: due ones nobody holds (never
        claimed, or their lease ran out), and any held by a dead process (a watchdog over
        work it will never finish, however far off it was due). Each is now ``owner``'s for
        ``lease`` seconds. Two live processes never get the same one. ``judging``: whether a
        process not seen for PROCESS_DEAD_SECONDS counts as dead (False: only one that
        stopped does; the caller's own contact with the database broke lately)."""
        ...

    async def holds_timer(self, match_id: int, kind: str, *, owner: str) -> bool:
        """Whether the process ``owner`` still holds the table's ``kind`` timer (nobody took
        its work over): asked before each message of work that must not be done twice."""
        ...

    async def start_process(self, owner: str, shards: str) -> None:
        """The bot process ``owner`` (running ``shards``, e.g. ``"0,1"``) starts: it is alive
        from now on while it calls ``heartbeat``. On a database one process has (SQLite),
        every other process is dead from now on: what they held is taken over at once."""
        ...

    async def heartbeat(self, owner: str, lease: float) -> None:
        """``owner`` lives: its row is seen now, and every timer lease and post claim it
        still holds runs ``lease`` seconds from now (a live process keeps its work, however
        long it takes)."""
        ...

    async def stop_process(self, owner: str) -> None:
        """``owner`` stops cleanly: it is dead from now on (whatever it still held is taken
        over at once)."""
        ...

    async def live_processes(self) -> list[ProcessRecord]:
        """The processes seen within PROCESS_DEAD_SECONDS, oldest first."""
        ...

    async def finish_timer(self, match_id: int, kind: str, version: int, *, owner: str) -> None:
        """The timer ran: drop it, unless it was set again meanwhile (another version) or
        ``owner`` no longer holds it (another process took it over)."""
        ...

    async def retry_timer(
        self, match_id: int, kind: str, version: int, delay: float, *, owner: str
    ) -> None:
        """The timer's run failed: due again in ``delay`` seconds, one more failure counted,
        unless it was set again meanwhile or ``owner`` no longer holds it."""
        ...

    async def next_timer_in(self) -> float | None:
        """Seconds until the earliest timer nobody holds is due (0 if one is due), or None."""
        ...

    async def timers_of(self, match_id: int) -> list[TimerRecord]:
        """The table's timers, by kind."""
        ...

    async def watch_timers(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` (in this event loop) whenever any process sets a timer due within
        TIMER_WAKE_SECONDS; look for the others at least that often."""
        ...

    async def claim_showdown(
        self, round_id: int, lease: float, *, owner: str, judging: bool = True
    ) -> Claimed:
        """The right to post a scored round's showdown for the process ``owner``, for
        ``lease`` seconds (renewed by its ``heartbeat``): true for one caller at a time (in
        any process) while the showdown is not posted; a dead process's claim is taken over
        at once (``AFTER_ANOTHER``). ``judging``: as ``claim_timers``'."""
        ...

    async def holds_showdown(self, round_id: int, *, owner: str) -> bool:
        """Whether ``owner`` still holds the claim on posting the showdown (not taken over,
        not posted): asked just before the post."""
        ...

    async def release_showdown(self, round_id: int, *, owner: str) -> None:
        """``owner`` gives up its claim on posting a showdown (the post failed: another may
        try, after looking for it, as after a process that died: the failure may have come
        after the post landed, so the next claim is ``Claimed.AFTER_ANOTHER``); a claim
        another process took over stays."""
        ...

    # history
    async def finished_matches(
        self, guild_id: int, user_id: int | None = None, limit: int = 10, offset: int = 0
    ) -> list[MatchSummary]:
        """A guild's finished matches, newest first (finish time, then id); with
        ``user_id``, only those that person sat in."""
        ...

    async def finished_matches_count(self, guild_id: int, user_id: int | None = None) -> int:
        """How many matches ``finished_matches`` pages through."""
        ...

    # ratings (capsa/rating.py): finish_match rates the match in its transaction
    async def rate_finished_matches(self, *, now: float | None = None) -> int:
        """Rate every finished match not rated yet (those finished before ratings existed),
        each server's in the order they finished, each once; how many were rated."""
        ...

    async def ratings(self, guild_id: int) -> dict[RatedPlayer, Rating]:
        """Every rated player of the server (members and computer levels) and their rating."""
        ...

    async def rated_placings(self, guild_id: int) -> list[tuple[Placing, ...]]:
        """The places of the server's rated matches, in the order they were rated: what
        ``capsa.rating.replay`` turns into ``ratings`` again."""
        ...

    # the daily hand (capsa/daily.py): days are UTC dates
    async def open_daily(
        self,
        guild_id: int,
        day: date,
        preset: str,
        cards: list[str] | tuple[str, ...],
        *,
        now: float | None = None,
    ) -> DailyHand:
        """The server's hand of ``day``: stored with these rules and cards by the first
        caller; every later caller gets the stored one."""
        ...

    async def daily_hand(self, guild_id: int, day: date) -> DailyHand | None: ...

    async def record_daily_play(
        self,
        guild_id: int,
        day: date,
        user_id: int,
        rows: tuple[list[str] | tuple[str, ...], ...],
        declare: str | None,
        fouled: bool,
        review: dict[str, Any],
        *,
        now: float | None = None,
    ) -> bool:
        """Keep a member's play of the day's hand (its rows back, middle, front, and the
        coach's review: ``played_value``, ``best_value``, ``loss``), once: False if they
        played it already (or the day's hand was never opened)."""
        ...

    async def daily_play(self, guild_id: int, day: date, user_id: int) -> DailyPlay | None: ...

    async def daily_plays(self, guild_id: int, day: date) -> list[DailyPlay]:
        """The plays of the server's hand of ``day``, smallest loss first (then first
        played)."""
        ...

    async def daily_days(self, guild_id: int, user_id: int) -> list[date]:
        """The days the member played the server's daily hand, oldest first."""
        ...
