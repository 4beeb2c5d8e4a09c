"""``/capsa me``: a person's own choices, the same in every server, answered privately: the
language of what only they read (``cogs.replies.language_for`` reads it), their deck
style (:func:`deck_for`, read wherever their own cards are drawn or listed) and where
their hands go (``cogs.rounds`` sends no DM to whoever plays in the channel)."""

from __future__ import annotations

import logging

import discord

from capsa.cards import DeckStyle
from capsa.render import render_hand
from capsa.settings import AUTO_LANGUAGE
from cogs.components import Refusal, RefusalCode
from cogs.replies import user_lang
from cogs.screens import preferences as screens
from cogs.worker_pool import Priority, WorkerPool
from data.repository import Repository

log = logging.getLogger(__name__)


async def deck_for(repo: Repository, user_id: int | None) -> DeckStyle:
    """The deck style ``user_id`` reads their cards in (a computer's: the classic one)."""
    if user_id is None:
        return DeckStyle.CLASSIC
    return (await repo.preferences(user_id)).deck


async def show_preferences(
    interaction: discord.Interaction,
    repo: Repository,
    workers: WorkerPool,
    language: str | None,
    deck: str | None,
    hands: str | None,
) -> None:
    """Change what was given (``language`` ``auto``: back to the client's language), then
    show every preference, in the language now chosen, with sample cards in the deck."""
    changes: dict[str, object] = {}
    if language is not None:
        changes["language"] = None if language == AUTO_LANGUAGE else language
    if deck is not None:
        changes["deck"] = deck
    if hands is not None:
        changes["hands"] = hands
    user_id = interaction.user.id
    if changes:
        try:
            preferences = await repo.update_preferences(user_id, **changes)
        except ValueError as err:  # the command's choices keep this from people
            raise Refusal(RefusalCode.BAD_SETTING) from err
    else:
        preferences = await repo.preferences(user_id)
    await interaction.response.defer(ephemeral=True, thinking=True)
    lang = await user_lang(repo, interaction)  # after the change: a new language shows
    try:
        picture = await workers.run(
            Priority.CLICK, render_hand, screens.SAMPLE, None, lang, preferences.deck
        )
    except Exception:
        log.exception("could not draw the sample cards")
        picture = None
    screen = screens.preferences_screen(preferences, lang, saved=bool(changes), picture=picture)
    await interaction.followup.send(**screen.send_kwargs(ephemeral=True))
