"""Tables in channels: lobby, deal, hand builders, countdown, showdown, next round, resume.

A table's state lives in the repository (and in components' custom_ids), so a restarted bot
picks every table up where it was. The parts that run tables are objects of their own, each
in its module; the Capsa cog (cogs/capsa.py) assembles them once and holds them here:

* ``TableServices`` (cogs/table_base.py): the repository, channels, the flow (its locks), the
  worker processes and the ``Scheduler`` (cogs/scheduler.py) of timers and background jobs;
* ``TableFlow`` (cogs/flow.py): how a table moves on: the next step from ``cogs/life.py``,
  done when due by the part that registered it, the table's clock and watchdog timers;
* ``Rounds`` (cogs/rounds.py): the steps deal, prepare, close, show, finish, standings;
* ``Coach`` (cogs/coach.py): each person's hand reviewed after the showdown, and "Review
  my hand";
* ``HandBuilder`` (cogs/hand_builder.py): the builder's clicks; it hands a complete round to
  the rounds, and both draw builders with one ``BuilderDisplay``;
* ``Lobby`` (cogs/lobby.py): open, join, leave, computers, start (a round), cancel, expire;
* ``Daily`` (cogs/daily.py): the daily hand, its builder and its board.

``router`` holds the handler of every kind of click (``cogs.components``' routes): the
components (``cogs/items.py``) find it through the loaded cog, and know no part.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING

import discord
from discord.ext.commands.bot import BotBase  # commands.Bot and commands.AutoShardedBot

from cogs import board, components, history
from cogs.components import CAPSA_COG
from cogs.replies import Replies

if TYPE_CHECKING:
    from cogs.coach import Coach
    from cogs.daily import Daily
    from cogs.flow import TableFlow
    from cogs.hand_builder import BuilderDisplay, HandBuilder
    from cogs.lobby import Lobby
    from cogs.rounds import Rounds
    from cogs.scheduler import Scheduler
    from cogs.table_base import TableServices

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Tables:
    """Every part that runs the bot's tables, assembled once (``cogs.capsa.build_tables``)."""

    scheduler: Scheduler
    flow: TableFlow
    services: TableServices
    display: BuilderDisplay
    coach: Coach
    rounds: Rounds
    builder: HandBuilder
    lobby: Lobby
    daily: Daily

    @cached_property
    def router(self) -> components.Router:
        """Who answers each kind of click."""
        repo = self.services.repo
        router = components.Router(Replies(repo))
        router.register(
            components.LOBBY, lambda ix, click: self.lobby.action(ix, click.match_id, click.action)
        )
        router.register(
            components.REMATCH, lambda ix, click: self.lobby.rematch(ix, click.match_id)
        )
        router.register(components.SHOW_HAND, self.builder.show_hand)
        router.register(components.BUILDER, self.builder.action)
        router.register(
            components.NEXT_ROUND,
            lambda ix, click: self.rounds.next_pressed(ix, click.match_id, click.number),
        )
        router.register(components.REVIEW, self.coach.pressed)
        router.register(components.LEADERBOARD, partial(board.turn_leaderboard, repo))
        router.register(components.HISTORY, partial(history.turn_history, repo))
        router.register(components.REPLAY, partial(history.step_replay, self.services))
        router.register(components.DAILY, self.daily.action)
        return router

    async def resume(self) -> None:
        """Pick every open table up again: lobbies' expiry (and the lobby message of a table
        that has started), countdowns, pending showdowns; and the coach's reviews of recent
        rounds that have none yet."""
        for match in await self.services.repo.unfinished_matches():
            try:
                await self.lobby.resume(match)
                await self.flow.resume(match.id)
            except Exception:
                log.exception("table %s: could not resume", match.id)
        await self.coach.resume()
        self.scheduler.start()  # from now on this process claims due timers

    async def stop(self) -> None:
        """At shutdown: end every timer and background job before the database closes."""
        await self.scheduler.stop()


def tables_of(client: discord.Client) -> Tables:
    """The tables of the loaded Capsa cog."""
    cog = client.get_cog(CAPSA_COG) if isinstance(client, BotBase) else None
    tables = getattr(cog, "tables", None)
    if not isinstance(tables, Tables):
        raise RuntimeError(f"the {CAPSA_COG} cog is not loaded")
    return tables
