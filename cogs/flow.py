"""The one way a table moves on: :meth:`TableFlow.advance` reads the table, asks
``cogs.life.next_step`` what is next, does it when it is due (through the step's handler,
registered by the lobby and the rounds), and repeats; once the next step lies ahead it sets
the table's clock for it. Clicks (Start, Next, a last hand submitted), the table's timers,
a process that starts and a process that takes over a dead one's work all call it.

Who may do a step: anyone, since the database lets a step happen once (a handler answers
whether this call did it), except ``prepare``: a round's deal is finished by the process
that dealt it, in the same run, or by the table's watchdog once that process died. The
process doing steps holds the table's watchdog timer (from the first step it did until it
stops), so no second process waits on a dead one for longer than the watchdog's pause.

No Discord request is made under a table's lock (issue 18): the lock covers deciding and
storing (a deal, a claim, the scores), and a step that tells Discord returns what it sends
(its ``Tell``: the DMs and the status, a showdown, the standings, with what is stored once
they are out), run after the lock is let go. A rate-limit wait then delays only that
message and the table's steps after it, never a click that takes the lock, nor another
table. While one run of this process is telling, the others leave the table to it (it reads
the table again once its messages are out); the claims, the dealer's watchdog and the
deal's nonce keep each message once across processes, as before.

The watchdog is one row a table, held by a process, not by a run: of this process's runs,
the one that set it last holds it (``TableFlow._holders``), and only that run lets it go,
under the table's lock. A run ending as another here deals used to drop the dealer's new
watchdog (same process, same row): the deal then took itself for taken over and stopped
before its DMs (the chaos run's DMs 58 s late).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import TYPE_CHECKING

from capsa.timings import (
    ASKED_POLL_SECONDS,
    ASKED_WAIT_SECONDS,
    NEXT_ROUND_SECONDS,
    RETRY_SECONDS,
    WATCHDOG_SECONDS,
)
from cogs.life import Clock, Next, Step, next_step
from cogs.scheduler import TimerKind
from data.repository import MatchRecord, RoundRecord

if TYPE_CHECKING:
    from cogs.scheduler import Scheduler
    from data.repository import Repository

log = logging.getLogger(__name__)


class Driver(StrEnum):
    """What asked the table to move on."""

    CLICK = "click"  # a person (Start, a submitted hand, a command)
    NEXT = "next"  # Next pressed on a showdown (which has lost the button already)
    CLOCK = "clock"  # the table's clock timer came due
    WATCHDOG = "watchdog"  # the process doing the table's steps died, or failed


# What a step tells Discord, once it is decided and stored: sent after the table's lock is
# let go; whether it went out (False: another process took the step over, and goes on).
Tell = Callable[[], Awaitable[bool]]

# A step's handler: (match, latest round, the step) -> whether this call did it (False:
# another process did it, or is doing it), or what this call, having decided it, tells
# Discord about it (the messages, and what is stored once they are out).
StepHandler = Callable[[MatchRecord, RoundRecord | None, Next, Driver], Awaitable[bool | Tell]]


class _Stop(Enum):
    """What a run does after deciding under the table's lock (other than telling)."""

    DONE = "done"  # nothing more for this run
    AGAIN = "again"  # a step done: read the table again
    WAIT = "wait"  # a step asked for (Next) waits for the step being done


@dataclass
class _Run:
    """One call of ``TableFlow.advance``: why, the step asked for, until when an asked step
    waits, and the round it dealt. Whether it holds the table's watchdog is the flow's to
    say (``TableFlow._holders``)."""

    driver: Driver
    early: Next | None
    asked_until: float
    dealt: int = 0  # the round number this run dealt: its deal is this run's to finish


class TableFlow:
    """``repo``: the tables. ``scheduler``: their timers. ``pause``: the rest after a
    showdown. The lobby and the rounds register the steps' handlers (``handle``)."""

    def __init__(
        self, repo: Repository, scheduler: Scheduler, *, pause: float = NEXT_ROUND_SECONDS
    ) -> None:
        self.repo = repo
        self.scheduler = scheduler
        self.pause = pause
        self.locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)  # per table
        self._handlers: dict[Step, StepHandler] = {}
        # per table: the messages a run of this process is sending now (outside the lock)
        self._telling: dict[int, asyncio.Future[bool]] = {}
        # per table: the run of this process that holds its watchdog (set it last)
        self._holders: dict[int, _Run] = {}
        for kind in TimerKind:
            scheduler.handle(kind, self._on_timer(kind))

    def handle(self, step: Step, handler: StepHandler) -> None:
        self._handlers[step] = handler

    def _on_timer(self, kind: TimerKind) -> Callable[[int, int], Awaitable[None]]:
        if kind == TimerKind.WATCHDOG:

            async def watchdog(match_id: int, _arg: int) -> None:
                await self.advance(match_id, Driver.WATCHDOG)

            return watchdog

        async def clock(match_id: int, arg: int) -> None:
            # the step the clock was set for is done now, its time come or asked for (Next)
            step = Clock.decode(arg)
            await self.advance(
                match_id, Driver.CLOCK, now=Next(step.step, time.time(), number=step.number)
            )

        return clock

    async def next_of(self, match_id: int) -> tuple[MatchRecord, RoundRecord | None, Next | None]:
        """The table as stored, and its next step (None: ended or cancelled)."""
        match = await self.repo.get_match(match_id)
        if match is None:
            raise LookupError(f"table {match_id} does not exist")
        rnd = await self.repo.current_round(match_id)
        return match, rnd, next_step(match, rnd, time.time(), pause=self.pause)

    async def advance(
        self,
        match_id: int,
        driver: Driver,
        *,
        now: Next | None = None,
        holding: bool = False,
    ) -> None:
        """Do every step of the table that is due, then set its clock for the next one.
        ``now``: a step to do now although its time has not come (Next pressed), if it is
        still the next one. ``holding``: the caller holds the table's watchdog already.

        The table's lock covers only deciding and storing: a step that tells Discord
        (``Tell``) sends after the lock is let go, so a wait on Discord (a rate limit, a
        slow answer) holds up that message and the steps after it, never a click or
        another caller that only needs the table's lock."""
        run = _Run(driver, now, time.monotonic() + ASKED_WAIT_SECONDS)
        scheduler = self.scheduler
        if holding:
            self._holders[match_id] = run
        try:
            if driver in (Driver.CLICK, Driver.NEXT) and not holding:
                # what a click sets going is this process's now: should it die before it is
                # done, another process takes over (unless one is doing the table's steps)
                if await scheduler.hold(
                    match_id, TimerKind.WATCHDOG, 0, WATCHDOG_SECONDS, if_absent=True
                ):
                    self._holders[match_id] = run
            while True:
                async with self.locks[match_id]:
                    decided = await self._decide(match_id, run)
                    if not isinstance(decided, _Stop):
                        # the step's messages, sent once the lock is let go; while they
                        # go, this process's other callers leave the table to this run
                        # (which reads it again afterwards)
                        telling = asyncio.ensure_future(decided())
                        self._telling[match_id] = telling
                if decided is _Stop.DONE:
                    return
                if decided is _Stop.WAIT:  # a step asked for waits for the one being done
                    waited = self._telling.get(match_id)
                    if waited is not None:  # here: until its messages are out
                        await asyncio.wait({waited})
                    else:  # by another process: a look now and then
                        await asyncio.sleep(ASKED_POLL_SECONDS)
                    continue
                try:
                    told = await telling
                finally:
                    if self._telling.get(match_id) is telling:
                        del self._telling[match_id]
                if not told:  # taken over by another process: it goes on from here
                    return
        except BaseException as err:
            if match_id in self._telling:  # the watchdog is the run's that is telling
                self._drop(match_id, run)
            # whoever comes first tries again (at once if this process stops), unless another
            # process took the table over meanwhile
            pause = 0.0 if isinstance(err, asyncio.CancelledError) else RETRY_SECONDS[0]
            await asyncio.shield(self._let_go(match_id, run, hand_on=pause))
            raise
        finally:
            if match_id in self._telling:  # another run of this process is telling: it
                self._drop(match_id, run)  # holds the table's watchdog, and lets it go
            # (the watchdog of another process that took the table over stays)
            await self._let_go(match_id, run)

    def _holds(self, match_id: int, run: _Run) -> bool:
        """Whether ``run`` holds the table's watchdog: no other run here set it since."""
        return self._holders.get(match_id) is run

    def _drop(self, match_id: int, run: _Run) -> None:
        """``run`` no longer holds the table's watchdog here (the row stays as it is)."""
        if self._holds(match_id, run):
            del self._holders[match_id]

    async def _let_go(self, match_id: int, run: _Run, *, hand_on: float | None = None) -> None:
        """If ``run`` still holds the table's watchdog (no other run here set it since): let
        it go, or with ``hand_on``, leave it for whoever comes first in that many seconds.
        Under the table's lock, so no run here sets it again before the database has this."""
        if not self._holds(match_id, run):
            return
        async with self.locks[match_id]:
            if not self._holds(match_id, run):
                return
            del self._holders[match_id]
            if hand_on is None:
                await self.scheduler.release(match_id, TimerKind.WATCHDOG)
            else:
                await self.scheduler.hand_on(match_id, TimerKind.WATCHDOG, 0, hand_on)

    async def _decide(self, match_id: int, run: _Run) -> _Stop | Tell:
        """Under the table's lock: the steps due that only store, one after the other (a
        deal and its ``prepare`` decided in one hold of the lock, so no other run of this
        process finds the deal between them); then what the run does next: stop, wait for
        a step being done, or send a step's messages (its ``Tell``, once the lock is let
        go, registered as telling before that)."""
        while True:
            decided = await self._decide_one(match_id, run)
            if decided is not _Stop.AGAIN:
                return decided

    async def _decide_one(self, match_id: int, run: _Run) -> _Stop | Tell:
        scheduler = self.scheduler
        match, rnd, step = await self.next_of(match_id)
        if step is None:  # ended or cancelled: no timer is left
            await scheduler.cancel(match_id)
            self._drop(match_id, run)
            return _Stop.DONE
        asked = run.early is not None and (run.early.step, run.early.number) == (
            step.step,
            step.number,
        )
        if not (asked or step.is_due(time.time())):
            await scheduler.schedule(
                match_id, TimerKind.CLOCK, self.clock(step), step.due - time.time()
            )
            return _Stop.DONE
        if match_id in self._telling:
            # another run of this process is sending this table's messages: it reads the
            # table again once they are out and goes on from there; a step asked for (Next)
            # waits for it. The table's watchdog (this process's, one row) is that run's:
            # it lets it go when it is done, not this one.
            self._drop(match_id, run)
            return _Stop.WAIT if run.early is not None and not asked else _Stop.DONE
        if asked:  # (the showdown it was pressed on may still be being posted)
            run.early = None
        if step.step == Step.PREPARE and not (
            run.driver == Driver.WATCHDOG or step.number == run.dealt
        ):
            # its dealer finishes it; should that process have died, the watchdog
            # it holds (or this one, if it had none yet) takes over
            if self._holds(match_id, run):  # (the one this click set: left for
                self._drop(match_id, run)  # whoever comes first)
                await scheduler.hand_on(match_id, TimerKind.WATCHDOG, step.number, WATCHDOG_SECONDS)
            else:
                await scheduler.schedule(
                    match_id, TimerKind.WATCHDOG, step.number, WATCHDOG_SECONDS, if_absent=True
                )
            return _Stop.DONE
        done = await self._handlers[step.step](match, rnd, step, run.driver)
        if not done:
            if run.early is not None and time.monotonic() < run.asked_until:
                # a step asked for (Next) waits for the one another process is
                # finishing (its showdown, marked shown a moment after it is out)
                return _Stop.WAIT
            return _Stop.DONE  # another process did it, or is doing it (and goes on from there)
        if step.step == Step.DEAL:
            run.dealt = step.number
        if not self._holds(match_id, run):  # (before its messages go: should this
            await scheduler.hold(  # process die, they are taken over)
                match_id, TimerKind.WATCHDOG, step.number, WATCHDOG_SECONDS
            )
            self._holders[match_id] = run
        return _Stop.AGAIN if done is True else done

    @staticmethod
    def clock(step: Next) -> int:
        """The stored payload of a clock set for ``step``."""
        return Clock(step.step, step.number).encode()

    async def resume(self, match_id: int) -> None:
        """At start: a table has the timer that takes it on, unless it has one (another
        process may be running it): its clock for a step ahead, its watchdog at once for a
        step that is due (so whichever process comes first does it)."""
        _match, _rnd, step = await self.next_of(match_id)
        if step is None:
            return
        delay = step.due - time.time()
        if delay > 0:
            await self.scheduler.schedule(
                match_id, TimerKind.CLOCK, self.clock(step), delay, if_absent=True
            )
        else:
            await self.scheduler.schedule(
                match_id, TimerKind.WATCHDOG, step.number, 0, if_absent=True
            )
