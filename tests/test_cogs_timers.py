"""The tables' timers (``Scheduler``): a timed job that fails is tried again, gives up
after its retries, and is retried even when it dropped its own timer.
"""

from __future__ import annotations

import asyncio
import sqlite3

from tests.cog_helpers import (
    playing_round,
)


async def test_a_failed_deadline_is_tried_again_and_scores_once(fake_bot, repo, caplog) -> None:
    """The countdown ends while the database fails once: the timer runs close_round again
    after a pause, the round is scored (people auto-arranged) and counted once."""
    match, rnd = await playing_round(repo)
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
    tables.scheduler.schedule(match.id, 0, lambda: tables.rounds.close_round(match.id, rnd.id))
    for _ in range(200):
        if (await repo.get_round(rnd.id)).status == "scored":
            break
        await asyncio.sleep(0.01)
    scored = await repo.get_round(rnd.id)
    assert scored.status == "scored" and all(h.auto for h in scored.hands)
    assert calls == [rnd.id, rnd.id]
    assert sum((await repo.match_totals(match.id)).values()) == 0
    assert "timed job failed; again in 0.05 s" in caplog.text


async def test_a_deadline_failing_every_time_gives_up_after_the_retries(
    fake_bot, repo, caplog
) -> None:
    match, rnd = await playing_round(repo)
    tables = fake_bot.tables
    tables.scheduler.retry_seconds = (0.01, 0.01)
    calls = []

    async def always_fail(*args, **kwargs):
        calls.append(args[0])
        raise sqlite3.OperationalError("disk I/O error")

    repo.score_round = always_fail
    tables.scheduler.schedule(match.id, 0, lambda: tables.rounds.close_round(match.id, rnd.id))
    timer = tables.scheduler.timers[match.id]
    await asyncio.wait_for(asyncio.shield(timer), 5)
    assert len(calls) == 3  # the first run and two retries
    assert (await repo.get_round(rnd.id)).status == "open"  # left for the next start
    assert match.id not in tables.scheduler.timers
    assert "left for the next start" in caplog.text


async def test_a_timed_job_that_drops_its_own_timer_is_still_tried_again(fake_bot, repo) -> None:
    """close_round takes its table's timer off before finishing a match; if it fails after
    that, the retry must still happen."""
    tables = fake_bot.tables
    tables.scheduler.retry_seconds = (0.01,)
    runs = []

    async def job() -> None:
        runs.append(1)
        tables.scheduler.cancel(7)  # what close_round does before _finish
        if len(runs) == 1:
            raise sqlite3.OperationalError("database is locked")

    tables.scheduler.schedule(7, 0, job)
    timer = tables.scheduler.timers[7]
    await asyncio.wait_for(asyncio.shield(timer), 5)
    assert len(runs) == 2
