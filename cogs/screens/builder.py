"""What one person reads of their hand, privately (a DM, or an ephemeral answer): the hand
builder (cards, rows so far, picture, menus and buttons, a note on a special), the locked
builder once the hand is in, and the "submit a fouled setting?" confirmation."""

from __future__ import annotations

import discord

from capsa.builder import Draft, preview_lines
from capsa.cards import DeckStyle, format_cards
from capsa.i18n import t
from capsa.names import special_name
from capsa.showdown import signed
from cogs.screens.base import GREEN, GREY, Picture, Screen, relative, with_picture
from cogs.views import builder_view, confirm_foul_view
from data.repository import MatchRecord, RoundRecord

HAND_PICTURE = "hand.jpg"


def special_held_note(special: str, value: int, lang: str) -> str:
    """The hand holds a special the preset pays: declaring it is the person's choice."""
    return t("hand.special_held", lang, special=special_name(special, lang), value=value)


def special_choice_note(
    special: str, value: int, declared: float, ordinary: float, lang: str
) -> str:
    """Both choices of a hand that holds a special, with what each is expected to bring."""
    return t(
        "hand.special",
        lang,
        special=special_name(special, lang),
        value=value,
        declared=signed(round(declared, 1)),
        ordinary=signed(round(ordinary, 1)),
    )


def builder_embed(
    match: MatchRecord,
    rnd: RoundRecord,
    draft: Draft,
    lang: str,
    note: str | None = None,
    picture: Picture | None = None,
    deck: DeckStyle = DeckStyle.CLASSIC,
) -> discord.Embed:
    embed = discord.Embed(
        title=t("hand.title", lang, k=rnd.number, n=match.rounds_total),
        colour=GREEN,
        description=t("hand.where", lang, channel=match.channel_id, when=relative(rnd.deadline)),
    )
    embed.add_field(
        name=t("hand.cards", lang), value=format_cards(draft.hand, True, deck), inline=False
    )
    embed.add_field(
        name=t("hand.rows", lang), value="\n".join(preview_lines(draft, lang, deck)), inline=False
    )
    if note:
        embed.add_field(name="✨", value=note, inline=False)
    return with_picture(embed, picture)


def builder_screen(
    match: MatchRecord,
    rnd: RoundRecord,
    seat: int,
    draft: Draft,
    lang: str,
    *,
    special: str | None,
    note: str | None = None,
    picture: bytes | None = None,
    deck: DeckStyle = DeckStyle.CLASSIC,
) -> Screen:
    """The builder of ``seat``'s hand: ``special`` the hand may declare, ``picture`` the
    hand drawn (None: it could not be), the cards in the person's ``deck`` style."""
    drawn = Picture(HAND_PICTURE, picture) if picture is not None else None
    return Screen(
        embeds=(builder_embed(match, rnd, draft, lang, note, drawn, deck),),
        view=builder_view(rnd.id, seat, draft, lang, special, deck),
        pictures=(drawn,) if drawn else (),
    )


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


def locked_screen(
    match: MatchRecord, rnd: RoundRecord, draft: Draft, lang: str, declared: str | None = None
) -> Screen:
    """The hand as submitted (or the special declared): no menus, no picture."""
    return Screen(embeds=(locked_embed(match, rnd, draft, lang, declared),), replaces=True)


def confirm_foul_screen(round_id: int, seat: int, draft: Draft, lang: str) -> Screen:
    return Screen(
        content=t("hand.confirm_foul", lang), view=confirm_foul_view(round_id, seat, draft, lang)
    )
