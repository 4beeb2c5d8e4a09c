"""Best-effort delivery: one way to send or edit a message that may be refused (missing
permissions, a deleted message, a user who takes no DMs, Discord having a bad moment).

``attempt`` awaits the call and logs a failure once, then gives the outcome back instead of
raising, so a caller that must act on a failure (a DM refused with code 50007, a showdown
to send again without its picture) reads ``outcome.error``; the others ignore it."""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import discord

log = logging.getLogger("capsa.delivery")

T = TypeVar("T")

DM_CLOSED = 50007  # Discord: cannot send messages to this user


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """What a delivery gave: the result (a message, or None for an edit), or the error."""

    value: T | None = None
    error: discord.HTTPException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def token_gone(self) -> bool:
        """Discord no longer takes the interaction token it went through (expired, or an
        unknown webhook or interaction: 404; an invalid token: 401)."""
        return isinstance(self.error, discord.NotFound) or (
            self.error is not None and self.error.status == 401
        )

    @property
    def dm_refused(self) -> bool:
        """The user takes no DMs from the bot (403 or code 50007)."""
        return isinstance(self.error, discord.Forbidden) or (
            self.error is not None and self.error.code == DM_CLOSED
        )


async def send_to(channel: Awaitable[discord.abc.Messageable], **kwargs: Any) -> discord.Message:
    """Send once the channel is open: opening a DM channel can be refused as well."""
    return await (await channel).send(**kwargs)


async def attempt(
    call: Awaitable[T],
    failure: str | None = None,
    *args: object,
    level: int = logging.WARNING,
    trace: bool = False,
) -> Outcome[T]:
    """Await ``call``; on a Discord refusal, log ``failure % args`` at ``level`` (with the
    traceback if ``trace``; None: the caller logs it, having read the outcome) and return
    it in the outcome. Other exceptions are not Discord's answer and propagate."""
    try:
        return Outcome(value=await call)
    except discord.HTTPException as error:
        if failure is not None:
            log.log(level, failure, *args, exc_info=error if trace else None)
        return Outcome(error=error)
