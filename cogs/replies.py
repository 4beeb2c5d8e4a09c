"""Answering people: their language, ephemeral replies, and one error reporter for commands
and components."""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from capsa.i18n import LANGS, lang_from_locale, t

if TYPE_CHECKING:
    from data.repository import Repository

log = logging.getLogger("capsa")


async def user_lang(repo: Repository, interaction: discord.Interaction) -> str:
    """The server's language if it sets one, else the user's Discord language."""
    if interaction.guild_id:
        settings = await repo.guild_settings(interaction.guild_id)
        if settings.language in LANGS:
            return settings.language
    return lang_from_locale(str(interaction.locale))


async def tell(interaction: discord.Interaction, text: str) -> None:
    """An ephemeral answer, whether or not the interaction was already acknowledged."""
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)


async def report_error(interaction: discord.Interaction, error: Exception, what: object) -> None:
    """Log the traceback and tell the user briefly, in their language. Never raises."""
    lang = lang_from_locale(str(interaction.locale))
    if isinstance(error, app_commands.CommandOnCooldown):
        text = t("ans.cooldown", lang)
    else:
        log.error("%s failed", what, exc_info=error)
        text = t("ans.error", lang)
    try:
        await tell(interaction, text)
    except Exception as exc:  # refused, disconnected, or the bot is shutting down
        log.warning("could not tell the user about an error: %r", exc)


async def component_error(
    interaction: discord.Interaction, error: Exception, item: discord.ui.Item
) -> None:
    """Component callbacks fail the same way commands do."""
    await report_error(interaction, error, f"component {getattr(item, 'custom_id', item)}")


async def guarded(
    item: discord.ui.Item, interaction: discord.Interaction, work: Awaitable[None]
) -> None:
    """discord.py logs and drops a DynamicItem callback's exception (View.on_error is never
    called for them), so every callback reports its own errors like commands do."""
    try:
        await work
    except Exception as error:
        await component_error(interaction, error, item)
