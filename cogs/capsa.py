"""The ``/capsa`` command group, and the cog that owns the bot's tables.

The cog assembles the parts that run tables (``build_tables``), registers the persistent
components, picks every open table up again when it loads and stops the tables' timers
when it unloads (before the bot closes the database). The commands are thin: each hands
over to the lobby, the hand builder or the board.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import Choice, Range
from discord.ext import commands

from capsa import settings
from capsa.rules_text import TOPICS
from capsa.settings import AUTO_LANGUAGE
from cogs import board, history, preferences
from cogs.coach import Coach
from cogs.components import CAPSA_COG
from cogs.daily import Daily, DailyDay
from cogs.flow import TableFlow
from cogs.hand_builder import BuilderDisplay, HandBuilder
from cogs.items import DYNAMIC_ITEMS, answer_stale
from cogs.lobby import Lobby
from cogs.rounds import Rounds
from cogs.scheduler import Scheduler
from cogs.screens.preferences import DECK_KEYS, HANDS_KEYS
from cogs.server_settings import (
    OPTION_SET_CHOICES,
    OPTIONS_OPTION,
    setting_choices,
    show_settings,
    with_server_settings,
)
from cogs.table_base import TableServices
from cogs.tables import Tables
from cogs.translator import tr

if TYPE_CHECKING:
    from bot import CapsaBot, CapsaInteraction
    from cogs.worker_pool import WorkerPool
    from data.repository import Repository

# The options' choices and ranges come from capsa.settings' table (/capsa settings has one
# option for each server setting, made by cogs.server_settings.with_server_settings).
PRESET_CHOICES = setting_choices(settings.PRESET)
LEVEL_CHOICES = setting_choices(settings.BOT_LEVEL)
ROUND_CHOICES = setting_choices(settings.ROUNDS)
# /capsa me: "auto" is the person's own Discord language
ME_LANGUAGE_CHOICES = [
    Choice(name=tr("choice.me_lang_auto" if v == AUTO_LANGUAGE else f"choice.{v}"), value=v)
    for v in settings.LANGUAGE.choices
]
DECK_CHOICES = [Choice(name=tr(key), value=deck.value) for deck, key in DECK_KEYS.items()]
HANDS_CHOICES = [Choice(name=tr(key), value=place.value) for place, key in HANDS_KEYS.items()]
Seats = Range[int, *settings.SEATS.bounds]
Countdown = Range[int, *settings.COUNTDOWN.bounds]
MatchNumber = Range[int, 1, 2**53 - 1]  # Discord's integer options end at 2**53


def build_tables(
    client: discord.Client, repo: Repository, workers: WorkerPool, *, coach_reviews: bool = True
) -> Tables:
    """The one place the parts of the tables are made and wired together.
    ``coach_reviews``: review people's hands after every showdown (else only when asked)."""
    shards = ",".join(str(i) for i in getattr(client, "shard_ids", None) or ())
    scheduler = Scheduler(repo, shards=shards)
    flow = TableFlow(repo, scheduler)
    services = TableServices(client, repo, workers, flow)
    display = BuilderDisplay(services)
    coach = Coach(services, after_every_showdown=coach_reviews)
    rounds = Rounds(services, display, coach)
    lobby = Lobby(services, rounds)
    rounds.register()
    lobby.register()
    return Tables(
        scheduler=scheduler,
        flow=flow,
        services=services,
        display=display,
        coach=coach,
        rounds=rounds,
        builder=HandBuilder(services, display, rounds),
        lobby=lobby,
        daily=Daily(services),
    )


class Capsa(
    commands.GroupCog, name=CAPSA_COG, group_name="capsa", group_description=tr("cmd.capsa")
):
    def __init__(self, bot: CapsaBot) -> None:
        self.bot = bot
        self.tables = build_tables(bot, bot.repo, bot.workers, coach_reviews=bot.config.coach)

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(*DYNAMIC_ITEMS)
        # matches finished before ratings existed (or whose rating a crash cut short)
        await self.bot.repo.rate_finished_matches()
        await self.tables.resume()

    async def cog_unload(self) -> None:
        await self.tables.stop()
        self.bot.remove_dynamic_items(*DYNAMIC_ITEMS)

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """A click on a component its message no longer shows is answered too
        (``cogs.items.answer_stale``), not dropped."""
        await answer_stale(interaction)

    @app_commands.command(name=tr("cmd.new"), description=tr("cmd.new.desc"))
    @app_commands.rename(
        seats=tr("opt.seats"),
        rounds=tr("opt.rounds"),
        rules=tr("opt.rules"),
        countdown=tr("opt.countdown"),
        bots=tr("opt.bots"),
        options=tr(OPTIONS_OPTION),
    )
    @app_commands.describe(
        seats=tr("opt.seats.desc"),
        rounds=tr("opt.rounds.desc"),
        rules=tr("opt.rules.desc"),
        countdown=tr("opt.countdown.desc"),
        bots=tr("opt.bots.desc"),
        options=tr("opt.options.desc"),
    )
    @app_commands.choices(rules=PRESET_CHOICES, bots=LEVEL_CHOICES, options=OPTION_SET_CHOICES)
    @app_commands.choices(rounds=ROUND_CHOICES)
    async def new(
        self,
        interaction: CapsaInteraction,
        seats: Seats | None = None,
        rounds: int | None = None,
        rules: str | None = None,
        countdown: Countdown | None = None,
        bots: str | None = None,
        options: str | None = None,
    ) -> None:
        await self.tables.lobby.open_table(
            interaction, seats, rounds, rules, countdown, bots, options
        )

    @app_commands.command(name=tr("cmd.hand"), description=tr("cmd.hand.desc"))
    async def hand(self, interaction: CapsaInteraction) -> None:
        await self.tables.builder.open(interaction)

    @app_commands.command(name=tr("cmd.cancel"), description=tr("cmd.cancel.desc"))
    async def cancel(self, interaction: CapsaInteraction) -> None:
        await self.tables.lobby.cancel(interaction)

    @app_commands.command(name=tr("cmd.leaderboard"), description=tr("cmd.leaderboard.desc"))
    @app_commands.rename(sort=tr("opt.sort"), period=tr("opt.period"))
    @app_commands.describe(sort=tr("opt.sort.desc"), period=tr("opt.period.desc"))
    @app_commands.choices(
        sort=[Choice(name=tr(f"choice.{s}"), value=s) for s in board.SORTS],
        period=[Choice(name=tr(f"choice.{p}"), value=p) for p in board.PERIODS],
    )
    async def leaderboard(
        self, interaction: CapsaInteraction, sort: str = "points", period: str = "all"
    ) -> None:
        await board.show_leaderboard(interaction, self.tables.services.repo, sort, period, 0)

    @app_commands.command(name=tr("cmd.stats"), description=tr("cmd.stats.desc"))
    @app_commands.rename(member=tr("opt.member"))
    @app_commands.describe(member=tr("opt.member.desc"))
    async def stats(
        self, interaction: CapsaInteraction, member: discord.User | None = None
    ) -> None:
        await board.show_stats(
            interaction,
            self.tables.services.repo,
            member or interaction.user,
            today=self.tables.daily.today(),
        )

    @app_commands.command(name=tr("cmd.history"), description=tr("cmd.history.desc"))
    @app_commands.rename(member=tr("opt.member"))
    @app_commands.describe(member=tr("opt.history_member.desc"))
    async def history(
        self, interaction: CapsaInteraction, member: discord.User | None = None
    ) -> None:
        who = member.id if member is not None else None
        await history.show_history(interaction, self.tables.services.repo, who, 0)

    @app_commands.command(name=tr("cmd.replay"), description=tr("cmd.replay.desc"))
    @app_commands.rename(match=tr("opt.match"))
    @app_commands.describe(match=tr("opt.match.desc"))
    async def replay(self, interaction: CapsaInteraction, match: MatchNumber) -> None:
        await history.open_replay(interaction, self.tables.services, match)

    @app_commands.command(name=tr("cmd.rules"), description=tr("cmd.rules.desc"))
    @app_commands.rename(topic=tr("opt.topic"))
    @app_commands.describe(topic=tr("opt.topic.desc"))
    @app_commands.choices(topic=[Choice(name=tr(f"rules.topic.{t}"), value=t) for t in TOPICS])
    async def rules(self, interaction: CapsaInteraction, topic: str = "overview") -> None:
        await board.show_rules(interaction, self.tables.services.repo, topic)

    @app_commands.command(name=tr("cmd.settings"), description=tr("cmd.settings.desc"))
    @with_server_settings
    async def settings(self, interaction: CapsaInteraction, **chosen: object) -> None:
        await show_settings(interaction, self.tables.services.repo, chosen)

    @app_commands.command(name=tr("cmd.me"), description=tr("cmd.me.desc"))
    @app_commands.rename(language=tr("opt.language"), deck=tr("opt.deck"), hands=tr("opt.hands"))
    @app_commands.describe(
        language=tr("opt.me_language.desc"), deck=tr("opt.deck.desc"), hands=tr("opt.hands.desc")
    )
    @app_commands.choices(language=ME_LANGUAGE_CHOICES, deck=DECK_CHOICES, hands=HANDS_CHOICES)
    async def me(
        self,
        interaction: CapsaInteraction,
        language: str | None = None,
        deck: str | None = None,
        hands: str | None = None,
    ) -> None:
        services = self.tables.services
        await preferences.show_preferences(
            interaction, services.repo, services.workers, language, deck, hands
        )

    daily = app_commands.Group(name=tr("cmd.daily"), description=tr("cmd.daily.desc"))

    @daily.command(name=tr("cmd.daily_play"), description=tr("cmd.daily_play.desc"))
    async def daily_play(self, interaction: CapsaInteraction) -> None:
        await self.tables.daily.open(interaction)

    @daily.command(name=tr("cmd.daily_board"), description=tr("cmd.daily_board.desc"))
    @app_commands.rename(day=tr("opt.day"))
    @app_commands.describe(day=tr("opt.day.desc"))
    @app_commands.choices(
        day=[
            Choice(name=tr("choice.today"), value=DailyDay.TODAY.value),
            Choice(name=tr("choice.yesterday"), value=DailyDay.YESTERDAY.value),
        ]
    )
    async def daily_board(self, interaction: CapsaInteraction, day: str = DailyDay.TODAY) -> None:
        await self.tables.daily.board(interaction, DailyDay(day))


async def setup(bot: CapsaBot) -> None:
    await bot.add_cog(Capsa(bot))
