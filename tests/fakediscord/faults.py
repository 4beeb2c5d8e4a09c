"""Fault injection: rate limits, server errors, refused DMs (at the message or already at
opening the DM channel), slow interactions."""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import math
import re
import time
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .state import FakeAccount

Pattern = str | re.Pattern[str]


@dataclass(eq=False)
class RouteFault:
    """Answer requests whose path matches ``pattern`` with an error, ``remaining`` times.

    ``pattern`` is a glob on the API path (``"/channels/*/messages"``) or a compiled regex
    (searched). ``method`` restricts it to one HTTP method.
    """

    pattern: Pattern
    method: str | None
    status: int
    remaining: int
    retry_after: float = 0.0
    is_global: bool = False
    hits: int = 0

    def matches(self, method: str, path: str) -> bool:
        if self.method is not None and self.method.upper() != method:
            return False
        if isinstance(self.pattern, re.Pattern):
            return self.pattern.search(path) is not None
        return fnmatch.fnmatchcase(path, self.pattern)

    def response(self) -> tuple[int, dict[str, Any], dict[str, str]]:
        if self.status == 429:
            now = time.time()
            body = {
                "message": "You are being rate limited.",
                "retry_after": self.retry_after,
                "global": self.is_global,
                "code": 0,
            }
            headers = {
                "Retry-After": str(max(1, math.ceil(self.retry_after))),
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": f"{now + self.retry_after:.3f}",
                "X-RateLimit-Reset-After": f"{self.retry_after:.3f}",
                "X-RateLimit-Bucket": "fakebucket",
                "X-RateLimit-Scope": "global" if self.is_global else "user",
                "Via": "1.1 google",  # discord.py treats a 429 without Via as a Cloudflare ban
            }
            if self.is_global:
                headers["X-RateLimit-Global"] = "true"
            return 429, body, headers
        body = {"message": f"{self.status}: Internal Server Error", "code": 0}
        return self.status, body, {}


@dataclass(eq=False)
class Stall:
    """Hold the next ``remaining`` requests matching ``pattern`` (and ``method``) for
    ``seconds`` before handling them as usual: a request in flight, for a test to kill the
    bot meanwhile. ``held`` counts those being held now; ``drop`` (and ``Faults.clear``)
    lets them go unhandled."""

    pattern: Pattern
    method: str | None
    seconds: float
    remaining: int
    hits: int = 0
    landed: bool = False  # done first, then its answer held (dropped: never answered)
    held: int = 0
    dropped: bool = False
    released: asyncio.Event = field(default_factory=asyncio.Event)

    def matches(self, method: str, path: str) -> bool:
        return RouteFault.matches(self, method, path)  # type: ignore[arg-type]

    def drop(self) -> None:
        """The requests held now never reach Discord (their sender died meanwhile): they
        are answered 500 at once and change nothing."""
        self.dropped = True
        self.released.set()

    async def hold(self) -> bool:
        """Hold a request; False if it was dropped meanwhile."""
        self.held += 1
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.released.wait(), self.seconds)
        finally:
            self.held -= 1
        return not self.dropped


@dataclass(eq=False)
class SlowInteractions:
    """The next ``remaining`` interactions (optionally of one user) are answered late."""

    remaining: int
    user: FakeAccount | None = None
    hits: int = 0


@dataclass(eq=False)
class Faults:
    rules: list[RouteFault] = field(default_factory=list)
    refused_dms: set[int] = field(default_factory=set)
    refused_dm_channels: dict[int, int] = field(default_factory=dict)  # user id -> status
    slow: list[SlowInteractions] = field(default_factory=list)
    stalls: list[Stall] = field(default_factory=list)

    def rate_limit(
        self,
        pattern: Pattern,
        *,
        times: int = 1,
        retry_after: float = 0.05,
        method: str | None = None,
        is_global: bool = False,
    ) -> RouteFault:
        """Answer 429 (with ``retry_after`` body and ``X-RateLimit-*``/``Retry-After``)."""
        rule = RouteFault(pattern, method, 429, times, retry_after, is_global)
        self.rules.append(rule)
        return rule

    def server_error(
        self, pattern: Pattern, *, times: int = 1, status: int = 500, method: str | None = None
    ) -> RouteFault:
        """Answer ``status`` (default 500) ``times`` times. discord.py retries 500/502/504."""
        rule = RouteFault(pattern, method, status, times)
        self.rules.append(rule)
        return rule

    def refuse_dms(self, user: FakeAccount, refuse: bool = True) -> None:
        """Messages to ``user``'s DM channel answer 403 code 50007."""
        if refuse:
            self.refused_dms.add(user.id)
        else:
            self.refused_dms.discard(user.id)

    def refuse_dm_channel(self, user: FakeAccount, status: int | None = 400) -> None:
        """Opening a DM channel with ``user`` (``POST /users/@me/channels``) answers
        ``status`` (400 or 403) with code 50007; ``None`` opens it again."""
        if status is None:
            self.refused_dm_channels.pop(user.id, None)
        else:
            self.refused_dm_channels[user.id] = status

    def slow_interactions(
        self, times: int = 1, *, user: FakeAccount | None = None
    ) -> SlowInteractions:
        """The callback of the next ``times`` interactions is withheld past the 3 s deadline
        and then answered 404 code 10062 (Unknown interaction)."""
        rule = SlowInteractions(times, user)
        self.slow.append(rule)
        return rule

    def stall(
        self,
        pattern: Pattern,
        seconds: float,
        *,
        times: int = 1,
        method: str | None = None,
        landed: bool = False,
    ) -> Stall:
        """Hold the next ``times`` matching requests ``seconds`` before answering them;
        ``landed``: done at once, only the answer held (the sender dies before it knows)."""
        rule = Stall(pattern, method, seconds, times, landed=landed)
        self.stalls.append(rule)
        return rule

    def clear(self) -> None:
        for stall in self.stalls:  # what they hold now is dropped
            stall.drop()
        self.stalls.clear()
        self.rules.clear()
        self.refused_dms.clear()
        self.refused_dm_channels.clear()
        self.slow.clear()

    # -- used by the server ----------------------------------------------------------------
    def take_route_fault(self, method: str, path: str) -> RouteFault | None:
        return _take(self.rules, method, path)

    def take_stall(self, method: str, path: str) -> Stall | None:
        return _take(self.stalls, method, path)

    def take_slow(self, user: FakeAccount) -> bool:
        for rule in self.slow:
            if rule.remaining > 0 and (rule.user is None or rule.user is user):
                rule.remaining -= 1
                rule.hits += 1
                return True
        return False


RuleT = TypeVar("RuleT", RouteFault, Stall)


def _take(rules: list[RuleT], method: str, path: str) -> RuleT | None:
    """The first of ``rules`` with uses left that matches the request, one use taken."""
    for rule in rules:
        if rule.remaining > 0 and rule.matches(method, path):
            rule.remaining -= 1
            rule.hits += 1
            return rule
    return None
