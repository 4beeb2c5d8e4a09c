"""The table manager's shared parts: per-table locks and timers, languages, the solver,
and the pure helpers that turn stored rounds into engine objects."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from concurrent.futures import BrokenExecutor, Executor
from typing import TYPE_CHECKING, Any, TypeVar

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

T = TypeVar("T")

LOBBY_SECONDS = 600
NEXT_ROUND_SECONDS = 30
DM_REFUSED = 0  # stored as a hand's DM message id: the DM was refused and the channel told
RETRY_SECONDS = (5.0, 20.0, 60.0)  # a timed job that failed runs again after these pauses

# Priorities of the work sent to the worker processes, most urgent first: what the whole table
# waits for (the showdown), then what starts a round, then one player's own clicks.
SHOWDOWN, DEAL, CLICK = 0, 1, 2


class WorkerGate:
    """Lets at most ``slots`` jobs into the worker pool at once; the rest wait here, most
    urgent first, then first come. The pool's own queue is first come first served, so
    without this a showdown picture would wait behind every pending hand redraw."""

    def __init__(self, slots: int) -> None:
        self.free = max(1, slots)
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    async def run(self, priority: int, job: Callable[[], Awaitable[T]]) -> T:
        if self.free > 0 and not self._waiting:
            self.free -= 1
        else:
            turn = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiting, (priority, next(self._order), turn))
            try:
                await turn
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    self._release()  # handed a slot just as we were cancelled: pass it on
                raise
        try:
            return await job()
        finally:
            self._release()

    def _release(self) -> None:
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():  # skip waiters that were cancelled
                turn.set_result(None)
                return
        self.free += 1


def seat_names(match) -> dict[int, str]:
    """Engine names must be unique at a table: repeat names get their seat number."""
    names: dict[int, str] = {}
    seen: set[str] = set()
    for seat in sorted(match.seats, key=lambda s: s.seat):
        name = seat.name if seat.name not in seen else f"{seat.name} ({seat.seat + 1})"
        seen.add(name)
        names[seat.seat] = name
    return names


def preset_of(match):
    return get_preset(match.preset, match.options or None)


def round_result(match, rnd) -> RoundResult:
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
    """The engine's per-player figures as the repository's ledger rows."""
    scores = []
    for index, player in enumerate(result.players):
        given, taken = result.sweeps_of(index)
        best = result.best_row(index)
        scores.append(
            RoundScore(
                seat=index,
                points=player.total,
                fouled=player.fouled,
                special=player.special,
                sweeps_given=given,
                sweeps_taken=taken,
                table_sweep=result.table_sweeper == index,
                best_row=None
                if best is None
                else {
                    "category": best[1].category,
                    "cards": [c.code for c in best[1].cards],
                    "strength": best[1].strength,
                    "position": best[0],
                },
            )
        )
    return scores


class TableBase:
    def __init__(self, bot: CapsaBot, worker_slots: int = 2) -> None:
        self.bot = bot
        self.gate = WorkerGate(worker_slots)
        self.locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.timers: dict[int, asyncio.Task] = {}
        self.lobby_seconds = LOBBY_SECONDS
        self.next_round_seconds = NEXT_ROUND_SECONDS
        self.retry_seconds = RETRY_SECONDS
        self._specials: dict[tuple[int, int], str | None] = {}
        self._dm_channels: dict[int, int] = {}  # user id -> DM channel id
        self._tasks: set[asyncio.Task] = set()
        self._status_locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)

    @property
    def repo(self):
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
        """One pending timer per table; a new one replaces the old. Every timed job is
        idempotent (deal, close a round, expire a lobby), so one that fails (a database
        error, say) runs again after each of ``retry_seconds`` before it gives up until the
        next start."""
        old = self.timers.get(match_id)
        if old is not None and old is not asyncio.current_task():
            old.cancel()

        async def run() -> None:
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
                    me = asyncio.current_task()
                    if self.timers.get(match_id) not in (None, me):
                        return  # the job set a newer timer before it failed: that one goes on
                    self.timers[match_id] = me  # (the job may have dropped its own entry)
                    await asyncio.sleep(pause)
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

    def is_manager(self, interaction: discord.Interaction, match) -> bool:
        perms = interaction.permissions
        return interaction.user.id == match.host_id or bool(perms and perms.manage_guild)

    async def _with_pool(self, call: Callable[[Executor], Awaitable[T]]) -> T:
        """``call(pool)``; if the pool is dead (a worker killed by the system, say), once
        more on a new one."""
        for attempt in (1, 2):
            try:
                return await call(self.bot.executor)
            except BrokenExecutor:
                if attempt == 2:
                    raise
                log.error("the worker pool broke; starting a new one")
                self.bot.renew_executor()
        raise AssertionError("unreachable")

    async def in_worker(self, priority: int, fn: Callable[..., T], *args: Any) -> T:
        """CPU work (pictures, special checks) in the worker processes, in ``priority``
        order: off the event loop and off this process's GIL."""
        loop = asyncio.get_running_loop()
        return await self.gate.run(
            priority,
            lambda: self._with_pool(lambda pool: loop.run_in_executor(pool, fn, *args)),
        )

    async def arrange(
        self,
        cards,
        preset,
        level: str,
        opponents: int,
        seed: int | None,
        *,
        priority: int = CLICK,
    ):
        """The solver, in the worker processes, in ``priority`` order."""
        return await self.gate.run(
            priority,
            lambda: self._with_pool(
                lambda pool: arrange_async(cards, preset, level, opponents, seed, executor=pool)
            ),
        )

    async def suggest(
        self,
        match,
        rnd,
        seat: int,
        level: str = "normal",
        *,
        priority: int = CLICK,
    ):
        """The solver's setting of a seat's dealt cards, seeded per seat: what Auto-arrange
        suggests, what a late player gets at the deadline and what a computer plays."""
        return await self.arrange(
            parse_cards(rnd.hands[seat].cards),
            preset_of(match),
            level,
            len(match.seats) - 1,
            rnd.seed + seat,
            priority=priority,
        )
