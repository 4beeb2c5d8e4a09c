"""Discord's rate limits, as the fake applies them (``FakeDiscord.limits``).

What Discord documents (``discord/discord-api-docs``, ``developers/topics/rate-limits.mdx``):

* the global limit: 50 requests a second over all of a bot token's requests. Interaction
  endpoints are not bound by it: the callback (``POST /interactions/{id}/{token}/callback``)
  and the webhook routes of an interaction token (``/webhooks/{application_id}/{token}...``:
  followups, the original response and followups edited, read or deleted);
* per-route buckets, counted per top-level resource (the channel, for message routes); each
  answer carries ``X-RateLimit-Limit``, ``-Remaining``, ``-Reset`` (epoch seconds),
  ``-Reset-After`` (seconds) and ``-Bucket`` (the bucket's id, the same for every channel);
* a request over a limit is answered 429 with the JSON body ``message``, ``retry_after``
  (seconds) and ``global``, and the headers ``Retry-After``, ``X-RateLimit-Scope`` (``user``
  for a route's bucket, ``global``) and, for the global limit, ``X-RateLimit-Global: true``;
  a 429 is not counted against the bucket or the global limit;
* 401, 403 and 429 answers are invalid requests: 10,000 in 10 minutes get an IP banned.

The buckets' sizes are what was observed (Discord does not publish them): 5 message posts
per 5 s per channel, DM channels included, and 5 edits per 5 s per channel. Opening a DM
channel (``POST /users/@me/channels``) is one bucket for the whole bot, assumed 10 per 10 s:
a setting, to be measured with more than one value. Each bucket is a fixed window that
opens with its first request, as discord.py expects (it reads ``-Remaining`` and
``-Reset-After`` and waits for the reset once a bucket is spent).

Every number is a field of :class:`RateLimits`; ``RateLimits.off()`` lifts them all (a test
that needs unlimited traffic says so by passing it).
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# (requests, seconds); None: no limit
Window = tuple[int, float] | None

_INTERACTION = re.compile(r"^/(interactions/\d+/[^/]+/callback|webhooks/\d+/[^/]+(/.*)?)$")


@dataclass(frozen=True)
class RouteBucket:
    """A per-route limit: ``method`` on paths matching ``pattern``, counted separately for
    each value of the named group ``resource`` (the channel), ``limit`` per ``per`` s."""

    name: str
    method: str
    pattern: re.Pattern[str]
    limit: int
    per: float

    @property
    def bucket_id(self) -> str:
        """``X-RateLimit-Bucket``: one id for the route, whatever the channel."""
        return hashlib.sha1(self.name.encode()).hexdigest()[:16]

    def resource(self, method: str, path: str) -> str | None:
        """The top-level resource this request counts against, or None if not this bucket."""
        if method != self.method:
            return None
        found = self.pattern.match(path)
        if found is None:
            return None
        return found.groupdict().get("resource") or ""


@dataclass(frozen=True)
class RateLimits:
    """The fake's limits. ``global_limit`` requests per ``global_per`` s over every bot-token
    request (interaction routes exempt); ``message_posts`` / ``message_edits`` per channel and
    ``dm_opens`` for the whole bot, each (requests, seconds) or None for no limit."""

    enabled: bool = True
    global_limit: int = 50
    global_per: float = 1.0
    message_posts: Window = (5, 5.0)
    message_edits: Window = (5, 5.0)
    dm_opens: Window = (10, 10.0)

    @classmethod
    def off(cls) -> RateLimits:
        """No limit at all: for a test that needs unlimited traffic (and says why)."""
        return cls(enabled=False)

    def buckets(self) -> list[RouteBucket]:
        out = []
        for name, method, pattern, window in (
            (
                "messages.create",
                "POST",
                r"^/channels/(?P<resource>\d+)/messages$",
                self.message_posts,
            ),
            (
                "messages.edit",
                "PATCH",
                r"^/channels/(?P<resource>\d+)/messages/\d+$",
                self.message_edits,
            ),
            ("users.dm_open", "POST", r"^/users/@me/channels$", self.dm_opens),
        ):
            if window is not None:
                limit, per = window
                out.append(RouteBucket(name, method, re.compile(pattern), limit, per))
        return out


def is_interaction_route(path: str) -> bool:
    """The callback, or a webhook route of an interaction token: not bound by the global
    limit (and sent without the bot token)."""
    return _INTERACTION.match(path) is not None


@dataclass
class _Window:
    """A fixed window: opened by its first request, ``count`` requests in it so far."""

    opened: float
    per: float
    count: int = 0

    def ends(self) -> float:
        return self.opened + self.per


@dataclass(frozen=True)
class Verdict:
    """What the limits say of one request: the headers to add to its answer, and, if it is
    over a limit, the 429's body (the request is then not handled)."""

    headers: dict[str, str]
    refused: dict[str, Any] | None = None
    scope: str | None = None  # "user" (a route's bucket) or "global", when refused


@dataclass
class Limiter:
    """The fake's counters. ``check`` is asked once per routed request, before its handler."""

    settings: RateLimits = field(default_factory=RateLimits)
    clock: Callable[[], float] = time.monotonic
    wall: Callable[[], float] = time.time
    _global: _Window | None = None
    _windows: dict[tuple[str, str], _Window] = field(default_factory=dict)
    refused: list[tuple[str, str, str]] = field(default_factory=list)  # (scope, method, path)

    def configure(self, settings: RateLimits) -> None:
        """New limits from now on (the windows counted so far are forgotten)."""
        self.settings = settings
        self._global = None
        self._windows.clear()

    def _window(self, current: _Window | None, per: float, now: float) -> _Window:
        if current is None or now >= current.ends():
            return _Window(now, per)
        return current

    def check(self, method: str, path: str, bot_token: bool) -> Verdict:
        """Count the request (if it is within its limits) and answer what to send back."""
        settings = self.settings
        if not settings.enabled:
            return Verdict({})
        now = self.clock()
        headers: dict[str, str] = {}
        bucket = next((b for b in settings.buckets() if b.resource(method, path) is not None), None)
        window = None
        if bucket is not None:
            key = (bucket.name, bucket.resource(method, path) or "")
            window = self._windows[key] = self._window(self._windows.get(key), bucket.per, now)
            if window.count >= bucket.limit:
                headers = self._bucket_headers(bucket, window, now)
                return self._refuse("user", method, path, window.ends() - now, headers)
        if bot_token and not is_interaction_route(path):
            self._global = self._window(self._global, settings.global_per, now)
            if self._global.count >= settings.global_limit:
                return self._refuse("global", method, path, self._global.ends() - now, {})
            self._global.count += 1
        if bucket is not None and window is not None:
            window.count += 1
            headers = self._bucket_headers(bucket, window, now)
        return Verdict(headers)

    def _bucket_headers(self, bucket: RouteBucket, window: _Window, now: float) -> dict[str, str]:
        reset_after = max(0.0, window.ends() - now)
        return {
            "X-RateLimit-Limit": str(bucket.limit),
            "X-RateLimit-Remaining": str(max(0, bucket.limit - window.count)),
            "X-RateLimit-Reset": f"{self.wall() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": bucket.bucket_id,
        }

    def _refuse(
        self, scope: str, method: str, path: str, retry_after: float, headers: dict[str, str]
    ) -> Verdict:
        retry_after = round(max(0.001, retry_after), 3)
        is_global = scope == "global"
        headers = {
            **headers,
            "Retry-After": str(max(1, math.ceil(retry_after))),
            "X-RateLimit-Scope": scope,
            "Via": "1.1 google",  # as Discord's; discord.py reads a 429 without it as a ban
        }
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        body = {
            "message": "You are being rate limited.",
            "retry_after": retry_after,
            "global": is_global,
        }
        self.refused.append((scope, method, path))
        return Verdict(headers, body, scope)
