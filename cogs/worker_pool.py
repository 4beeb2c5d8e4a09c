"""The worker processes: the solver, the pictures and the special checks run there, off the
event loop and off this process's GIL, in order of urgency.

One pool per process (the bot makes it in its constructor and shuts it down last); the
tables reach it through their shared services.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import multiprocessing
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor
from enum import IntEnum
from typing import Any, TypeVar

from capsa.cards import Card
from capsa.presets import Preset
from capsa.solver import Arrangement, arrange_async
from capsa.workers import init_worker, ready

log = logging.getLogger(__name__)

T = TypeVar("T")


class Priority(IntEnum):
    """Work for the worker processes, most urgent first: what the whole table waits for (the
    showdown), then what starts a round, then one player's own clicks, then the coach's
    reviews, which nobody waits for."""

    SHOWDOWN = 0
    DEAL = 1
    CLICK = 2
    REVIEW = 3


class WorkerGate:
    """Lets at most ``slots`` jobs into the worker pool at once; the rest wait here, most
    urgent first, then first come. The pool's own queue is first come first served, so
    without this a showdown picture would wait behind every pending hand redraw."""

    def __init__(self, slots: int) -> None:
        self.free = max(1, slots)
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    async def run(self, priority: Priority, job: Callable[[], Awaitable[T]]) -> T:
        if self.free > 0 and not self._waiting:
            self.free -= 1
        else:
            turn = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiting, (priority, next(self._order), turn))
            try:
                await turn
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    self._release()  # handed a slot just as we were cancelled: pass it on
                raise
        try:
            return await job()
        finally:
            self._release()

    def _release(self) -> None:
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():  # skip waiters that were cancelled
                turn.set_result(None)
                return
        self.free += 1


class WorkerPool:
    """The executor the CPU work runs in, and the gate in front of it.

    ``processes``: how many solver processes to start (``SOLVER_WORKERS``); the gate lets
    one more job in than that, so a process never idles between two jobs. ``executor``: a
    pool to use instead (tests pass a thread pool); it is neither renewed nor shut down here.
    """

    def __init__(self, processes: int, executor: Executor | None = None) -> None:
        self.processes = processes
        self._own = executor is None
        self.executor: Executor = executor or self._new_pool()
        self.gate = WorkerGate(processes + 1)
        self._shut = False  # shut down: never renewed again

    def _new_pool(self) -> Executor:
        return ProcessPoolExecutor(
            max_workers=max(1, self.processes),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=init_worker,
        )

    def warm_up(self) -> None:
        """Start a worker process now, not on the first deal."""
        if self._own:
            self.executor.submit(ready)

    def renew(self) -> None:
        """Replace a broken pool (a worker killed by the system, say); not once shut down
        (the stop ends the workers, and a pool started then would outlive the bot)."""
        if not self._own or self._shut:
            return
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.executor = self._new_pool()

    def shutdown(self) -> None:
        if not self._own:
            return
        self._shut = True
        self.executor.shutdown(wait=False, cancel_futures=True)

    async def _with_pool(self, call: Callable[[Executor], Awaitable[T]]) -> T:
        """``call(pool)``; if the pool is dead, once more on a new one."""
        for attempt in (1, 2):
            try:
                return await call(self.executor)
            except BrokenExecutor:
                if attempt == 2 or self._shut:
                    raise
                log.error("the worker pool broke; starting a new one")
                self.renew()
        raise AssertionError("unreachable")

    async def run(self, priority: Priority, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker process, in ``priority`` order."""
        loop = asyncio.get_running_loop()
        return await self.gate.run(
            priority,
            lambda: self._with_pool(lambda pool: loop.run_in_executor(pool, fn, *args)),
        )

    async def arrange(
        self,
        cards: Sequence[Card],
        preset: Preset,
        level: str,
        opponents: int,
        seed: int | None,
        *,
        priority: Priority = Priority.CLICK,
    ) -> Arrangement:
        """The solver, in a worker process, in ``priority`` order."""
        return await self.gate.run(
            priority,
            lambda: self._with_pool(
                lambda pool: arrange_async(cards, preset, level, opponents, seed, executor=pool)
            ),
        )
