"""A server's finished matches (``/capsa history``, a page at a time) and one finished
match round by round (``/capsa replay``, privately): the round's showdown as posted at the
table under a line naming the match, or what is known of a round whose rows were not
stored."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import discord

from capsa.i18n import t
from capsa.scoring import RoundResult
from capsa.showdown import signed, totals_lines
from cogs.screens.base import GOLD, GREY, Picture, Screen, with_picture
from cogs.screens.showdown import showdown_embeds
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


def replay_screen(
    match: MatchRecord,
    *,
    number: int,
    last: int,
    result: RoundResult | None,
    points: Mapping[int, float],
    totals: Mapping[str, float],
    names: Mapping[int, str],
    auto: Collection[int],
    rescored: bool,
    lang: str,
    picture: bytes | None = None,
) -> Screen:
    """Round ``number`` of ``last`` of a finished match: its showdown with the totals after
    it (``result`` None: its settings are not stored; ``rescored``: today's rules score its
    rows differently than they did), with the replay's buttons."""
    header = t("rp.header", lang, id=match.id, date=date_of(match.finished_at), preset=match.preset)
    drawn = Picture(REPLAY_PICTURE, picture) if picture is not None and result else None
    if result is None:
        embed = discord.Embed(
            title=t("sd.title", lang, k=number, n=last),
            colour=GREY,
            description=f"{header}\n\n{t('rp.missing', lang)}",
        )
        if points:
            lines = [f"{names.get(s, s)}: **{signed(p)}**" for s, p in sorted(points.items())]
            embed.add_field(name=t("sd.round_points", lang), value="\n".join(lines))
        embed.add_field(name=t("sd.totals", lang), value="\n".join(totals_lines(totals)))
        found = [embed]
    else:
        found = showdown_embeds(result, totals, number, last, lang, auto)
        found[0].description = header
        with_picture(found[0], drawn)
        if rescored:
            found[-1].add_field(name="⚠️", value=t("rp.rescored", lang), inline=False)
    return Screen(
        embeds=tuple(found),
        view=replay_view(match.id, number, last, lang),
        pictures=(drawn,) if drawn else (),
        content=None,
        mentions=discord.AllowedMentions.none(),
        replaces=True,
        listed=True,
    )
