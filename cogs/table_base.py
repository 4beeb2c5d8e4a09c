"""The table manager's shared parts: per-table locks and timers, languages, the solver,
and the pure helpers that turn stored rounds into engine objects."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from concurrent.futures import BrokenExecutor
from typing import TYPE_CHECKING

import discord

from capsa.cards import parse_cards
from capsa.i18n import lang_from_locale
from capsa.presets import get_preset
from capsa.scoring import RoundResult, Seat, score_round
from capsa.solver import arrange_async
from data.repository import (
    RoundScore,
)

if TYPE_CHECKING:
    from bot import CapsaBot

log = logging.getLogger(__name__)

LOBBY_SECONDS = 600
NEXT_ROUND_SECONDS = 30


def seat_names(match) -> dict[int, str]:  # noqa: ANN001
    """Engine names must be unique at a table: repeat names get their seat number."""
    names: dict[int, str] = {}
    seen: set[str] = set()
    for seat in sorted(match.seats, key=lambda s: s.seat):
        name = seat.name if seat.name not in seen else f"{seat.name} ({seat.seat + 1})"
        seen.add(name)
        names[seat.seat] = name
    return names


def preset_of(match):  # noqa: ANN001, ANN201
    return get_preset(match.preset, match.options or None)


def round_result(match, rnd) -> RoundResult:  # noqa: ANN001
    """Score a round from its stored settings (deterministic, so it can be rebuilt)."""
    names = seat_names(match)
    seats = []
    for hand in sorted(rnd.hands, key=lambda h: h.seat):
        seats.append(
            Seat(
                names[hand.seat],
                tuple(parse_cards(hand.back)),
                tuple(parse_cards(hand.middle)),
                tuple(parse_cards(hand.front)),
                declare=hand.declare,
                foul=hand.fouled and hand.auto,
            )
        )
    return score_round(seats, preset_of(match))


def round_scores(result: RoundResult) -> list[RoundScore]:
    scores = []
    for index, player in enumerate(result.players):
        given = sum(1 for p in result.pairs_of(index) if p.sweep == index and p.kind == "rows")
        taken = sum(
            1
            for p in result.pairs_of(index)
            if p.sweep is not None and p.sweep != index and p.kind == "rows"
        )
        best = None
        if player.rows is not None and not player.fouled:
            position, row = max(
                zip(("back", "middle", "front"), player.rows, strict=True),
                key=lambda pr: pr[1].strength,
            )
            best = {
                "category": row.category,
                "cards": [c.code for c in row.cards],
                "strength": row.strength,
                "position": position,
            }
        scores.append(
            RoundScore(
                seat=index,
                points=player.total,
                fouled=player.fouled,
                special=player.special,
                sweeps_given=given,
                sweeps_taken=taken,
                table_sweep=result.table_sweeper == index,
                best_row=best,
            )
        )
    return scores


class TableBase:
    def __init__(self, bot: CapsaBot) -> None:
        self.bot = bot
        self.locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.timers: dict[int, asyncio.Task] = {}
        self.lobby_seconds = LOBBY_SECONDS
        self.next_round_seconds = NEXT_ROUND_SECONDS
        self._specials: dict[tuple[int, int], str | None] = {}
        self._dm_channels: dict[int, int] = {}  # user id -> DM channel id
        self._tasks: set[asyncio.Task] = set()
        self._status_locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)

    @property
    def repo(self):  # noqa: ANN201
        return self.bot.repo

    # --- helpers -----------------------------------------------------------------------

    async def user_lang(self, interaction: discord.Interaction) -> str:
        if interaction.guild_id:
            settings = await self.repo.guild_settings(interaction.guild_id)
            if settings.language in ("en", "id"):
                return settings.language
        return lang_from_locale(str(interaction.locale))

    def channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id)

    def schedule(self, match_id: int, delay: float, job: Callable[[], Awaitable[None]]) -> None:
        """One pending timer per table; a new one replaces the old."""
        old = self.timers.get(match_id)
        if old is not None and old is not asyncio.current_task():
            old.cancel()

        async def run() -> None:
            try:
                await asyncio.sleep(max(0.0, delay))
                await job()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("table %s: timed job failed", match_id)
            finally:
                if self.timers.get(match_id) is asyncio.current_task():
                    del self.timers[match_id]

        self.timers[match_id] = asyncio.create_task(run(), name=f"capsa-table-{match_id}")

    def spawn(self, job: Awaitable[None]) -> None:
        """Run a job beside the caller, keeping a reference and logging its failure."""
        task = asyncio.ensure_future(job)
        self._tasks.add(task)

        def done(finished: asyncio.Task) -> None:
            self._tasks.discard(finished)
            if not finished.cancelled() and finished.exception() is not None:
                log.error("background job failed", exc_info=finished.exception())

        task.add_done_callback(done)

    async def stop(self) -> None:
        """At shutdown: end every timer and background job before the database closes.
        Whatever they were doing resumes from the database at the next start."""
        tasks = [*self.timers.values(), *self._tasks]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def cancel_timer(self, match_id: int) -> None:
        task = self.timers.pop(match_id, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def is_manager(self, interaction: discord.Interaction, match) -> bool:  # noqa: ANN001
        perms = interaction.permissions
        return interaction.user.id == match.host_id or bool(perms and perms.manage_guild)

    async def arrange(self, cards, preset, level: str, opponents: int, seed: int | None):  # noqa: ANN001, ANN201
        """The solver, off the event loop; a dead worker pool is replaced once."""
        for attempt in (1, 2):
            try:
                return await arrange_async(
                    cards, preset, level, opponents, seed, executor=self.bot.executor
                )
            except BrokenExecutor:
                if attempt == 2:
                    raise
                log.error("the solver's worker pool broke; starting a new one")
                self.bot.renew_executor()
