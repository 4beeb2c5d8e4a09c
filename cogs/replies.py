"""Answering people: ephemeral replies, and one error reporter for commands and components."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from capsa.i18n import lang_from_locale, t

log = logging.getLogger("capsa")


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
