"""The tables' timers, kept in the database, and background jobs beside the caller.

A timer is a row (``repo.set_timer``): a table, a :class:`TimerKind`, a number (a round id,
a round number) and a due time on the database's clock. Every bot process runs one
``Scheduler``: it claims the due timers nobody holds, for a lease (``repo.claim_timers``),
runs each kind's handler, and drops the timer when the handler returns (``finish_timer``),
or sets it due again after a pause when it fails (``retry_timer``). Each process has a row
while it lives (``start_process``, a ``heartbeat`` every PROCESS_HEARTBEAT_SECONDS that
renews its leases and claims too, ``stop_process``): a live process's work is never taken
over, however long it runs, and a dead one's (not seen for PROCESS_DEAD_SECONDS, or every
other one on SQLite, where one process has the file) is claimed by another at once. Processes
are woken when
any of them sets a timer (PostgreSQL's NOTIFY; in-process for SQLite) and look again at
least every ``poll`` seconds. Every handler is idempotent, and reads the table's state from
the database: a timer that runs twice (a lease that ran out under load) changes nothing twice.

``spawn`` runs a job beside the caller; ``stop`` ends the claim loop, the running timers and
the jobs (before the database closes): whatever they were doing is picked up again from the
database, by this process when it starts again or by another one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import TYPE_CHECKING

from capsa.timings import (
    LEASE_SECONDS,
    POLL_SECONDS,
    PROCESS_HEARTBEAT_SECONDS,
    RETRY_SECONDS,
)

if TYPE_CHECKING:
    from data.repository import Repository, TimerRecord

log = logging.getLogger(__name__)


class TimerKind(StrEnum):
    """A table has at most one timer of each kind; both run ``cogs.flow.TableFlow.advance``,
    which reads the table and does whatever ``cogs.life.next_step`` says is due."""

    # The table's next timed step (a lobby's expiry, a round's deadline, the pause after a
    # showdown), set by whoever moved the table on last. Payload: ``cogs.life.Clock``.
    CLOCK = "clock"
    # Held by the process doing a table's steps now (a deal, a showdown): should it die,
    # another process takes them over. Payload: the round number it was at (0: none yet).
    WATCHDOG = "watchdog"


Handler = Callable[[int, int], Awaitable[None]]  # (match id, arg)


def process_name() -> str:
    """Who holds a claim: this host and process."""
    return f"{socket.gethostname()}:{os.getpid()}"


class Scheduler:
    """``repo``: where the timers are. ``handle`` registers each kind's handler (the table
    parts do, once assembled); ``start`` begins claiming."""

    def __init__(
        self,
        repo: Repository,
        *,
        owner: str | None = None,
        shards: str = "",
        lease: float = LEASE_SECONDS,
        poll: float = POLL_SECONDS,
        retry_seconds: tuple[float, ...] = RETRY_SECONDS,
    ) -> None:
        self.repo = repo
        self.owner = owner or process_name()
        self.shards = shards
        self.lease = lease
        self.poll = poll
        self.retry_seconds = retry_seconds
        self._handlers: dict[TimerKind, Handler] = {}
        self._running: dict[tuple[int, str], asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None

    def handle(self, kind: TimerKind, handler: Handler) -> None:
        self._handlers[kind] = handler

    # --- timers -----------------------------------------------------------------------------

    async def schedule(
        self, match_id: int, kind: TimerKind, arg: int, delay: float, *, if_absent: bool = False
    ) -> None:
        """Set the table's ``kind`` timer (replacing it; with ``if_absent``, only if unset)."""
        await self.repo.set_timer(match_id, kind, arg, max(0.0, delay), if_absent=if_absent)

    async def hold(self, match_id: int, kind: TimerKind, arg: int, delay: float) -> None:
        """Set a watchdog over work this process does now: the timer is held by this
        process (its lease renewed while it lives), so nobody runs it while the work goes
        on, however long it takes; should this process die, another claims it as soon as it
        is known dead, or at ``delay`` if it only stops renewing it. ``cancel`` it when
        done."""
        await self.repo.set_timer(
            match_id, kind, arg, max(0.0, delay), holder=self.owner, lease=self.lease
        )

    async def cancel(self, match_id: int, *kinds: TimerKind, arg: int | None = None) -> None:
        """Drop the table's timers of ``kinds`` (all of them if none is named), only those
        for ``arg`` if given (a round's, not the next round's). A timer running now
        finishes its run."""
        await self.repo.cancel_timers(match_id, tuple(kinds) if kinds else None, arg)

    async def pending(self, match_id: int) -> dict[TimerKind, int]:
        """The table's timers: kind -> number."""
        return {TimerKind(t.kind): t.arg for t in await self.repo.timers_of(match_id)}

    def start(self) -> None:
        """Begin claiming due timers (once)."""
        if self._loop is None:
            self._loop = asyncio.create_task(self._claim_loop(), name="capsa-timers")

    async def _claim_loop(self) -> None:
        started = watching = False
        beat = asyncio.get_running_loop().time()
        while True:
            self._wake.clear()
            try:
                if not started:  # from now on this process is alive, and others see it
                    await self.repo.start_process(self.owner, self.shards)
                    started = True
                if not watching:
                    await self.repo.watch_timers(self._wake.set)
                    watching = True
                now = asyncio.get_running_loop().time()
                if now - beat >= PROCESS_HEARTBEAT_SECONDS:  # alive: its leases and claims hold
                    await self.repo.heartbeat(self.owner, self.lease)
                    beat = now
                for timer in await self.repo.claim_timers(self.owner, self.lease):
                    self._run(timer)
                wait = await self.repo.next_timer_in()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("could not read the timers; trying again")
                wait = None
            timeout = min(self.poll, PROCESS_HEARTBEAT_SECONDS)
            if wait is not None:
                timeout = min(timeout, wait)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)

    def _run(self, timer: TimerRecord) -> None:
        key = (timer.match_id, timer.kind)
        if key in self._running:  # (cannot be claimed twice while its lease runs)
            return
        task = asyncio.create_task(
            self._fire(timer), name=f"capsa-timer-{timer.match_id}-{timer.kind}"
        )
        self._running[key] = task
        task.add_done_callback(lambda _: self._running.pop(key, None))

    async def _fire(self, timer: TimerRecord) -> None:
        try:
            handler = self._handlers.get(TimerKind(timer.kind))  # ValueError: unknown kind
            if handler is None:
                raise LookupError(f"no handler for the timer kind {timer.kind!r}")
            await handler(timer.match_id, timer.arg)
        except asyncio.CancelledError:  # stopping: hand the timer on at once, not at lease end
            with contextlib.suppress(Exception):
                await self.repo.retry_timer(
                    timer.match_id, timer.kind, timer.version, 0, owner=self.owner
                )
            raise
        except Exception:
            pause = self.retry_seconds[min(timer.attempts, len(self.retry_seconds) - 1)]
            log.exception(
                "table %s: timer %s failed (%d before); again in %s s",
                timer.match_id,
                timer.kind,
                timer.attempts,
                pause,
            )
            with contextlib.suppress(Exception):
                await self.repo.retry_timer(
                    timer.match_id, timer.kind, timer.version, pause, owner=self.owner
                )
                # a handler that dropped its own timer before it failed still runs again
                await self.repo.set_timer(
                    timer.match_id, timer.kind, timer.arg, pause, if_absent=True
                )
            return
        try:
            await self.repo.finish_timer(
                timer.match_id, timer.kind, timer.version, owner=self.owner
            )
        except Exception:  # it runs again once the lease is over: handlers are idempotent
            log.exception("table %s: could not drop the timer %s", timer.match_id, timer.kind)

    async def idle(self) -> None:
        """Wait until no timer of this process is running (tests)."""
        while self._running:
            await asyncio.gather(*list(self._running.values()), return_exceptions=True)

    # --- background jobs --------------------------------------------------------------------

    def spawn(self, job: Awaitable[None]) -> None:
        """Run a job beside the caller, keeping a reference and logging its failure."""
        task = asyncio.ensure_future(job)
        self._tasks.add(task)

        def done(finished: asyncio.Task[None]) -> None:
            self._tasks.discard(finished)
            if not finished.cancelled() and finished.exception() is not None:
                log.error("background job failed", exc_info=finished.exception())

        task.add_done_callback(done)

    async def jobs_done(self) -> None:
        """Wait for the background jobs spawned so far, and those they spawn (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def stop(self) -> None:
        """At shutdown: end the claim loop, the running timers and the background jobs."""
        tasks = [*self._running.values(), *self._tasks]
        if self._loop is not None:
            tasks.append(self._loop)
            self._loop = None
        was_running = self._loop is not None or bool(tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if was_running:  # dead from now on: what it still holds is taken over at once
            with contextlib.suppress(Exception):
                await self.repo.stop_process(self.owner)
