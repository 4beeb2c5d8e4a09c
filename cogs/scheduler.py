"""Timers and background jobs of the tables: one pending timer per table, retried when it
fails, and jobs run beside the caller. ``stop`` ends them all (before the database closes)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

RETRY_SECONDS = (5.0, 20.0, 60.0)  # a timed job that failed runs again after these pauses


class Scheduler:
    def __init__(self, retry_seconds: tuple[float, ...] = RETRY_SECONDS) -> None:
        self.retry_seconds = retry_seconds
        self.timers: dict[int, asyncio.Task[None]] = {}  # match id -> its pending timer
        self._tasks: set[asyncio.Task[None]] = set()

    def schedule(self, match_id: int, delay: float, job: Callable[[], Awaitable[None]]) -> None:
        """One pending timer per table; a new one replaces the old. Every timed job is
        idempotent (deal, close a round, expire a lobby), so one that fails (a database
        error, say) runs again after each of ``retry_seconds`` before it gives up until the
        next start."""
        old = self.timers.get(match_id)
        if old is not None and old is not asyncio.current_task():
            old.cancel()

        async def run() -> None:
            me = asyncio.current_task()
            try:
                await asyncio.sleep(max(0.0, delay))
                for pause in (*self.retry_seconds, None):
                    try:
                        await job()
                        return
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        if pause is None:
                            log.exception(
                                "table %s: timed job failed; left for the next start", match_id
                            )
                            return
                        log.exception("table %s: timed job failed; again in %s s", match_id, pause)
                    if self.timers.get(match_id) not in (None, me):
                        return  # the job set a newer timer before it failed: that one goes on
                    if me is not None:
                        self.timers[match_id] = me  # (the job may have dropped its own entry)
                    await asyncio.sleep(pause)
            finally:
                if self.timers.get(match_id) is me:
                    del self.timers[match_id]

        self.timers[match_id] = asyncio.create_task(run(), name=f"capsa-table-{match_id}")

    def cancel(self, match_id: int) -> None:
        task = self.timers.pop(match_id, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def spawn(self, job: Awaitable[None]) -> None:
        """Run a job beside the caller, keeping a reference and logging its failure."""
        task = asyncio.ensure_future(job)
        self._tasks.add(task)

        def done(finished: asyncio.Task[None]) -> None:
            self._tasks.discard(finished)
            if not finished.cancelled() and finished.exception() is not None:
                log.error("background job failed", exc_info=finished.exception())

        task.add_done_callback(done)

    async def stop(self) -> None:
        """At shutdown: end every timer and background job. Whatever they were doing
        resumes from the database at the next start."""
        tasks = [*self.timers.values(), *self._tasks]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
