"""Embeds built from the game's own text (capsa.showdown, capsa.builder, capsa.i18n)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import discord

from capsa.builder import Draft, preview_lines
from capsa.cards import format_cards
from capsa.coach import Review, review_text
from capsa.i18n import t
from capsa.match import Standing
from capsa.names import special_name
from capsa.scoring import RoundResult
from capsa.showdown import pair_line, player_lines, signed, totals_lines
from data.repository import MatchRecord, RoundRecord

GREEN = discord.Colour(0x1F8B4C)
GOLD = discord.Colour(0xE2B53E)
GREY = discord.Colour(0x7F8C8D)


def relative(ts: float) -> str:
    return f"<t:{int(ts)}:R>"


def lobby_embed(match: MatchRecord, lang: str, closed_key: str | None = None) -> discord.Embed:
    host = match.seat_of(match.host_id)
    expires = match.lobby_expires_at
    embed = discord.Embed(
        title=t("lobby.title", lang),
        colour=GREY if closed_key else GREEN,
        description=t(
            "lobby.desc",
            lang,
            host=host.name if host is not None else "?",
            preset=match.preset,
            rounds=match.rounds_total,
            countdown=match.countdown,
            level=t(f"choice.{match.bot_level}", lang),
            expires=relative(expires) if expires is not None else "?",
        )
        if not closed_key
        else t(closed_key, lang),
    )
    taken = {s.seat: s for s in match.seats}
    lines = []
    for seat in range(match.seats_count):
        record = taken.get(seat)
        if record is None:
            lines.append(f"{seat + 1}. {t('lobby.empty', lang)}")
        elif record.is_bot:
            lines.append(f"{seat + 1}. 🤖 {record.name}")
        else:
            lines.append(f"{seat + 1}. <@{record.user_id}>")
    embed.add_field(name=t("lobby.seats", lang), value="\n".join(lines), inline=False)
    return embed


def status_embed(match: MatchRecord, rnd: RoundRecord, lang: str) -> discord.Embed:
    done = rnd.scored or rnd.all_submitted
    embed = discord.Embed(
        title=t("round.title", lang, k=rnd.number, n=match.rounds_total),
        colour=GREY if done else GREEN,
        description=t("round.done", lang)
        if done
        else t("round.desc", lang, when=relative(rnd.deadline)),
    )
    names = {s.seat: s.name for s in match.seats}
    lines = [
        t(
            "round.ready" if h.submitted else "round.waiting",
            lang,
            name=names[h.seat],
        )
        for h in rnd.hands
    ]
    embed.add_field(name=t("round.players", lang), value="\n".join(lines), inline=False)
    return embed


def builder_embed(
    match: MatchRecord,
    rnd: RoundRecord,
    seat: int,
    draft: Draft,
    lang: str,
    note: str | None = None,
) -> discord.Embed:
    embed = discord.Embed(
        title=t("hand.title", lang, k=rnd.number, n=match.rounds_total),
        colour=GREEN,
        description=t("hand.where", lang, channel=match.channel_id, when=relative(rnd.deadline)),
    )
    embed.add_field(
        name=t("hand.cards", lang), value=format_cards(draft.hand, symbols=True), inline=False
    )
    embed.add_field(
        name=t("hand.rows", lang), value="\n".join(preview_lines(draft, lang)), inline=False
    )
    if note:
        embed.add_field(name="✨", value=note, inline=False)
    return embed


def locked_embed(
    match: MatchRecord, rnd: RoundRecord, draft: Draft, lang: str, declared: str | None = None
) -> discord.Embed:
    text = (
        t("hand.declared", lang, special=special_name(declared, lang))
        if declared
        else t("hand.submitted", lang, channel=match.channel_id)
    )
    embed = discord.Embed(
        title=t("hand.title", lang, k=rnd.number, n=match.rounds_total),
        colour=GREY,
        description=text,
    )
    embed.add_field(
        name=t("hand.rows", lang), value="\n".join(preview_lines(draft, lang)[:3]), inline=False
    )
    return embed


def showdown_embeds(
    result: RoundResult,
    totals: Mapping[str, float],
    number: int,
    rounds_total: int,
    lang: str,
    auto: Collection[int] = (),
) -> list[discord.Embed]:
    """Rows of every player, then head to head, round points and match totals."""
    footer = t("sd.round_footer", lang, k=number, n=rounds_total, preset=result.preset)
    rows = discord.Embed(title=t("sd.title", lang, k=number, n=rounds_total), colour=GOLD)
    for index, player in enumerate(result.players):
        value = "\n".join(player_lines(result, index, lang, auto=index in auto))
        rows.add_field(
            name=f"{player.name} ({signed(player.total)})", value=value[:1024], inline=False
        )
    h2h = discord.Embed(title=t("sd.h2h", lang), colour=GOLD)
    h2h.description = "\n".join(pair_line(result, pair, lang) for pair in result.pairs)[:4096]
    points = [f"{p.name}: **{signed(p.total)}**" for p in result.players]
    h2h.add_field(name=t("sd.round_points", lang), value="\n".join(points), inline=True)
    h2h.add_field(name=t("sd.totals", lang), value="\n".join(totals_lines(totals)), inline=True)
    h2h.set_footer(text=footer)
    return [rows, h2h]


def standings_embed(standings: Sequence[Standing], lang: str) -> discord.Embed:
    lines = [
        t("sd.place", lang, place=s.place, name=s.name, total=signed(s.total)) for s in standings
    ]
    winners = ", ".join(s.name for s in standings if s.place == 1)
    embed = discord.Embed(
        title=t("sd.final_title", lang), colour=GOLD, description="\n".join(lines)
    )
    embed.add_field(name="🏆", value=t("sd.winner", lang, names=winners), inline=False)
    return embed


def review_embed(review: Review, number: int, lang: str) -> discord.Embed:
    """The coach's review of one hand: both settings with their values (text as well as the
    picture), the verdict and the notes; how the values were found in the footer."""
    text = review_text(review, lang)
    colour = GREEN if review.is_best else GOLD
    embed = discord.Embed(
        title=t("rev.title", lang, k=number),
        description="\n".join([f"**{text.verdict}**", *text.notes]),
        colour=colour,
    )
    embed.add_field(name=text.yours_title, value=text.yours, inline=True)
    embed.add_field(name=text.best_title, value=text.best, inline=True)
    embed.set_footer(text=text.how)
    return embed
