"""What one part of a table needs of another, as protocols: the parts are assembled in one
place (``cogs.capsa.build_tables``) and each names the others only by what it calls, so no
part imports another's module (not even for its type)."""

from __future__ import annotations

from typing import Protocol

from capsa.builder import Draft
from cogs.screens.base import Screen
from cogs.worker_pool import Priority
from data.repository import MatchRecord, RoundRecord


class RoundsPart(Protocol):
    """The rounds, as the lobby (a cancel) and the hand builder (a submit) see them."""

    async def close_round(self, match_id: int) -> None: ...

    async def refresh_status(self, match: MatchRecord, rnd: RoundRecord) -> None: ...

    async def close_status_message(self, match: MatchRecord) -> None: ...


class BuilderPart(Protocol):
    """The builders' display, as the rounds (the DMs of a deal) see it."""

    async def screen(
        self,
        match: MatchRecord,
        rnd: RoundRecord,
        seat: int,
        draft: Draft,
        lang: str,
        note: str | None = None,
        priority: Priority = Priority.CLICK,
    ) -> Screen: ...

    def forget(self, rnd: RoundRecord) -> None: ...


class CoachPart(Protocol):
    """The coach, as the rounds see it: told once a showdown is out."""

    def after_showdown(self, match: MatchRecord, rnd: RoundRecord) -> None: ...
