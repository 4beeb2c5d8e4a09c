"""The bottom of ``cogs/``: what a persistent component says and who answers it. Imports
nothing of ``cogs/``.

* The action enums (the lobby's buttons, the hand builder's selects and buttons, the page
  and replay steps), each member carrying what its control shows (catalogue key, style).
* The custom_id codecs: one frozen record per kind of click (``LobbyClick``...), with its
  ``custom_id`` and the ``TEMPLATE`` that reads it back (``from_match``). Every custom_id is
  namespaced ``capsa:`` and carries the state it needs, so buttons on old messages work
  after a restart.
* ``Refusal``: what a controller raises when it turns a person away (a code, whose
  catalogue key is the code's value); it is translated where the reply is sent.
* ``Router``: the controllers' handlers, registered by route (``Tables`` does it once
  assembled); the components (``cogs/items.py``) find theirs here.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, fields
from enum import Enum, StrEnum
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar, cast, get_type_hints

import discord

from capsa.builder import DraftState

log = logging.getLogger(__name__)

CAPSA_COG = "Capsa"  # the name of the cog that holds the tables (and their router)

# Table, round and message ids are signed 64-bit integers (Discord's snowflakes, SQLite's
# INTEGER): a custom_id carrying a bigger number was never ours.
ID_MAX = 2**63 - 1


def fits_id(*numbers: int) -> bool:
    """Whether every number read from a custom_id can be an id (0 to :data:`ID_MAX`)."""
    return all(0 <= n <= ID_MAX for n in numbers)


# --- refusals ---------------------------------------------------------------------------------


class RefusalCode(StrEnum):
    """Why a person is turned away; the value is the catalogue key of what they are told."""

    STALE = "ans.stale"  # the table, round or message is gone (or the id was forged)
    WRONG_COUNT = "builder.wrong_count"  # {row} (a Term), {count}: not five cards
    NOT_HELD = "builder.not_held"  # {card}: not in the person's hand
    CLASH = "builder.clash"  # {card}: placed in the other row already
    GUILD_ONLY = "ans.guild_only"
    HOST_ONLY = "ans.host_only"
    NOT_LOBBY = "ans.not_lobby"
    NO_TABLE = "ans.no_table"  # no table in this channel
    MISSING_PERMS = "ans.missing_perms"  # {perms}: what the bot lacks in the channel
    CHANNEL_BUSY = "ans.channel_busy"
    BAD_SEATS = "ans.bad_seats"
    BAD_ROUNDS = "ans.bad_rounds"
    BAD_COUNTDOWN = "ans.bad_countdown"
    TABLE_FULL = "ans.full"
    ALREADY_SEATED = "ans.already_seated"  # at another table
    ALREADY_HERE = "ans.already_here"
    NOT_SEATED = "ans.not_seated"
    HOST_LEAVES = "ans.host_leave"
    REMATCH_PLAYERS_ONLY = "ans.rematch_players_only"
    NEXT_STARTED = "ans.next_started"  # {k}: the round that runs
    NEXT_WAIT = "ans.next_wait"
    NO_HAND = "hand.none"
    NOT_YOUR_SEAT = "hand.not_yours"
    ROUND_OVER = "hand.round_over"
    ALREADY_SUBMITTED = "hand.already"
    INCOMPLETE = "hand.incomplete"
    NO_SPECIAL = "hand.no_special"
    NO_SURRENDER = "hand.no_surrender"  # the table does not allow surrender
    NOT_PLAYED = "rev.not_played"
    REPLAY_UNKNOWN = "rp.unknown"  # {id}
    REPLAY_CANCELLED = "rp.cancelled"  # {id}
    REPLAY_PLAYING = "rp.playing"  # {id}
    BAD_RULES = "ref.bad_rules"  # {name}: no such rule set; {presets}: those there are
    BAD_SETTING = "ref.bad_setting"  # a server setting out of its range
    SETTINGS_MANAGERS_ONLY = "set.refused"
    BAD_OPTIONS = "ref.bad_options"  # {preset}, {allowed}: its option sets; {option}: its name
    NO_OPTIONS = "ref.no_options"  # {preset} has none; {option}: the command option's name
    DAILY_PLAYED = "daily.already"  # the member played the day's hand already
    DAILY_OVER = "daily.over"  # a builder of a day that has ended


@dataclass(frozen=True)
class Term:
    """A value of a refusal's text that is itself translated: the catalogue key of a word
    (``lower``: in lower case, inside a sentence)."""

    key: str
    lower: bool = False


class NotLoaded(RuntimeError):
    """The tables (the Capsa cog) are not loaded: the bot is starting or stopping, and a
    click that arrives meanwhile is asked to try again in a moment."""


class Refusal(Exception):
    """A person is turned away: ``code`` says why, ``values`` fill its text's placeholders.
    Raised by controllers; the reply (in the person's language) is the caller's, never
    ``str()`` of this. A value that is a :class:`Term` is translated too."""

    def __init__(self, code: RefusalCode, **values: object) -> None:
        super().__init__(code.value)
        self.code = code
        self.values = values


# --- the actions --------------------------------------------------------------------------------


class LobbyAction(StrEnum):
    """The lobby's buttons (the value is the custom_id's last part), with their label's
    catalogue key and style, in the order they are shown."""

    key: str
    style: discord.ButtonStyle

    def __new__(cls, code: str, key: str, style: discord.ButtonStyle) -> Self:
        made = str.__new__(cls, code)
        made._value_ = code
        made.key, made.style = key, style
        return made

    JOIN = "join", "btn.join", discord.ButtonStyle.success
    LEAVE = "leave", "btn.leave", discord.ButtonStyle.secondary
    ADD = "add", "btn.add_bot", discord.ButtonStyle.secondary  # a computer player
    START = "start", "btn.start", discord.ButtonStyle.primary
    CANCEL = "cancel", "btn.cancel", discord.ButtonStyle.danger


class Placement(Enum):
    """Where a hand builder's control is shown."""

    SELECT = "select"  # a row's select menu (the row is the member's ``position``)
    BUTTON = "button"  # the builder's row of buttons, always
    SPECIAL = "special"  # the builder's row of buttons, when the hand holds a special
    CONFIRM = "confirm"  # alone, under "submit a fouled setting?"
    SURRENDER = "surrender"  # the builder's row of buttons, where the table allows surrender
    CONFIRM_SURRENDER = "confirm_surrender"  # alone, under "give this hand up?"


class BuilderAction(StrEnum):
    """The hand builder's selects and buttons: the custom_id's short code, the label's (or
    placeholder's) catalogue key, the style and where it is shown, in the order shown. A new
    button is a member here and its step in ``cogs.hand_builder`` (``@step``)."""

    key: str
    style: discord.ButtonStyle
    placement: Placement

    def __new__(cls, code: str, key: str, style: discord.ButtonStyle, placement: Placement) -> Self:
        made = str.__new__(cls, code)
        made._value_ = code
        made.key, made.style, made.placement = key, style, placement
        return made

    BACK = "b", "hand.back_ph", discord.ButtonStyle.secondary, Placement.SELECT
    MIDDLE = "m", "hand.middle_ph", discord.ButtonStyle.secondary, Placement.SELECT
    AUTO = "a", "btn.auto", discord.ButtonStyle.secondary, Placement.BUTTON
    DECLARE = "d", "btn.declare", discord.ButtonStyle.success, Placement.SPECIAL
    CLEAR = "c", "btn.clear", discord.ButtonStyle.secondary, Placement.BUTTON
    SUBMIT = "s", "btn.submit", discord.ButtonStyle.primary, Placement.BUTTON
    SUBMIT_FOUL = "f", "btn.submit_foul", discord.ButtonStyle.danger, Placement.CONFIRM
    SURRENDER = "g", "btn.surrender", discord.ButtonStyle.danger, Placement.SURRENDER
    SURRENDER_CONFIRM = (
        "y",
        "btn.surrender_confirm",
        discord.ButtonStyle.danger,
        Placement.CONFIRM_SURRENDER,
    )

    @property
    def position(self) -> str:
        """A select's row (``back``, ``middle``), as capsa.builder names it."""
        return {BuilderAction.BACK: "back", BuilderAction.MIDDLE: "middle"}[self]


SELECTS = tuple(a for a in BuilderAction if a.placement == Placement.SELECT)
BUTTONS = tuple(a for a in BuilderAction if a.placement != Placement.SELECT)


class PageDirection(StrEnum):
    """Previous and Next of a paged answer (the value ends their custom_id)."""

    PREV = "p"
    NEXT = "n"


class ReplayStep(StrEnum):
    """The replay's buttons (the value ends their custom_id)."""

    FIRST = "f"
    PREV = "p"
    NEXT = "n"
    LAST = "l"


# --- the custom_id codecs ---------------------------------------------------------------------

E = TypeVar("E", bound=Enum)


def member(kind: type[E], value: str) -> E:
    """The member of ``kind`` whose value is ``value`` (ValueError if none)."""
    found = kind._value2member_map_.get(value)
    if not isinstance(found, kind):
        raise ValueError(f"{value!r} is no {kind.__name__}")
    return found


class Click(Protocol):
    """A click's state as its custom_id carries it."""

    TEMPLATE: ClassVar[str]

    @property
    def custom_id(self) -> str: ...

    @property
    def ids(self) -> tuple[int, ...]:
        """The numbers that must be ids (a forged custom_id's are not)."""
        ...


def _pattern(kind: Any) -> str:
    """How a field of this type is written in a custom_id."""
    if isinstance(kind, type) and issubclass(kind, Enum):
        return "|".join(re.escape(str(m.value)) for m in kind)
    return r"\d+" if kind is int else r"\w+"


def _read(kind: Any, text: str) -> Any:
    if isinstance(kind, type) and issubclass(kind, Enum):
        return member(kind, text)
    return int(text) if kind is int else text


class FieldsClick:
    """A click whose custom_id is ``capsa:<PREFIX>`` then each field in order, written as
    it prints and read back by its type (int, str or an enum); ``IDS`` names the fields
    that must be ids. ``@codec`` sets the template from the fields."""

    PREFIX: ClassVar[str]
    IDS: ClassVar[tuple[str, ...]]
    TEMPLATE: ClassVar[str]

    @property
    def custom_id(self) -> str:
        values = (str(getattr(self, f.name)) for f in fields(cast(Any, self)))
        return ":".join(["capsa", self.PREFIX, *values])

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(int(getattr(self, name)) for name in self.IDS)

    @classmethod
    def from_match(cls, found: re.Match[str]) -> Self:
        kinds = get_type_hints(cls)
        return cls(**{f.name: _read(kinds[f.name], found[f.name]) for f in fields(cast(Any, cls))})


FieldsT = TypeVar("FieldsT", bound=FieldsClick)


def codec(prefix: str, *ids: str) -> Callable[[type[FieldsT]], type[FieldsT]]:
    """Declares a :class:`FieldsClick` dataclass's custom_id: ``capsa:<prefix>:<fields>``."""

    def declare(cls: type[FieldsT]) -> type[FieldsT]:
        kinds = get_type_hints(cls)
        parts = [f"(?P<{f.name}>{_pattern(kinds[f.name])})" for f in fields(cast(Any, cls))]
        cls.PREFIX, cls.IDS = prefix, ids
        cls.TEMPLATE = ":".join(["capsa", prefix, *parts])
        return cls

    return declare


@codec("lobby", "match_id")
@dataclass(frozen=True)
class LobbyClick(FieldsClick):
    match_id: int
    action: LobbyAction


@codec("show", "match_id")
@dataclass(frozen=True)
class ShowHandClick(FieldsClick):
    """ "Show my hand" on a round's status."""

    match_id: int


@codec("next", "match_id", "number")
@dataclass(frozen=True)
class NextClick(FieldsClick):
    """Next on the showdown of round ``number``."""

    match_id: int
    number: int


@codec("review", "round_id")
@dataclass(frozen=True)
class ReviewClick(FieldsClick):
    """ "Review my hand", on a showdown and on each person's DM of that round."""

    round_id: int


@codec("rematch", "match_id")
@dataclass(frozen=True)
class RematchClick(FieldsClick):
    """Rematch, on a finished match's standings."""

    match_id: int


@codec("lb", "page")
@dataclass(frozen=True)
class LeaderboardClick(FieldsClick):
    sort: str
    period: str
    page: int
    direction: PageDirection


EVERYONE = 0  # the member part of a history button's custom_id when no member is chosen


@codec("hist", "member_id", "page")
@dataclass(frozen=True)
class HistoryClick(FieldsClick):
    member_id: int
    page: int
    direction: PageDirection


@codec("rp", "match_id", "number")
@dataclass(frozen=True)
class ReplayClick(FieldsClick):
    """Shows round ``number`` of the match (the round the button leads to)."""

    match_id: int
    number: int
    step: ReplayStep


def builder_template(acts: tuple[BuilderAction, ...]) -> str:
    return (
        rf"capsa:h:(?P<act>[{''.join(acts)}]):(?P<round>\d+):(?P<seat>\d)"
        r":(?P<b>[0-9a-f]+):(?P<m>[0-9a-f]+)(?P<arranged>:a)?"
    )


@dataclass(frozen=True)
class BuilderClick:
    """A hand builder's select or button: the draft travels as its two masks (hex), and
    ``:a`` while its rows are Auto-arrange's suggestion (ids without it, from before the
    coach, read as not). ``values``: the cards a select sent (not part of the custom_id)."""

    TEMPLATE: ClassVar[str] = builder_template(tuple(BuilderAction))
    act: BuilderAction
    round_id: int
    seat: int
    state: DraftState
    values: tuple[str, ...] = field(default=(), compare=False)

    @property
    def custom_id(self) -> str:
        back, middle, arranged = self.state
        mark = ":a" if arranged else ""
        return f"capsa:h:{self.act}:{self.round_id}:{self.seat}:{back:x}:{middle:x}{mark}"

    @property
    def ids(self) -> tuple[int, ...]:
        return (self.round_id,)

    @classmethod
    def from_match(cls, found: re.Match[str]) -> Self:
        state = (int(found["b"], 16), int(found["m"], 16), found["arranged"] is not None)
        act = member(BuilderAction, found["act"])
        return cls(act, int(found["round"]), int(found["seat"]), state)


# The daily hand's builder: the hand builder's controls, but no Auto-arrange (the coach's
# best setting is what the members are compared with).
DAILY_ACTIONS = tuple(a for a in BuilderAction if a != BuilderAction.AUTO)
DAILY_SELECTS = tuple(a for a in DAILY_ACTIONS if a.placement == Placement.SELECT)
DAILY_BUTTONS = tuple(a for a in DAILY_ACTIONS if a.placement != Placement.SELECT)


def daily_template(acts: tuple[BuilderAction, ...]) -> str:
    return (
        rf"capsa:dh:(?P<act>[{''.join(acts)}]):(?P<day>\d{{8}})"
        r":(?P<b>[0-9a-f]+):(?P<m>[0-9a-f]+)"
    )


@dataclass(frozen=True)
class DailyClick:
    """A daily hand builder's select or button: the day (``capsa.daily.day_number``) and
    the draft's two masks (hex); the server is the interaction's. ``values``: the cards a
    select sent (not part of the custom_id)."""

    TEMPLATE: ClassVar[str] = daily_template(DAILY_ACTIONS)
    act: BuilderAction
    day: int
    state: DraftState
    values: tuple[str, ...] = field(default=(), compare=False)

    @property
    def custom_id(self) -> str:
        back, middle, _ = self.state
        return f"capsa:dh:{self.act}:{self.day}:{back:x}:{middle:x}"

    @property
    def ids(self) -> tuple[int, ...]:
        return (self.day,)

    @classmethod
    def from_match(cls, found: re.Match[str]) -> Self:
        state = (int(found["b"], 16), int(found["m"], 16), False)
        return cls(member(BuilderAction, found["act"]), int(found["day"]), state)


# --- routes -----------------------------------------------------------------------------------

C = TypeVar("C")
Handler = Callable[[discord.Interaction, C], Awaitable[None]]


@dataclass(frozen=True)
class Route(Generic[C]):
    """A kind of click, and the type of the record its handler gets."""

    name: str


LOBBY: Route[LobbyClick] = Route("lobby")
SHOW_HAND: Route[ShowHandClick] = Route("show_hand")
NEXT_ROUND: Route[NextClick] = Route("next_round")
REVIEW: Route[ReviewClick] = Route("review")
REMATCH: Route[RematchClick] = Route("rematch")
BUILDER: Route[BuilderClick] = Route("builder")
LEADERBOARD: Route[LeaderboardClick] = Route("leaderboard")
HISTORY: Route[HistoryClick] = Route("history")
REPLAY: Route[ReplayClick] = Route("replay")
DAILY: Route[DailyClick] = Route("daily")
ROUTE_OF: dict[type[Any], Route[Any]] = {
    LobbyClick: LOBBY,
    ShowHandClick: SHOW_HAND,
    NextClick: NEXT_ROUND,
    ReviewClick: REVIEW,
    RematchClick: REMATCH,
    BuilderClick: BUILDER,
    LeaderboardClick: LEADERBOARD,
    HistoryClick: HISTORY,
    ReplayClick: REPLAY,
    DailyClick: DAILY,
}
ROUTES = tuple(ROUTE_OF.values())


class Replier(Protocol):
    """How a click is answered when its handler did not: a refusal, in the person's
    language, or an error (logged, and the person told briefly)."""

    async def refused(self, interaction: discord.Interaction, refusal: Refusal) -> None: ...

    async def failed(
        self, interaction: discord.Interaction, error: Exception, what: str
    ) -> None: ...


class Router:
    """Each route's handler, registered once by whoever assembles the controllers, and the
    ``replier`` that answers refusals and errors."""

    def __init__(self, replier: Replier) -> None:
        self.replier = replier
        self._handlers: dict[Route[Any], Handler[Any]] = {}

    def register(self, route: Route[C], handler: Handler[C]) -> None:
        if route in self._handlers:
            raise ValueError(f"route {route.name} has a handler already")
        self._handlers[route] = handler

    def handler(self, route: Route[C]) -> Handler[C]:
        found = self._handlers.get(route)
        if found is None:
            raise LookupError(f"no handler for route {route.name}")
        return found

    @property
    def routes(self) -> frozenset[Route[Any]]:
        return frozenset(self._handlers)

    async def dispatch(self, interaction: discord.Interaction, click: Click) -> None:
        """The one way a click is answered: a forged id as a table that no longer exists,
        its route's handler, a refusal it raises told in the person's language, any other
        error reported. Never raises."""
        try:
            if not fits_id(*click.ids):
                log.info("refused a component with out-of-range ids: %s", click.ids)
                raise Refusal(RefusalCode.STALE)
            await self.handler(ROUTE_OF[type(click)])(interaction, click)
        except Refusal as refusal:
            await self.replier.refused(interaction, refusal)
        except Exception as error:
            await self.replier.failed(interaction, error, f"component {click.custom_id}")
