"""Leaderboard, stats, rules and settings answers (embeds only; data comes from the repo)."""

from __future__ import annotations

import time

import discord

from capsa.cards import format_cards, parse_cards
from capsa.i18n import t
from capsa.names import category_name, special_name
from capsa.presets import get_preset
from capsa.rules_text import rules_page
from capsa.showdown import signed
from cogs import views
from cogs.embeds import GOLD, GREEN, GREY
from data.repository import LEADERBOARD_SORTS

PAGE_SIZE = 10
PERIODS = {"all": None, "30d": 30, "7d": 7}
SORTS = LEADERBOARD_SORTS


async def user_lang(interaction: discord.Interaction) -> str:
    return await interaction.client.tables.user_lang(interaction)  # type: ignore[attr-defined]


async def show_leaderboard(
    interaction: discord.Interaction, sort: str, period: str, page: int, edit: bool = False
) -> None:
    repo = interaction.client.repo  # type: ignore[attr-defined]
    lang = await user_lang(interaction)
    if interaction.guild_id is None:
        await interaction.response.send_message(t("ans.guild_only", lang), ephemeral=True)
        return
    days = PERIODS.get(period)
    now = time.time()
    count = await repo.leaderboard_count(interaction.guild_id, period_days=days, now=now)
    pages = max(1, -(-count // PAGE_SIZE))
    page = min(max(page, 0), pages - 1)
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
    if rows:
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
        embed.description = t("lb.empty", lang)
    embed.set_footer(text=t("lb.page", lang, page=page + 1, pages=pages))
    view = views.leaderboard_view(sort, period, page, pages, lang)
    if edit:
        await interaction.response.edit_message(embed=embed, view=view)
    else:
        await interaction.response.send_message(
            embed=embed, view=view, allowed_mentions=discord.AllowedMentions.none()
        )


async def show_stats(interaction: discord.Interaction, member: discord.abc.User) -> None:
    repo = interaction.client.repo  # type: ignore[attr-defined]
    lang = await user_lang(interaction)
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
    await interaction.response.send_message(embed=embed)


async def show_rules(interaction: discord.Interaction, topic: str) -> None:
    repo = interaction.client.repo  # type: ignore[attr-defined]
    lang = await user_lang(interaction)
    settings = None
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


async def show_settings(interaction: discord.Interaction, changes: dict[str, object]) -> None:
    repo = interaction.client.repo  # type: ignore[attr-defined]
    lang = await user_lang(interaction)
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
        lang = await user_lang(interaction)
    else:
        settings = await repo.guild_settings(interaction.guild_id)
    embed = discord.Embed(title=t("set.title", lang), colour=GREY)
    if changes:
        embed.description = t("set.saved", lang)
    embed.add_field(name=t("set.preset", lang), value=settings.preset)
    embed.add_field(name=t("set.rounds", lang), value=str(settings.rounds))
    embed.add_field(name=t("set.countdown", lang), value=f"{settings.countdown}s")
    embed.add_field(name=t("set.bot_level", lang), value=t(f"choice.{settings.bot_level}", lang))
    action = "choice.auto_arrange" if settings.timeout_action == "auto" else "choice.foul"
    embed.add_field(name=t("set.timeout_action", lang), value=t(action, lang))
    language = "choice.lang_auto" if settings.language == "auto" else f"choice.{settings.language}"
    embed.add_field(name=t("set.language", lang), value=t(language, lang))
    await interaction.response.send_message(embed=embed, ephemeral=True)
