"""Rounds: deal, status and DMs, countdown, scoring once, showdown, next round, resume."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import defaultdict
from functools import partial

import discord

from capsa.builder import Draft
from capsa.cards import deal as deal_cards
from capsa.cards import parse_cards
from capsa.match import standings
from capsa.render import render_showdown, render_standings
from capsa.scoring import RoundResult
from capsa.settings import TimeoutAction
from cogs.components import Refusal, RefusalCode
from cogs.delivery import DM_CLOSED, attempt, send_to
from cogs.parts import BuilderPart, CoachPart
from cogs.replies import language_for
from cogs.scheduler import WATCHDOG_SECONDS, TimerKind
from cogs.screens.showdown import (
    showdown_buttons,
    showdown_screen,
    showdown_title,
    standings_screen,
    standings_title,
)
from cogs.screens.status import dm_closed_screen, status_screen
from cogs.table_base import (
    TableServices,
    is_manager,
    round_result,
    round_scores,
    seat_names,
)
from cogs.worker_pool import Priority
from data.repository import (
    MatchRecord,
    MatchStatus,
    NotPlaying,
    RoundRecord,
    RoundStatus,
    SeatRecord,
)

log = logging.getLogger(__name__)

NEXT_ROUND_SECONDS = 30  # the pause after a showdown before the next deal
SHOWDOWN_CLAIM_SECONDS = 60.0  # s: the process posting a showdown holds it this long


class Rounds:
    """A started table's rounds: the deal (computers set their rows, the status message,
    the builders by DM, drawn by ``display``), the countdown, scoring once, the showdown,
    the pause before the next round, the final standings, and picking all that up again
    after a restart. ``coach`` reviews people's hands once a showdown is out."""

    def __init__(
        self,
        services: TableServices,
        display: BuilderPart,
        coach: CoachPart,
        *,
        next_round_seconds: float = NEXT_ROUND_SECONDS,
    ) -> None:
        self.services = services
        self.repo = services.repo
        self.display = display
        self.coach = coach
        self.next_round_seconds = next_round_seconds
        self._status_locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def start_round(self, match: MatchRecord, number: int) -> None:
        """Deal, let the computers set, post the status message, DM the builders. Idempotent."""
        existing = await self.repo.current_round(match.id)
        if existing is not None and existing.number >= number:
            return
        seed = secrets.randbits(48)
        hands = deal_cards(len(match.seats), seed)
        deadline = time.time() + match.countdown
        try:
            rnd = await self.repo.start_round(
                match.id,
                number,
                seed,
                deadline,
                {s.seat: [c.code for c in hands[s.seat]] for s in match.seats},
            )
        except NotPlaying:  # cancelled meanwhile
            return
        if rnd.seed != seed:  # another process (or click) dealt this round first
            return
        await self._round_timers(match, rnd, dealing=True)
        await self.prepare_round(match, rnd)
        await self.services.scheduler.cancel(match.id, TimerKind.PREPARE_ROUND, arg=rnd.id)

    async def prepare_pending(self, match_id: int, round_id: int) -> None:
        """The PREPARE_ROUND timer: finish the deal of a round that is still open."""
        match = await self.repo.get_match(match_id)
        rnd = await self.repo.get_round(round_id)
        if match is None or rnd is None or match.status != MatchStatus.PLAYING:
            return
        if rnd.status == RoundStatus.OPEN:
            await self.prepare_round(match, rnd)

    async def prepare_round(self, match: MatchRecord, rnd: RoundRecord) -> None:
        """Whatever of a dealt round is not done yet: the computers' settings, the status
        message, the DMs. Safe to call again after a restart."""

        async def computer(seat: SeatRecord) -> None:
            level = seat.level or match.bot_level
            arrangement = await self.services.suggest(
                match, rnd, seat.seat, level, priority=Priority.DEAL
            )
            await self.repo.submit_hand(
                rnd.id,
                seat.seat,
                [c.code for c in arrangement.back],
                [c.code for c in arrangement.middle],
                [c.code for c in arrangement.front],
                arrangement.declare,
                fouled=False,
            )

        waiting = set(rnd.pending_seats)
        await asyncio.gather(*(computer(s) for s in match.seats if s.is_bot and s.seat in waiting))
        rnd = await self.services.round_now(rnd.id)
        if rnd.all_submitted:  # people were quicker
            self.services.scheduler.spawn(self.close_round(match.id, rnd.id))
        lang = await language_for(self.repo, match)  # the table's
        if rnd.status_message_id is None:
            posted = await attempt(
                self.services.channel(match.channel_id).send(
                    **status_screen(match, rnd, lang).send_kwargs()
                ),
                "table %s: could not post the round status",
                match.id,
                level=logging.ERROR,
                trace=True,
            )
            if posted.value is not None:
                await self.repo.set_round_messages(rnd.id, status_message_id=posted.value.id)
        await asyncio.gather(
            *(
                self._send_builder_dm(match, rnd, seat)
                for seat in match.seats
                if not seat.is_bot
                and rnd.hands[seat.seat].dm_message_id is None
                and not rnd.hands[seat.seat].dm_refused
                and not rnd.hands[seat.seat].submitted
            )
        )

    async def _send_builder_dm(
        self, match: MatchRecord, rnd: RoundRecord, seat: SeatRecord
    ) -> None:
        if seat.user_id is None:  # a computer: no DMs
            return
        lang = await language_for(self.repo, match, user_id=seat.user_id)  # their DM: theirs
        hand = rnd.hands[seat.seat]
        draft = Draft.start(parse_cards(hand.cards))
        screen = await self.display.screen(
            match, rnd, seat.seat, draft, lang, priority=Priority.DEAL
        )
        # Opening the DM channel can be refused as well as the message: Discord answers
        # 403 (or 400) with code 50007 there too when the user takes no DMs.
        dm = self.services.dm_channel(seat.user_id)
        sent = await attempt(send_to(dm, **screen.send_kwargs()))  # logged below, by kind
        if sent.value is not None:
            message = sent.value
            await self.repo.set_dm_message(rnd.id, seat.seat, message.channel.id, message.id)
            return
        refused = sent.dm_refused
        if not refused:
            log.error("table %s: could not DM seat %s", match.id, seat.seat, exc_info=sent.error)
        elif sent.error is not None and sent.error.code != DM_CLOSED:
            log.warning("table %s: DM to seat %s refused: %s", match.id, seat.seat, sent.error)
        told = await attempt(  # tell them in the channel; "Show my hand" opens the builder there
            self.services.channel(match.channel_id).send(
                **dm_closed_screen(seat.user_id, await language_for(self.repo, match)).send_kwargs()
            ),
            "table %s: could not tell seat %s that DMs failed",
            match.id,
            seat.seat,
        )
        if not told.ok:
            return
        if refused:  # remembered: a restart neither tries the DM again nor tells them twice
            await self.repo.mark_dm_refused(rnd.id, seat.seat)

    async def close_status_message(self, match: MatchRecord) -> None:
        """The table was cancelled: its open round's status says so, without buttons."""
        rnd = await self.repo.current_round(match.id)
        if rnd is None or rnd.status != RoundStatus.OPEN or rnd.status_message_id is None:
            return
        channel = self.services.channel(match.channel_id)
        message = channel.get_partial_message(rnd.status_message_id)
        screen = status_screen(match, rnd, await language_for(self.repo, match), cancelled=True)
        await attempt(
            message.edit(**screen.edit_kwargs()),
            "table %s: could not close the status message",
            match.id,
        )

    async def refresh_status(self, match: MatchRecord, rnd: RoundRecord) -> None:
        """Show who has submitted. One edit at a time per round, each from a fresh read, so
        a slow earlier edit can never land over a later state."""
        async with self._status_locks[rnd.id]:
            fresh = await self.repo.get_round(rnd.id)
            if fresh is None or fresh.status_message_id is None:
                return
            channel = self.services.channel(match.channel_id)
            message = channel.get_partial_message(fresh.status_message_id)
            screen = status_screen(match, fresh, await language_for(self.repo, match))
            await attempt(
                message.edit(**screen.edit_kwargs()),
                "table %s: could not update the status message",
                match.id,
            )
            if fresh.status != RoundStatus.OPEN:
                self._status_locks.pop(fresh.id, None)

    async def close_round(self, match_id: int, round_id: int) -> None:
        """Fill in the missing settings, score once, post the showdown, go on."""
        async with self.services.locks[match_id]:
            match = await self.repo.get_match(match_id)
            rnd = await self.repo.get_round(round_id)
            if match is None or rnd is None or match.status != MatchStatus.PLAYING:
                return
            scored_now = rnd.status == RoundStatus.OPEN
            result = None  # built while scoring; a later call rebuilds it for the showdown
            if scored_now:
                await self._fill_missing(match, rnd)
                rnd = await self.services.round_now(round_id)
                result = round_result(match, rnd)
                auto = [h.seat for h in rnd.hands if h.auto]
                payload = result.to_dict() | {"auto": auto}
                # another process may have scored it meanwhile: then this one did not
                scored_now = await self.repo.score_round(round_id, payload, round_scores(result))
                self.display.forget(rnd)
                rnd = await self.services.round_now(round_id)
            if rnd.status != RoundStatus.SCORED:  # the table was cancelled meanwhile
                return
            latest = await self.repo.current_round(match_id)
            if latest is not None and latest.number > rnd.number:
                return  # a late duplicate call: the next round runs, and keeps its timer
            # the showdown first: players wait for it. One process posts it (the claim).
            posted = rnd.showdown_message_id is None and await self.repo.claim_showdown(
                rnd.id, SHOWDOWN_CLAIM_SECONDS
            )
            if posted:
                try:
                    await self._post_showdown(match, rnd, result)
                except BaseException:
                    await asyncio.shield(self.repo.release_showdown(rnd.id))  # try again
                    raise
            if scored_now or posted:  # (posted: an earlier call scored it, then failed)
                self.coach.after_showdown(match, rnd)  # reviews wait for the showdown
                await self.refresh_status(match, rnd)
            scheduler = self.services.scheduler
            if rnd.number >= match.rounds_total:
                await self._finish(match)
            else:
                delay = (rnd.scored_at or time.time()) + self.next_round_seconds - time.time()
                await scheduler.schedule(match_id, TimerKind.NEXT_ROUND, rnd.number + 1, delay)
            # done: this round's countdown goes (kept until here, it tries again if this
            # failed); another process may have dealt the next round already, with its own
            await scheduler.cancel(
                match_id, TimerKind.CLOSE_ROUND, TimerKind.PREPARE_ROUND, arg=rnd.id
            )

    async def _fill_missing(self, match: MatchRecord, rnd: RoundRecord) -> None:
        """The settings of the seats that ran out of time. A person gets the solver's best
        ordinary rows and never a declared special: only its holder declares one (RULES
        §4), and a person who did not act did not (the builder told them so). A computer
        seat (not set yet after a crash, say) decides as computers do."""
        foul = match.timeout_action == TimeoutAction.FOUL
        people = {s.seat for s in match.seats if not s.is_bot}
        for hand in rnd.hands:
            if hand.submitted:
                continue
            arrangement = await self.services.suggest(
                match, rnd, hand.seat, priority=Priority.SHOWDOWN
            )
            declare = None if foul or hand.seat in people else arrangement.declare
            rows = (
                (arrangement.back, arrangement.middle, arrangement.front)
                if declare
                else arrangement.ordinary
            )
            back, middle, front = ([c.code for c in row] for row in rows)
            await self.repo.submit_hand(
                rnd.id, hand.seat, back, middle, front, declare, fouled=foul, auto=True
            )

    async def _post_showdown(
        self, match: MatchRecord, rnd: RoundRecord, result: RoundResult | None = None
    ) -> None:
        """Post a scored round's showdown. ``result``: ``round_result(match, rnd)`` if the
        caller has just built it."""
        lang = await language_for(self.repo, match)  # the table's
        if result is None:
            result = round_result(match, rnd)
        totals = await self._totals(match)
        last = rnd.number >= match.rounds_total
        title = showdown_title(rnd.number, match.rounds_total, lang)
        image = await self._render(result, lang, title)
        screen = partial(
            showdown_screen,
            result,
            totals,
            match_id=match.id,
            round_id=rnd.id,
            number=rnd.number,
            rounds_total=match.rounds_total,
            lang=lang,
            auto={h.seat for h in rnd.hands if h.auto},
            next_at=None if last else (rnd.scored_at or time.time()) + self.next_round_seconds,
        )
        channel = self.services.channel(match.channel_id)
        sent = await attempt(
            channel.send(**screen(picture=image).send_kwargs()),
            "table %s: showdown of round %s refused",
            match.id,
            rnd.number,
            level=logging.ERROR,
            trace=True,
        )
        if sent.value is None:  # once more without the picture (Attach Files?)
            sent = await attempt(
                channel.send(**screen(picture=None).send_kwargs()),
                "table %s: could not post the showdown",
                match.id,
                level=logging.ERROR,
                trace=True,
            )
        if sent.value is None:
            return
        await self.repo.set_round_messages(rnd.id, showdown_message_id=sent.value.id)

    async def _render(self, result: RoundResult, lang: str, title: str | None) -> bytes | None:
        try:
            return await self.services.workers.run(
                Priority.SHOWDOWN, render_showdown, result, lang, title
            )
        except Exception:
            log.exception("could not draw the showdown")
            return None

    async def _totals(self, match: MatchRecord) -> dict[str, float]:
        names = seat_names(match)
        by_seat = await self.repo.match_totals(match.id)
        return {names[s.seat]: by_seat.get(s.seat, 0) for s in match.seats}

    async def _finish(self, match: MatchRecord) -> None:
        totals = await self._totals(match)
        table = standings(totals)
        names = seat_names(match)
        by_name = {name: seat for seat, name in names.items()}
        places = {by_name[s.name]: s.place for s in table}
        if not await self.repo.finish_match(match.id, places):
            return
        lang = await language_for(self.repo, match)  # the table's
        image = None
        try:
            image = await self.services.workers.run(
                Priority.SHOWDOWN, render_standings, table, lang, standings_title(lang)
            )
        except Exception:
            log.exception("could not draw the standings")
        await attempt(
            self.services.channel(match.channel_id).send(
                **standings_screen(table, match.id, lang, image).send_kwargs()
            ),
            "table %s: could not post the final standings",
            match.id,
            level=logging.ERROR,
            trace=True,
        )

    async def next_pressed(
        self, interaction: discord.Interaction, match_id: int, number: int
    ) -> None:
        await interaction.response.defer()  # acknowledge first
        match = await self.repo.get_match(match_id)
        if match is None or match.status != MatchStatus.PLAYING:
            raise Refusal(RefusalCode.STALE)
        if not is_manager(interaction, match):
            raise Refusal(RefusalCode.HOST_ONLY)
        current = await self.repo.current_round(match_id)
        if current is not None and current.number > number:  # an old showdown's button
            raise Refusal(RefusalCode.NEXT_STARTED, k=current.number)
        if current is None or current.number != number or current.status != RoundStatus.SCORED:
            raise Refusal(RefusalCode.NEXT_WAIT)
        lang = await language_for(self.repo, match)  # the showdown's buttons: the table's
        await interaction.edit_original_response(
            **showdown_buttons(match_id, number, current.id, lang).edit_kwargs()
        )
        await self.start_next(match_id, number + 1)

    async def next_on_time(self, match_id: int, number: int) -> None:
        """The NEXT_ROUND timer: nobody pressed Next before the pause ran out. The next round
        starts, and the showdown's Next button goes (pressing it would only say the round
        has started)."""
        shown = await self.repo.current_round(match_id)
        await self.start_next(match_id, number)
        match = await self.repo.get_match(match_id)
        if match is None or shown is None or shown.number != number - 1:
            return
        if shown.showdown_message_id is None:
            return
        channel = self.services.channel(match.channel_id)
        message = channel.get_partial_message(shown.showdown_message_id)
        lang = await language_for(self.repo, match)  # the table's
        await attempt(
            message.edit(**showdown_buttons(match_id, shown.number, shown.id, lang).edit_kwargs()),
            "table %s: could not take Next off a showdown",
            match_id,
            level=logging.INFO,
        )

    async def start_next(self, match_id: int, number: int) -> None:
        async with self.services.locks[match_id]:
            match = await self.repo.get_match(match_id)
            if match is None or match.status != MatchStatus.PLAYING:
                return
            current = await self.repo.current_round(match_id)
            if (
                current is not None
                and current.number == number
                and current.status == RoundStatus.OPEN
            ):
                # dealt, by a process that may have died before it set the round's timers
                await self._round_timers(match, current, dealing=False)
                return
            if current is not None and (
                current.number >= number or current.status != RoundStatus.SCORED
            ):
                return
            await self.start_round(match, number)

    async def _round_timers(self, match: MatchRecord, rnd: RoundRecord, *, dealing: bool) -> None:
        """An open round's timers, the deal's watchdog first, then the countdown.
        ``dealing``: this process deals it now and holds the watchdog (should it die,
        another finishes the deal); else (a start, a dealer that died) the timers it lacks,
        the deal checked at once."""
        scheduler = self.services.scheduler
        if dealing:
            await scheduler.hold(match.id, TimerKind.PREPARE_ROUND, rnd.id, WATCHDOG_SECONDS)
        else:
            await scheduler.schedule(match.id, TimerKind.PREPARE_ROUND, rnd.id, 0, if_absent=True)
        countdown = rnd.deadline - time.time()
        await scheduler.schedule(
            match.id, TimerKind.CLOSE_ROUND, rnd.id, countdown, if_absent=not dealing
        )

    async def resume(self, match: MatchRecord) -> None:
        """At start, a playing table has the timers that take it on, unless it has them
        already (another process may run it): its first deal; its round's countdown and
        whatever of the deal was not done; or its pending showdown and what follows."""
        scheduler = self.services.scheduler
        rnd = await self.repo.current_round(match.id)
        if rnd is None:
            await scheduler.schedule(match.id, TimerKind.FIRST_DEAL, 1, 0, if_absent=True)
        elif rnd.status == RoundStatus.OPEN:
            await self._round_timers(match, rnd, dealing=False)
        else:
            await scheduler.schedule(match.id, TimerKind.CLOSE_ROUND, rnd.id, 0, if_absent=True)
