"""Leaderboard, stats, rules and settings answers (embeds only; data comes from the repo),
and the leaderboard's page buttons."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from enum import StrEnum
from typing import Any, Self

import discord

from capsa.cards import format_cards, parse_cards
from capsa.i18n import t
from capsa.names import category_name, special_name
from capsa.presets import get_preset
from capsa.rules_text import rules_page
from capsa.settings import AUTO_LANGUAGE, TimeoutAction
from capsa.showdown import signed
from cogs.embeds import GOLD, GREEN, GREY
from cogs.replies import guarded, user_lang
from cogs.tables import tables_of
from data.repository import (
    LEADERBOARD_SORTS,
    RECENT_REVIEWS,
    SHARPEST_MIN_ROUNDS,
    GuildSettings,
    Repository,
)

PAGE_SIZE = 10
PERIODS = {"all": None, "30d": 30, "7d": 7}
SORTS = LEADERBOARD_SORTS


async def show_leaderboard(
    interaction: discord.Interaction,
    repo: Repository,
    sort: str,
    period: str,
    page: int,
    edit: bool = False,
) -> None:
    lang = await user_lang(repo, interaction)
    if interaction.guild_id is None:
        await interaction.response.send_message(t("ans.guild_only", lang), ephemeral=True)
        return
    days = PERIODS.get(period)
    now = time.time()
    count = await repo.leaderboard_count(interaction.guild_id, period_days=days, now=now, sort=sort)
    page, pages = page_bounds(count, page)
    rows = await repo.leaderboard(
        interaction.guild_id,
        sort=sort,
        period_days=days,
        limit=PAGE_SIZE,
        offset=page * PAGE_SIZE,
        now=now,
    )
    embed = discord.Embed(
        title=t(
            "lb.title", lang, sort=t(f"choice.{sort}", lang), period=t(f"choice.{period}", lang)
        ),
        colour=GOLD,
    )
    sharpest = sort == "sharpest"
    if rows and sharpest:
        lines = [
            t(
                "lb.row_sharp",
                lang,
                pos=page * PAGE_SIZE + i + 1,
                name=f"<@{row.user_id}>",
                loss=f"{row.loss or 0.0:.2f}",
                reviewed=row.reviewed,
            )
            for i, row in enumerate(rows)
        ]
        embed.description = "\n".join([t("lb.sharp_note", lang, min=SHARPEST_MIN_ROUNDS), *lines])
    elif rows:
        embed.description = "\n".join(
            t(
                "lb.row",
                lang,
                pos=page * PAGE_SIZE + i + 1,
                name=f"<@{row.user_id}>",
                points=signed(row.points),
                wins=row.wins,
                matches=row.matches,
                sweeps=row.sweeps,
            )
            for i, row in enumerate(rows)
        )
    else:
        embed.description = t(
            "lb.sharp_empty" if sharpest else "lb.empty", lang, min=SHARPEST_MIN_ROUNDS
        )
    embed.set_footer(text=t("lb.page", lang, page=page + 1, pages=pages))
    view = leaderboard_view(sort, period, page, pages, lang)
    if edit:
        await interaction.response.edit_message(embed=embed, view=view)
    else:
        await interaction.response.send_message(
            embed=embed, view=view, allowed_mentions=discord.AllowedMentions.none()
        )


async def show_stats(
    interaction: discord.Interaction, repo: Repository, member: discord.abc.User
) -> None:
    lang = await user_lang(repo, interaction)
    if interaction.guild_id is None:
        await interaction.response.send_message(t("ans.guild_only", lang), ephemeral=True)
        return
    stats = await repo.player_stats(interaction.guild_id, member.id)
    name = member.display_name
    if stats.rounds == 0:
        await interaction.response.send_message(t("st.no_games", lang, name=name))
        return
    embed = discord.Embed(title=t("st.title", lang, name=name), colour=GREEN)
    embed.add_field(name=t("st.matches", lang), value=str(stats.matches))
    embed.add_field(name=t("st.wins", lang), value=str(stats.wins))
    embed.add_field(name=t("st.points", lang), value=signed(stats.points))
    embed.add_field(name=t("st.ppr", lang), value=f"{stats.points_per_round:+.2f}")
    embed.add_field(name=t("st.sweeps", lang), value=f"{stats.sweeps_given} / {stats.sweeps_taken}")
    embed.add_field(name=t("st.table_sweeps", lang), value=str(stats.table_sweeps))
    embed.add_field(name=t("st.fouls", lang), value=str(stats.fouls))
    specials = ", ".join(f"{special_name(k, lang)} ×{v}" for k, v in stats.specials.items() if v)
    embed.add_field(name=t("st.specials", lang), value=specials or t("st.none", lang))
    best = stats.best_hand
    best_text = t("st.none", lang)
    if best:
        cards = format_cards(parse_cards(best["cards"]), symbols=True)
        best_text = f"{category_name(best['category'], lang)}: {cards}"
    embed.add_field(name=t("st.best", lang), value=best_text, inline=False)
    coach = t("st.coach_none", lang)
    if stats.reviewed and stats.loss_all is not None and stats.loss_recent is not None:
        coach = t(
            "st.coach_value",
            lang,
            recent=min(stats.reviewed, RECENT_REVIEWS),
            loss_recent=f"{stats.loss_recent:.2f}",
            reviewed=stats.reviewed,
            loss_all=f"{stats.loss_all:.2f}",
        )
    embed.add_field(name=t("st.coach", lang), value=coach, inline=False)
    await interaction.response.send_message(embed=embed)


async def show_rules(interaction: discord.Interaction, repo: Repository, topic: str) -> None:
    lang = await user_lang(repo, interaction)
    settings: GuildSettings | None = None
    if interaction.guild_id is not None:
        settings = await repo.guild_settings(interaction.guild_id)
    preset = get_preset(settings.preset if settings else None)
    page = rules_page(
        topic,
        preset,
        lang,
        turn_seconds=settings.countdown if settings else None,
        timeout_action=settings.timeout_action if settings else None,
    )
    embed = discord.Embed(title=page.title, description=page.intro, colour=GREEN)
    for heading, body in page.sections:
        embed.add_field(name=heading, value=body, inline=False)
    embed.set_footer(text=t("rules.footer", lang, preset=preset.name))
    await interaction.response.send_message(embed=embed)


async def show_settings(
    interaction: discord.Interaction, repo: Repository, changes: dict[str, object]
) -> None:
    lang = await user_lang(repo, interaction)
    if interaction.guild_id is None:
        await interaction.response.send_message(t("ans.guild_only", lang), ephemeral=True)
        return
    perms = interaction.permissions
    if not (perms and perms.manage_guild):
        await interaction.response.send_message(t("set.refused", lang), ephemeral=True)
        return
    changes = {k: v for k, v in changes.items() if v is not None}
    if changes:
        try:
            settings = await repo.update_guild_settings(interaction.guild_id, **changes)
        except ValueError as err:
            await interaction.response.send_message(str(err), ephemeral=True)
            return
        lang = await user_lang(repo, interaction)
    else:
        settings = await repo.guild_settings(interaction.guild_id)
    embed = discord.Embed(title=t("set.title", lang), colour=GREY)
    if changes:
        embed.description = t("set.saved", lang)
    embed.add_field(name=t("set.preset", lang), value=settings.preset)
    embed.add_field(name=t("set.rounds", lang), value=str(settings.rounds))
    embed.add_field(name=t("set.countdown", lang), value=f"{settings.countdown}s")
    embed.add_field(name=t("set.bot_level", lang), value=t(f"choice.{settings.bot_level}", lang))
    auto = settings.timeout_action == TimeoutAction.AUTO
    action = "choice.auto_arrange" if auto else "choice.foul"
    embed.add_field(name=t("set.timeout_action", lang), value=t(action, lang))
    language = (
        "choice.lang_auto" if settings.language == AUTO_LANGUAGE else f"choice.{settings.language}"
    )
    embed.add_field(name=t("set.language", lang), value=t(language, lang))
    await interaction.response.send_message(embed=embed, ephemeral=True)


# --- leaderboard pages ----------------------------------------------------------------------


class PageDirection(StrEnum):
    """The leaderboard's page buttons (the value ends their custom_id)."""

    PREV = "p"
    NEXT = "n"


def page_bounds(count: int, page: int, size: int = PAGE_SIZE) -> tuple[int, int]:
    """A requested page moved into the pages that ``count`` rows fill (at least one page),
    and how many pages there are: ``(page, pages)``, pages counted from 0."""
    pages = max(1, -(-count // size))
    return min(max(page, 0), pages - 1), pages


def page_label(direction: PageDirection, lang: str) -> str:
    return t("btn.prev" if direction == PageDirection.PREV else "btn.next_page", lang)


PageButton = Callable[[int, PageDirection, bool], discord.ui.Item[Any]]


def page_view(button: PageButton, page: int, pages: int) -> discord.ui.View:
    """Previous and Next: ``button(page it shows, direction, disabled)`` makes each (a
    persistent DynamicItem that keeps its state in its custom_id)."""
    view = discord.ui.View(timeout=None)
    view.add_item(button(max(page - 1, 0), PageDirection.PREV, page <= 0))
    view.add_item(button(min(page + 1, pages - 1), PageDirection.NEXT, page >= pages - 1))
    return view


class LeaderboardButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=(
        r"capsa:lb:(?P<sort>\w+):(?P<period>\w+):(?P<page>\d+)"
        rf":(?P<dir>[{''.join(PageDirection)}])"
    ),
):
    def __init__(
        self,
        sort: str,
        period: str,
        page: int,
        direction: PageDirection,
        lang: str = "en",
        disabled: bool = False,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=page_label(direction, lang),
                style=discord.ButtonStyle.secondary,
                custom_id=f"capsa:lb:{sort}:{period}:{page}:{direction}",
                disabled=disabled,
            )
        )
        self.sort, self.period, self.page = sort, period, page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        direction = PageDirection(match["dir"])
        return cls(match["sort"], match["period"], int(match["page"]), direction)

    async def callback(self, interaction: discord.Interaction) -> None:
        async def show() -> None:
            repo = tables_of(interaction.client).services.repo  # the bot's, through the cog
            await show_leaderboard(interaction, repo, self.sort, self.period, self.page, edit=True)

        await guarded(self, interaction, show())


def leaderboard_view(sort: str, period: str, page: int, pages: int, lang: str) -> discord.ui.View:
    return page_view(
        lambda to, direction, off: LeaderboardButton(sort, period, to, direction, lang, off),
        page,
        pages,
    )


DYNAMIC_ITEMS = (LeaderboardButton,)
