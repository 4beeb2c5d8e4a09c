"""The server's settings as ``/capsa settings`` answers them: a field for each of
capsa.settings' SERVER_SETTINGS, then the table options the server plays each preset with."""

from __future__ import annotations

import discord

from capsa.i18n import t
from capsa.presets import PRESETS, option_sets
from capsa.rules_text import options_text
from capsa.settings import SERVER_SETTINGS, TABLE_SETTINGS
from cogs.screens.base import GREY, Screen
from data.repository import GuildSettings


def settings_screen(settings: GuildSettings, lang: str, *, saved: bool) -> Screen:
    embed = discord.Embed(title=t("set.title", lang), colour=GREY)
    if saved:
        embed.description = t("set.saved", lang)
    for name in SERVER_SETTINGS:
        setting = TABLE_SETTINGS[name]
        value = setting.text(settings.get(setting), lang)
        embed.add_field(name=t(f"set.{name}", lang), value=value)
    for preset in PRESETS.values():
        if option_sets(preset):
            embed.add_field(
                name=t("set.options", lang, preset=preset.name),
                value=options_text(settings.table_preset(preset.name), lang),
                inline=False,
            )
    return Screen(embeds=(embed,))
