"""Rounds: the steps of a started table (deal, prepare, close, show, finish, post the
standings), each run by ``cogs.flow.TableFlow`` when ``cogs.life.next_step`` says it is due,
and the Next button."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

import discord

from capsa.builder import Draft
from capsa.cards import deal as deal_cards
from capsa.cards import parse_cards
from capsa.match import standings
from capsa.render import render_showdown, render_standings
from capsa.scoring import RoundResult
from capsa.settings import TimeoutAction
from capsa.timings import (
    OUTAGE_RETRY_SECONDS,
    SHOWDOWN_CLAIM_SECONDS,
    STANDINGS_CLAIM_SECONDS,
    STATUS_EDIT_SECONDS,
)
from cogs import components as c
from cogs.components import Refusal, RefusalCode
from cogs.delivery import DM_CLOSED, attempt, send_to
from cogs.flow import Driver, Tell
from cogs.life import Next, Step
from cogs.parts import BuilderPart, CoachPart
from cogs.replies import language_for
from cogs.scheduler import TimerKind
from cogs.screens.base import Screen
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
from data.common import is_database_outage
from data.repository import (
    Claimed,
    HandsIn,
    MatchRecord,
    MatchStatus,
    NotPlaying,
    RoundRecord,
    SeatRecord,
)

if TYPE_CHECKING:
    from capsa.solver import Arrangement

log = logging.getLogger(__name__)


class TakenOver(Exception):
    """This process's claim on a post was taken over by another process (which found this
    one dead): it posts nothing."""


async def until_stored(what: str, write: Callable[[], Awaitable[object]]) -> None:
    """``write`` (a post's mark, a claim let go), tried again every OUTAGE_RETRY_SECONDS
    while the database is out of reach (a full disk, a server restarting): what was posted
    must be stored as posted, or it would be posted twice. Any other error is raised."""
    while True:
        try:
            await write()
            return
        except Exception as error:
            if not is_database_outage(error):
                raise
            log.warning(
                "%s: the database is out of reach (%s); storing it again in %s s",
                what,
                error,
                OUTAGE_RETRY_SECONDS,
            )
            await asyncio.sleep(OUTAGE_RETRY_SECONDS)


class Rounds:
    """A started table's steps: the deal (computers set their rows, the status message,
    the builders by DM, drawn by ``display``), closing a round (the missing hands, scoring
    once), the showdown, the final places and standings; and the Next button. ``coach``
    reviews people's hands once a showdown is out. ``register`` hands the steps to the
    table's flow, which runs each when it is due."""

    def __init__(self, services: TableServices, display: BuilderPart, coach: CoachPart) -> None:
        self.services = services
        self.repo = services.repo
        self.flow = services.flow
        self.display = display
        self.coach = coach
        # the status edits (refresh_status): rounds asked for, rounds with an edit job,
        # and when each round's status was last edited (the event loop's clock)
        self._status_asked: set[int] = set()
        self._status_jobs: set[int] = set()
        self._status_edited: dict[int, float] = {}

    def register(self) -> None:
        # the steps that tell Discord decide and store under the table's lock (a claim)
        # and send after it is let go (their Tell)
        self.flow.handle(Step.DEAL, self.deal)
        self.flow.handle(Step.PREPARE, self.prepare)
        self.flow.handle(Step.CLOSE, self.close)
        self.flow.handle(Step.SHOW, self.show)
        self.flow.handle(Step.FINISH, self.finish)
        self.flow.handle(Step.POST_STANDINGS, self.post_standings)

    # --- the steps (each returns whether this call did it, or what it tells Discord) -------

    async def deal(
        self, match: MatchRecord, shown: RoundRecord | None, step: Next, driver: Driver
    ) -> bool:
        """Deal round ``step.number`` (stored ``dealing``); False if another process (or
        click) dealt it first. After a pause that ran out, the showdown before loses its
        Next button (pressing it would only say the round has started)."""
        seed = secrets.randbits(48)
        hands = deal_cards(len(match.seats), seed)
        try:
            rnd = await self.repo.start_round(
                match.id,
                step.number,
                seed,
                time.time() + match.countdown,
                {s.seat: [c.code for c in hands[s.seat]] for s in match.seats},
            )
        except NotPlaying:  # cancelled meanwhile
            return False
        if rnd.seed != seed:
            return False
        if shown is not None and driver != Driver.NEXT:
            self.services.scheduler.spawn(self._drop_next_button(match, shown))
        return True

    async def prepare(
        self, match: MatchRecord, rnd: RoundRecord | None, step: Next, driver: Driver
    ) -> Tell | bool:
        """Finish a dealt round's deal, then it is open (False from the tell: another
        process took the deal over). The flow runs it by the dealer only (or its
        watchdog), and the whole of it (the computers, the DMs, the status) outside the
        table's lock."""
        if rnd is None:
            return False
        dealt = rnd

        async def tell() -> bool:
            if not await self.prepare_round(match, dealt):
                return False
            await self.repo.mark_round_open(dealt.id)
            return True

        return tell

    async def _deals(self, match: MatchRecord) -> bool:
        """Whether this process still holds the table's watchdog, and so its deal: asked
        before each message of the deal, which stops once another process took it over."""
        if await self.services.scheduler.holds(match.id, TimerKind.WATCHDOG):
            return True
        log.warning("table %s: another process took the deal over; this one stops", match.id)
        return False

    async def prepare_round(self, match: MatchRecord, rnd: RoundRecord) -> bool:
        """Whatever of a dealt round is not done yet: the computers' settings, the status
        message, the DMs; by the process holding the table's watchdog. Safe to call again
        after a restart. False: stopped, another process took the deal over. Each message
        is sent and stored whole (``Scheduler.finish``), however long the database is out of
        reach (``until_stored``): a message out but not stored would be sent again."""

        async def computer(seat: SeatRecord) -> None:
            level = seat.level or match.bot_level
            arrangement = await self.services.suggest(
                match, rnd, seat.seat, level, priority=Priority.DEAL
            )
            await self._submit_computer(rnd, seat.seat, arrangement)

        waiting = set(rnd.pending_seats)
        await asyncio.gather(*(computer(s) for s in match.seats if s.is_bot and s.seat in waiting))
        rnd = await self.services.round_now(rnd.id)
        sent = await asyncio.gather(
            *(
                self._send_builder_dm(match, rnd, seat)
                for seat in match.seats
                if not seat.is_bot
                and rnd.hands[seat.seat].dm_message_id is None
                and not rnd.hands[seat.seat].dm_refused
                and not rnd.hands[seat.seat].submitted
            )
        )
        if not all(sent):
            return False
        if rnd.status_message_id is not None:  # posted before a restart, with its deadline
            return True
        # Nobody loses countdown to queueing (Discord's rate limits): it runs from the last
        # hand delivered, and the status, posted after the hands, shows that deadline.
        await self.repo.set_round_deadline(rnd.id, time.time() + match.countdown)
        rnd = await self.services.round_now(rnd.id)
        lang = await language_for(self.repo, match)  # the table's
        return await self.services.scheduler.finish(self._post_status(match, rnd, lang))

    async def _post_status(self, match: MatchRecord, rnd: RoundRecord, lang: str) -> bool:
        if not await self._deals(match):
            return False
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
            await until_stored(
                f"round {rnd.id}'s status message",
                partial(self.repo.set_round_messages, rnd.id, status_message_id=posted.value.id),
            )
        return True

    async def _submit_computer(
        self, rnd: RoundRecord, seat: int, choice: Arrangement, *, auto: bool = False
    ) -> None:
        """A computer's choice, as its solver made it: rows, a special declared, or the hand
        given up where the table allows it. ``auto``: set at the deadline (after a crash)."""
        if choice.surrender:
            await self.repo.submit_hand(
                rnd.id, seat, None, None, None, None, fouled=False, auto=auto, surrendered=True
            )
            return
        rows = (choice.back, choice.middle, choice.front)
        back, middle, front = ([c.code for c in row] for row in rows)
        await self.repo.submit_hand(
            rnd.id, seat, back, middle, front, choice.declare, fouled=False, auto=auto
        )

    async def _send_builder_dm(
        self, match: MatchRecord, rnd: RoundRecord, seat: SeatRecord
    ) -> bool:
        """A person's hand by DM (or, refused, a word in the channel); False if another
        process took the deal over."""
        if seat.user_id is None:  # a computer: no DMs
            return True
        if (await self.repo.preferences(seat.user_id)).hands == HandsIn.CHANNEL:
            return True  # they play in the channel: "Show my hand" on the status opens it
        lang = await language_for(self.repo, match, user_id=seat.user_id)  # their DM: theirs
        hand = rnd.hands[seat.seat]
        draft = Draft.start(parse_cards(hand.cards))
        # the countdown runs from the last hand delivered (prepare_round): not before now
        shown = replace(rnd, deadline=max(rnd.deadline, time.time() + match.countdown))
        screen = await self.display.screen(
            match, shown, seat.seat, draft, lang, priority=Priority.DEAL
        )
        return await self.services.scheduler.finish(
            self._deliver_builder(match, rnd, seat, seat.user_id, screen)
        )

    async def _deliver_builder(
        self, match: MatchRecord, rnd: RoundRecord, seat: SeatRecord, user_id: int, screen: Screen
    ) -> bool:
        if not await self._deals(match):
            return False
        # Opening the DM channel can be refused as well as the message: Discord answers
        # 403 (or 400) with code 50007 there too when the user takes no DMs.
        dm = self.services.dm_channel(user_id)
        # A process killed with the DM out but not stored leaves it to the next one, which
        # sends it again: the nonce makes Discord return the first message, not a second.
        nonce = f"d{rnd.id}s{seat.seat}"  # Discord: 25 characters at most
        sent = await attempt(send_to(dm, **screen.send_kwargs(), nonce=nonce))  # logged below
        if sent.value is not None:
            message = sent.value
            await until_stored(
                f"round {rnd.id}'s DM to seat {seat.seat}",
                partial(
                    self.repo.set_dm_message, rnd.id, seat.seat, message.channel.id, message.id
                ),
            )
            return True
        refused = sent.dm_refused
        if not refused:
            log.error("table %s: could not DM seat %s", match.id, seat.seat, exc_info=sent.error)
        elif sent.error is not None and sent.error.code != DM_CLOSED:
            log.warning("table %s: DM to seat %s refused: %s", match.id, seat.seat, sent.error)
        told = await attempt(  # tell them in the channel; "Show my hand" opens the builder there
            self.services.channel(match.channel_id).send(
                **dm_closed_screen(user_id, await language_for(self.repo, match)).send_kwargs()
            ),
            "table %s: could not tell seat %s that DMs failed",
            match.id,
            seat.seat,
        )
        if told.ok and refused:  # remembered: a restart neither tries again nor tells them twice
            await until_stored(
                f"round {rnd.id}'s refused DM to seat {seat.seat}",
                partial(self.repo.mark_dm_refused, rnd.id, seat.seat),
            )
        return True

    async def close_status_message(self, match: MatchRecord) -> None:
        """The table was cancelled: its open round's status says so, without buttons."""
        rnd = await self.repo.current_round(match.id)
        if rnd is None or rnd.scored or rnd.status_message_id is None:
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
        """Show who has submitted, soon: returns at once (the caller may hold the table's
        lock, and an edit can wait seconds on the channel's rate limit). One edit job per
        round, each edit from a fresh read, so a slow earlier edit never lands over a later
        state; asks that come within STATUS_EDIT_SECONDS of the last edit are one edit."""
        self._status_asked.add(rnd.id)
        if rnd.id not in self._status_jobs:
            self._status_jobs.add(rnd.id)
            self.services.scheduler.spawn(self._status_edits(match, rnd.id))

    async def _status_edits(self, match: MatchRecord, round_id: int) -> None:
        loop = asyncio.get_running_loop()
        try:
            while round_id in self._status_asked:
                wait = self._status_edited.get(round_id, -STATUS_EDIT_SECONDS)
                wait += STATUS_EDIT_SECONDS - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                self._status_asked.discard(round_id)
                self._status_edited[round_id] = loop.time()
                if await self._edit_status(match, round_id):
                    self._status_edited.pop(round_id, None)  # the last: everyone is in
        finally:
            self._status_jobs.discard(round_id)

    async def _edit_status(self, match: MatchRecord, round_id: int) -> bool:
        """Redraw the round's status as stored now; True once it shows the round scored."""
        fresh = await self.repo.get_round(round_id)
        if fresh is None or fresh.status_message_id is None:
            return fresh is None
        channel = self.services.channel(match.channel_id)
        message = channel.get_partial_message(fresh.status_message_id)
        screen = status_screen(match, fresh, await language_for(self.repo, match))
        await attempt(
            message.edit(**screen.edit_kwargs()),
            "table %s: could not update the status message",
            match.id,
        )
        return fresh.scored

    async def close_round(self, match_id: int) -> None:
        """A hand came in: if it was the last, the round closes now (and its showdown is
        posted); else nothing happens before the deadline."""
        await self.flow.advance(match_id, Driver.CLICK)

    async def close(
        self, match: MatchRecord, rnd: RoundRecord | None, step: Next, driver: Driver
    ) -> bool:
        """Fill in the missing settings and score the round; False if another process
        scored it (or the table was cancelled) meanwhile."""
        if rnd is None:
            return False
        await self._fill_missing(match, rnd)
        rnd = await self.services.round_now(rnd.id)
        result = round_result(match, rnd)
        auto = [h.seat for h in rnd.hands if h.auto]
        payload = result.to_dict() | {"auto": auto}
        scored = await self.repo.score_round(rnd.id, payload, round_scores(result))
        self.display.forget(rnd)
        return scored

    async def show(
        self, match: MatchRecord, rnd: RoundRecord | None, step: Next, driver: Driver
    ) -> Tell | bool:
        """Post a scored round's showdown, once: claimed under the table's lock (False:
        another process has it), posted and stored as posted after the lock is let go;
        then the status message shows everyone in and the coach reviews the hands."""
        scheduler = self.services.scheduler
        if rnd is None:
            return False
        claimed = await self.repo.claim_showdown(
            rnd.id, SHOWDOWN_CLAIM_SECONDS, owner=scheduler.owner, judging=scheduler.judging
        )
        if not claimed:
            return False
        scored = rnd

        async def tell() -> bool:
            if not await scheduler.finish(self._post_showdown_once(match, scored, claimed)):
                return False
            self.coach.after_showdown(match, scored)  # reviews wait for the showdown
            await self.refresh_status(match, scored)
            return True

        return tell

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
            if hand.seat not in people:  # a computer chooses as at the deal
                await self._submit_computer(rnd, hand.seat, arrangement, auto=True)
                continue
            # A person: ordinary rows, never a special nor a surrender (only the person
            # gives their hand up, with the builder's confirmation), or the foul.
            back, middle, front = ([c.code for c in row] for row in arrangement.ordinary)
            await self.repo.submit_hand(
                rnd.id, hand.seat, back, middle, front, None, fouled=foul, auto=True
            )

    async def _post_showdown_once(
        self, match: MatchRecord, rnd: RoundRecord, claimed: Claimed
    ) -> bool:
        """Post the showdown this process claimed and store it as posted, as one piece
        (``Scheduler.finish``: a process stopping lets it end). False if the claim was taken
        over before the post (this process was taken for dead): the other one posts it."""
        owner = self.services.scheduler.owner
        release = partial(self.repo.release_showdown, rnd.id, owner=owner)
        try:
            message_id = await self._landed(match, c.ReviewClick(rnd.id), claimed)
            if message_id is None:
                message_id = await self._post_showdown(match, rnd)
        except TakenOver:
            log.warning("table %s: another process took round %s's showdown over", match.id, rnd.id)
            return False
        except BaseException:  # try again (the claim let go even through an outage)
            await asyncio.shield(until_stored(f"round {rnd.id}'s showdown claim", release))
            raise
        # It is out: marked, however long the database is out of reach, or the claim this
        # live process holds would keep the table waiting, and the next one post it again.
        await until_stored(
            f"round {rnd.id}'s showdown",
            partial(self.repo.mark_showdown_posted, rnd.id, message_id),
        )
        return True

    async def _post_showdown(self, match: MatchRecord, rnd: RoundRecord) -> int | None:
        """Post a scored round's showdown; its message id (None: Discord refused it).
        ``TakenOver`` (nothing posted) if its claim was no longer this process's."""
        lang = await language_for(self.repo, match)  # the table's
        result = round_result(match, rnd)
        last = rnd.number >= match.rounds_total
        title = showdown_title(rnd.number, match.rounds_total, lang)
        # the totals are read while the worker draws the picture (which may wait its turn)
        totals, image = await asyncio.gather(self._totals(match), self._render(result, lang, title))
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
            next_at=None if last else (rnd.scored_at or time.time()) + self.flow.pause,
        )
        channel = self.services.channel(match.channel_id)
        # checked after the picture: this process may have been taken for dead meanwhile
        if not await self.repo.holds_showdown(rnd.id, owner=self.services.scheduler.owner):
            raise TakenOver
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
        return None if sent.value is None else sent.value.id

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

    async def finish(
        self, match: MatchRecord, rnd: RoundRecord | None, step: Next, driver: Driver
    ) -> bool:
        """After the last showdown: store each seat's final place, once."""
        names = seat_names(match)
        by_name = {name: seat for seat, name in names.items()}
        places = {by_name[s.name]: s.place for s in standings(await self._totals(match))}
        return await self.repo.finish_match(match.id, places)

    async def post_standings(
        self, match: MatchRecord, rnd: RoundRecord | None, step: Next, driver: Driver
    ) -> Tell | bool:
        """Post a finished match's final standings with Rematch, once: claimed under the
        table's lock, posted after it is let go."""
        scheduler = self.services.scheduler
        claimed = await self.repo.claim_standings(
            match.id, STANDINGS_CLAIM_SECONDS, owner=scheduler.owner, judging=scheduler.judging
        )
        if not claimed:
            return False

        async def tell() -> bool:
            return await scheduler.finish(self._post_standings_once(match, claimed))

        return tell

    async def _landed(
        self, match: MatchRecord, click: c.ReviewClick | c.RematchClick, claimed: Claimed
    ) -> int | None:
        """A post taken over from a process that died may have landed before that process
        could store it (channel posts go as interaction followups, which take no nonce): the
        id of the bot's message in the table's channel with ``click``'s button, if there is
        one; None after a fresh claim."""
        if claimed != Claimed.AFTER_ANOTHER:
            return None
        found = await self.services.channel(match.channel_id).find_own(click.custom_id)
        if found is not None:
            log.info("table %s: the post of a process that died had landed: kept", match.id)
        return found

    async def _post_standings_once(self, match: MatchRecord, claimed: Claimed) -> bool:
        """Post the standings this process claimed and store them as posted, as one piece
        (as a showdown is)."""
        release = partial(
            self.repo.release_standings, match.id, owner=self.services.scheduler.owner
        )
        try:
            message_id = await self._landed(match, c.RematchClick(match.id), claimed)
            if message_id is None:
                message_id = await self._post_standings(match)
        except TakenOver:
            log.warning("table %s: another process took the standings over", match.id)
            return False
        except BaseException:  # try again (the claim let go even through an outage)
            await asyncio.shield(until_stored(f"table {match.id}'s standings claim", release))
            raise
        await until_stored(  # out: marked, as a showdown is
            f"table {match.id}'s standings",
            partial(self.repo.mark_standings_posted, match.id, message_id),
        )
        return True

    async def _post_standings(self, match: MatchRecord) -> int | None:
        table = standings(await self._totals(match))
        lang = await language_for(self.repo, match)  # the table's
        image = None
        try:
            image = await self.services.workers.run(
                Priority.SHOWDOWN, render_standings, table, lang, standings_title(lang)
            )
        except Exception:
            log.exception("could not draw the standings")
        if not await self.repo.holds_standings(match.id, owner=self.services.scheduler.owner):
            raise TakenOver
        sent = await attempt(
            self.services.channel(match.channel_id).send(
                **standings_screen(table, match.id, lang, image).send_kwargs()
            ),
            "table %s: could not post the final standings",
            match.id,
            level=logging.ERROR,
            trace=True,
        )
        return None if sent.value is None else sent.value.id

    # --- Next ---------------------------------------------------------------------------

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
        if current is None or current.number != number or not current.scored:
            raise Refusal(RefusalCode.NEXT_WAIT)
        await self.services.tokens.keep(interaction)  # the next round speaks through it
        # Stored before the button goes (a request that may wait on Discord): a process
        # dying meanwhile leaves the deal to the next one at once, or the button to press.
        step = Next(Step.DEAL, time.time(), number=number + 1)
        await self.services.scheduler.ask(match_id, self.flow.clock(step))
        lang = await language_for(self.repo, match)  # the showdown's buttons: the table's
        await interaction.edit_original_response(
            **showdown_buttons(match_id, number, current.id, lang).edit_kwargs()
        )
        await self.flow.advance(match_id, Driver.NEXT, now=step)

    async def _drop_next_button(self, match: MatchRecord, shown: RoundRecord) -> None:
        """The pause after a showdown ran out: its Next button goes."""
        if shown.showdown_message_id is None:
            return
        channel = self.services.channel(match.channel_id)
        message = channel.get_partial_message(shown.showdown_message_id)
        lang = await language_for(self.repo, match)  # the table's
        await attempt(
            message.edit(**showdown_buttons(match.id, shown.number, shown.id, lang).edit_kwargs()),
            "table %s: could not take Next off a showdown",
            match.id,
            level=logging.INFO,
        )
