"""The table options a player or a server can choose, in one table.

Each :class:`TableSetting` has its name, type, default and allowed choices or range, and
how a person reads it (the slash command's option, the names of its choices, its unit).
Everything that offers or checks a choice reads it from here: the slash commands' choices
and ranges (``/capsa settings`` has an option for each of :data:`SERVER_SETTINGS`), the
repository's checks and its records' defaults (a server's settings are stored as one JSON
value, checked against this table when written and when read), the settings screen, the
lobby, the rules pages, the terminal game and the command line.
``tests/test_settings_schema.py`` checks that the database agrees with the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Generic, TypeVar, cast

from capsa.i18n import LANGS, t
from capsa.match import MATCH_LENGTHS
from capsa.presets import DEFAULT_PRESET, PRESETS


class Level(StrEnum):
    """How well a computer player (or Auto-arrange) sets its rows."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


class TimeoutAction(StrEnum):
    """What happens to a person whose countdown runs out."""

    AUTO = "auto"  # the solver sets their rows
    FOUL = "foul"  # they count as fouled


class Setting(StrEnum):
    """The name of a table setting (a server's default of it has the same name)."""

    PRESET = "preset"
    ROUNDS = "rounds"
    COUNTDOWN = "countdown"
    BOT_LEVEL = "bot_level"
    TIMEOUT_ACTION = "timeout_action"
    SEATS = "seats"
    LANGUAGE = "language"


LEVELS: tuple[str, ...] = tuple(Level)
TIMEOUT_ACTIONS: tuple[str, ...] = tuple(TimeoutAction)
AUTO_LANGUAGE = "auto"  # a server setting: follow each user's Discord language

T = TypeVar("T", int, str)


@dataclass(frozen=True)
class TableSetting(Generic[T]):
    """One setting: its values are ``choices``, or the whole numbers ``low`` to ``high``
    (both included). Text is matched without regard to case; ``server``: a server may
    set its default (``/capsa settings``).

    How a person reads it: ``option`` is the slash command option's name (catalogue keys
    ``opt.<option>`` and ``opt.<option>.desc``; the setting's own name if empty), the
    settings screen names it ``set.<name>``; ``labels`` gives the catalogue key naming a
    choice (a choice not listed reads as it is stored: a number, a preset's name);
    ``unit`` is the catalogue key a number is written with ("{value}s")."""

    name: Setting
    kind: type[T]
    default: T
    choices: tuple[T, ...] = ()
    low: int | None = None
    high: int | None = None
    server: bool = True
    option: str = ""
    labels: tuple[tuple[T, str], ...] = ()
    unit: str | None = None

    def __post_init__(self) -> None:
        ranged = self.low is not None and self.high is not None
        if ranged == bool(self.choices) or not self.allows(self.default):
            raise ValueError(f"{self.name}: give choices or a range, and a default within it")

    @property
    def option_name(self) -> str:
        """The slash command option's name, as its catalogue keys name it."""
        return self.option or str(self.name)

    def label_key(self, value: T) -> str | None:
        """The catalogue key naming ``value``, or None: it reads as it is stored."""
        return dict(self.labels).get(value)

    def text(self, value: T, lang: str) -> str:
        """``value`` as a person reads it in ``lang``: its choice's name, or the number
        with its unit, or as it is stored."""
        key = self.label_key(value)
        if key is not None:
            return t(key, lang)
        if self.unit is not None:
            return t(self.unit, lang, value=value)
        return str(value)

    @property
    def bounds(self) -> tuple[int, int]:
        """The smallest and largest value allowed (numbers only)."""
        if self.low is not None and self.high is not None:
            return self.low, self.high
        numbers = [int(c) for c in self.choices]
        return min(numbers), max(numbers)

    def allows(self, value: object) -> bool:
        """Whether ``value`` is one of the setting's values, exactly as stored."""
        if isinstance(value, bool) or not isinstance(value, self.kind):
            return False  # True is an int to Python, never a number of seats
        if self.choices:
            return value in self.choices
        low, high = self.bounds
        return isinstance(value, int) and low <= value <= high

    def check(self, value: object) -> T:
        """``value`` as stored (text in its canonical case: "zh-cn" -> "zh-CN"), or
        ValueError naming the setting and what it allows."""
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{self.name} must be a whole number, not {value!r}")
        elif not isinstance(value, str):
            raise ValueError(f"{self.name} must be text, not {value!r}")
        else:
            canonical = {str(c).lower(): c for c in self.choices}
            value = canonical.get(value.strip().lower(), value)
        if not self.allows(value):
            raise ValueError(f"{self.name} must be {self.allowed()}, not {value!r}")
        return cast(T, value)  # allows() checked its type

    def allowed(self) -> str:
        """What the setting allows, as an error names it: "one of 5, 10", "between 2 and 4"."""
        if self.choices:
            return f"one of {', '.join(map(str, self.choices))}"
        low, high = self.bounds
        return f"between {low} and {high}"


PRESET = TableSetting(Setting.PRESET, str, DEFAULT_PRESET, tuple(PRESETS), option="rules")
ROUNDS = TableSetting(Setting.ROUNDS, int, 10, MATCH_LENGTHS)
COUNTDOWN = TableSetting(  # seconds
    Setting.COUNTDOWN, int, 120, low=30, high=300, unit="set.unit.seconds"
)
BOT_LEVEL = TableSetting(
    Setting.BOT_LEVEL,
    str,
    Level.NORMAL.value,
    LEVELS,
    option="bots",
    labels=tuple((level, f"choice.{level}") for level in LEVELS),
)
TIMEOUT_ACTION = TableSetting(
    Setting.TIMEOUT_ACTION,
    str,
    TimeoutAction.AUTO.value,
    TIMEOUT_ACTIONS,
    option="timeout",
    labels=(
        (TimeoutAction.AUTO.value, "choice.auto_arrange"),
        (TimeoutAction.FOUL.value, "choice.foul"),
    ),
)
SEATS = TableSetting(Setting.SEATS, int, 4, low=2, high=4, server=False)
# A table's language is one of LANGS; a server's may also be "auto" (each user's own).
LANGUAGE = TableSetting(
    Setting.LANGUAGE,
    str,
    AUTO_LANGUAGE,
    (AUTO_LANGUAGE, *LANGS),
    labels=((AUTO_LANGUAGE, "choice.lang_auto"), *((lang, f"choice.{lang}") for lang in LANGS)),
)

TABLE_SETTINGS: Mapping[Setting, TableSetting[Any]] = MappingProxyType(
    {s.name: s for s in (PRESET, ROUNDS, COUNTDOWN, BOT_LEVEL, TIMEOUT_ACTION, SEATS, LANGUAGE)}
)
# The settings a server chooses the defaults of, in the order /capsa settings shows them.
SERVER_SETTINGS: tuple[Setting, ...] = tuple(s for s, o in TABLE_SETTINGS.items() if o.server)
