"""``/capsa me``: a person's own language and deck style, as only they see them."""

from __future__ import annotations

import discord

from capsa.cards import DeckStyle, format_cards, parse_cards
from capsa.i18n import t
from cogs.screens.base import GREY, Picture, Screen, with_picture
from data.repository import HandsIn, Preferences

# how each deck style is named, in the command's choices and in the answer
DECK_KEYS = {
    DeckStyle.CLASSIC: "choice.deck.classic",
    DeckStyle.FOUR_COLOUR: "choice.deck.four_colour",
    DeckStyle.LETTERS: "choice.deck.letters",
    DeckStyle.FOUR_COLOUR_LETTERS: "choice.deck.four_colour_letters",
}
# where a person's hands go, named in the command's choices and in the answer
HANDS_KEYS = {HandsIn.DM: "choice.hands.dm", HandsIn.CHANNEL: "choice.hands.channel"}
# one card of each suit, shown in the chosen style
SAMPLE = tuple(parse_cards("AS TD QC 7H"))
SAMPLE_PICTURE = "deck.jpg"


def preferences_screen(
    preferences: Preferences, lang: str, *, saved: bool, picture: bytes | None
) -> Screen:
    """What ``preferences`` holds, in ``lang`` (the language they now read), with the sample
    cards in their deck style as text and, when drawn, as a picture."""
    embed = discord.Embed(title=t("me.title", lang), colour=GREY)
    lines = [t("set.saved", lang)] if saved else []
    lines.append(t("me.where", lang))
    embed.description = "\n".join(lines)
    chosen = preferences.language
    language = t("choice.me_lang_auto", lang) if chosen is None else t(f"choice.{chosen}", lang)
    embed.add_field(name=t("set.language", lang), value=language)
    embed.add_field(name=t("me.deck", lang), value=t(DECK_KEYS[preferences.deck], lang))
    embed.add_field(name=t("me.hands", lang), value=t(HANDS_KEYS[preferences.hands], lang))
    sample = format_cards(SAMPLE, symbols=True, deck=preferences.deck)
    embed.add_field(name="\u200b", value=t("me.sample", lang, cards=sample), inline=False)
    drawn = Picture(SAMPLE_PICTURE, picture) if picture is not None else None
    return Screen(
        embeds=(with_picture(embed, drawn),), pictures=(drawn,) if drawn is not None else None
    )
