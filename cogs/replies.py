"""Answering people: which language a person or a table reads, ephemeral replies,
refusals translated, one error reporter for commands and components, and the
:class:`Replies` that the components' router answers with."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from capsa.i18n import DEFAULT_LANG, LANGS, lang_from_locale, t
from capsa.settings import LANGUAGE
from cogs.components import NotLoaded, Refusal, Term
from data.common import is_database_outage
from data.repository import MatchRecord, Repository

log = logging.getLogger("capsa")


async def language_for(
    repo: Repository,
    match: MatchRecord | None = None,
    *,
    interaction: discord.Interaction | None = None,
    user_id: int | None = None,
) -> str:
    """Which language for this person, at this table.

    Without a person (neither ``interaction`` nor ``user_id``): what the whole table reads
    (lobby, status, showdown, standings), in the table's language. A person's private
    things (their DM hand, builder, locked DM, review, ephemeral answers): the language
    they chose with ``/capsa me`` if they chose one (their own choice, for what only they
    read, goes before the server's), else the server's language if it sets one (the
    interaction's server, else the table's), else the person's own: the locale of their
    interaction when there is one, else the language stored with their seat, else the
    table's."""
    if interaction is None and user_id is None:
        if match is None:
            raise ValueError("a language for nobody, at no table")
        return match.language
    person = interaction.user.id if interaction is not None else user_id
    if person is not None:
        chosen = (await repo.preferences(person)).language
        if chosen in LANGS:
            return chosen
    guild_id = interaction.guild_id if interaction is not None else None
    if not guild_id and match is not None:
        guild_id = match.guild_id
    if guild_id:
        settings = await repo.guild_settings(guild_id)
        server_language = settings.get(LANGUAGE)
        if server_language in LANGS:
            return server_language
    if interaction is not None:
        return lang_from_locale(str(interaction.locale))
    seat = match.seat_of(user_id) if match is not None and user_id is not None else None
    if seat is not None and seat.language in LANGS:
        return seat.language
    return match.language if match is not None else DEFAULT_LANG


async def user_lang(repo: Repository, interaction: discord.Interaction) -> str:
    """The language of the person behind ``interaction``, at no table in particular."""
    return await language_for(repo, interaction=interaction)


def own_language(interaction: discord.Interaction) -> str:
    """A person's own Discord language (stored with their seat: a server's setting may
    change, their DMs follow it then)."""
    return lang_from_locale(str(interaction.locale))


async def tell(interaction: discord.Interaction, text: str) -> None:
    """An ephemeral answer, whether or not the interaction was already acknowledged."""
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)


def refusal_text(refusal: Refusal, lang: str) -> str:
    values = {
        name: (t(v.key, lang).lower() if v.lower else t(v.key, lang)) if isinstance(v, Term) else v
        for name, v in refusal.values.items()
    }
    return t(refusal.code.value, lang, **values)


async def refuse(repo: Repository, interaction: discord.Interaction, refusal: Refusal) -> None:
    """Tell a person why they are turned away, in their language. Never raises."""
    try:
        lang = await user_lang(repo, interaction)
        await tell(interaction, refusal_text(refusal, lang))
    except Exception as exc:  # refused, disconnected, or the bot is shutting down
        log.warning("could not tell the user about a refusal (%s): %r", refusal.code, exc)


async def report_error(interaction: discord.Interaction, error: Exception, what: object) -> None:
    """Log the traceback and tell the user briefly, in their language; a database out of
    reach (down, restarting, a full disk), or the tables not loaded (the bot starting or
    stopping), is said so, with a line in the log, and the person asked to try again.
    Never raises."""
    lang = lang_from_locale(str(interaction.locale))
    if isinstance(error, app_commands.CommandOnCooldown):
        text = t("ans.cooldown", lang)
    elif isinstance(error, NotLoaded | app_commands.CommandNotFound):  # stopping, starting
        log.warning("%s: the tables are not loaded (%s); asked to try again", what, error)
        text = t("ans.restarting", lang)
    elif is_database_outage(error):  # one line: the outage is the news, not the stack
        log.warning("%s: the database is out of reach (%s); asked to try again", what, error)
        text = t("ans.db_down", lang)
    elif interaction.client.is_closed():  # stopping: discord.py closed its connections
        log.warning("%s: cut short, the bot is stopping (%s)", what, error)
        return  # nothing can reach Discord now; the click's table is as the database says
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


class Replies:
    """How the components' router answers what a handler did not (a ``Replier``):
    refusals in the person's language, errors reported like a command's."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo

    async def refused(self, interaction: discord.Interaction, refusal: Refusal) -> None:
        await refuse(self.repo, interaction, refusal)

    async def failed(self, interaction: discord.Interaction, error: Exception, what: str) -> None:
        await report_error(interaction, error, what)
