"""Localises the command tree (names, descriptions, choices) with capsa.i18n.

Every Discord locale that a catalogue in :data:`capsa.i18n.LANGS` serves (see
:func:`capsa.i18n.lang_from_locale`) gets that catalogue's text; the others see English.
"""

from __future__ import annotations

from collections.abc import Callable

import discord
from discord import app_commands

from capsa.i18n import DEFAULT_LANG, has, lang_from_locale, t


def tr(key: str) -> app_commands.locale_str:
    """A command-tree string: English by default, with its i18n key for the translator."""
    return app_commands.locale_str(t(key, DEFAULT_LANG), key=key)


def tr_made(make: Callable[[str], str]) -> app_commands.locale_str:
    """A command-tree string made of several catalogue texts: ``make(lang)`` writes it in
    a language (a choice's name such as "chinese-poker · method 2-4 · no surrender")."""
    return app_commands.locale_str(make(DEFAULT_LANG), make=make)


class CapsaTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        key = string.extras.get("key")
        lang = lang_from_locale(locale.value)
        make = string.extras.get("make")
        if make is not None:
            return None if lang == DEFAULT_LANG else str(make(lang))
        if not key or not has(key) or lang == DEFAULT_LANG:
            return None  # Discord shows the English default
        return t(key, lang)
