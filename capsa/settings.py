"""The table options a player or a server can choose, in one table.

Each :class:`TableSetting` has its name, type, default and allowed choices or range.
Everything that offers or checks a choice reads it from here: the slash commands' choices
and ranges, the repository's checks and its records' defaults, the lobby, the rules pages,
the terminal game and the command line. ``tests/test_settings_schema.py`` checks that the
database's DEFAULTs and CHECKs agree with the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Generic, TypeVar, cast

from capsa.i18n import LANGS
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
    set its default (``/capsa settings``)."""

    name: Setting
    kind: type[T]
    default: T
    choices: tuple[T, ...] = ()
    low: int | None = None
    high: int | None = None
    server: bool = True

    def __post_init__(self) -> None:
        ranged = self.low is not None and self.high is not None
        if ranged == bool(self.choices) or not self.allows(self.default):
            raise ValueError(f"{self.name}: give choices or a range, and a default within it")

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


PRESET = TableSetting(Setting.PRESET, str, DEFAULT_PRESET, tuple(PRESETS))
ROUNDS = TableSetting(Setting.ROUNDS, int, 10, MATCH_LENGTHS)
COUNTDOWN = TableSetting(Setting.COUNTDOWN, int, 120, low=30, high=300)  # seconds
BOT_LEVEL = TableSetting(Setting.BOT_LEVEL, str, Level.NORMAL.value, LEVELS)
TIMEOUT_ACTION = TableSetting(
    Setting.TIMEOUT_ACTION, str, TimeoutAction.AUTO.value, TIMEOUT_ACTIONS
)
SEATS = TableSetting(Setting.SEATS, int, 4, low=2, high=4, server=False)
# A table's language is one of LANGS; a server's may also be "auto" (each user's own).
LANGUAGE = TableSetting(Setting.LANGUAGE, str, AUTO_LANGUAGE, (AUTO_LANGUAGE, *LANGS))

TABLE_SETTINGS: Mapping[Setting, TableSetting[Any]] = MappingProxyType(
    {s.name: s for s in (PRESET, ROUNDS, COUNTDOWN, BOT_LEVEL, TIMEOUT_ACTION, SEATS, LANGUAGE)}
)
# The settings a server chooses the defaults of, in the order /capsa settings shows them.
SERVER_SETTINGS: tuple[Setting, ...] = tuple(s for s, o in TABLE_SETTINGS.items() if o.server)
