"""Presets (RULES §5.1): the table of options, immutability and table options."""

from __future__ import annotations

import dataclasses

import pytest

from capsa.cards import CapsaError
from capsa.presets import (
    CHINESE_POKER,
    DEFAULT_PRESET,
    INDOCAPSA,
    OPTION_CHOICES,
    PRESETS,
    SAYAPOKER,
    STANDARD,
    PresetOption,
    _bonuses,
    get_preset,
)

ROWS = [
    ("front", "three_of_a_kind"),
    ("middle", "full_house"),
    ("middle", "four_of_a_kind"),
    ("middle", "straight_flush"),
    ("middle", "royal_flush"),
    ("back", "four_of_a_kind"),
    ("back", "straight_flush"),
    ("back", "royal_flush"),
]

# RULES §5.1, column by column, in the order of ROWS
TABLE = {
    "standard": [5, 3, 14, 18, 22, 7, 9, 11],
    "sayapoker": [5, 3, 14, 18, 22, 7, 9, 11],
    "indocapsa": [6, 4, 16, 20, 24, 8, 10, 12],
    "chinese-poker": [3, 2, 8, 10, 14, 4, 5, 7],  # royalties
}


def test_the_four_presets() -> None:
    assert set(PRESETS) == {"standard", "sayapoker", "indocapsa", "chinese-poker"}
    assert DEFAULT_PRESET == "standard" and get_preset() is STANDARD
    assert get_preset(None) is STANDARD
    assert get_preset(" Chinese-Poker ") is CHINESE_POKER


@pytest.mark.parametrize("name", list(TABLE))
def test_row_value_table(name: str) -> None:
    preset = PRESETS[name]
    assert [preset.row_value(*key) for key in ROWS] == TABLE[name]
    plain = 0 if name == "chinese-poker" else 1
    # rows not in the table are worth 1 (chinese-poker: no royalty)
    assert preset.row_value("front", "pair") == plain
    assert preset.row_value("back", "full_house") == plain
    assert preset.row_value("middle", "flush") == plain
    assert preset.row_value("front", "four_of_a_kind") == plain


def test_tie_breaks_sweeps_fouls_and_specials() -> None:
    assert [p.suit_tiebreak for p in (STANDARD, SAYAPOKER, INDOCAPSA, CHINESE_POKER)] == [
        "key_card",
        "early",
        "key_card",
        "none",
    ]
    assert (STANDARD.sweep_multiplier, STANDARD.table_sweep_multiplier) == (2, 4)
    assert (STANDARD.table_sweep_min_opponents, STANDARD.foul_multiplier) == (2, 2)
    assert (SAYAPOKER.table_sweep_multiplier, SAYAPOKER.table_sweep_min_opponents) == (4, 3)
    assert SAYAPOKER.foul_multiplier == 4
    assert (INDOCAPSA.sweep_multiplier, INDOCAPSA.table_sweep_multiplier) == (2, 4)
    assert (INDOCAPSA.table_sweep_min_opponents, INDOCAPSA.foul_multiplier) == (2, 3)
    assert CHINESE_POKER.table_sweep_multiplier is None
    assert dict(STANDARD.specials) == {
        "dragon": 13,
        "six_pairs": 3,
        "three_straights": 3,
        "three_flushes": 3,
    }
    assert dict(SAYAPOKER.specials) == {"dragon": 208}
    assert dict(INDOCAPSA.specials) == {
        "dragon": 78,
        "six_pairs": 18,
        "three_straights": 18,
        "three_flushes": 18,
    }
    assert dict(CHINESE_POKER.specials) == dict(STANDARD.specials)
    assert [p.same_special for p in (STANDARD, SAYAPOKER, INDOCAPSA, CHINESE_POKER)] == [
        "tie",
        "tie",
        "compare",
        "compare",
    ]
    assert SAYAPOKER.pays("dragon") and not SAYAPOKER.pays("six_pairs")


def test_presets_are_immutable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        STANDARD.foul_multiplier = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        STANDARD.row_values[("front", "pair")] = 2  # type: ignore[index]
    with pytest.raises(TypeError):
        STANDARD.specials["dragon"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        PRESETS["mine"] = STANDARD  # type: ignore[index]


def test_table_options() -> None:
    assert CHINESE_POKER.method == "1-6" and not CHINESE_POKER.surrender
    two_four = get_preset("chinese-poker", {"method": "2-4", "surrender": True})
    assert two_four.method == "2-4" and two_four.surrender and two_four.surrender_cost == 3
    assert CHINESE_POKER.method == "1-6"  # the base preset is untouched
    assert two_four.options == {"method": "2-4", "surrender": True}
    fee = get_preset("sayapoker", {"room_fee": True})
    assert fee.room_fee and fee.room_fee_rate == 0.03 and not SAYAPOKER.room_fee
    assert fee.options == {"room_fee": True}
    assert STANDARD.options == {} and get_preset("standard", {}) is STANDARD


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("standard", {"method": "2-4"}, "method"),
        ("indocapsa", {"room_fee": True}, "room_fee"),
        ("sayapoker", {"surrender": True}, "surrender"),
        ("chinese-poker", {"method": "3-3"}, "3-3"),
        ("chinese-poker", {"surrender": "yes"}, "surrender"),
        ("sayapoker", {"room_fee": 1}, "room_fee"),
        ("chinese-poker", {"bogus": 1}, "bogus"),
    ],
)
def test_bad_options_are_refused(name, options, message) -> None:
    with pytest.raises(CapsaError, match=message):
        get_preset(name, options)


def test_unknown_preset_names_it() -> None:
    with pytest.raises(CapsaError, match="'texas'"):
        get_preset("texas")


def test_bonus_tables_are_named_by_row_and_category() -> None:
    assert _bonuses(front={"three_of_a_kind": 5}) == {("front", "three_of_a_kind"): 5}
    with pytest.raises(ValueError, match="fullhouse"):
        _bonuses(middle={"fullhouse": 3})
    with pytest.raises(ValueError, match="centre"):
        _bonuses(centre={"full_house": 3})


@pytest.mark.parametrize("option", list(PresetOption))
def test_every_table_option_is_a_field_with_choices(option: PresetOption) -> None:
    fields = {f.name for f in dataclasses.fields(STANDARD)}
    assert option.value in fields and OPTION_CHOICES[option]
    holder = next(p for p in PRESETS.values() if option in p.allowed_options)
    assert getattr(holder, option) in OPTION_CHOICES[option]
    for value in OPTION_CHOICES[option]:
        assert get_preset(holder.name, {option: value}).options[option] == value
