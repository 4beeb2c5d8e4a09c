"""The daily hand in Discord: ``/capsa daily play`` opens the day's 13 cards in a private
builder (the hand builder's selects, no Auto-arrange), Submit values the setting with the
coach in a worker process and keeps it, once; ``/capsa daily board`` shows the day's
places and losses, with the cards and the coach's best setting once the day is over.

Days are UTC (capsa/daily.py). Everything a click needs is in its custom_id (the day and
the draft) and in the database (the day's hand and the plays), so builders keep working
across restarts and in any process. ``clock`` gives the time (tests move it on a day).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import date, timedelta
from enum import StrEnum

import discord

from capsa.builder import Draft
from capsa.cards import CapsaError, parse_cards
from capsa.coach import Origin, review_job
from capsa.daily import (
    DAILY_OPPONENTS,
    daily_cards,
    day_end,
    day_from_number,
    day_of,
    places,
)
from capsa.presets import get_preset
from capsa.render import render_hand
from capsa.settings import PRESET
from capsa.specials import available, find_setting
from cogs.components import BuilderAction, DailyClick, Refusal, RefusalCode
from cogs.hand_builder import SPECIALS_BY_ROWS, check_placing
from cogs.preferences import deck_for
from cogs.replies import user_lang
from cogs.screens import daily as screens
from cogs.table_base import TableServices
from cogs.worker_pool import Priority
from data.repository import DailyHand, DailyPlay

log = logging.getLogger(__name__)


class DailyDay(StrEnum):
    """Which day's board ``/capsa daily board`` shows."""

    TODAY = "today"
    YESTERDAY = "yesterday"


class Daily:
    """The daily hand: the command, the board, and every click of a daily builder."""

    def __init__(self, services: TableServices, clock: Callable[[], float] = time.time) -> None:
        self.services = services
        self.repo = services.repo
        self.clock = clock
        self._specials: dict[tuple[int, date], str | None] = {}  # the special each day holds

    def today(self) -> date:
        return day_of(self.clock())

    # --- the command and the board ---------------------------------------------------------

    async def open(self, interaction: discord.Interaction) -> None:
        """``/capsa daily play``: the day's builder, privately; their result if they played."""
        guild_id = interaction.guild_id
        if guild_id is None:
            raise Refusal(RefusalCode.GUILD_ONLY)
        await interaction.response.defer(ephemeral=True, thinking=True)  # acknowledge first
        lang = await user_lang(self.repo, interaction)
        day = self.today()
        played = await self.repo.daily_play(guild_id, day, interaction.user.id)
        if played is not None:  # one try a day: what they played, where they stand now
            screen = await self._result(played, lang, interaction.user.id, again=True)
        else:
            hand = await self._hand(guild_id, day)
            screen = await self._builder(
                hand, Draft.start(parse_cards(hand.cards)), lang, interaction.user.id
            )
        await interaction.followup.send(**screen.send_kwargs(ephemeral=True))

    async def board(self, interaction: discord.Interaction, which: DailyDay) -> None:
        """``/capsa daily board``: the places and losses of today's or yesterday's hand."""
        guild_id = interaction.guild_id
        if guild_id is None:
            raise Refusal(RefusalCode.GUILD_ONLY)
        today = self.today()
        day = today if which == DailyDay.TODAY else today - timedelta(days=1)
        over = day < today
        plays = await self.repo.daily_plays(guild_id, day)
        cards: tuple[str, ...] = ()
        if over:  # the cards are shown once the day has ended
            hand = await self.repo.daily_hand(guild_id, day)
            cards = hand.cards if hand else tuple(c.code for c in daily_cards(guild_id, day))
        lang = await user_lang(self.repo, interaction)
        screen = screens.daily_board_screen(
            day,
            plays,
            places([p.loss for p in plays]),
            lang,
            ends=day_end(day),
            over=over,
            cards=cards,
        )
        await interaction.response.send_message(**screen.send_kwargs())

    # --- the builder's clicks ---------------------------------------------------------------

    async def action(self, interaction: discord.Interaction, click: DailyClick) -> None:
        """A click of a daily builder: checked (the day still runs, not played yet), then
        the draft redrawn, the foul confirmed, or the setting valued and kept."""
        await interaction.response.defer()  # acknowledge first: the coach takes a while
        guild_id = interaction.guild_id
        try:
            day = day_from_number(click.day)
        except ValueError as err:  # not a date: a forged click
            raise Refusal(RefusalCode.STALE) from err
        hand = await self.repo.daily_hand(guild_id, day) if guild_id is not None else None
        if guild_id is None or hand is None:
            raise Refusal(RefusalCode.STALE)
        if day != self.today():
            raise Refusal(RefusalCode.DAILY_OVER)
        if await self.repo.daily_play(guild_id, day, interaction.user.id) is not None:
            raise Refusal(RefusalCode.DAILY_PLAYED)
        lang = await user_lang(self.repo, interaction)
        draft = Draft.decode(parse_cards(hand.cards), *click.state)
        act = click.act
        if act in (BuilderAction.BACK, BuilderAction.MIDDLE):
            try:
                cards = parse_cards(click.values)
            except CapsaError as err:  # not a card: a forged click
                raise Refusal(RefusalCode.STALE) from err
            check_placing(draft, act.position, cards)
            draft = draft.place(act.position, cards, lang)
        elif act == BuilderAction.CLEAR:
            draft = draft.cleared()
        elif act == BuilderAction.DECLARE:
            await self._declare(interaction, hand, draft, lang)
            return
        elif act in (BuilderAction.SUBMIT, BuilderAction.SUBMIT_FOUL):
            if not draft.complete:
                raise Refusal(RefusalCode.INCOMPLETE)
            if act == BuilderAction.SUBMIT and draft.fouled:
                confirm = screens.daily_confirm_foul_screen(day, draft, lang)
                await interaction.followup.send(**confirm.send_kwargs(ephemeral=True))
                return
            await self._submit(interaction, hand, draft, None, lang)
            return
        else:  # Auto-arrange is no daily control: an old or forged id
            raise Refusal(RefusalCode.STALE)
        screen = await self._builder(hand, draft, lang, interaction.user.id)
        await interaction.edit_original_response(**screen.edit_kwargs())

    async def _declare(
        self, interaction: discord.Interaction, hand: DailyHand, draft: Draft, lang: str
    ) -> None:
        special = await self._special(hand)
        if special is None:
            raise Refusal(RefusalCode.NO_SPECIAL)
        if special in SPECIALS_BY_ROWS:  # the rows that form it
            setting = await self.services.workers.run(
                Priority.CLICK, find_setting, draft.hand, special
            )
            if setting is None:  # cannot happen: ``available`` found it this way
                raise RuntimeError(f"no setting of these cards forms {special}")
            draft = draft.with_setting(setting[0], setting[1])
        elif not draft.complete:  # the rows do not count for a declared hand
            draft = draft.with_setting(draft.hand[:5], draft.hand[5:10])
        await self._submit(interaction, hand, draft, special, lang)

    async def _submit(
        self,
        interaction: discord.Interaction,
        hand: DailyHand,
        draft: Draft,
        declare: str | None,
        lang: str,
    ) -> None:
        """Value the setting with the coach (a worker process) and keep it, once."""
        review = await self.services.workers.run(
            Priority.CLICK,
            review_job,
            draft.hand,
            get_preset(hand.preset),
            DAILY_OPPONENTS,
            draft.setting,
            declare,
            False,
            Origin.PLAYED,
        )
        rows = tuple([c.code for c in row] for row in draft.setting)
        fouled = declare is None and draft.fouled
        user_id = interaction.user.id
        if not await self.repo.record_daily_play(
            hand.guild_id, hand.day, user_id, rows, declare, fouled, review.to_dict()
        ):
            raise Refusal(RefusalCode.DAILY_PLAYED)  # another click of theirs was first
        play = await self.repo.daily_play(hand.guild_id, hand.day, user_id)
        assert play is not None
        screen = await self._result(play, lang, user_id)
        await interaction.edit_original_response(**screen.edit_kwargs())

    # --- what the screens need ------------------------------------------------------------

    async def _hand(self, guild_id: int, day: date) -> DailyHand:
        """The server's hand of ``day``, stored by the first member to open it (under the
        server's rules of that moment)."""
        stored = await self.repo.daily_hand(guild_id, day)
        if stored is not None:
            return stored
        settings = await self.repo.guild_settings(guild_id)
        cards = [c.code for c in daily_cards(guild_id, day)]
        return await self.repo.open_daily(guild_id, day, settings.get(PRESET), cards)

    async def _special(self, hand: DailyHand) -> str | None:
        key = (hand.guild_id, hand.day)
        if key not in self._specials:
            found = await self.services.workers.run(
                Priority.CLICK, available, parse_cards(hand.cards), get_preset(hand.preset)
            )
            self._specials = {k: v for k, v in self._specials.items() if k[1] == hand.day}
            self._specials[key] = found[0] if found else None
        return self._specials[key]

    async def _builder(
        self, hand: DailyHand, draft: Draft, lang: str, user_id: int
    ) -> screens.Screen:
        """The day's builder for ``user_id``, in their deck style."""
        special = await self._special(hand)
        deck = await deck_for(self.repo, user_id)
        rows = draft.setting if (draft.back or draft.middle) else None
        try:
            picture = await self.services.workers.run(
                Priority.CLICK, render_hand, draft.hand, rows, lang, deck
            )
        except Exception:
            log.exception("could not draw the daily hand")
            picture = None
        value = get_preset(hand.preset).specials[special] if special else None
        return screens.daily_builder_screen(
            hand.day,
            draft,
            lang,
            ends=day_end(hand.day),
            special=special,
            special_value=value,
            picture=picture,
            deck=deck,
        )

    async def _result(
        self, play: DailyPlay, lang: str, user_id: int, *, again: bool = False
    ) -> screens.Screen:
        """A member's result, the cards in ``user_id``'s deck style."""
        deck = await deck_for(self.repo, user_id)
        plays = await self.repo.daily_plays(play.guild_id, play.day)
        ranked = places([p.loss for p in plays])
        place = next(pl for p, pl in zip(plays, ranked, strict=True) if p.user_id == play.user_id)
        return screens.daily_result_screen(
            play, place, len(plays), day_end(play.day), lang, again=again, deck=deck
        )
