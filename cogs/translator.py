"""Localises the command tree (names, descriptions, choices) with capsa.i18n."""

from __future__ import annotations

import discord
from discord import app_commands

from capsa.i18n import has, t


def tr(key: str) -> app_commands.locale_str:
    """A command-tree string: English by default, with its i18n key for the translator."""
    return app_commands.locale_str(t(key, "en"), key=key)


class CapsaTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        key = string.extras.get("key")
        if not key or not has(key) or locale is not discord.Locale.indonesian:
            return None
        return t(key, "id")
