"""Leaderboard, stats and rules answers (the data from the repository, the
messages from ``cogs.screens.board``), and the leaderboard's page buttons' handler."""

from __future__ import annotations

import time
from datetime import date

import discord

from capsa.daily import streak
from capsa.presets import get_preset
from capsa.rules_text import rules_page
from capsa.settings import COUNTDOWN, TIMEOUT_ACTION
from cogs.components import LeaderboardClick, Refusal, RefusalCode
from cogs.replies import user_lang
from cogs.screens import board as screens
from data.repository import LEADERBOARD_SORTS, GuildSettings, Repository

PAGE_SIZE = 10
PERIODS = {"all": None, "30d": 30, "7d": 7}
SORTS = LEADERBOARD_SORTS


def page_bounds(count: int, page: int, size: int = PAGE_SIZE) -> tuple[int, int]:
    """A requested page moved into the pages that ``count`` rows fill (at least one page),
    and how many pages there are: ``(page, pages)``, pages counted from 0."""
    pages = max(1, -(-count // size))
    return min(max(page, 0), pages - 1), pages


async def show_leaderboard(
    interaction: discord.Interaction,
    repo: Repository,
    sort: str,
    period: str,
    page: int,
    edit: bool = False,
) -> None:
    if interaction.guild_id is None:
        raise Refusal(RefusalCode.GUILD_ONLY)
    lang = await user_lang(repo, interaction)
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
    screen = screens.leaderboard_screen(
        rows, sort=sort, period=period, page=page, pages=pages, page_size=PAGE_SIZE, lang=lang
    )
    if edit:
        await interaction.response.edit_message(**screen.edit_kwargs())
    else:
        await interaction.response.send_message(**screen.send_kwargs())


async def turn_leaderboard(
    repo: Repository, interaction: discord.Interaction, click: LeaderboardClick
) -> None:
    """A leaderboard page button: the page it leads to, in place."""
    await show_leaderboard(interaction, repo, click.sort, click.period, click.page, edit=True)


async def show_stats(
    interaction: discord.Interaction, repo: Repository, member: discord.abc.User, *, today: date
) -> None:
    """A member's stats, with their daily hand streak as of ``today``."""
    if interaction.guild_id is None:
        raise Refusal(RefusalCode.GUILD_ONLY)
    lang = await user_lang(repo, interaction)
    stats = await repo.player_stats(interaction.guild_id, member.id)
    days = await repo.daily_days(interaction.guild_id, member.id)
    screen = screens.stats_screen(stats, member.display_name, lang, streak(days, today))
    await interaction.response.send_message(**screen.send_kwargs())


async def show_rules(interaction: discord.Interaction, repo: Repository, topic: str) -> None:
    lang = await user_lang(repo, interaction)
    settings: GuildSettings | None = None
    if interaction.guild_id is not None:
        settings = await repo.guild_settings(interaction.guild_id)
    preset = settings.table_preset() if settings else get_preset()  # with its options
    page = rules_page(
        topic,
        preset,
        lang,
        turn_seconds=settings.get(COUNTDOWN) if settings else None,
        timeout_action=settings.get(TIMEOUT_ACTION) if settings else None,
    )
    screen = screens.rules_screen(page, preset.name, lang)
    await interaction.response.send_message(**screen.send_kwargs())
