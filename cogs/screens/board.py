"""The server's numbers and texts: a leaderboard page, a member's stats and a rules page
(the server's settings: ``cogs.screens.settings``)."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from capsa.cards import format_cards, parse_cards
from capsa.daily import Streak
from capsa.i18n import number, t
from capsa.names import category_name, special_name
from capsa.rating import PROVISIONAL_MATCHES, Rating
from capsa.rules_text import RulesPage, rules_command
from capsa.showdown import signed
from cogs.screens.base import GOLD, GREEN, Screen
from cogs.views import leaderboard_view
from data.repository import (
    RECENT_REVIEWS,
    SHARPEST_MIN_ROUNDS,
    LeaderRow,
    PlayerStats,
)

SHARPEST = "sharpest"  # the leaderboard sorted by the coach's losses
RATING = "rating"  # the leaderboard sorted by rating (capsa/rating.py)


def rating_number(value: float, lang: str) -> str:
    """A rating, or its uncertainty, as shown: one decimal, in ``lang``'s style."""
    return number(value, lang, 1, fixed=True)


def _rating_row(pos: int, row: LeaderRow, lang: str) -> str:
    rating = row.rating or Rating()
    return t(
        "lb.row_rating",
        lang,
        pos=pos,
        name=f"<@{row.user_id}>",
        rating=rating_number(rating.conservative, lang),
        sigma=rating_number(rating.sigma, lang),
        matches=rating.matches,
        provisional=t("lb.provisional_mark", lang) if rating.provisional else "",
    )


def leaderboard_screen(
    rows: Sequence[LeaderRow],
    *,
    sort: str,
    period: str,
    page: int,
    pages: int,
    page_size: int,
    lang: str,
) -> Screen:
    """Page ``page`` (from 0) of ``pages`` of the leaderboard, with its page buttons."""
    embed = discord.Embed(
        title=t(
            "lb.title", lang, sort=t(f"choice.{sort}", lang), period=t(f"choice.{period}", lang)
        ),
        colour=GOLD,
    )
    sharpest = sort == SHARPEST
    if sort == RATING:
        lines = [_rating_row(page * page_size + i + 1, row, lang) for i, row in enumerate(rows)]
        embed.description = "\n".join(
            [t("lb.rating_note", lang, min=PROVISIONAL_MATCHES), *lines]
            if rows
            else [t("lb.rating_empty", lang)]
        )
    elif rows and sharpest:
        lines = [
            t(
                "lb.row_sharp",
                lang,
                pos=page * page_size + i + 1,
                name=f"<@{row.user_id}>",
                loss=number(row.loss or 0.0, lang, 2, fixed=True),
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
                pos=page * page_size + i + 1,
                name=f"<@{row.user_id}>",
                points=signed(row.points, lang),
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
    return Screen(
        embeds=(embed,),
        view=leaderboard_view(sort, period, page, pages, lang),
        mentions=discord.AllowedMentions.none(),
    )


def stats_screen(stats: PlayerStats, name: str, lang: str, streak: Streak) -> Screen:
    """A member's stats (``name``: as the server shows them), with their daily hand
    ``streak``; a line if they never played (and their streak, if they played the daily
    hand only)."""
    if stats.rounds == 0:
        lines = [t("st.no_games", lang, name=name)]
        if streak.best:
            lines.append(f"{t('st.streak', lang)}: {streak_text(streak, lang)}")
        return Screen(content="\n".join(lines))
    embed = discord.Embed(title=t("st.title", lang, name=name), colour=GREEN)
    embed.add_field(name=t("st.matches", lang), value=str(stats.matches))
    embed.add_field(name=t("st.wins", lang), value=str(stats.wins))
    embed.add_field(name=t("st.points", lang), value=signed(stats.points, lang))
    embed.add_field(
        name=t("st.ppr", lang), value=number(stats.points_per_round, lang, 2, sign=True, fixed=True)
    )
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
            loss_recent=number(stats.loss_recent, lang, 2, fixed=True),
            reviewed=stats.reviewed,
            loss_all=number(stats.loss_all, lang, 2, fixed=True),
        )
    embed.add_field(name=t("st.coach", lang), value=coach, inline=False)
    embed.add_field(name=t("st.rating", lang), value=rating_text(stats, lang), inline=False)
    embed.add_field(name=t("st.streak", lang), value=streak_text(streak, lang), inline=False)
    return Screen(embeds=(embed,))


def streak_text(streak: Streak, lang: str) -> str:
    """Days in a row they played the daily hand: now, and their longest."""
    if not streak.best:
        return t("st.streak_none", lang)
    return t("st.streak_value", lang, current=streak.current, best=streak.best)


def rating_text(stats: PlayerStats, lang: str) -> str:
    """The rating field of a member's stats: the value, its uncertainty, the change in their
    last match, and whether it is still provisional."""
    rating = stats.rating
    if rating is None:
        return t("st.rating_none", lang)
    text = t(
        "st.rating_value",
        lang,
        rating=rating_number(rating.conservative, lang),
        mu=rating_number(rating.mu, lang),
        sigma=rating_number(rating.sigma, lang),
        change=f"{stats.rating_change or 0.0:+.1f}",
    )
    if rating.provisional:
        provisional = t(
            "st.rating_provisional", lang, matches=rating.matches, min=PROVISIONAL_MATCHES
        )
        text = f"{text}\n{provisional}"
    return text


def rules_screen(page: RulesPage, preset: str, lang: str) -> Screen:
    embed = discord.Embed(title=page.title, description=page.intro, colour=GREEN)
    for heading, body in page.sections:
        embed.add_field(name=heading, value=body, inline=False)
    # the other topics' command as the reader's client shows it, as the pages name it
    topics = f"{rules_command(lang)} {t('opt.topic', lang)}"
    embed.set_footer(text=t("rules.footer", lang, preset=preset, topics=topics))
    return Screen(embeds=(embed,))
