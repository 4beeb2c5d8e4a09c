"""The tables' timers, kept in the database, and background jobs beside the caller.

A timer is a row (``repo.set_timer``): a table, a :class:`TimerKind`, a number (a round id,
a round number) and a due time on the database's clock. Every bot process runs one
``Scheduler``: it claims the due timers nobody holds, for a lease (``repo.claim_timers``),
runs each kind's handler, and drops the timer when the handler returns (``finish_timer``),
or sets it due again after a pause when it fails (``retry_timer``). Each process has a row
while it lives (``start_process``, a ``heartbeat`` every PROCESS_HEARTBEAT_SECONDS that
renews its leases and claims too, ``stop_process``): a live process's work is never taken
over, however long it runs, and a dead one's (not seen for PROCESS_DEAD_SECONDS, or every
other one on SQLite, where one process has the file) is claimed by another at once. An outage
is not a death: a process whose own contact with the database broke judges nobody dead until
it has been in touch for PROCESS_DEAD_SECONDS again (``judging``). Processes are woken when
any of them sets a timer (PostgreSQL's NOTIFY; in-process for SQLite) and look again at
least every ``poll`` seconds. Every handler is idempotent, and reads the table's state from
the database: a timer that runs twice (a lease that ran out under load) changes nothing twice.

``spawn`` runs a job beside the caller, ``finish`` one that must not be cut in the middle (a
post and its mark: cut in flight, the message could land and be posted again by the next
process); ``stop`` ends the claim loop, lets those finish (for POST_GRACE_SECONDS at most), then
ends the running timers and the jobs (before the database closes): whatever they were doing is
picked up again from the database, by this process when it starts again or by another one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Coroutine
from enum import StrEnum
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from capsa.timings import (
    LEASE_SECONDS,
    POLL_SECONDS,
    POST_GRACE_SECONDS,
    PROCESS_CUT_OFF_SECONDS,
    PROCESS_DEAD_SECONDS,
    PROCESS_HEARTBEAT_SECONDS,
    RETRY_SECONDS,
)
from data.common import is_database_outage

if TYPE_CHECKING:
    from data.repository import Repository, TimerRecord

log = logging.getLogger(__name__)
T = TypeVar("T")


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
        self._posts: set[asyncio.Future[Any]] = set()  # ``finish``'s: stop waits for them
        self._wake = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None
        # (loop time) this process's contact with the database broke, or came back after a
        # break; judging others dead waits PROCESS_DEAD_SECONDS after it came back
        self._cut_off = False
        self._back_at: float | None = None
        self._last_contact: float | None = None
        self._stopping = False  # claims nothing more, beats on while the posts finish
        # what a run could not store about its timer (the database out of reach): done by the
        # claim loop once it can, or the timer, held by this live process, would never run
        self._owed: dict[tuple[int, str], Callable[[], Awaitable[object]]] = {}
        self._queued: dict[tuple[int, str], TimerRecord] = {}  # claimed, waiting (``_run``)

    def handle(self, kind: TimerKind, handler: Handler) -> None:
        self._handlers[kind] = handler

    # --- timers -----------------------------------------------------------------------------

    async def schedule(
        self, match_id: int, kind: TimerKind, arg: int, delay: float, *, if_absent: bool = False
    ) -> None:
        """Set the table's ``kind`` timer (replacing it; with ``if_absent``, only if unset)."""
        await self.repo.set_timer(match_id, kind, arg, max(0.0, delay), if_absent=if_absent)

    async def hand_on(self, match_id: int, kind: TimerKind, arg: int, delay: float) -> None:
        """Work this process held (``hold``) is left for whoever comes first in ``delay``
        seconds: the timer set again, held by nobody, unless another process took it over
        meanwhile (then it is that process's to finish)."""
        await self.repo.set_timer(match_id, kind, arg, max(0.0, delay), owner=self.owner)

    async def holds(self, match_id: int, kind: TimerKind) -> bool:
        """Whether this process still holds the table's ``kind`` timer: False once another
        process took its work over (it found this one dead)."""
        return await self.repo.holds_timer(match_id, kind, owner=self.owner)

    async def release(self, match_id: int, kind: TimerKind) -> None:
        """The work this process held is done: its timer goes, unless another process took
        it over meanwhile."""
        await self.repo.cancel_timers(match_id, (kind,), holder=self.owner)

    @property
    def judging(self) -> bool:
        """Whether this process may take a process not seen for PROCESS_DEAD_SECONDS for
        dead: not while its own contact with the database is broken, nor for
        PROCESS_DEAD_SECONDS after it came back (nobody could be seen during the outage)."""
        if self._cut_off:
            return False
        now = asyncio.get_running_loop().time()
        return self._back_at is None or now - self._back_at >= PROCESS_DEAD_SECONDS

    def _contact(self, reached: bool) -> None:
        """The claim loop reached the database (or not) just now."""
        now = asyncio.get_running_loop().time()
        if not reached:
            self._cut_off = True
            return
        last, self._last_contact = self._last_contact, now
        if self._cut_off or (last is not None and now - last > PROCESS_CUT_OFF_SECONDS):
            if self._cut_off:
                log.warning(
                    "the database is in reach again; taking no other process for dead for %s s",
                    PROCESS_DEAD_SECONDS,
                )
            self._cut_off = False
            self._back_at = now

    async def hold(
        self, match_id: int, kind: TimerKind, arg: int, delay: float, *, if_absent: bool = False
    ) -> bool:
        """Set a watchdog over work this process does now: the timer is held by this
        process (its lease renewed while it lives), so nobody runs it while the work goes
        on, however long it takes; should this process die, another claims it as soon as it
        is known dead, or at ``delay`` if it only stops renewing it. ``release`` it when
        done. ``if_absent``: only if the table has no such timer; whether it was set."""
        return await self.repo.set_timer(
            match_id,
            kind,
            arg,
            max(0.0, delay),
            if_absent=if_absent,
            holder=self.owner,
            lease=self.lease,
        )

    async def ask(self, match_id: int, arg: int) -> bool:
        """Store a step someone asked for ahead of its time (Next) as the table's clock, due
        now (``arg``: its ``cogs.life.Clock``), unless another process is running the clock
        now: should this process die before doing it, another does it at once."""
        return await self.repo.set_timer(match_id, TimerKind.CLOCK, arg, 0.0, owner=self.owner)

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
                    self._contact(True)
                for key, store in list(self._owed.items()):
                    await store()
                    del self._owed[key]
                if not self._stopping:
                    for timer in await self.repo.claim_timers(
                        self.owner, self.lease, judging=self.judging
                    ):
                        self._run(timer)
                wait = await self.repo.next_timer_in()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if is_database_outage(exc):  # one line: the outage is the news, not the stack
                    log.warning("the database is out of reach (%s); trying again", exc)
                else:
                    log.exception("could not read the timers; trying again")
                self._contact(False)
                wait = None
            timeout = min(self.poll, PROCESS_HEARTBEAT_SECONDS)
            if wait is not None:
                timeout = min(timeout, wait)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)

    def _run(self, timer: TimerRecord) -> None:
        key = (timer.match_id, timer.kind)
        if key in self._running:  # a version set again while the one before runs here: it
            self._queued[key] = timer  # runs after it (held by this process meanwhile)
            return
        task = asyncio.create_task(
            self._fire(timer), name=f"capsa-timer-{timer.match_id}-{timer.kind}"
        )
        self._running[key] = task

        def done(_: asyncio.Task[None]) -> None:
            self._running.pop(key, None)
            queued = self._queued.pop(key, None)
            if queued is not None and not self._stopping:
                self._run(queued)

        task.add_done_callback(done)

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
            await self._store(timer, partial(self._again, timer, pause))
            return
        await self._store(
            timer,
            partial(
                self.repo.finish_timer, timer.match_id, timer.kind, timer.version, owner=self.owner
            ),
        )

    async def _again(self, timer: TimerRecord, pause: float) -> None:
        await self.repo.retry_timer(
            timer.match_id, timer.kind, timer.version, pause, owner=self.owner
        )
        # a handler that dropped its own timer before it failed still runs again
        await self.repo.set_timer(timer.match_id, timer.kind, timer.arg, pause, if_absent=True)

    async def _store(self, timer: TimerRecord, store: Callable[[], Awaitable[object]]) -> None:
        """What a run leaves of its timer (dropped, or due again), now or, if the database
        is out of reach, by the claim loop once it is back."""
        try:
            await store()
        except Exception:
            log.warning("table %s: timer %s not stored yet; again soon", timer.match_id, timer.kind)
            self._owed[(timer.match_id, timer.kind)] = store

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
            if finished.cancelled() or finished.exception() is None:
                return
            if self._stopping:  # cut short by the stop (the database or Discord closed under
                # it): what it left undone is the next process's, as any step a stop cuts
                log.warning("stopping: a background job was cut short (%r)", finished.exception())
            else:
                log.error("background job failed", exc_info=finished.exception())

        task.add_done_callback(done)

    async def finish(self, job: Coroutine[Any, Any, T]) -> T:
        """Run ``job`` to its end even if the caller is cancelled (the process stopping:
        ``stop`` waits for it, POST_GRACE_SECONDS at most); its result. A process that is
        stopping starts none (CancelledError): the next process does it."""
        if self._stopping:
            job.close()
            raise asyncio.CancelledError
        task = asyncio.ensure_future(job)
        self._posts.add(task)
        task.add_done_callback(self._posts.discard)
        return await asyncio.shield(task)

    async def jobs_done(self) -> None:
        """Wait for the background jobs spawned so far, and those they spawn (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def stop(self) -> None:
        """At shutdown: end the claim loop, let the posts under way finish (for
        POST_GRACE_SECONDS at most), then end the running timers and the background jobs."""
        was_running = self._loop is not None or bool(self._running or self._tasks or self._posts)
        self._stopping = True  # (its row still renewed: the posts' claims hold meanwhile)
        if self._posts:
            _done, late = await asyncio.wait(set(self._posts), timeout=POST_GRACE_SECONDS)
            if late:
                log.warning("stopping: %d post(s) still under way are cut", len(late))
        tasks = [*self._running.values(), *self._tasks, *self._posts]
        if self._loop is not None:
            tasks.append(self._loop)
            self._loop = None
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if was_running:  # dead from now on: what it still holds is taken over at once
            with contextlib.suppress(Exception):
                await self.repo.stop_process(self.owner)
