"""Shared pieces of the end-to-end tests: the real bot against the fake Discord."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bot import CapsaBot, Config
from capsa.cards import Card, parse_cards
from capsa.presets import get_preset
from capsa.solver import arrange
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser

_CARD = re.compile(r"([2-9TJQKA])([♠♥♦♣])")
_SUIT = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def make_bot(fake: FakeDiscord, db: Path, **overrides: object) -> CapsaBot:
    config = Config(token=fake.token, database_path=str(db), guild_ready_timeout=0.05)
    bot = CapsaBot(config, executor=ThreadPoolExecutor(2))
    for key, value in overrides.items():
        setattr(bot.tables, key, value)
    return bot


def cards_in(text: str) -> list[Card]:
    """Cards written with suit symbols (as the bot shows them), in order."""
    return parse_cards([rank + _SUIT[suit] for rank, suit in _CARD.findall(text)])


def hand_of(builder: FakeMessage) -> list[Card]:
    """The 13 cards a builder offers (the back select lists every unplaced card)."""
    select = builder.find_component("Back (5)", (3,))
    return parse_cards([o["value"] for o in select["options"]])


async def set_rows(user: FakeUser, builder: FakeMessage, back, middle) -> None:  # noqa: ANN001
    await user.select(builder, "Back (5)", [c.code for c in back])
    await user.select(builder, "Middle (5)", [c.code for c in middle])


async def play_builder(user: FakeUser, builder: FakeMessage, rules: str = "standard") -> tuple:
    """Set the solver's rows by hand through the selects and submit; returns the rows."""
    choice = arrange(hand_of(builder), get_preset(rules), "normal", 3, seed=1)
    back, middle, front = choice.ordinary
    await set_rows(user, builder, back, middle)
    result = await user.click(builder, "Submit")
    assert result.answered
    return back, middle, front


def warung(fake: FakeDiscord, *names: str) -> tuple[FakeChannel, list[FakeUser]]:
    """A server with a #capsa channel and these members (English locale)."""
    guild = fake.add_guild("Warung")
    chan = guild.add_text_channel("capsa")
    return chan, [fake.add_user(name, guild=guild) for name in names]
