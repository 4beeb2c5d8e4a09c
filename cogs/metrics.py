"""The bot's Prometheus metrics, gathered from outside the table code.

Nothing in the cogs that run tables counts anything: the counters are fed by three hooks.

- ``on_interaction`` (a listener the bot adds): interactions by kind.
- An aiohttp trace on discord.py's HTTP session: every REST request by method, route
  template and status (each 429 included, since discord.py retries inside one call), and
  the acknowledgement latency of each interaction (its callback's answer, measured from the
  interaction's id, which carries the moment Discord created it).
- ``MeteredRepository``, the database as the tables see it: each call's latency, the
  rounds scored, the showdown latency (last hand in -> showdown marked posted), and the
  timers' lag (the moment a timer set by this process was claimed, against its due time).

A route never carries an id or an interaction token: ``route_template`` replaces them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from functools import partial
from types import SimpleNamespace
from typing import Any, cast

import aiohttp
import discord
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from data import Repository

# Seconds. Discord's acknowledgement deadline is 3 s; a showdown should be up within 1 s.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
LAG_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
DB_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)
RECENT_SECONDS = 60.0  # how long a late timer keeps /healthz at 503
_FORGET_AFTER = 2000  # rounds or timers remembered at most (a cancelled table's are dropped)

_SNOWFLAKE = re.compile(r"^\d{15,21}$")
_WORD = re.compile(r"^[a-z][a-z0-9_-]*$")
_TOKEN_AFTER = {"interactions", "webhooks"}  # /interactions/{id}/{token}, /webhooks/{id}/{token}


def route_template(path: str) -> str:
    """A REST path as a label: ids as ``{id}``, an interaction token as ``{token}``, any
    other part that is not a plain word as ``{value}`` (an emoji, a name)."""
    parts = path.split("/")
    if "v10" in parts:  # /api/v10/channels/1/messages -> /channels/{id}/messages
        parts = parts[parts.index("v10") + 1 :]
    out: list[str] = []
    for i, part in enumerate(p for p in parts if p):
        if i >= 2 and out[i - 2] in _TOKEN_AFTER:
            out.append("{token}")
        elif _SNOWFLAKE.match(part):
            out.append("{id}")
        elif _WORD.match(part):
            out.append(part)
        else:
            out.append("{value}")
    return "/" + "/".join(out)


class Metrics:
    """The metrics of one bot process, in a registry of their own."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.registry = r = CollectorRegistry()
        self.interactions = Counter(
            "capsa_interactions", "Interactions received, by kind", ["kind"], registry=r
        )
        histogram = partial(Histogram, registry=r)
        self.ack_seconds = histogram(
            "capsa_interaction_ack_seconds",
            "From an interaction's creation to Discord's answer to its acknowledgement",
            buckets=LATENCY_BUCKETS,
        )
        self.showdown_seconds = histogram(
            "capsa_showdown_seconds",
            "From a round's last hand locked in to its showdown posted",
            buckets=LATENCY_BUCKETS,
        )
        self.timer_lag = histogram(
            "capsa_timer_lag_seconds",
            "How late a timer set by this process was claimed, after its due time",
            buckets=LAG_BUCKETS,
        )
        self.db_seconds = histogram(
            "capsa_db_transaction_seconds",
            "Database transactions, by repository operation",
            ["operation"],
            buckets=DB_BUCKETS,
        )
        self.rounds_scored = Counter("capsa_rounds_scored", "Rounds scored", registry=r)
        self.rest_requests = Counter(
            "capsa_rest_requests",
            "Requests to Discord's REST API, by method, route and status (error: no answer)",
            ["method", "route", "status"],
            registry=r,
        )
        self.rest_wait = histogram(
            "capsa_rest_wait_seconds",
            "What a bot-token request to Discord waited (the global pace, its route's bucket,"
            " a 429) besides its HTTP exchange, by route",
            ["route"],
            buckets=LAG_BUCKETS,
        )
        self.open_tables = Gauge(
            "capsa_open_tables", "Tables in a lobby or playing (the whole database)", registry=r
        )
        self.worker_queue = Gauge(
            "capsa_worker_queue_depth", "Jobs waiting for a worker process", registry=r
        )
        self.last_claim: float | None = None  # when the timer loop last looked (clock)
        self.late: tuple[float, float] | None = None  # (when, how late) of the latest late timer

    # --- Discord ------------------------------------------------------------------------

    def interaction(self, interaction: discord.Interaction[Any]) -> None:
        self.interactions.labels(interaction.type.name).inc()

    def watch(self, trace: aiohttp.TraceConfig) -> None:
        """Count every REST request of discord.py's HTTP session (its ``http_trace``)."""
        trace.on_request_end.append(self._request_end)
        trace.on_request_exception.append(self._request_error)

    async def _request_end(
        self, _session: object, _ctx: SimpleNamespace, params: aiohttp.TraceRequestEndParams
    ) -> None:
        self.rest_request(params.method, params.url.path, str(params.response.status))

    async def _request_error(
        self, _session: object, _ctx: SimpleNamespace, params: aiohttp.TraceRequestExceptionParams
    ) -> None:
        self.rest_request(params.method, params.url.path, "error")

    def rest_waited(self, route: str, seconds: float) -> None:
        """A bot-token request waited ``seconds`` (``cogs.rest_pace``); ``route`` is
        discord.py's template (``/channels/{channel_id}/messages``)."""
        self.rest_wait.labels(route).observe(seconds)

    def rest_request(self, method: str, path: str, status: str) -> None:
        route = route_template(path)
        self.rest_requests.labels(method, route, status).inc()
        if route == "/interactions/{id}/{token}/callback" and status.startswith("2"):
            interaction_id = int(path.rstrip("/").split("/")[-3])
            created = discord.utils.snowflake_time(interaction_id).timestamp()
            self.ack_seconds.observe(max(0.0, self.clock() - created))

    # --- the database -------------------------------------------------------------------

    def timer_claimed(self, lag: float) -> None:
        self.timer_lag.observe(max(0.0, lag))
        if lag > 0:
            self.late = (self.clock(), lag)

    def timers_late(self, threshold: float) -> float | None:
        """How late the latest timer over ``threshold`` s late was, if within a minute."""
        if self.late is None:
            return None
        when, lag = self.late
        return lag if lag > threshold and self.clock() - when < RECENT_SECONDS else None


class MeteredRepository:
    """A repository whose every call is timed (``capsa_db_transaction_seconds``), and whose
    answers feed the round, showdown and timer metrics. Everything else passes through."""

    def __init__(self, inner: Repository, metrics: Metrics) -> None:
        self.inner = inner
        self.metrics = metrics
        self._submitted: dict[int, float] = {}  # round id -> its latest hand locked in
        self._due: dict[tuple[int, str], float] = {}  # (table, kind) -> due, set here

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr) or name.startswith("_"):
            return attr
        histogram = self.metrics.db_seconds.labels(name)

        async def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                result = await attr(*args, **kwargs)
            finally:
                histogram.observe(time.perf_counter() - start)
            self._seen(name, args, kwargs, result)
            return result

        setattr(self, name, timed)  # made once per operation
        return timed

    def _seen(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> None:
        now = self.metrics.clock()
        if name == "submit_hand" and result:
            _remember(self._submitted, args[0], now)
        elif name == "score_round" and result:
            self.metrics.rounds_scored.inc()
        elif name == "mark_showdown_posted" and result:
            last = self._submitted.pop(args[0], None)
            if last is not None:
                self.metrics.showdown_seconds.observe(max(0.0, now - last))
        elif name == "set_timer" and result and kwargs.get("holder") is None:
            _remember(self._due, (args[0], str(args[1])), now + float(args[3]))
        elif name == "retry_timer":
            _remember(self._due, (args[0], str(args[1])), now + float(args[3]))
        elif name == "cancel_timers":
            kinds = args[1] if len(args) > 1 else kwargs.get("kinds")
            for key in [k for k in self._due if k[0] == args[0]]:
                if kinds is None or key[1] in kinds:
                    del self._due[key]
        elif name == "claim_timers":
            self.metrics.last_claim = now
            for timer in result:
                due = self._due.pop((timer.match_id, str(timer.kind)), None)
                if due is not None:
                    self.metrics.timer_claimed(now - due)


def _remember(memory: dict[Any, float], key: Any, value: float) -> None:
    memory.pop(key, None)
    memory[key] = value
    while len(memory) > _FORGET_AFTER:  # the oldest first (dicts keep their order)
        del memory[next(iter(memory))]


def metered(repo: Repository, metrics: Metrics) -> Repository:
    """``repo`` behind a ``MeteredRepository`` (it has every method of the protocol)."""
    return cast(Repository, MeteredRepository(repo, metrics))
