"""The option table (capsa.settings) and what reads it: the repository's records, checks
and defaults, and the slash commands' choices and ranges."""

from __future__ import annotations

import dataclasses

import pytest

from capsa.i18n import LANGS
from capsa.match import MATCH_LENGTHS
from capsa.presets import DEFAULT_PRESET, PRESETS
from capsa.settings import (
    COUNTDOWN,
    LEVELS,
    SEATS,
    SERVER_SETTINGS,
    TABLE_SETTINGS,
    TIMEOUT_ACTIONS,
    Setting,
    TableSetting,
)
from cogs import capsa as capsa_cog
from data.common import check_new_match
from data.repository import GUILD_SETTING_FIELDS, GuildSettings, validate_guild_settings


def test_the_table_has_every_setting_once_with_its_values() -> None:
    assert list(TABLE_SETTINGS) == list(Setting)
    assert TABLE_SETTINGS[Setting.PRESET].choices == tuple(PRESETS)
    assert TABLE_SETTINGS[Setting.PRESET].default == DEFAULT_PRESET
    assert TABLE_SETTINGS[Setting.ROUNDS].choices == MATCH_LENGTHS
    assert TABLE_SETTINGS[Setting.BOT_LEVEL].choices == LEVELS
    assert TABLE_SETTINGS[Setting.TIMEOUT_ACTION].choices == TIMEOUT_ACTIONS
    assert TABLE_SETTINGS[Setting.LANGUAGE].choices == ("auto", *LANGS)
    assert SEATS.bounds == (2, 4) and COUNTDOWN.bounds == (30, 300)
    assert Setting.SEATS not in SERVER_SETTINGS  # a table's own, never a server default


def test_a_setting_needs_values_and_a_default_among_them() -> None:
    with pytest.raises(ValueError, match="rounds"):
        TableSetting(Setting.ROUNDS, int, 7, (5, 10))
    with pytest.raises(ValueError, match="seats"):
        TableSetting(Setting.SEATS, int, 3)  # neither choices nor a range
    with pytest.raises(ValueError, match="seats"):
        TableSetting(Setting.SEATS, int, 3, (2, 3), low=2, high=3)  # both


def test_check_normalises_text_and_refuses_what_the_table_does_not_allow() -> None:
    language = TABLE_SETTINGS[Setting.LANGUAGE]
    assert language.check("ZH-cn") == "zh-CN" and language.check(" auto ") == "auto"
    assert COUNTDOWN.check(30) == 30 and COUNTDOWN.check(300) == 300
    for bad, message in [(29, "between 30 and 300"), (True, "whole number"), ("60", "whole")]:
        with pytest.raises(ValueError, match=message):
            COUNTDOWN.check(bad)
    with pytest.raises(ValueError, match="must be text"):
        language.check(None)
    assert not SEATS.allows(4.0) and not SEATS.allows(True) and SEATS.allows(4)


def test_server_settings_are_the_tables_defaults() -> None:
    fields = [f for f in dataclasses.fields(GuildSettings) if f.name != "guild_id"]
    assert [f.name for f in fields] == list(GUILD_SETTING_FIELDS) == list(SERVER_SETTINGS)
    for f in fields:
        assert f.default == TABLE_SETTINGS[Setting(f.name)].default, f.name


def test_the_repository_checks_with_the_table() -> None:
    assert validate_guild_settings({"preset": "SayaPoker", "rounds": 5}) == {
        "preset": "sayapoker",
        "rounds": 5,
    }
    with pytest.raises(ValueError, match="rounds must be one of 5, 10, not 7"):
        validate_guild_settings({"rounds": 7})
    check_new_match(2, 5, "foul")
    check_new_match(4, 10, "auto")
    for args, message in [
        ((1, 5, "auto"), "seats must be between 2 and 4, not 1"),
        ((5, 5, "auto"), "seats must be between 2 and 4"),
        ((3, 7, "auto"), "rounds must be one of 5, 10"),
        ((3, 5, "AUTO"), "timeout_action must be one of auto, foul, not 'AUTO'"),
    ]:
        with pytest.raises(ValueError, match=message):
            check_new_match(*args)


def test_the_slash_commands_offer_the_tables_values() -> None:
    def values(choices) -> tuple:
        return tuple(c.value for c in choices)

    assert values(capsa_cog.PRESET_CHOICES) == TABLE_SETTINGS[Setting.PRESET].choices
    assert values(capsa_cog.ROUND_CHOICES) == TABLE_SETTINGS[Setting.ROUNDS].choices
    assert values(capsa_cog.LEVEL_CHOICES) == TABLE_SETTINGS[Setting.BOT_LEVEL].choices
    assert values(capsa_cog.TIMEOUT_CHOICES) == TABLE_SETTINGS[Setting.TIMEOUT_ACTION].choices
    assert values(capsa_cog.LANGUAGE_CHOICES) == TABLE_SETTINGS[Setting.LANGUAGE].choices
    for ranged, setting in [(capsa_cog.Seats, SEATS), (capsa_cog.Countdown, COUNTDOWN)]:
        assert (ranged.min_value, ranged.max_value) == setting.bounds
