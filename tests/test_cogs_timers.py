"""The tables' timers (``Scheduler`` over the repository's timers): a timed job that fails
is tried again after a pause, keeps being tried while it fails, is tried again even when it
dropped its own timer, and a timer set anywhere is run by the claiming loop."""

from __future__ import annotations

import asyncio
import sqlite3
import time

from cogs.life import Clock, Step
from cogs.scheduler import TimerKind
from tests.cog_helpers import ALICE_HAND, BOB, BOB_HAND, new_lobby, playing_round


async def _round_past_its_deadline(repo):
    """Alice and bob in round 1 of a started match, dealt and open, its countdown over."""
    match = await new_lobby(repo, seats=2)
    await repo.add_seat(match.id, BOB, "bob")
    assert await repo.start_match(match.id)
    rnd = await repo.start_round(
        match.id, 1, 12345, time.time() - 1, {0: ALICE_HAND.split(), 1: BOB_HAND.split()}
    )
    assert await repo.mark_round_open(rnd.id)
    return await repo.get_match(match.id), await repo.get_round(rnd.id)


def _clock(step: Step, number: int) -> int:
    return Clock(step, number).encode()


async def _until(check, timeout: float = 5.0) -> None:
    for _ in range(int(timeout / 0.01)):
        if await check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not reached in time")


async def test_a_failed_deadline_is_tried_again_and_scores_once(fake_bot, repo, caplog) -> None:
    """The countdown ends while the database fails once: the clock runs the table's flow
    again after a pause, the round is scored (people auto-arranged) and counted once."""
    match, rnd = await _round_past_its_deadline(repo)
    tables = fake_bot.tables
    tables.scheduler.retry_seconds = (0.05, 0.05)
    real_score = repo.score_round
    calls = []

    async def fail_once(*args, **kwargs):
        calls.append(args[0])
        if len(calls) == 1:
            raise sqlite3.OperationalError("database is locked")
        return await real_score(*args, **kwargs)

    repo.score_round = fail_once
    await tables.scheduler.schedule(match.id, TimerKind.CLOCK, _clock(Step.CLOSE, 1), 0)

    async def scored() -> bool:
        return (await repo.get_round(rnd.id)).scored

    await _until(scored)
    done = await repo.get_round(rnd.id)
    assert all(h.auto for h in done.hands)
    assert calls == [rnd.id, rnd.id]
    assert sum((await repo.match_totals(match.id)).values()) == 0
    assert "timer clock failed (0 before); again in 0.05 s" in caplog.text
    await tables.scheduler.idle()
    await tables.scheduler.jobs_done()
    pending = await tables.scheduler.pending(match.id)
    assert pending == {TimerKind.CLOCK: _clock(Step.DEAL, 2)}  # the pause before round 2


async def test_a_deadline_failing_every_time_keeps_being_tried(fake_bot, repo, caplog) -> None:
    match, rnd = await _round_past_its_deadline(repo)
    tables = fake_bot.tables
    tables.scheduler.retry_seconds = (0.01, 0.02)
    calls = []

    async def always_fail(*args, **kwargs):
        calls.append(args[0])
        raise sqlite3.OperationalError("disk I/O error")

    repo.score_round = always_fail
    await tables.scheduler.schedule(match.id, TimerKind.CLOCK, _clock(Step.CLOSE, 1), 0)

    async def tried() -> bool:
        return len(calls) >= 4

    await _until(tried)
    assert (await repo.get_round(rnd.id)).status == "open"
    (timer,) = await repo.timers_of(match.id)
    assert timer.kind == TimerKind.CLOCK and timer.attempts >= 3
    assert "(2 before); again in 0.02 s" in caplog.text  # the last pause, from then on


async def test_a_timed_job_that_drops_its_own_timer_is_still_tried_again(fake_bot, repo) -> None:
    """A table's flow takes its timers off when the table ends; a handler that drops its
    timer and then fails must still run again."""
    match, _ = await playing_round(repo)
    tables = fake_bot.tables
    tables.scheduler.retry_seconds = (0.01,)
    runs = []

    async def job(match_id: int, arg: int) -> None:
        runs.append(arg)
        await tables.scheduler.cancel(match_id)
        if len(runs) == 1:
            raise sqlite3.OperationalError("database is locked")

    tables.scheduler.handle(TimerKind.CLOCK, job)
    await tables.scheduler.schedule(match.id, TimerKind.CLOCK, 3, 0)

    async def twice() -> bool:
        return len(runs) == 2

    await _until(twice)
    await tables.scheduler.idle()
    assert runs == [3, 3] and await tables.scheduler.pending(match.id) == {}


async def test_stopping_hands_a_running_timer_on(fake_bot, repo) -> None:
    """A process that stops while a timer runs gives the timer back at once: another
    process claims it now, not when the lease would have run out."""
    match, _ = await playing_round(repo)
    tables = fake_bot.tables
    started = asyncio.Event()

    async def slow(match_id: int, arg: int) -> None:
        started.set()
        await asyncio.sleep(30)

    tables.scheduler.handle(TimerKind.CLOCK, slow)
    await tables.scheduler.schedule(match.id, TimerKind.CLOCK, 0, 0)
    await asyncio.wait_for(started.wait(), 5)
    await tables.scheduler.stop()
    (timer,) = await repo.claim_timers("another process", lease=30)
    assert (timer.match_id, timer.kind, timer.attempts) == (match.id, "clock", 1)
