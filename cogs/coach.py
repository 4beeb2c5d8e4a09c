"""The coach in Discord: every person's hand of a scored round is reviewed once, in a worker
process after the showdown (never before it), and kept with the round; "Review my hand" on
the showdown and on the person's DM shows theirs, privately.

The review itself is capsa.coach's (the ``hard`` level's values). A press that comes before
the background job reached that hand reviews it there and then, and keeps it: both ways
store the same review once (``repo.store_review``), so any process may do either.
"""

from __future__ import annotations

import asyncio
import logging
import time

import discord

from capsa.cards import parse_cards
from capsa.coach import Origin, Review, review_job
from capsa.render import render_review
from cogs.components import Refusal, RefusalCode, ReviewClick
from cogs.delivery import attempt
from cogs.preferences import deck_for
from cogs.replies import language_for
from cogs.screens.review import review_offer, review_screen
from cogs.table_base import TableServices, preset_of, rows_of
from cogs.worker_pool import Priority
from data.repository import HandRecord, MatchRecord, RoundRecord

log = logging.getLogger(__name__)

RESUME_DAYS = 1.0  # at start, hands of rounds scored this recently get their reviews


def origin_of(hand: HandRecord) -> Origin:
    """Who set the hand: the countdown, Auto-arrange as it came, or the person."""
    if hand.auto:
        return Origin.TIMED_OUT
    return Origin.AUTO if hand.arranged else Origin.PLAYED


class Coach:
    """Reviews people's hands after each showdown and answers "Review my hand".

    ``services``: the repository, the worker processes (reviews run there at the lowest
    priority, one at a time, so a showdown never waits behind more than one) and the
    scheduler that runs the background reviews. ``after_every_showdown`` False (the
    ``COACH=off`` setting): a hand is reviewed only when its player asks, so the stats
    and the sharpest leaderboard count only those."""

    def __init__(self, services: TableServices, *, after_every_showdown: bool = True) -> None:
        self.services = services
        self.repo = services.repo
        self.after_every_showdown = after_every_showdown
        self._one_at_a_time = asyncio.Semaphore(1)

    def after_showdown(self, match: MatchRecord, rnd: RoundRecord) -> None:
        """Review the round's people's hands in the background (the showdown is posted)."""
        if self.after_every_showdown:
            self.services.scheduler.spawn(self.review_round(match, rnd))

    async def review_round(self, match: MatchRecord, rnd: RoundRecord) -> None:
        people = {s.seat for s in match.seats if not s.is_bot}
        for hand in rnd.hands:
            if hand.seat not in people:
                continue
            try:
                await self.review(match, rnd, hand)
            except Exception:
                log.exception("table %s: could not review seat %s", match.id, hand.seat)
                continue
            await self._offer_in_dm(match, rnd, hand)

    async def review(
        self, match: MatchRecord, rnd: RoundRecord, hand: HandRecord, *, asked: bool = False
    ) -> Review:
        """The seat's review: the stored one, or made now and stored. ``asked``: a person
        waits for it (their click's priority, ahead of the background reviews)."""
        stored = await self.repo.hand_review(rnd.id, hand.seat)
        if stored is not None:
            return Review.from_dict(stored)
        played = None
        if not hand.surrendered:  # a surrendered hand has no rows
            back, middle, front = rows_of(hand)
            played = (tuple(back), tuple(middle), tuple(front))
        job = (
            review_job,
            parse_cards(hand.cards),
            preset_of(match),
            len(match.seats) - 1,
            played,
            hand.declare,
            hand.fouled and hand.auto,  # a timed-out hand the table counts as fouled
            origin_of(hand),
            hand.surrendered,
        )
        if asked:
            review = await self.services.workers.run(Priority.CLICK, *job)
        else:
            async with self._one_at_a_time:
                review = await self.services.workers.run(Priority.REVIEW, *job)
        if not await self.repo.store_review(
            rnd.id, hand.seat, review.to_dict(), review.loss, review.counts
        ):  # another process (or press) was first: show what it kept
            again = await self.repo.hand_review(rnd.id, hand.seat)
            if again is not None:
                return Review.from_dict(again)
        return review

    async def _offer_in_dm(self, match: MatchRecord, rnd: RoundRecord, hand: HandRecord) -> None:
        """Put "Review my hand" on the person's DM of that round (their locked builder)."""
        if hand.dm_channel_id is None or hand.dm_message_id is None or hand.dm_refused:
            return
        seat = next((s for s in match.seats if s.seat == hand.seat), None)
        user_id = seat.user_id if seat is not None else None
        lang = await language_for(self.repo, match, user_id=user_id)  # their DM: theirs
        # through the token of the person's Submit on that DM while it is valid (issue 18)
        dm = self.services.tokens.dm_message(hand.dm_channel_id, hand.dm_message_id)
        await attempt(
            dm.edit(**review_offer(rnd.id, lang).edit_kwargs()),
            "table %s: could not offer a review in seat %s's DM",
            match.id,
            hand.seat,
            level=logging.INFO,
        )

    async def resume(self) -> None:
        """At start: review the people's hands of recent rounds that have none yet (a
        process that stopped mid-way, a round scored by another process that died)."""
        if not self.after_every_showdown:
            return
        pending = await self.repo.unreviewed_hands(time.time() - RESUME_DAYS * 86400)
        if pending:
            self.services.scheduler.spawn(self._review_pending(pending))

    async def _review_pending(self, pending: list[tuple[int, int]]) -> None:
        for round_id, seat in pending:
            rnd = await self.repo.get_round(round_id)
            match = await self.repo.get_match(rnd.match_id) if rnd else None
            hand = rnd.hand(seat) if rnd else None
            if rnd is None or match is None or hand is None:
                continue
            try:
                await self.review(match, rnd, hand)
            except Exception:
                log.exception("round %s: could not review seat %s", round_id, seat)

    async def pressed(self, interaction: discord.Interaction, click: ReviewClick) -> None:
        """ "Review my hand": the presser's own review, privately, in their language."""
        await interaction.response.defer(ephemeral=True, thinking=True)  # acknowledge first
        rnd = await self.repo.get_round(click.round_id)
        match = await self.repo.get_match(rnd.match_id) if rnd else None
        if rnd is None or match is None or not rnd.scored:
            raise Refusal(RefusalCode.STALE)
        seat = match.seat_of(interaction.user.id)
        hand = rnd.hand(seat.seat) if seat else None
        if hand is None:
            raise Refusal(RefusalCode.NOT_PLAYED)
        lang = await language_for(self.repo, match, interaction=interaction)
        review = await self.review(match, rnd, hand, asked=True)
        deck = await deck_for(self.repo, interaction.user.id)
        try:
            picture = await self.services.workers.run(
                Priority.CLICK, render_review, review, lang, deck
            )
        except Exception:
            log.exception("could not draw a review")
            picture = None
        screen = review_screen(review, rnd.number, lang, picture, deck)
        await interaction.followup.send(**screen.send_kwargs(ephemeral=True))
