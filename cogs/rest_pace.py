"""Discord's global rate limit, kept on the bot's side, and the time requests wait.

Discord allows a bot token 50 requests a second over all its requests (the global limit;
``discord/discord-api-docs``, ``developers/topics/rate-limits.mdx``); the interaction
endpoints (an interaction's callback, its token's webhook routes) are not bound by it.
discord.py keeps each route's bucket from the answers' headers, but learns of the global
limit only from a 429, which counts toward Discord's ban of 10,000 invalid requests in 10
minutes. So :class:`GlobalPace` holds back this process's bot-token requests, never more
than its share of the limit in a second as Discord counts them (a request holds its place
from its send until a second after its answer, so the time it takes to reach Discord, or a
slow answer, never lets more through), just before each one is sent: in an aiohttp trace's
``on_request_start``, which aiohttp awaits before it sends, inside the
route's bucket that discord.py already holds, so a request that waits for its bucket does
not hold a place in the global window meanwhile. Processes that share a token share the
limit by their shards (``share``).

:func:`install` also times what each bot-token request waited before its answer came back
(the global pace, the route's bucket, a 429's retry, discord.py's sleep after spending a
bucket): the call's whole time less the time its HTTP exchanges took, reported to
``on_wait(route, seconds)`` (``capsa_rest_wait_seconds``).
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord

DISCORD_GLOBAL_LIMIT = 50  # requests a second for a bot token (Discord's documented limit;
# it raises a large bot's on request: GLOBAL_RATE_LIMIT)
PACE_WINDOW_SECONDS = 1.05  # the limit's second, and a little for the clocks' rounding


def share(
    shard_count: int | None,
    shard_ids: tuple[int, ...] | None,
    limit: int = DISCORD_GLOBAL_LIMIT,
) -> int:
    """This process's part of the token's global ``limit``: all of it, unless it runs only
    some of the shards of a token, then in proportion (at least 1 a window)."""
    if shard_count is None or shard_ids is None or shard_count <= 0:
        return limit
    return max(1, limit * len(shard_ids) // shard_count)


def is_bot_token_request(headers: Any, path: str) -> bool:
    """A request sent with the bot's token, bound by the global limit (the interaction
    routes are sent without it)."""
    auth = headers.get("Authorization") if headers is not None else None
    return bool(auth and str(auth).startswith("Bot ")) and "/interactions/" not in path


class GlobalPace:
    """At most ``limit`` requests in any ``window`` seconds as Discord counts them, whatever
    the time a request takes to reach it: a request holds its place from the moment it is
    sent until ``window`` seconds after its answer came (Discord counted it somewhere in
    between), and waits, first come first served, while ``limit`` places are held."""

    def __init__(
        self,
        limit: int = DISCORD_GLOBAL_LIMIT,
        window: float = PACE_WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if limit < 1:
            raise ValueError(f"the pace's limit must be at least 1, not {limit}")
        self.limit = limit
        self.window = window
        self.clock = clock
        self._places = asyncio.Semaphore(limit)

    async def acquire(self) -> float:
        """Wait for a place; the seconds waited. Call ``answered`` once the answer came."""
        start = self.clock()
        await self._places.acquire()
        return self.clock() - start

    def answered(self) -> None:
        """The request holding a place was answered (or failed): free it a window later."""
        asyncio.get_running_loop().call_later(self.window, self._places.release)


@dataclass
class _Call:
    """One bot-token call through discord.py: the seconds its HTTP exchanges took."""

    http: float = 0.0
    started: dict[int, float] = field(default_factory=dict)
    held: int = 0  # places of the pace its requests hold, not yet let go


_CALL: contextvars.ContextVar[_Call | None] = contextvars.ContextVar("rest_call", default=None)


def install(
    http: discord.http.HTTPClient,
    trace: aiohttp.TraceConfig,
    pace: GlobalPace,
    on_wait: Callable[[str, float], None],
) -> None:
    """Pace ``http``'s bot-token requests and time their waits. ``trace`` is the session's
    trace (``http_trace``); ``on_wait(route, seconds)`` gets each call's wait."""

    async def request_start(
        _session: object, ctx: SimpleNamespace, params: aiohttp.TraceRequestStartParams
    ) -> None:
        call = _CALL.get()
        if is_bot_token_request(params.headers, params.url.path):
            await pace.acquire()
            ctx.paced = True
            if call is not None:
                call.held += 1
        if call is not None:
            call.started[id(ctx)] = time.monotonic()

    async def request_done(_session: object, ctx: SimpleNamespace, _params: object) -> None:
        call = _CALL.get()
        if getattr(ctx, "paced", False):
            ctx.paced = False
            pace.answered()
            if call is not None:
                call.held -= 1
        if call is not None:
            began = call.started.pop(id(ctx), None)
            if began is not None:
                call.http += time.monotonic() - began

    trace.on_request_start.append(request_start)
    trace.on_request_end.append(request_done)
    trace.on_request_exception.append(request_done)
    inner = http.request

    async def request(route: discord.http.Route, **kwargs: Any) -> Any:
        call = _Call()
        token = _CALL.set(call)
        start = time.monotonic()
        try:
            return await inner(route, **kwargs)
        finally:
            _CALL.reset(token)
            for _ in range(call.held):  # a request cancelled on its way: its place goes too
                pace.answered()
            on_wait(route.path, max(0.0, time.monotonic() - start - call.http))

    http.request = request  # type: ignore[method-assign]
