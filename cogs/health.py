"""``/healthz`` and ``/metrics`` on ``METRICS_HOST:METRICS_PORT`` (off unless the port is set).

``/healthz`` answers 200 ``ok`` when the gateway is connected (every shard of this
process), the database answers a read within ``DB_TIMEOUT`` and the timers are not late;
otherwise 503 with one line a reason. ``/metrics`` is the Prometheus text format of
``cogs.metrics``; the open tables and the worker queue are read as it is scraped.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from cogs.worker_pool import WorkerPool

if TYPE_CHECKING:
    from bot import CapsaBot

log = logging.getLogger(__name__)

DB_TIMEOUT = 2.0  # s for the database to answer /healthz's read
TIMER_STALL = 10.0  # s without the timer loop looking: the timers are late
TIMER_LATE = 5.0  # s after its due time a timer counts as late


async def problems(bot: CapsaBot) -> list[str]:
    """Why this process is not healthy; empty when it is."""
    found: list[str] = []
    if bot.is_closed() or not bot.is_ready():
        found.append("gateway: not connected")
    else:
        down = sorted(i for i, shard in bot.shards.items() if shard.is_closed())
        if down:
            found.append(f"gateway: shard {', '.join(map(str, down))} disconnected")
    try:
        await asyncio.wait_for(bot.repo.next_timer_in(), DB_TIMEOUT)
    except TimeoutError:
        found.append(f"database: no answer within {DB_TIMEOUT:g} s")
    except Exception as err:  # the reason, never the error's text (it may name the URL)
        found.append(f"database: {type(err).__name__}")
    metrics = bot.metrics
    last = metrics.last_claim
    if last is None:
        if bot.is_ready():
            found.append("timers: the timer loop has not run yet")
    elif metrics.clock() - last > TIMER_STALL:
        found.append(f"timers: the timer loop has not run for {metrics.clock() - last:.0f} s")
    late = metrics.timers_late(TIMER_LATE)
    if late is not None:
        found.append(f"timers: a timer ran {late:.1f} s late")
    return found


def waiting_jobs(workers: WorkerPool) -> int:
    """Jobs waiting at the worker gate for a process (the gate keeps them in a heap it does
    not publish; reading its length changes nothing)."""
    return len(workers.gate._waiting)


def build_app(bot: CapsaBot) -> web.Application:
    async def healthz(_request: web.Request) -> web.Response:
        found = await problems(bot)
        if found:
            return web.Response(status=503, text="\n".join(found) + "\n")
        return web.Response(text="ok\n")

    async def metrics(_request: web.Request) -> web.Response:
        m = bot.metrics
        try:
            m.open_tables.set(len(await asyncio.wait_for(bot.repo.active_matches(), DB_TIMEOUT)))
        except Exception:  # the rest still answers; /healthz says what is wrong
            log.warning("/metrics: could not count the open tables")
        m.worker_queue.set(waiting_jobs(bot.workers))
        body = generate_latest(m.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)
    return app


class MetricsUnavailable(Exception):
    """The metrics port could not be opened (in use, or a wrong host)."""


class HealthServer:
    def __init__(self, bot: CapsaBot, host: str, port: int) -> None:
        self.bot, self.host, self.port = bot, host, port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        runner = web.AppRunner(build_app(self.bot), access_log=None, handle_signals=False)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.port).start()
        except OSError as err:
            await runner.cleanup()
            why = err.strerror or type(err).__name__
            raise MetricsUnavailable(
                f"METRICS_PORT: cannot listen on {self.host}:{self.port} ({why}): choose"
                " another METRICS_PORT or METRICS_HOST, or unset METRICS_PORT"
            ) from None
        self._runner = runner
        self.port = runner.addresses[0][1]  # the port chosen, when 0 was asked for
        log.info("health and metrics on http://%s:%d/healthz and /metrics", self.host, self.port)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
