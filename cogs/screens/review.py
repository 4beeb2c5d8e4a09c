"""The coach's review of one person's hand, privately: both settings with their values, the
verdict and the notes, and the picture; and the "Review my hand" offer on their DM."""

from __future__ import annotations

import discord

from capsa.cards import DeckStyle
from capsa.coach import Review, review_text
from capsa.i18n import t
from cogs.screens.base import GOLD, GREEN, Picture, Screen, with_picture
from cogs.views import review_view

REVIEW_PICTURE = "review.jpg"


def review_embed(
    review: Review, number: int, lang: str, deck: DeckStyle = DeckStyle.CLASSIC
) -> discord.Embed:
    """Both settings with their values (text as well as the picture), the verdict and the
    notes; how the values were found in the footer."""
    text = review_text(review, lang, deck)
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


def review_screen(
    review: Review,
    number: int,
    lang: str,
    picture: bytes | None,
    deck: DeckStyle = DeckStyle.CLASSIC,
) -> Screen:
    drawn = Picture(REVIEW_PICTURE, picture) if picture is not None else None
    return Screen(
        embeds=(with_picture(review_embed(review, number, lang, deck), drawn),),
        pictures=(drawn,) if drawn else (),
    )


def review_offer(round_id: int, lang: str) -> Screen:
    """Only the components of a person's locked DM: "Review my hand" added."""
    return Screen(view=review_view(round_id, lang))
