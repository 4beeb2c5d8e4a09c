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
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from enum import StrEnum
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


# A step's handler: (match, latest round, the step) -> whether this call did it (False:
# another process did it, or is doing it).
StepHandler = Callable[[MatchRecord, RoundRecord | None, Next, Driver], Awaitable[bool]]


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

    async def ask(self, match_id: int, step: Next) -> None:
        """Do ``step`` now although its time has not come (Next pressed), if it is still the
        next one. Stored first, as the table's clock due now: should this process die on
        the way, another does it at once."""
        await self.scheduler.ask(match_id, self.clock(step))
        await self.advance(match_id, Driver.NEXT, now=step)

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
        still the next one. ``holding``: the caller holds the table's watchdog already."""
        async with self.locks[match_id]:
            await self._advance(match_id, driver, now, holding)

    async def _advance(
        self, match_id: int, driver: Driver, early: Next | None, holding: bool
    ) -> None:
        scheduler = self.scheduler
        dealt = 0  # the round number this run dealt: its deal is this run's to finish
        asked_until = time.monotonic() + ASKED_WAIT_SECONDS
        try:
            if driver in (Driver.CLICK, Driver.NEXT) and not holding:
                # what a click sets going is this process's now: should it die before it is
                # done, another process takes over (unless one is doing the table's steps)
                holding = await scheduler.hold(
                    match_id, TimerKind.WATCHDOG, 0, WATCHDOG_SECONDS, if_absent=True
                )
            while True:
                match, rnd, step = await self.next_of(match_id)
                if step is None:  # ended or cancelled: no timer is left
                    await scheduler.cancel(match_id)
                    holding = False
                    return
                asked = early is not None and (early.step, early.number) == (
                    step.step,
                    step.number,
                )
                if asked:  # (the showdown it was pressed on may still be being posted)
                    early = None
                if not (asked or step.is_due(time.time())):
                    await scheduler.schedule(
                        match_id, TimerKind.CLOCK, self.clock(step), step.due - time.time()
                    )
                    return
                if step.step == Step.PREPARE and not (
                    driver == Driver.WATCHDOG or step.number == dealt
                ):
                    # its dealer finishes it; should that process have died, the watchdog
                    # it holds (or this one, if it had none yet) takes over
                    if holding:  # (the one this click set: left for whoever comes first)
                        holding = False
                        await scheduler.hand_on(
                            match_id, TimerKind.WATCHDOG, step.number, WATCHDOG_SECONDS
                        )
                    else:
                        await scheduler.schedule(
                            match_id,
                            TimerKind.WATCHDOG,
                            step.number,
                            WATCHDOG_SECONDS,
                            if_absent=True,
                        )
                    return
                if not await self._handlers[step.step](match, rnd, step, driver):
                    if early is not None and time.monotonic() < asked_until:
                        # a step asked for (Next) waits for the one another process is
                        # finishing (its showdown, marked shown a moment after it is out)
                        await asyncio.sleep(ASKED_POLL_SECONDS)
                        continue
                    return  # another process did it, or is doing it (and goes on from there)
                if step.step == Step.DEAL:
                    dealt = step.number
                if not holding:
                    await scheduler.hold(
                        match_id, TimerKind.WATCHDOG, step.number, WATCHDOG_SECONDS
                    )
                    holding = True
        except BaseException as err:
            if holding:  # whoever comes first tries again (at once if this process stops),
                holding = False  # unless another process took the table over meanwhile
                pause = 0.0 if isinstance(err, asyncio.CancelledError) else RETRY_SECONDS[0]
                await asyncio.shield(scheduler.hand_on(match_id, TimerKind.WATCHDOG, 0, pause))
            raise
        finally:
            if holding:  # (the watchdog of another process that took the table over stays)
                await scheduler.release(match_id, TimerKind.WATCHDOG)

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
