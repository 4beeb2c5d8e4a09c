"""The daily hand's messages: its builder (private), the "submit a fouled setting?"
confirmation, a member's result (private), and the day's board (public: the cards and the
coach's best setting only once the day is over)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import discord

from capsa.builder import Draft, preview_lines
from capsa.cards import DeckStyle, format_cards, parse_cards
from capsa.coach import Review, review_text
from capsa.daily import day_number, shown_loss
from capsa.i18n import number, t
from capsa.showdown import signed
from cogs.screens.base import GOLD, GREEN, GREY, Picture, Screen, relative, with_picture
from cogs.screens.builder import HAND_PICTURE, special_held_note
from cogs.views import daily_builder_view, daily_confirm_view
from data.repository import DailyPlay


def loss_text(loss: float, lang: str) -> str:
    return number(shown_loss(loss), lang, 2, fixed=True)


def daily_builder_screen(
    day: date,
    draft: Draft,
    lang: str,
    *,
    ends: float,
    special: str | None,
    special_value: int | None = None,
    picture: bytes | None = None,
    deck: DeckStyle = DeckStyle.CLASSIC,
) -> Screen:
    """The builder of the day's hand (``special``: the one it may declare, paying
    ``special_value``; ``picture``: the hand drawn, None if it could not be)."""
    drawn = Picture(HAND_PICTURE, picture) if picture is not None else None
    embed = discord.Embed(
        title=t("daily.title", lang, day=day.isoformat()),
        colour=GREEN,
        description=t("daily.intro", lang, when=relative(ends)),
    )
    embed.add_field(
        name=t("hand.cards", lang), value=format_cards(draft.hand, True, deck), inline=False
    )
    embed.add_field(
        name=t("hand.rows", lang), value="\n".join(preview_lines(draft, lang, deck)), inline=False
    )
    if special is not None and special_value is not None:
        embed.add_field(name="✨", value=special_held_note(special, special_value, lang))
    return Screen(
        embeds=(with_picture(embed, drawn),),
        view=daily_builder_view(day_number(day), draft, lang, special, deck),
        pictures=(drawn,) if drawn else (),
    )


def daily_confirm_foul_screen(day: date, draft: Draft, lang: str) -> Screen:
    return Screen(
        content=t("hand.confirm_foul", lang), view=daily_confirm_view(day_number(day), draft, lang)
    )


def daily_result_screen(
    play: DailyPlay,
    place: int,
    players: int,
    ends: float,
    lang: str,
    *,
    again: bool = False,
    deck: DeckStyle = DeckStyle.CLASSIC,
) -> Screen:
    """A member's play of the day's hand: its value against the coach's best, the loss,
    and their place among the members who played it so far (``again``: they asked for
    the builder a second time)."""
    embed = discord.Embed(
        title=t("daily.title", lang, day=play.day.isoformat()),
        colour=GOLD if place == 1 else GREY,
        description=t(
            "daily.result",
            lang,
            value=signed(play.value, lang),
            best=signed(play.best_value, lang),
            loss=loss_text(play.loss, lang),
            place=place,
            players=players,
        ),
    )
    played = review_text(Review.from_dict(play.review), lang, deck).yours  # as the coach writes it
    embed.add_field(name=t("hand.rows", lang), value=played, inline=False)
    embed.add_field(
        name="⏳",
        value=t("daily.again" if again else "daily.once", lang, when=relative(ends)),
        inline=False,
    )
    return Screen(embeds=(embed,), replaces=True)


def daily_board_screen(
    day: date,
    plays: Sequence[DailyPlay],
    places: Sequence[int],
    lang: str,
    *,
    ends: float,
    over: bool,
    cards: Sequence[str] = (),
) -> Screen:
    """The day's board: each member's place and loss; once the day is ``over``, the
    ``cards`` and the coach's best setting too."""
    embed = discord.Embed(title=t("daily.board_title", lang, day=day.isoformat()), colour=GOLD)
    lines = [
        t(
            "daily.board_row",
            lang,
            pos=place,
            name=f"<@{play.user_id}>",
            loss=loss_text(play.loss, lang),
            value=signed(play.value, lang),
        )
        for play, place in zip(plays, places, strict=True)
    ]
    embed.description = "\n".join(lines) if lines else t("daily.board_empty", lang)
    if over:
        shown = format_cards(parse_cards(cards), symbols=True)
        embed.add_field(name=t("daily.cards", lang), value=shown, inline=False)
    if over and plays:  # every play's review has the same best setting
        best = Review.from_dict(plays[0].review)
        embed.add_field(
            name=t("daily.best", lang, value=signed(best.best_value, lang)),
            value=review_text(best, lang).best,
            inline=False,
        )
    elif not over:
        embed.set_footer(text=t("daily.hidden", lang))
        embed.add_field(name="⏳", value=t("daily.ends", lang, when=relative(ends)), inline=False)
    return Screen(embeds=(embed,), mentions=discord.AllowedMentions.none())
