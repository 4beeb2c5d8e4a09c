"""WorkerGate: at most ``slots`` jobs at once, the rest admitted most urgent first, then first
come; cancelled waiters and failing jobs never leak or swallow a slot. WorkerPool: a broken
pool is replaced once."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import BrokenExecutor, Executor, ThreadPoolExecutor

import pytest

from capsa.cards import parse_cards
from capsa.presets import get_preset
from cogs.worker_pool import Priority, WorkerGate, WorkerPool

CLICK, DEAL, SHOWDOWN = Priority.CLICK, Priority.DEAL, Priority.SHOWDOWN

TIMEOUT = 5.0


async def settle() -> None:
    """Let every ready task run until it blocks again (no wall-clock waiting)."""
    for _ in range(20):
        await asyncio.sleep(0)


class Tracker:
    """Jobs that record when they start and then wait for ``release`` before finishing."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.running = 0
        self.peak = 0
        self.started: list[str] = []

    def job(self, name: str) -> Callable[[], Awaitable[str]]:
        async def work() -> str:
            self.started.append(name)
            self.running += 1
            self.peak = max(self.peak, self.running)
            try:
                await self.release.wait()
            finally:
                self.running -= 1
            return name

        return work


def spawn(
    gate: WorkerGate, priority: Priority, job: Callable[[], Awaitable[str]]
) -> asyncio.Task[str]:
    # The task runs gate.run itself (no wait_for wrapper), so cancelling it cancels the wait in
    # the gate directly; the timeouts are on the awaiting side.
    return asyncio.create_task(gate.run(priority, job))


async def test_never_more_than_slots_at_once() -> None:
    gate, tracker = WorkerGate(2), Tracker()
    tasks = [spawn(gate, CLICK, tracker.job(str(i))) for i in range(5)]
    await settle()
    assert tracker.running == 2 and len(tracker.started) == 2 and gate.free == 0
    tracker.release.set()
    assert await asyncio.wait_for(asyncio.gather(*tasks), TIMEOUT) == ["0", "1", "2", "3", "4"]
    assert tracker.peak == 2 and sorted(tracker.started) == ["0", "1", "2", "3", "4"]
    assert gate.free == 2


async def test_waiters_start_most_urgent_first_then_first_come() -> None:
    gate, blocker, tracker = WorkerGate(1), Tracker(), Tracker()
    tracker.release.set()
    hold = spawn(gate, CLICK, blocker.job("blocker"))
    await settle()
    tasks = []
    for name, priority in [("a", CLICK), ("b", DEAL), ("c", CLICK), ("d", SHOWDOWN)]:
        tasks.append(spawn(gate, priority, tracker.job(name)))
        await settle()  # arrival order is the order queued here
    assert tracker.started == []
    blocker.release.set()
    await asyncio.wait_for(asyncio.gather(hold, *tasks), TIMEOUT)
    assert tracker.started == ["d", "b", "a", "c"]
    assert gate.free == 1


async def test_cancelled_waiter_never_runs_and_leaks_no_slot() -> None:
    gate, tracker = WorkerGate(1), Tracker()
    hold = spawn(gate, CLICK, tracker.job("blocker"))
    await settle()
    x, y, z = (spawn(gate, CLICK, tracker.job(name)) for name in "xyz")
    await settle()
    x.cancel()
    z.cancel()  # the last in line: after y nobody is left to hand the slot to
    await settle()
    tracker.release.set()
    assert await asyncio.wait_for(asyncio.gather(hold, y), TIMEOUT) == ["blocker", "y"]
    for task in (x, z):
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, TIMEOUT)
    assert tracker.started == ["blocker", "y"]
    assert gate.free == 1
    assert await asyncio.wait_for(gate.run(CLICK, tracker.job("later")), TIMEOUT) == "later"
    assert gate.free == 1


async def test_slot_released_when_job_raises() -> None:
    gate, tracker = WorkerGate(1), Tracker()
    release = asyncio.Event()

    async def boom() -> str:
        await release.wait()
        raise ValueError("boom")

    failing = spawn(gate, SHOWDOWN, boom)
    await settle()
    tracker.release.set()
    nxt = spawn(gate, CLICK, tracker.job("next"))
    await settle()
    assert tracker.started == []
    release.set()
    with pytest.raises(ValueError, match="boom"):
        await asyncio.wait_for(failing, TIMEOUT)
    assert await asyncio.wait_for(nxt, TIMEOUT) == "next"
    assert gate.free == 1


async def test_waiter_cancelled_as_it_is_handed_the_slot_passes_it_on() -> None:
    gate, blocker, tracker = WorkerGate(1), Tracker(), Tracker()
    tracker.release.set()
    waiters: dict[str, asyncio.Task[str]] = {}

    async def hold_then_cancel_first() -> None:
        await gate.run(CLICK, blocker.job("blocker"))
        # The gate has just handed "first" the slot, but "first" has not resumed yet.
        assert gate.free == 0 and tracker.started == []
        waiters["first"].cancel()

    hold = asyncio.create_task(hold_then_cancel_first())
    await settle()
    waiters["first"] = spawn(gate, DEAL, tracker.job("first"))
    await settle()
    waiters["second"] = spawn(gate, CLICK, tracker.job("second"))
    await settle()
    blocker.release.set()
    await asyncio.wait_for(hold, TIMEOUT)
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(waiters["first"], TIMEOUT)
    assert await asyncio.wait_for(waiters["second"], TIMEOUT) == "second"
    assert tracker.started == ["second"]
    assert gate.free == 1


async def test_zero_slots_still_admits_one_job_at_a_time() -> None:
    gate, tracker = WorkerGate(0), Tracker()
    assert gate.free == 1
    tasks = [spawn(gate, CLICK, tracker.job(name)) for name in "ab"]
    await settle()
    assert tracker.started == ["a"] and tracker.running == 1
    tracker.release.set()
    assert await asyncio.wait_for(asyncio.gather(*tasks), TIMEOUT) == ["a", "b"]
    assert tracker.peak == 1 and gate.free == 1


async def test_a_broken_solver_pool_is_replaced_once() -> None:
    class Broken(Executor):
        def submit(self, *args, **kwargs):
            raise BrokenExecutor("a worker died")

    pool = WorkerPool(1, Broken())
    renewed: list[ThreadPoolExecutor] = []

    def renew() -> None:
        renewed.append(ThreadPoolExecutor(1))
        pool.executor = renewed[-1]

    pool.renew = renew
    hand = parse_cards("AS KS QS JS TS 9H 9D 5C 5D 3H 2C 7D 8C")
    try:
        arrangement = await pool.arrange(hand, get_preset("standard"), "normal", 3, 1)
        assert len(renewed) == 1
        assert sorted(arrangement.back + arrangement.middle + arrangement.front) == sorted(hand)

        pool.renew = lambda: None  # the new pool is broken too: the error surfaces
        pool.executor = Broken()
        with pytest.raises(BrokenExecutor):
            await pool.arrange(hand, get_preset("standard"), "normal", 3, 1)
    finally:
        for executor in renewed:
            executor.shutdown(wait=True)


def test_a_pool_passed_in_is_neither_renewed_nor_shut_down() -> None:
    with ThreadPoolExecutor(1) as given:
        pool = WorkerPool(3, given)
        assert pool.gate.free == 4  # one job more than the processes
        pool.warm_up()
        pool.renew()
        pool.shutdown()
        assert pool.executor is given and given.submit(int, "7").result() == 7


def test_a_shut_down_pool_is_never_renewed() -> None:
    """A job the stop cut short raises BrokenExecutor; no new pool is started for it (its
    thread would outlive the bot's stop)."""
    pool = WorkerPool(1)
    pool.shutdown()
    pool.renew()
    assert pool.executor._processes is None  # type: ignore[attr-defined]  # (shut down)
