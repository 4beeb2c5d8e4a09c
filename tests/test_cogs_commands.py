"""The ``/capsa`` command tree: translated into Indonesian by the translator, valid names,
every key in both languages.
"""

from __future__ import annotations

import re

import discord
import pytest
from discord import app_commands

import cogs.capsa
from bot import CapsaBot, Config
from capsa.i18n import has, lang_from_locale, t
from capsa.presets import PRESETS
from cogs import board
from cogs.translator import CapsaTranslator, tr
from tests.cog_helpers import (
    ID,
)

DISCORD_NAME = re.compile(r"[-_\w]{1,32}")


async def test_translator_serves_exactly_the_catalogue_languages() -> None:
    translator = CapsaTranslator()
    context = app_commands.TranslationContext(
        location=app_commands.TranslationContextLocation.command_name, data=None
    )
    assert await translator.translate(tr("cmd.new"), ID, context) == "baru"
    assert await translator.translate(tr("cmd.new.desc"), ID, context) == t("cmd.new.desc", "id")
    for locale in discord.Locale:
        lang = lang_from_locale(str(locale))
        got = await translator.translate(tr("cmd.new"), locale, context)
        assert got == (None if lang == "en" else t("cmd.new", lang)), locale
    assert await translator.translate(app_commands.locale_str("new"), ID, context) is None
    unknown = app_commands.locale_str("x", key="cmd.nope")
    assert await translator.translate(unknown, ID, context) is None


@pytest.fixture
async def capsa_tree(executor, tmp_path):
    config = Config(token="x", database_path=str(tmp_path / "capsa.sqlite3"))
    async with CapsaBot(config, executor=executor) as client:  # set up, as in main
        await client.open_database()  # the cog's tables use it
        await cogs.capsa.setup(client)
        yield client.tree


def walk_options(payload: dict, depth: int = 0):
    yield payload, depth
    for option in payload.get("options", []):
        yield from walk_options(option, depth + 1)


async def test_command_tree_is_translated_and_names_are_valid(capsa_tree) -> None:
    (group,) = capsa_tree.get_commands()
    payload = await group.get_translated_payload(capsa_tree, CapsaTranslator())
    assert payload["name"] == "capsa"
    assert payload["description_localizations"] == {
        str(locale): t("cmd.capsa", lang_from_locale(str(locale)))
        for locale in discord.Locale
        if lang_from_locale(str(locale)) != "en"
    }
    seen = 0
    for node, depth in walk_options(payload):
        siblings = node.get("options", [])
        for lang in ("en", "id"):
            names = [o["name_localizations"]["id"] if lang == "id" else o["name"] for o in siblings]
            assert len(names) == len(set(names)), names
        for choice in node.get("choices", []):
            assert 1 <= len(choice["name"]) <= 100
            if not choice["name"].isdigit() and choice["value"] not in PRESETS:
                localized = choice["name_localizations"]["id"]
                assert 1 <= len(localized) <= 100
        if depth == 0:
            continue
        seen += 1
        name_id = node["name_localizations"]["id"]
        for name in (node["name"], name_id):
            assert DISCORD_NAME.fullmatch(name) and name == name.lower(), name
        description_id = node["description_localizations"]["id"]
        assert 1 <= len(node["description"]) <= 100 and 1 <= len(description_id) <= 100
    assert seen >= 7 + 5 + 2 + 1 + 1 + 6  # every subcommand and option was visited
    subcommands = {o["name"]: o["name_localizations"]["id"] for o in payload["options"]}
    assert subcommands["new"] == "baru" and subcommands["settings"] == "pengaturan"


def test_every_tree_key_exists_in_both_languages() -> None:
    source = open(cogs.capsa.__file__, encoding="utf-8").read()
    literal = set(re.findall(r'tr\("([^"]+)"\)', source))
    prefixes = set(re.findall(r'tr\(f"([^"{]+)\{', source))
    assert literal and prefixes and prefixes <= {"choice.", "rules.topic."}
    for key in literal:
        assert has(key) and t(key, "id") and t(key, "en"), key
        assert key.split(".")[0] in ("cmd", "opt", "choice"), key
    for key in [f"choice.{x}" for x in ("easy", "normal", "hard", *board.SORTS, *board.PERIODS)]:
        assert has(key), key
    for key in ("auto_arrange", "foul", "lang_auto", "en", "id"):
        assert has(f"choice.{key}")
