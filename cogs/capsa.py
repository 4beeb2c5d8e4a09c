"""The ``/capsa`` command group. Thin: each command hands over to the table manager or board."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import Choice, Range
from discord.ext import commands

from capsa import settings
from capsa.i18n import LANGS
from capsa.presets import PRESETS
from capsa.rules_text import TOPICS
from cogs import board
from cogs.translator import tr

if TYPE_CHECKING:
    from bot import CapsaBot

PRESET_CHOICES = [Choice(name=name, value=name) for name in PRESETS]
LEVEL_CHOICES = [Choice(name=tr(f"choice.{lv}"), value=lv) for lv in settings.LEVELS]
ROUND_CHOICES = [Choice(name=str(n), value=n) for n in settings.ROUND_CHOICES]
TIMEOUT_CHOICES = [
    Choice(name=tr(f"choice.{'auto_arrange' if a == 'auto' else a}"), value=a)
    for a in settings.TIMEOUT_ACTIONS
]
LANGUAGE_CHOICES = [
    Choice(name=tr(f"choice.{'lang_auto' if v == 'auto' else v}"), value=v)
    for v in (settings.AUTO_LANGUAGE, *LANGS)
]
Seats = Range[int, *settings.SEAT_RANGE]
Countdown = Range[int, *settings.COUNTDOWN_RANGE]


class Capsa(commands.GroupCog, group_name="capsa", group_description=tr("cmd.capsa")):
    def __init__(self, bot: CapsaBot) -> None:
        self.bot = bot

    @app_commands.command(name=tr("cmd.new"), description=tr("cmd.new.desc"))
    @app_commands.rename(
        seats=tr("opt.seats"),
        rounds=tr("opt.rounds"),
        rules=tr("opt.rules"),
        countdown=tr("opt.countdown"),
        bots=tr("opt.bots"),
    )
    @app_commands.describe(
        seats=tr("opt.seats.desc"),
        rounds=tr("opt.rounds.desc"),
        rules=tr("opt.rules.desc"),
        countdown=tr("opt.countdown.desc"),
        bots=tr("opt.bots.desc"),
    )
    @app_commands.choices(rules=PRESET_CHOICES, bots=LEVEL_CHOICES, rounds=ROUND_CHOICES)
    async def new(
        self,
        interaction: discord.Interaction,
        seats: Seats | None = None,
        rounds: int | None = None,
        rules: str | None = None,
        countdown: Countdown | None = None,
        bots: str | None = None,
    ) -> None:
        await self.bot.tables.open_table(interaction, seats, rounds, rules, countdown, bots)

    @app_commands.command(name=tr("cmd.hand"), description=tr("cmd.hand.desc"))
    async def hand(self, interaction: discord.Interaction) -> None:
        await self.bot.tables.open_builder(interaction)

    @app_commands.command(name=tr("cmd.cancel"), description=tr("cmd.cancel.desc"))
    async def cancel(self, interaction: discord.Interaction) -> None:
        await self.bot.tables.cancel(interaction)

    @app_commands.command(name=tr("cmd.leaderboard"), description=tr("cmd.leaderboard.desc"))
    @app_commands.rename(sort=tr("opt.sort"), period=tr("opt.period"))
    @app_commands.describe(sort=tr("opt.sort.desc"), period=tr("opt.period.desc"))
    @app_commands.choices(
        sort=[Choice(name=tr(f"choice.{s}"), value=s) for s in board.SORTS],
        period=[Choice(name=tr(f"choice.{p}"), value=p) for p in board.PERIODS],
    )
    async def leaderboard(
        self, interaction: discord.Interaction, sort: str = "points", period: str = "all"
    ) -> None:
        await board.show_leaderboard(interaction, sort, period, 0)

    @app_commands.command(name=tr("cmd.stats"), description=tr("cmd.stats.desc"))
    @app_commands.rename(member=tr("opt.member"))
    @app_commands.describe(member=tr("opt.member.desc"))
    async def stats(
        self, interaction: discord.Interaction, member: discord.User | None = None
    ) -> None:
        await board.show_stats(interaction, member or interaction.user)

    @app_commands.command(name=tr("cmd.rules"), description=tr("cmd.rules.desc"))
    @app_commands.rename(topic=tr("opt.topic"))
    @app_commands.describe(topic=tr("opt.topic.desc"))
    @app_commands.choices(topic=[Choice(name=tr(f"rules.topic.{t}"), value=t) for t in TOPICS])
    async def rules(self, interaction: discord.Interaction, topic: str = "overview") -> None:
        await board.show_rules(interaction, topic)

    @app_commands.command(name=tr("cmd.settings"), description=tr("cmd.settings.desc"))
    @app_commands.rename(
        rules=tr("opt.rules"),
        rounds=tr("opt.rounds"),
        countdown=tr("opt.countdown"),
        bots=tr("opt.bots"),
        timeout=tr("opt.timeout"),
        language=tr("opt.language"),
    )
    @app_commands.describe(
        rules=tr("opt.rules.desc"),
        rounds=tr("opt.rounds.desc"),
        countdown=tr("opt.countdown.desc"),
        bots=tr("opt.bots.desc"),
        timeout=tr("opt.timeout.desc"),
        language=tr("opt.language.desc"),
    )
    @app_commands.choices(
        rules=PRESET_CHOICES,
        rounds=ROUND_CHOICES,
        bots=LEVEL_CHOICES,
        timeout=TIMEOUT_CHOICES,
        language=LANGUAGE_CHOICES,
    )
    async def settings(
        self,
        interaction: discord.Interaction,
        rules: str | None = None,
        rounds: int | None = None,
        countdown: Countdown | None = None,
        bots: str | None = None,
        timeout: str | None = None,
        language: str | None = None,
    ) -> None:
        await board.show_settings(
            interaction,
            {
                "preset": rules,
                "rounds": rounds,
                "countdown": countdown,
                "bot_level": bots,
                "timeout_action": timeout,
                "language": language,
            },
        )


async def setup(bot: CapsaBot) -> None:
    await bot.add_cog(Capsa(bot))
