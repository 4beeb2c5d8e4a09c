"""The option table (capsa.settings) and what reads it: the repository's records, checks
and defaults, and the slash commands' choices and ranges."""

from __future__ import annotations

import discord
import pytest
from discord import app_commands

from capsa.i18n import LANGS, t
from capsa.match import MATCH_LENGTHS
from capsa.presets import DEFAULT_PRESET, OPTION_SETS, PRESETS, get_preset
from capsa.rules_text import option_set_label
from capsa.settings import (
    BOT_LEVEL,
    COUNTDOWN,
    LEVELS,
    ROUNDS,
    SEATS,
    SERVER_SETTINGS,
    TABLE_SETTINGS,
    TIMEOUT_ACTIONS,
    Setting,
    TableSetting,
)
from cogs import capsa as capsa_cog
from cogs.server_settings import OPTION_SET_CHOICES
from cogs.translator import CapsaTranslator
from data.common import check_new_match
from data.repository import (
    GUILD_SETTING_FIELDS,
    GuildSettings,
    merge_guild_settings,
    validate_guild_settings,
)


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
    settings = GuildSettings(1)
    assert list(settings.values) == list(GUILD_SETTING_FIELDS) == list(SERVER_SETTINGS)
    for name in SERVER_SETTINGS:
        assert settings.get(TABLE_SETTINGS[name]) == TABLE_SETTINGS[name].default, name
    assert settings.table_preset() == get_preset(DEFAULT_PRESET)


def test_stored_settings_are_checked_when_read(caplog: pytest.LogCaptureFixture) -> None:
    """A value the table no longer allows, a key it does not know, or options a preset
    does not have read as the default, each with a log line; the rest is kept."""
    stored = {
        "rounds": 5,
        "countdown": 9999,
        "bot_level": "HARD",
        "no_such_setting": 1,
        "options": {
            "chinese-poker": {"method": "2-4", "surrender": True},
            "standard": {"method": "2-4"},
            "no-such-preset": {},
        },
    }
    with caplog.at_level("WARNING", logger="data.repository"):
        settings = GuildSettings.from_stored(7, stored)
    assert settings.get(ROUNDS) == 5 and settings.get(BOT_LEVEL) == "hard"
    assert settings.get(COUNTDOWN) == COUNTDOWN.default
    assert settings.options == {"chinese-poker": {"method": "2-4", "surrender": True}}
    assert settings.table_preset("chinese-poker").method == "2-4"
    assert settings.table_preset("standard") == get_preset("standard")
    logged = caplog.text
    for named in ("countdown must be between 30 and 300", "no_such_setting", "standard"):
        assert named in logged, named
    assert "no-such-preset" in logged
    assert GuildSettings.from_stored(7, "garbage") == GuildSettings(7)
    assert GuildSettings.from_stored(7, None) == GuildSettings(7)


def test_a_write_merges_into_what_is_stored() -> None:
    stored = {"rounds": 5, "from_a_newer_version": 1, "options": {"sayapoker": {"room_fee": True}}}
    clean = validate_guild_settings(
        {"language": "ID", "options": {"chinese-poker": {"method": "2-4"}}}
    )
    assert clean == {
        "language": "id",
        "options": {"chinese-poker": {"method": "2-4", "surrender": False}},
    }
    assert merge_guild_settings(stored, clean) == {
        "rounds": 5,
        "from_a_newer_version": 1,
        "language": "id",
        "options": {
            "sayapoker": {"room_fee": True},
            "chinese-poker": {"method": "2-4", "surrender": False},
        },
    }
    with pytest.raises(ValueError, match="does not exist for preset 'standard'"):
        validate_guild_settings({"options": {"standard": {"method": "2-4"}}})


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
    for ranged, setting in [(capsa_cog.Seats, SEATS), (capsa_cog.Countdown, COUNTDOWN)]:
        assert (ranged.min_value, ranged.max_value) == setting.bounds


def _command(name: str):
    return next(c for c in capsa_cog.Capsa.__cog_app_commands__ if c.name == name)


def test_capsa_settings_has_an_option_for_each_server_setting() -> None:
    """The command's options are made from the table: each server setting with its name,
    choices (their names from the catalogue) or range, then the table options."""
    params = {p.name: p for p in _command("settings").parameters}
    assert list(params) == [*map(str, SERVER_SETTINGS), "options"]
    for name in SERVER_SETTINGS:
        setting, param = TABLE_SETTINGS[name], params[str(name)]
        assert not param.required
        assert param.display_name == t(f"opt.{setting.option_name}", "en")
        assert tuple(c.value for c in param.choices) == setting.choices, name
        if setting.choices:
            names = [c.name for c in param.choices]
            assert names == [setting.text(v, "en") for v in setting.choices], name
        else:
            assert (param.min_value, param.max_value) == setting.bounds, name
    assert [c.value for c in params["options"].choices] == list(OPTION_SETS)


def test_both_commands_offer_every_option_set_of_every_preset() -> None:
    for command in ("new", "settings"):
        param = next(p for p in _command(command).parameters if p.name == "options")
        assert [c.value for c in param.choices] == list(OPTION_SETS)
        assert len(param.choices) <= 25  # Discord's limit
        names = [c.name for c in param.choices]
        assert "chinese-poker · method 2-4 · surrender (3 units)" in names
        assert "sayapoker · room fee 3%" in names
    assert {s.preset for s in OPTION_SETS.values()} == {
        p.name for p in PRESETS.values() if p.allowed_options
    }


async def test_the_option_sets_are_named_in_each_language() -> None:
    """A client in another language shows a choice's name in it (the translator writes it
    from the catalogue), within Discord's 100 characters."""
    translator = CapsaTranslator()
    locales = {"en": None, "id": discord.Locale.indonesian, "zh-CN": discord.Locale.chinese}
    locales["vi"] = discord.Locale.vietnamese
    choice = next(
        c for c in OPTION_SET_CHOICES if c.value == "chinese-poker method=2-4 surrender=true"
    )
    context = app_commands.TranslationContext(
        app_commands.TranslationContextLocation.choice_name, choice
    )
    named = {
        lang: await translator.translate(choice._locale_name, locale, context)
        for lang, locale in locales.items()
        if locale is not None
    }
    assert named == {
        "id": "chinese-poker · metode 2-4 · boleh menyerah (3 unit)",
        "zh-CN": "chinese-poker · 计分方法 2-4 · 可以投降（付 3 分）",
        "vi": "chinese-poker · cách tính 2-4 · được đầu hàng (mất 3 điểm)",
    }
    for option_set in OPTION_SETS.values():
        for lang in LANGS:
            assert len(option_set_label(option_set, lang)) <= 100
