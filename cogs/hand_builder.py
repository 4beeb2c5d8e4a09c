"""The hand builder: DM or ephemeral, selects, auto-arrange, declare, submit.

A special hand is only ever declared by its holder (RULES §4): the builder offers Declare
when the hand holds one the preset pays, Auto-arrange fills in the best ordinary rows and
shows both choices with their expected points, and the person picks one (Submit or
Declare). Nothing declares for a person, not even the countdown running out.

Every click of a builder is one :class:`~cogs.components.BuilderAction`; each action has
one step here, registered with ``@step`` (the dispatch table ``STEPS``). A step either
gives the draft to show next (:class:`Redraw`) or answers the click itself (None)."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import discord

from capsa.builder import Draft
from capsa.cards import CapsaError, Card, DeckStyle, parse_cards
from capsa.presets import Preset
from capsa.render import render_hand
from capsa.specials import available, find_setting
from cogs.components import (
    BuilderAction,
    BuilderClick,
    Refusal,
    RefusalCode,
    ShowHandClick,
    Term,
)
from cogs.delivery import attempt
from cogs.parts import RoundsPart
from cogs.preferences import deck_for
from cogs.replies import language_for, own_language
from cogs.screens import builder as screens
from cogs.table_base import TableServices, preset_of, rows_of
from cogs.worker_pool import Priority
from data.repository import DEALT_STATUSES, MatchRecord, MatchStatus, RoundRecord

if TYPE_CHECKING:
    from capsa.solver import Arrangement

log = logging.getLogger(__name__)

# Specials formed by the rows themselves: declaring one sets the rows that form it.
SPECIALS_BY_ROWS = ("three_straights", "three_flushes")


def special_choice(match: MatchRecord, arrangement: Arrangement, lang: str) -> str:
    """Both choices of a hand that holds a special, with what each is expected to bring
    (summed over the opponents, as the solver weighs them)."""
    special = arrangement.special
    if special is None:
        raise ValueError("the hand holds no special")
    value = preset_of(match).specials[special]
    declared = arrangement.special_value
    if declared is None:  # every opponent pays it, unless one declares a higher one
        declared = value * (len(match.seats) - 1)
    return screens.special_choice_note(
        special, value, declared, arrangement.ordinary_expected, lang
    )


class BuilderDisplay:
    """What a hand builder shows: its screen with the hand picture, and the special each
    dealt hand may declare (checked once per round and seat)."""

    def __init__(self, services: TableServices) -> None:
        self.services = services
        self._specials: dict[tuple[int, int], str | None] = {}  # (round id, seat) -> special

    async def screen(
        self,
        match: MatchRecord,
        rnd: RoundRecord,
        seat: int,
        draft: Draft,
        lang: str,
        note: str | None = None,
        priority: Priority = Priority.CLICK,
    ) -> screens.Screen:
        """The builder's screen (one redraw of the picture a call), in the person's deck."""
        special = await self.special_for(match, rnd, seat, priority)
        if note is None and special is not None:  # the choice is theirs: say so
            note = screens.special_held_note(special, preset_of(match).specials[special], lang)
        holder = next((s.user_id for s in match.seats if s.seat == seat), None)
        deck = await deck_for(self.services.repo, holder)
        picture = await self._draw_hand(draft, lang, deck, priority)
        return screens.builder_screen(
            match,
            rnd,
            seat,
            draft,
            lang,
            special=special,
            surrender=preset_of(match).surrender,
            note=note,
            picture=picture,
            deck=deck,
        )

    async def _draw_hand(
        self, draft: Draft, lang: str, deck: DeckStyle, priority: Priority
    ) -> bytes | None:
        rows = draft.setting if (draft.back or draft.middle) else None
        try:
            return await self.services.workers.run(
                priority, render_hand, draft.hand, rows, lang, deck
            )
        except Exception:
            log.exception("could not draw a hand")
            return None

    async def special_for(
        self, match: MatchRecord, rnd: RoundRecord, seat: int, priority: Priority = Priority.CLICK
    ) -> str | None:
        key = (rnd.id, seat)
        if key not in self._specials:
            cards = parse_cards(rnd.hands[seat].cards)
            found = await self.services.workers.run(priority, available, cards, preset_of(match))
            self._specials[key] = found[0] if found else None
        return self._specials[key]

    def forget(self, rnd: RoundRecord) -> None:
        """A scored round's builders are done: drop what was remembered for them."""
        for hand in rnd.hands:
            self._specials.pop((rnd.id, hand.seat), None)


def check_placing(draft: Draft, position: str, cards: Sequence[Card]) -> None:
    """Why these cards cannot be the ``position`` row (an old menu: cards placed in the
    other row since), as a refusal; as ``Draft.place`` checks them, in that order."""
    if len(cards) != 5:
        row = Term(f"pos.{position}", lower=True)
        raise Refusal(RefusalCode.WRONG_COUNT, row=row, count=len(cards))
    other = draft.middle if position == "back" else draft.back
    for card in cards:
        if card not in draft.hand:
            raise Refusal(RefusalCode.NOT_HELD, card=card.symbol)
        if card in other:
            raise Refusal(RefusalCode.CLASH, card=card.symbol)


@dataclass(frozen=True)
class Redraw:
    """A step's outcome: the builder shows ``draft`` next, with ``note`` under it."""

    draft: Draft
    note: str | None = None


@dataclass(frozen=True)
class Turn:
    """A builder click, checked: the person's seat at an open round, their draft so far,
    and the language they read."""

    interaction: discord.Interaction
    click: BuilderClick
    match: MatchRecord
    rnd: RoundRecord
    draft: Draft
    lang: str

    @property
    def seat(self) -> int:
        return self.click.seat


def surrender_allowed(turn: Turn) -> Preset:
    """The table's preset, where it allows surrender and the countdown has not run out: a
    hand is never given up at or after the deadline (the countdown sets rows instead), nor
    by an old confirmation pressed late."""
    preset = preset_of(turn.match)
    if not preset.surrender:
        raise Refusal(RefusalCode.NO_SURRENDER)
    if time.time() >= turn.rnd.deadline:
        raise Refusal(RefusalCode.ROUND_OVER)
    return preset


Step = Callable[["HandBuilder", Turn], Awaitable[Redraw | None]]
STEPS: dict[BuilderAction, Step] = {}


def step(*acts: BuilderAction) -> Callable[[Step], Step]:
    """Registers what a builder action does (one step per action)."""

    def register(fn: Step) -> Step:
        for act in acts:
            if act in STEPS:
                raise ValueError(f"builder action {act.name} has a step already")
            STEPS[act] = fn
        return fn

    return register


class HandBuilder:
    """``/capsa hand``, "Show my hand" and every click of a builder. A submitted hand goes to
    ``rounds``: the last one closes the round, any other updates the status."""

    def __init__(
        self, services: TableServices, display: BuilderDisplay, rounds: RoundsPart
    ) -> None:
        self.services = services
        self.repo = services.repo
        self.display = display
        self.rounds = rounds

    async def show_hand(self, interaction: discord.Interaction, click: ShowHandClick) -> None:
        await self.open(interaction, match_id=click.match_id)

    async def open(self, interaction: discord.Interaction, match_id: int | None = None) -> None:
        """``/capsa hand`` and the "Show my hand" button: the builder, ephemerally."""
        await interaction.response.defer(ephemeral=True, thinking=True)  # acknowledge first
        match = (
            await self.repo.get_match(match_id)
            if match_id is not None
            else await self.repo.active_match_of_user(interaction.user.id)
        )
        seat = match.seat_of(interaction.user.id) if match else None
        if match is None or match.status != MatchStatus.PLAYING:
            raise Refusal(RefusalCode.STALE if match_id else RefusalCode.NO_HAND)
        if seat is None:
            raise Refusal(RefusalCode.NOT_YOUR_SEAT)
        lang = await language_for(self.repo, match, interaction=interaction)
        if seat.language != own_language(interaction):  # their DMs follow their language
            await self.repo.set_seat_language(
                match.id, interaction.user.id, own_language(interaction)
            )
        rnd = await self.repo.current_round(match.id)
        if rnd is None or rnd.status not in DEALT_STATUSES:
            raise Refusal(RefusalCode.ROUND_OVER)
        hand = rnd.hands[seat.seat]
        if hand.submitted:
            draft = Draft.start(parse_cards(hand.cards))
            if not hand.surrendered:
                back, middle, _ = rows_of(hand)
                draft = draft.with_setting(back, middle)
            deck = await deck_for(self.services.repo, interaction.user.id)
            locked = screens.locked_screen(
                match, rnd, draft, lang, hand.declare, surrendered=hand.surrendered, deck=deck
            )
            await interaction.followup.send(**locked.send_kwargs(ephemeral=True))
            return
        draft = Draft.start(parse_cards(hand.cards))
        screen = await self.display.screen(match, rnd, seat.seat, draft, lang)
        await interaction.followup.send(**screen.send_kwargs(ephemeral=True))

    async def action(self, interaction: discord.Interaction, click: BuilderClick) -> None:
        """A click of a builder: checked, then its action's step (``STEPS``)."""
        # Acknowledge first: everything below (database, solver, picture) may take a while
        # on a busy bot, and Discord gives a click 3 seconds.
        await interaction.response.defer()
        rnd = await self.repo.get_round(click.round_id)
        match = await self.repo.get_match(rnd.match_id) if rnd else None
        if rnd is None or match is None:
            raise Refusal(RefusalCode.STALE)
        owner = next((s for s in match.seats if s.seat == click.seat), None)
        if owner is None or owner.user_id != interaction.user.id:
            raise Refusal(RefusalCode.NOT_YOUR_SEAT)
        if rnd.status not in DEALT_STATUSES or match.status != MatchStatus.PLAYING:
            raise Refusal(RefusalCode.ROUND_OVER)
        hand = rnd.hands[click.seat]
        if hand.submitted:
            raise Refusal(RefusalCode.ALREADY_SUBMITTED)
        lang = await language_for(self.repo, match, interaction=interaction)
        draft = Draft.decode(parse_cards(hand.cards), *click.state)
        turn = Turn(interaction, click, match, rnd, draft, lang)
        redraw = await STEPS[click.act](self, turn)
        if redraw is None:
            return
        screen = await self.display.screen(match, rnd, click.seat, redraw.draft, lang, redraw.note)
        await interaction.edit_original_response(**screen.edit_kwargs())

    # --- the steps ------------------------------------------------------------------------

    @step(BuilderAction.BACK, BuilderAction.MIDDLE)
    async def _place(self, turn: Turn) -> Redraw:
        position = turn.click.act.position
        try:
            cards = parse_cards(turn.click.values)
        except CapsaError as err:  # not a card: a forged click
            raise Refusal(RefusalCode.STALE) from err
        check_placing(turn.draft, position, cards)
        return Redraw(turn.draft.place(position, cards, turn.lang))

    @step(BuilderAction.CLEAR)
    async def _clear(self, turn: Turn) -> Redraw:
        return Redraw(turn.draft.cleared())

    @step(BuilderAction.AUTO)
    async def _auto(self, turn: Turn) -> Redraw:
        # The best ordinary rows, never the special nor a surrender: when the hand holds a
        # special, or the solver would give it up, the choices are shown with their
        # expected points and the person picks.
        arrangement = await self.services.suggest(turn.match, turn.rnd, turn.seat)
        draft = turn.draft.with_setting(*arrangement.ordinary[:2], arranged=True)
        notes = []
        if arrangement.special:
            notes.append(special_choice(turn.match, arrangement, turn.lang))
        if arrangement.surrender and arrangement.surrender_value is not None:
            notes.append(
                screens.surrender_advice_note(
                    arrangement.surrender_value, arrangement.ordinary_expected, turn.lang
                )
            )
        return Redraw(draft, screens.estimates_note(notes, turn.lang))

    @step(BuilderAction.DECLARE)
    async def _declare(self, turn: Turn) -> None:
        special = await self.display.special_for(turn.match, turn.rnd, turn.seat)
        if special is None:
            raise Refusal(RefusalCode.NO_SPECIAL)
        draft = turn.draft
        if special in SPECIALS_BY_ROWS:
            setting = await self.services.workers.run(
                Priority.CLICK, find_setting, draft.hand, special
            )
            if setting is None:  # cannot happen: ``available`` found the special this way
                raise RuntimeError(f"no setting of these cards forms {special}")
            back, middle, _ = setting
            draft = draft.with_setting(back, middle)
        elif not draft.complete:
            arrangement = await self.services.suggest(turn.match, turn.rnd, turn.seat)
            draft = draft.with_setting(*arrangement.ordinary[:2])
        await self._submit(turn, draft, special)

    @step(BuilderAction.SUBMIT, BuilderAction.SUBMIT_FOUL)
    async def _submit_pressed(self, turn: Turn) -> None:
        draft = turn.draft
        if not draft.complete:
            raise Refusal(RefusalCode.INCOMPLETE)
        if turn.click.act == BuilderAction.SUBMIT and draft.fouled:
            await self._keep_dm_token(turn)  # the confirmation locks this DM through it
            confirm = screens.confirm_foul_screen(turn.rnd.id, turn.seat, draft, turn.lang)
            await turn.interaction.followup.send(**confirm.send_kwargs(ephemeral=True))
            return
        await self._submit(turn, draft, None)

    @step(BuilderAction.SURRENDER)
    async def _surrender_pressed(self, turn: Turn) -> None:
        """Surrender asks first, showing what it costs; only its confirmation gives the
        hand up (and the countdown never does)."""
        preset = surrender_allowed(turn)
        await self._keep_dm_token(turn)  # the confirmation locks this DM through it
        confirm = screens.confirm_surrender_screen(
            turn.rnd.id,
            turn.seat,
            turn.draft,
            turn.lang,
            preset.surrender_cost,
            len(turn.match.seats) - 1,
        )
        await turn.interaction.followup.send(**confirm.send_kwargs(ephemeral=True))

    @step(BuilderAction.SURRENDER_CONFIRM)
    async def _surrender(self, turn: Turn) -> None:
        surrender_allowed(turn)
        await self._submit(turn, turn.draft, None, surrender=True)

    async def _keep_dm_token(self, turn: Turn) -> None:
        """A click on the person's DM builder: the DM's later edits (locked from a
        confirmation, the review offered after the showdown) go through this click's token,
        not the bot token (issue 18)."""
        hand = turn.rnd.hands[turn.seat]
        message = turn.interaction.message
        if message is not None and hand.dm_message_id == message.id:
            await self.services.tokens.keep_for_source(turn.interaction, message.id)

    async def _submit(
        self, turn: Turn, draft: Draft, declare: str | None, *, surrender: bool = False
    ) -> None:
        match, seat, interaction = turn.match, turn.seat, turn.interaction
        if surrender:  # given up unseen: no rows
            accepted = await self.repo.submit_hand(
                turn.rnd.id, seat, None, None, None, None, fouled=False, surrendered=True
            )
        else:
            back, middle, front = ([c.code for c in row] for row in draft.setting)
            accepted = await self.repo.submit_hand(
                turn.rnd.id,
                seat,
                back,
                middle,
                front,
                declare,
                fouled=declare is None and draft.fouled,
                arranged=declare is None and draft.arranged,
            )
        if not accepted:
            raise Refusal(RefusalCode.ALREADY_SUBMITTED)
        await self._keep_dm_token(turn)  # the DM's later edit (its review) goes through it
        rnd = await self.services.round_now(turn.rnd.id)
        complete = rnd.all_submitted
        if complete:  # the showdown first: the whole table waits for it
            self.services.scheduler.spawn(self.rounds.close_round(match.id))
        deck = await deck_for(self.services.repo, interaction.user.id)
        locked = screens.locked_screen(match, rnd, draft, turn.lang, declare, surrender, deck=deck)
        await interaction.edit_original_response(**locked.edit_kwargs())
        hand = rnd.hands[seat]
        if (  # a refused DM left no DM message to lock
            interaction.message is not None
            and hand.dm_channel_id is not None
            and hand.dm_message_id is not None
            and hand.dm_message_id != interaction.message.id
        ):  # the confirm step came from another message: lock the DM builder too
            # through the token of the click on the DM that asked for the confirmation
            dm = self.services.tokens.dm_message(hand.dm_channel_id, hand.dm_message_id)
            await attempt(
                dm.edit(**locked.edit_kwargs()),
                "table %s: could not lock the DM builder of seat %s",
                match.id,
                seat,
                level=logging.INFO,
            )
        if not complete:  # else the showdown's close_round updates the status message
            await self.rounds.refresh_status(match, rnd)
