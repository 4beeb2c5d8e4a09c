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

import io
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Self

import discord

from capsa.cards import CapsaError
from capsa.i18n import t
from capsa.render import render_showdown
from capsa.scoring import RoundResult
from capsa.showdown import signed, totals_lines
from cogs import embeds
from cogs.board import PageDirection, page_bounds, page_label, page_view
from cogs.embeds import GOLD, GREY
from cogs.replies import guarded, tell, user_lang
from cogs.table_base import round_result, seat_names
from cogs.tables import tables_of
from cogs.views import fits_id
from cogs.worker_pool import Priority
from data.repository import MatchRecord, MatchStatus, MatchSummary, Repository, RoundRecord

if TYPE_CHECKING:
    from cogs.table_base import TableServices

log = logging.getLogger(__name__)

HISTORY_PAGE_SIZE = 10
EVERYONE = 0  # the member part of a history button's custom_id when no member is chosen
REPLAY_PICTURE = "replay.jpg"


# --- history ----------------------------------------------------------------------------------


def date_of(seconds: float | None) -> str:
    """A Discord timestamp: each reader sees the date in their own time zone and language."""
    return f"<t:{int(seconds or 0)}:d>"


def seat_label(summary: MatchSummary, seat: int) -> str:
    """A person as a mention (shown as their name, pinging nobody), a computer by its name."""
    record = next(s for s in summary.match.seats if s.seat == seat)
    return f"🤖 {record.name}" if record.user_id is None else f"<@{record.user_id}>"


def history_line(summary: MatchSummary, lang: str) -> str:
    """``#12 · date · preset`` then every player with their final total, best first, and the
    winner(s)."""
    match = summary.match
    ordered = sorted(summary.totals.items(), key=lambda kv: (-kv[1], kv[0]))
    players = " · ".join(f"{seat_label(summary, seat)} {signed(p)}" for seat, p in ordered)
    winners = [s.seat for s in match.seats if s.place == 1]
    if not winners:  # places not stored: the best total wins
        best = max(summary.totals.values(), default=0.0)
        winners = [seat for seat, total in ordered if total == best]
    return t(
        "hist.row",
        lang,
        id=match.id,
        date=date_of(match.finished_at),
        preset=match.preset,
        rounds=match.rounds_total,
        players=players,
        winner=", ".join(seat_label(summary, seat) for seat in winners),
    )


async def show_history(
    interaction: discord.Interaction,
    repo: Repository,
    who: int | None,
    page: int,
    *,
    edit: bool = False,
) -> None:
    """A page of the server's finished matches (``who``: only those this user sat in)."""
    lang = await user_lang(repo, interaction)
    if interaction.guild_id is None:
        await tell(interaction, t("ans.guild_only", lang))
        return
    count = await repo.finished_matches_count(interaction.guild_id, who)
    page, pages = page_bounds(count, page, HISTORY_PAGE_SIZE)
    found = await repo.finished_matches(
        interaction.guild_id, who, limit=HISTORY_PAGE_SIZE, offset=page * HISTORY_PAGE_SIZE
    )
    embed = discord.Embed(title=t("hist.title", lang), colour=GOLD)
    if found:
        lines = [history_line(s, lang) for s in found]
        embed.add_field(name="🎬", value=t("hist.replay_hint", lang), inline=False)
    else:
        lines = [t("hist.empty" if who is None else "hist.empty_member", lang)]
    if who is not None:  # a mention: shown as the member's name, wherever the page is turned
        lines.insert(0, t("hist.member", lang, name=f"<@{who}>"))
    embed.description = "\n".join(lines)[:4096]
    embed.set_footer(text=t("lb.page", lang, page=page + 1, pages=pages))
    view = history_view(who or EVERYONE, page, pages, lang)
    none = discord.AllowedMentions.none()
    if edit:
        await interaction.response.edit_message(embed=embed, view=view, allowed_mentions=none)
    else:
        await interaction.response.send_message(embed=embed, view=view, allowed_mentions=none)


class HistoryButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=rf"capsa:hist:(?P<member>\d+):(?P<page>\d+):(?P<dir>[{''.join(PageDirection)}])",
):
    def __init__(
        self,
        member_id: int,
        page: int,
        direction: PageDirection,
        lang: str = "en",
        disabled: bool = False,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=page_label(direction, lang),
                style=discord.ButtonStyle.secondary,
                custom_id=f"capsa:hist:{member_id}:{page}:{direction}",
                disabled=disabled,
            )
        )
        self.member_id, self.page = member_id, page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        return cls(int(match["member"]), int(match["page"]), PageDirection(match["dir"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def show() -> None:
            repo = tables_of(interaction.client).services.repo
            if not fits_id(self.member_id, self.page):  # forged: show the first page
                self.member_id, self.page = EVERYONE, 0
            who = self.member_id if self.member_id != EVERYONE else None
            await show_history(interaction, repo, who, self.page, edit=True)

        await guarded(self, interaction, show())


def history_view(member_id: int, page: int, pages: int, lang: str) -> discord.ui.View:
    return page_view(
        lambda to, direction, off: HistoryButton(member_id, to, direction, lang, off),
        page,
        pages,
    )


# --- replay -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplayRound:
    """One round of a finished match as the replay shows it."""

    number: int
    result: RoundResult | None  # None: its settings (or the round) are not stored
    points: dict[int, float]  # seat -> points of this round, as scored (the ledger)
    totals: dict[int, float]  # seat -> match totals after this round
    auto: frozenset[int]  # seats whose rows were set for them (time ran out)
    rescored: bool  # the rules score the stored rows differently today than they did


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


def replay_embeds(
    match: MatchRecord, frame: ReplayRound, last: int, lang: str
) -> list[discord.Embed]:
    """The round's showdown embeds (as posted at the table, with the totals after it), under
    a line naming the match; or, for a round whose settings are not stored, what is known."""
    names = seat_names(match)
    totals = {names.get(seat, str(seat + 1)): total for seat, total in frame.totals.items()}
    header = t(
        "rp.header",
        lang,
        id=match.id,
        date=date_of(match.finished_at),
        preset=match.preset,
    )
    if frame.result is None:
        embed = discord.Embed(
            title=t("sd.title", lang, k=frame.number, n=last),
            colour=GREY,
            description=f"{header}\n\n{t('rp.missing', lang)}",
        )
        if frame.points:
            lines = [f"{names.get(s, s)}: **{signed(p)}**" for s, p in sorted(frame.points.items())]
            embed.add_field(name=t("sd.round_points", lang), value="\n".join(lines))
        embed.add_field(name=t("sd.totals", lang), value="\n".join(totals_lines(totals)))
        return [embed]
    found = embeds.showdown_embeds(frame.result, totals, frame.number, last, lang, frame.auto)
    found[0].description = header
    if frame.rescored:
        found[-1].add_field(name="⚠️", value=t("rp.rescored", lang), inline=False)
    return found


class ReplayStep(StrEnum):
    """The replay's buttons (the value ends their custom_id)."""

    FIRST = "f"
    PREV = "p"
    NEXT = "n"
    LAST = "l"


class ReplayButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=rf"capsa:rp:(?P<match>\d+):(?P<number>\d+):(?P<step>[{''.join(ReplayStep)}])",
):
    """Shows round ``number`` of the match (the round the button leads to)."""

    def __init__(
        self,
        match_id: int,
        number: int,
        step: ReplayStep,
        lang: str = "en",
        disabled: bool = False,
    ) -> None:
        labels = {
            ReplayStep.FIRST: t("btn.first", lang),
            ReplayStep.PREV: page_label(PageDirection.PREV, lang),
            ReplayStep.NEXT: page_label(PageDirection.NEXT, lang),
            ReplayStep.LAST: t("btn.last", lang),
        }
        super().__init__(
            discord.ui.Button(
                label=labels[step],
                style=discord.ButtonStyle.secondary,
                custom_id=f"capsa:rp:{match_id}:{number}:{step}",
                disabled=disabled,
            )
        )
        self.match_id, self.number = match_id, number

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        return cls(int(match["match"]), int(match["number"]), ReplayStep(match["step"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def show() -> None:
            services = tables_of(interaction.client).services
            await interaction.response.defer()  # the picture takes a moment
            await show_replay(interaction, services, self.match_id, self.number)

        await guarded(self, interaction, show())


def replay_view(match_id: int, number: int, last: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for step, target, off in (
        (ReplayStep.FIRST, 1, number <= 1),
        (ReplayStep.PREV, max(number - 1, 1), number <= 1),
        (ReplayStep.NEXT, min(number + 1, last), number >= last),
        (ReplayStep.LAST, last, number >= last),
    ):
        view.add_item(ReplayButton(match_id, target, step, lang, off))
    return view


async def open_replay(
    interaction: discord.Interaction, services: TableServices, match_id: int
) -> None:
    """``/capsa replay``: round 1 of a finished match of this server, privately."""
    await interaction.response.defer(ephemeral=True, thinking=True)
    await show_replay(interaction, services, match_id, 1)


async def show_replay(
    interaction: discord.Interaction, services: TableServices, match_id: int, number: int
) -> None:
    """Round ``number`` of a replay, into the (acknowledged) interaction's message. Only a
    finished match of the server the interaction comes from is shown."""
    repo = services.repo
    lang = await user_lang(repo, interaction)
    if interaction.guild_id is None:
        await tell(interaction, t("ans.guild_only", lang))
        return
    match = await repo.get_match(match_id) if fits_id(match_id) else None
    if match is None or match.guild_id != interaction.guild_id:
        await tell(interaction, t("rp.unknown", lang, id=match_id))
        return
    if not match.finished:
        key = "rp.cancelled" if match.status == MatchStatus.CANCELLED else "rp.playing"
        await tell(interaction, t(key, lang, id=match_id))
        return
    rounds = await repo.completed_rounds(match_id)
    last = rounds_of(match, rounds)
    number = min(max(number, 1), last)
    frame = replay_round(match, rounds, number)
    found = replay_embeds(match, frame, last, lang)
    files = []
    if frame.result is not None:
        picture = await _draw(services, frame.result, lang, found[0].title)
        if picture is not None:
            files.append(discord.File(io.BytesIO(picture), filename=REPLAY_PICTURE))
            found[0].set_image(url=f"attachment://{REPLAY_PICTURE}")
    await interaction.edit_original_response(
        content=None,
        embeds=found,
        attachments=files,
        view=replay_view(match_id, number, last, lang),
        allowed_mentions=discord.AllowedMentions.none(),
    )


async def _draw(
    services: TableServices, result: RoundResult, lang: str, title: str | None
) -> bytes | None:
    try:
        return await services.workers.run(Priority.CLICK, render_showdown, result, lang, title)
    except Exception:
        log.exception("could not draw a replayed showdown")
        return None


DYNAMIC_ITEMS = (HistoryButton, ReplayButton)
