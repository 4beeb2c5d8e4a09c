"""``/capsa history`` (a server's finished matches, in pages) and ``/capsa replay`` (one
finished match, round by round), with their persistent buttons.

History is a public message, paged like the leaderboard (``cogs.board``'s page helpers):
anyone may turn its pages. A replay is private to the person who asked (ephemeral): each
person walks a match at their own pace without filling the channel, and only they can see
and press its buttons. Every button carries its state in its custom_id, so both keep
working after a restart. A round of a replay is rebuilt from its stored settings
(``cogs.table_base.round_result``, as a showdown posted after a restart is), its points and
totals come from the ledger stored when it was scored, and its picture is drawn in the
worker processes.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord

from capsa.cards import CapsaError, DeckStyle
from capsa.render import render_showdown
from capsa.scoring import RoundResult
from cogs.board import page_bounds
from cogs.components import (
    EVERYONE,
    HistoryClick,
    Refusal,
    RefusalCode,
    ReplayClick,
    fits_id,
)
from cogs.preferences import deck_for
from cogs.replies import user_lang
from cogs.screens import history as screens
from cogs.screens.history import ReplayRound
from cogs.screens.showdown import showdown_title
from cogs.table_base import round_result
from cogs.worker_pool import Priority
from data.repository import MatchRecord, MatchStatus, Repository, RoundRecord

if TYPE_CHECKING:
    from cogs.table_base import TableServices

log = logging.getLogger(__name__)

HISTORY_PAGE_SIZE = 10


async def show_history(
    interaction: discord.Interaction,
    repo: Repository,
    who: int | None,
    page: int,
    *,
    edit: bool = False,
) -> None:
    """A page of the server's finished matches (``who``: only those this user sat in)."""
    if interaction.guild_id is None:
        raise Refusal(RefusalCode.GUILD_ONLY)
    lang = await user_lang(repo, interaction)
    count = await repo.finished_matches_count(interaction.guild_id, who)
    page, pages = page_bounds(count, page, HISTORY_PAGE_SIZE)
    found = await repo.finished_matches(
        interaction.guild_id, who, limit=HISTORY_PAGE_SIZE, offset=page * HISTORY_PAGE_SIZE
    )
    screen = screens.history_screen(
        found, who=who, button_member=who or EVERYONE, page=page, pages=pages, lang=lang
    )
    if edit:
        await interaction.response.edit_message(**screen.edit_kwargs())
    else:
        await interaction.response.send_message(**screen.send_kwargs())


async def turn_history(
    repo: Repository, interaction: discord.Interaction, click: HistoryClick
) -> None:
    """A history page button: the page it leads to, in place."""
    who = click.member_id if click.member_id != EVERYONE else None
    await show_history(interaction, repo, who, click.page, edit=True)


# --- replay -----------------------------------------------------------------------------------


def replay_round(match: MatchRecord, rounds: Sequence[RoundRecord], number: int) -> ReplayRound:
    """Round ``number`` of ``match`` from its scored ``rounds``: its result rebuilt from the
    stored settings, its points as stored, and the totals of rounds 1 to ``number``."""
    totals = {s.seat: 0.0 for s in match.seats}
    for earlier in rounds:
        if earlier.number <= number:
            for hand in earlier.hands:
                totals[hand.seat] = totals.get(hand.seat, 0.0) + (hand.points or 0.0)
    rnd = next((r for r in rounds if r.number == number), None)
    if rnd is None:
        return ReplayRound(number, None, {}, totals, frozenset(), False)
    points = {h.seat: h.points for h in rnd.hands if h.points is not None}
    result: RoundResult | None
    try:
        result = round_result(match, rnd) if rnd.hands else None
    except (ValueError, CapsaError):  # rows not stored, or rules that no longer exist
        result = None
    rescored = result is not None and any(
        points.get(seat, player.total) != player.total for seat, player in enumerate(result.players)
    )
    auto = frozenset(h.seat for h in rnd.hands if h.auto)
    return ReplayRound(number, result, dict(points), totals, auto, rescored)


def rounds_of(match: MatchRecord, rounds: Sequence[RoundRecord]) -> int:
    """How many rounds the replay walks: the match's, or more if more were stored."""
    return max([match.rounds_total, *(r.number for r in rounds)])


async def open_replay(
    interaction: discord.Interaction, services: TableServices, match_id: int
) -> None:
    """``/capsa replay``: round 1 of a finished match of this server, privately."""
    await interaction.response.defer(ephemeral=True, thinking=True)
    await show_replay(interaction, services, match_id, 1)


async def step_replay(
    services: TableServices, interaction: discord.Interaction, click: ReplayClick
) -> None:
    """A replay button: the round it leads to, in place."""
    await interaction.response.defer()  # the picture takes a moment
    await show_replay(interaction, services, click.match_id, click.number)


async def show_replay(
    interaction: discord.Interaction, services: TableServices, match_id: int, number: int
) -> None:
    """Round ``number`` of a replay, into the (acknowledged) interaction's message. Only a
    finished match of the server the interaction comes from is shown."""
    repo = services.repo
    if interaction.guild_id is None:
        raise Refusal(RefusalCode.GUILD_ONLY)
    lang = await user_lang(repo, interaction)
    match = await repo.get_match(match_id) if fits_id(match_id) else None
    if match is None or match.guild_id != interaction.guild_id:
        raise Refusal(RefusalCode.REPLAY_UNKNOWN, id=match_id)
    if not match.finished:
        cancelled = match.status == MatchStatus.CANCELLED
        code = RefusalCode.REPLAY_CANCELLED if cancelled else RefusalCode.REPLAY_PLAYING
        raise Refusal(code, id=match_id)
    rounds = await repo.completed_rounds(match_id)
    last = rounds_of(match, rounds)
    number = min(max(number, 1), last)
    frame = replay_round(match, rounds, number)
    picture = None
    if frame.result is not None:
        title = showdown_title(frame.number, last, lang)
        deck = await deck_for(repo, interaction.user.id)
        picture = await _draw(services, frame.result, lang, title, deck)
    screen = screens.replay_screen(match, frame, last, lang, picture)
    await interaction.edit_original_response(**screen.edit_kwargs())


async def _draw(
    services: TableServices, result: RoundResult, lang: str, title: str | None, deck: DeckStyle
) -> bytes | None:
    try:
        return await services.workers.run(
            Priority.CLICK, render_showdown, result, lang, title, deck
        )
    except Exception:
        log.exception("could not draw a replayed showdown")
        return None
