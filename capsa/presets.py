"""The four rule presets of RULES §5.1 as immutable objects, plus their table options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from itertools import product
from types import MappingProxyType
from typing import Literal

from capsa.cards import CapsaError
from capsa.hands import ALL_CATEGORIES, TieBreak

POSITIONS = ("back", "middle", "front")
SPECIALS = ("dragon", "six_pairs", "three_straights", "three_flushes")  # highest first
Scoring = Literal["multiply", "base", "units"]
# Units a ``units`` preset adds on top of the rows, by method (RULES §5.1): 1-6 gives +3 for
# a sweep; 2-4 gives +1 to whoever wins the majority of the rows.
METHOD_EXTRA: Mapping[str, int] = MappingProxyType({"1-6": 3, "2-4": 1})


class PresetOption(StrEnum):
    """A table option a preset may allow; each is the :class:`Preset` field of that name."""

    METHOD = "method"
    ROOM_FEE = "room_fee"
    SURRENDER = "surrender"


# The values each table option takes.
OPTION_CHOICES: Mapping[PresetOption, tuple[object, ...]] = MappingProxyType(
    {
        PresetOption.METHOD: tuple(METHOD_EXTRA),
        PresetOption.ROOM_FEE: (False, True),
        PresetOption.SURRENDER: (False, True),
    }
)


def _either(choices: tuple[object, ...]) -> str:
    """The choices as an error names them: ``true or false``, ``'1-6' or '2-4'``."""
    if all(isinstance(c, bool) for c in choices):
        return "true or false"
    return " or ".join(repr(c) for c in choices)


def _frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Preset:
    """A complete set of rule options.

    ``scoring`` says how a sweep multiplies a pair's total:
    - ``multiply`` (standard, indocapsa): the whole pairwise total, bonuses included;
    - ``base`` (sayapoker): only the base 1 per row, the bonus surplus added unmultiplied;
    - ``units`` (chinese-poker): 1 per row, royalties on top, a sweep/majority bonus by
      ``method``; nothing is multiplied.
    ``row_values`` are the winner's value of a row (``multiply``/``base``) or the royalty
    added on top of the row's 1 (``units``); a category not listed is worth 1 (or +0).
    """

    name: str
    suit_tiebreak: TieBreak
    scoring: Scoring
    row_values: Mapping[tuple[str, str], int]
    sweep_multiplier: int
    table_sweep_multiplier: int | None
    table_sweep_min_opponents: int | None
    foul_multiplier: int
    specials: Mapping[str, int]
    same_special: Literal["tie", "compare"]
    # table options
    method: Literal["1-6", "2-4"] | None = None
    room_fee: bool = False
    room_fee_rate: float = 0.0
    surrender: bool = False
    surrender_cost: int = 0
    allowed_options: frozenset[PresetOption] = field(default_factory=frozenset)

    def row_value(self, position: str, category: str) -> int:
        """The winner's value for a row (RULES §5); royalties for ``units`` scoring."""
        default = 0 if self.scoring == "units" else 1
        return self.row_values.get((position, category), default)

    def pays(self, special: str) -> bool:
        return special in self.specials

    def with_options(self, options: Mapping[str, object] | None) -> Preset:
        """This preset with table options applied; unknown or disallowed options are refused."""
        if not options:
            return self
        chosen: dict[str, object] = {}
        for key, value in options.items():
            if key not in self.allowed_options:
                allowed = ", ".join(sorted(self.allowed_options)) or "none"
                raise CapsaError(
                    f"option '{key}' does not exist for preset '{self.name}' (allowed: {allowed})"
                )
            choices = OPTION_CHOICES[PresetOption(key)]
            if not any(type(value) is type(c) and value == c for c in choices):
                raise CapsaError(f"option '{key}' must be {_either(choices)}, not {value!r}")
            chosen[key] = value
        return replace(self, **chosen)  # type: ignore[arg-type]  # checked against the choices

    @property
    def options(self) -> dict[str, object]:
        """The table options this preset allows, with their values (in PresetOption order)."""
        return {str(o): getattr(self, o) for o in PresetOption if o in self.allowed_options}

    def __reduce__(self):
        """Pickle as plain dicts (a mappingproxy does not pickle): a Preset, custom ones
        included, can be sent to a worker process."""
        state = {f.name: getattr(self, f.name) for f in fields(self)}
        state["row_values"] = dict(self.row_values)
        state["specials"] = dict(self.specials)
        return _unpickle_preset, (state,)


def _unpickle_preset(state: dict) -> Preset:
    state = {
        **state,
        "row_values": _frozen(state["row_values"]),
        "specials": _frozen(state["specials"]),
    }
    return Preset(**state)


def _bonuses(**rows: Mapping[str, int]) -> Mapping[tuple[str, str], int]:
    """A ``row_values`` table by row: ``front={"three_of_a_kind": 5}, middle={...}``."""
    table: dict[tuple[str, str], int] = {}
    for position, values in rows.items():
        if position not in POSITIONS:
            raise ValueError(f"no row {position!r}: the rows are {', '.join(POSITIONS)}")
        for category, value in values.items():
            if category not in ALL_CATEGORIES:
                raise ValueError(f"no hand category {category!r}")
            table[(position, category)] = value
    return _frozen(table)


# The bonus table standard and sayapoker share (RULES §5.1).
_COMMON_BONUSES = _bonuses(
    front={"three_of_a_kind": 5},
    middle={"full_house": 3, "four_of_a_kind": 14, "straight_flush": 18, "royal_flush": 22},
    back={"four_of_a_kind": 7, "straight_flush": 9, "royal_flush": 11},
)
_FOUR_SPECIALS = {"dragon": 13, "six_pairs": 3, "three_straights": 3, "three_flushes": 3}

STANDARD = Preset(
    name="standard",
    suit_tiebreak="key_card",
    scoring="multiply",
    row_values=_COMMON_BONUSES,
    sweep_multiplier=2,
    table_sweep_multiplier=4,
    table_sweep_min_opponents=2,
    foul_multiplier=2,
    specials=_frozen(_FOUR_SPECIALS),
    same_special="tie",
)

SAYAPOKER = Preset(
    name="sayapoker",
    suit_tiebreak="early",
    scoring="base",
    row_values=_COMMON_BONUSES,
    sweep_multiplier=2,
    table_sweep_multiplier=4,
    table_sweep_min_opponents=3,
    foul_multiplier=4,  # (reading) as swept by a table sweep, at any table
    specials=_frozen({"dragon": 208}),
    same_special="tie",
    room_fee=False,
    room_fee_rate=0.03,
    allowed_options=frozenset({PresetOption.ROOM_FEE}),
)

INDOCAPSA = Preset(
    name="indocapsa",
    suit_tiebreak="key_card",
    scoring="multiply",
    row_values=_bonuses(
        front={"three_of_a_kind": 6},
        middle={"full_house": 4, "four_of_a_kind": 16, "straight_flush": 20, "royal_flush": 24},
        back={"four_of_a_kind": 8, "straight_flush": 10, "royal_flush": 12},
    ),
    sweep_multiplier=2,
    table_sweep_multiplier=4,
    table_sweep_min_opponents=2,
    foul_multiplier=3,  # (reading of "3x")
    specials=_frozen({"dragon": 78, "six_pairs": 18, "three_straights": 18, "three_flushes": 18}),
    same_special="compare",
)

CHINESE_POKER = Preset(
    name="chinese-poker",
    suit_tiebreak="none",
    scoring="units",
    row_values=_bonuses(  # royalties, on top of the row's 1
        front={"three_of_a_kind": 3},
        middle={"full_house": 2, "four_of_a_kind": 8, "straight_flush": 10, "royal_flush": 14},
        back={"four_of_a_kind": 4, "straight_flush": 5, "royal_flush": 7},
    ),
    sweep_multiplier=1,
    table_sweep_multiplier=None,
    table_sweep_min_opponents=None,
    foul_multiplier=1,
    specials=_frozen(_FOUR_SPECIALS),
    same_special="compare",
    method="1-6",
    surrender=False,
    surrender_cost=3,
    allowed_options=frozenset({PresetOption.METHOD, PresetOption.SURRENDER}),
)

PRESETS: Mapping[str, Preset] = _frozen(
    {p.name: p for p in (STANDARD, SAYAPOKER, INDOCAPSA, CHINESE_POKER)}
)
DEFAULT_PRESET = "standard"


def get_preset(name: str | None = None, options: Mapping[str, object] | None = None) -> Preset:
    """Look a preset up by name (``standard`` by default) and apply table options."""
    key = (name or DEFAULT_PRESET).strip().lower()
    if key not in PRESETS:
        raise CapsaError(f"unknown preset '{name}': choose one of {', '.join(PRESETS)}")
    return PRESETS[key].with_options(options)


@dataclass(frozen=True)
class OptionSet:
    """One way to set a preset's table options: a value for each option the preset allows
    (in :class:`PresetOption` order). ``/capsa new`` and ``/capsa settings`` offer every
    set of every preset (:data:`OPTION_SETS`), so a person picks one instead of typing."""

    preset: str
    values: tuple[tuple[PresetOption, object], ...]

    @property
    def key(self) -> str:
        """The set as ``--rules``/``--option`` write it: ``chinese-poker method=2-4
        surrender=false`` (booleans as ``true``/``false``)."""
        written = [f"{o}={str(v).lower() if isinstance(v, bool) else v}" for o, v in self.values]
        return " ".join([self.preset, *written])

    @property
    def options(self) -> dict[str, object]:
        """The options as a match stores them (``Preset.with_options`` takes them)."""
        return {str(option): value for option, value in self.values}


def option_sets(preset: Preset) -> tuple[OptionSet, ...]:
    """Every set of ``preset``'s table options; none for a preset that allows none."""
    allowed = [o for o in PresetOption if o in preset.allowed_options]
    if not allowed:
        return ()
    return tuple(
        OptionSet(preset.name, tuple(zip(allowed, values, strict=True)))
        for values in product(*(OPTION_CHOICES[o] for o in allowed))
    )


# Every preset's option sets by key, in preset order.
OPTION_SETS: Mapping[str, OptionSet] = _frozen(
    {s.key: s for p in PRESETS.values() for s in option_sets(p)}
)
