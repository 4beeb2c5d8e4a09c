"""What the whole table reads after a round: the showdown (every player's rows, head to
head, round points and match totals, the picture, when the next round deals, Next and
Review my hand), and after the last round the final standings with Rematch."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import discord

from capsa.i18n import t
from capsa.match import Standing
from capsa.scoring import RoundResult
from capsa.showdown import pair_line, player_lines, signed, totals_lines
from cogs.screens.base import GOLD, Picture, Screen, relative, with_picture
from cogs.views import rematch_view, showdown_view

SHOWDOWN_PICTURE = "showdown.jpg"
STANDINGS_PICTURE = "standings.png"


def showdown_title(number: int, rounds_total: int, lang: str) -> str:
    """The showdown's title (its picture carries it too)."""
    return t("sd.title", lang, k=number, n=rounds_total)


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
    rows = discord.Embed(title=showdown_title(number, rounds_total, lang), colour=GOLD)
    for index, player in enumerate(result.players):
        value = "\n".join(player_lines(result, index, lang, auto=index in auto))
        rows.add_field(
            name=f"{player.name} ({signed(player.total, lang)})", value=value[:1024], inline=False
        )
    h2h = discord.Embed(title=t("sd.h2h", lang), colour=GOLD)
    h2h.description = "\n".join(pair_line(result, pair, lang) for pair in result.pairs)[:4096]
    points = [f"{p.name}: **{signed(p.total, lang)}**" for p in result.players]
    h2h.add_field(name=t("sd.round_points", lang), value="\n".join(points), inline=True)
    h2h.add_field(
        name=t("sd.totals", lang), value="\n".join(totals_lines(totals, lang)), inline=True
    )
    h2h.set_footer(text=footer)
    return [rows, h2h]


def showdown_screen(
    result: RoundResult,
    totals: Mapping[str, float],
    *,
    match_id: int,
    round_id: int,
    number: int,
    rounds_total: int,
    lang: str,
    auto: Collection[int] = (),
    next_at: float | None = None,
    picture: bytes | None = None,
) -> Screen:
    """A round's showdown at the table. ``next_at``: when the next round deals (None: this
    was the last round, no Next button); ``picture``: the showdown drawn (None: it could
    not be, or it was refused and the showdown is sent again without it)."""
    drawn = Picture(SHOWDOWN_PICTURE, picture) if picture is not None else None
    found = showdown_embeds(result, totals, number, rounds_total, lang, auto)
    with_picture(found[0], drawn)
    if next_at is not None:
        when = relative(next_at)
        found[-1].add_field(name="⏭️", value=t("sd.next_at", lang, when=when), inline=False)
    view = showdown_view(match_id, number, round_id, lang, next_button=next_at is not None)
    return Screen(embeds=tuple(found), view=view, pictures=(drawn,) if drawn else (), listed=True)


def showdown_buttons(match_id: int, number: int, round_id: int, lang: str) -> Screen:
    """Only the components of a showdown whose next round has started: Review my hand."""
    return Screen(view=showdown_view(match_id, number, round_id, lang, next_button=False))


def standings_title(lang: str) -> str:
    return t("sd.final_title", lang)


def standings_embed(standings: Sequence[Standing], lang: str) -> discord.Embed:
    lines = [
        t("sd.place", lang, place=s.place, name=s.name, total=signed(s.total, lang))
        for s in standings
    ]
    winners = ", ".join(s.name for s in standings if s.place == 1)
    # the winners last, under the places (the sentence has its own trophy)
    lines += ["", t("sd.winner", lang, names=winners)]
    return discord.Embed(title=standings_title(lang), colour=GOLD, description="\n".join(lines))


def standings_screen(
    standings: Sequence[Standing], match_id: int, lang: str, picture: bytes | None
) -> Screen:
    drawn = Picture(STANDINGS_PICTURE, picture) if picture is not None else None
    return Screen(
        embeds=(with_picture(standings_embed(standings, lang), drawn),),
        view=rematch_view(match_id, lang),
        pictures=(drawn,) if drawn else (),
    )
