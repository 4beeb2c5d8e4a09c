"""What one person reads of their hand, privately (a DM, or an ephemeral answer): the hand
builder (cards, rows so far, picture, menus and buttons, a note on a special), the locked
builder once the hand is in, and the "submit a fouled setting?" confirmation."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from capsa.builder import Draft, preview_lines
from capsa.cards import DeckStyle, format_cards
from capsa.i18n import count_of, number, t
from capsa.names import OPPONENTS_WORDS, special_name
from cogs.screens.base import GREEN, GREY, Picture, Screen, relative, with_picture
from cogs.views import builder_view, confirm_foul_view, confirm_surrender_view
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
        declared=number(declared, lang, sign=True),
        ordinary=number(ordinary, lang, sign=True),
    )


def surrender_advice_note(surrendered: float, ordinary: float, lang: str) -> str:
    """Auto-arrange would give this hand up: what surrendering and the rows are expected to
    bring (the rows are filled in; only the person surrenders)."""
    return t(
        "hand.suggest_surrender",
        lang,
        surrender=number(surrendered, lang, sign=True),
        ordinary=number(ordinary, lang, sign=True),
    )


def estimates_note(notes: Sequence[str], lang: str) -> str | None:
    """Auto-arrange's notes with their numbers, then that they are its estimates and not
    the coach's (issue 20: one explanation of the numbers a person sees)."""
    return "\n".join([*notes, t("hand.estimate_note", lang)]) if notes else None


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
    surrender: bool = False,
    note: str | None = None,
    picture: bytes | None = None,
    deck: DeckStyle = DeckStyle.CLASSIC,
) -> Screen:
    """The builder of ``seat``'s hand: ``special`` the hand may declare, ``surrender``
    whether the table lets it be given up, ``picture`` the hand drawn (None: it could not
    be), the cards in the person's ``deck`` style."""
    drawn = Picture(HAND_PICTURE, picture) if picture is not None else None
    return Screen(
        embeds=(builder_embed(match, rnd, draft, lang, note, drawn, deck),),
        view=builder_view(rnd.id, seat, draft, lang, special, deck, surrender=surrender),
        pictures=(drawn,) if drawn else (),
    )


def locked_screen(
    match: MatchRecord,
    rnd: RoundRecord,
    draft: Draft,
    lang: str,
    declared: str | None = None,
    surrendered: bool = False,
    deck: DeckStyle = DeckStyle.CLASSIC,
) -> Screen:
    """The hand as submitted (the special declared, or the hand given up), the cards in the
    person's ``deck`` style: no menus, no picture."""
    if surrendered:
        text = t("hand.surrendered", lang, channel=match.channel_id)
    elif declared:
        text = t("hand.declared", lang, special=special_name(declared, lang))
    else:
        text = t("hand.submitted", lang, channel=match.channel_id)
    embed = discord.Embed(
        title=t("hand.title", lang, k=rnd.number, n=match.rounds_total),
        colour=GREY,
        description=text,
    )
    if surrendered:  # no rows: the cards as dealt
        embed.add_field(
            name=t("hand.cards", lang), value=format_cards(draft.hand, True, deck), inline=False
        )
    else:
        embed.add_field(
            name=t("hand.rows", lang),
            value="\n".join(preview_lines(draft, lang, deck)[:3]),
            inline=False,
        )
    return Screen(embeds=(embed,), replaces=True)


def confirm_foul_screen(round_id: int, seat: int, draft: Draft, lang: str) -> Screen:
    return Screen(
        content=t("hand.confirm_foul", lang), view=confirm_foul_view(round_id, seat, draft, lang)
    )


def confirm_surrender_screen(
    round_id: int, seat: int, draft: Draft, lang: str, cost: int, opponents: int
) -> Screen:
    """ "Give this hand up?", with what it costs: ``cost`` to each of the ``opponents`` who
    does not give up too (the preset's surrender cost)."""
    text = t(
        "hand.confirm_surrender",
        lang,
        cost=number(cost, lang),
        total=number(cost * opponents, lang),
        players=count_of(OPPONENTS_WORDS, opponents, lang),
    )
    return Screen(content=text, view=confirm_surrender_view(round_id, seat, draft, lang))
