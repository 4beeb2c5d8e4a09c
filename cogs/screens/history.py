"""A server's finished matches (``/capsa history``, a page at a time) and one finished
match round by round (``/capsa replay``, privately): the round's showdown as posted at the
table under a line naming the match, or what is known of a round whose rows were not
stored."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import discord

from capsa.i18n import t
from capsa.rules_text import preset_label
from capsa.scoring import RoundResult
from capsa.showdown import signed, totals_lines
from cogs.screens.base import GOLD, GREY, Picture, Screen, with_picture
from cogs.screens.showdown import showdown_embeds, showdown_title
from cogs.table_base import preset_of, seat_names
from cogs.views import history_view, replay_view
from data.repository import MatchRecord, MatchSummary

REPLAY_PICTURE = "replay.jpg"


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
    players = " · ".join(f"{seat_label(summary, seat)} {signed(p, lang)}" for seat, p in ordered)
    winners = [s.seat for s in match.seats if s.place == 1]
    if not winners:  # places not stored: the best total wins
        best = max(summary.totals.values(), default=0.0)
        winners = [seat for seat, total in ordered if total == best]
    return t(
        "hist.row",
        lang,
        id=match.id,
        date=date_of(match.finished_at),
        preset=preset_label(preset_of(match), lang),  # with its table options
        rounds=match.rounds_total,
        players=players,
        winner=", ".join(seat_label(summary, seat) for seat in winners),
    )


def history_screen(
    found: Sequence[MatchSummary],
    *,
    who: int | None,
    button_member: int,
    page: int,
    pages: int,
    lang: str,
) -> Screen:
    """A page of finished matches (``who``: only those this member sat in)."""
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
    return Screen(
        embeds=(embed,),
        view=history_view(button_member, page, pages, lang),
        mentions=discord.AllowedMentions.none(),
    )


@dataclass(frozen=True)
class ReplayRound:
    """One round of a finished match as the replay shows it."""

    number: int
    result: RoundResult | None  # None: its settings (or the round) are not stored
    points: dict[int, float]  # seat -> points of this round, as scored (the ledger)
    totals: dict[int, float]  # seat -> match totals after this round
    auto: frozenset[int]  # seats whose rows were set for them (time ran out)
    rescored: bool  # the rules score the stored rows differently today than they did


def replay_screen(
    match: MatchRecord, frame: ReplayRound, last: int, lang: str, picture: bytes | None = None
) -> Screen:
    """Round ``frame.number`` of ``last`` of a finished match: its showdown with the totals
    after it, under a line naming the match (or, for a round whose settings are not stored,
    what is known), with the replay's buttons. ``picture``: the round drawn."""
    names = seat_names(match)
    totals = {names.get(seat, str(seat + 1)): total for seat, total in frame.totals.items()}
    header = t(
        "rp.header",
        lang,
        id=match.id,
        date=date_of(match.finished_at),
        preset=preset_label(preset_of(match), lang),
    )
    drawn = Picture(REPLAY_PICTURE, picture) if picture is not None and frame.result else None
    if frame.result is None:
        embed = discord.Embed(
            title=showdown_title(frame.number, last, lang),
            colour=GREY,
            description=f"{header}\n\n{t('rp.missing', lang)}",
        )
        if frame.points:
            lines = [
                f"{names.get(s, s)}: **{signed(p, lang)}**" for s, p in sorted(frame.points.items())
            ]
            embed.add_field(name=t("sd.round_points", lang), value="\n".join(lines))
        embed.add_field(name=t("sd.totals", lang), value="\n".join(totals_lines(totals, lang)))
        found = [embed]
    else:
        found = showdown_embeds(frame.result, totals, frame.number, last, lang, frame.auto)
        found[0].description = header
        with_picture(found[0], drawn)
        if frame.rescored:
            found[-1].add_field(name="⚠️", value=t("rp.rescored", lang), inline=False)
    return Screen(
        embeds=tuple(found),
        view=replay_view(match.id, frame.number, last, lang),
        pictures=(drawn,) if drawn else (),
        mentions=discord.AllowedMentions.none(),
        replaces=True,
        listed=True,
    )
