"""Shared pieces of the end-to-end tests: the real bot against the fake Discord."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bot import CapsaBot, Config
from capsa.cards import Card, parse_cards
from capsa.presets import get_preset
from capsa.solver import arrange
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, spawn_bot

ROOT = Path(__file__).resolve().parent.parent
_CARD = re.compile(r"(10|[2-9TJQKA])([♠♥♦♣])")  # the ten is written 10
_SUIT = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def make_bot(fake: FakeDiscord, db: Path) -> CapsaBot:
    config = Config(token=fake.token, database_path=str(db), guild_ready_timeout=0.05)
    return CapsaBot(config, executor=ThreadPoolExecutor(2))


async def start_bot_process(
    fake: FakeDiscord,
    db: Path,
    log: Path,
    *,
    identifies: int = 1,
    env: dict[str, str] | None = None,
    python_args: Sequence[str] = (),
    timeout: float = 30.0,
) -> asyncio.subprocess.Process:
    """``spawn_bot_process``, returning once the fake's gateway has seen ``identifies``
    IDENTIFYs in total (commands are synced in setup_hook, before the gateway connects)."""
    proc = await spawn_bot_process(fake, db, log, env=env, python_args=python_args)
    await fake.wait_for_identify(identifies, timeout=timeout)
    return proc


async def spawn_bot_process(
    fake: FakeDiscord,
    db: Path,
    log: Path,
    *,
    env: dict[str, str] | None = None,
    python_args: Sequence[str] = (),
) -> asyncio.subprocess.Process:
    """``python [python_args] bot.py`` on the database ``db`` (``env`` added to its
    environment), stderr appended to ``log``, in its own process group so that stopping it
    takes its solver workers too."""
    with log.open("ab") as sink:
        return await spawn_bot(
            fake,
            sys.executable,
            *python_args,
            str(ROOT / "bot.py"),
            env={
                "DATABASE_PATH": str(db),
                "GUILD_READY_TIMEOUT": "0.1",
                "LOG_LEVEL": os.environ.get("CAPSA_TEST_BOT_LOG", "WARNING"),
                **(env or {}),
            },
            cwd=str(ROOT),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=sink,
            start_new_session=True,
        )


async def stop_bot_process(proc: asyncio.subprocess.Process, grace: float = 0.0) -> None:
    """Stop a bot from ``start_bot_process``. With ``grace``: SIGINT first (bot.py closes the
    client and the database) and up to ``grace`` s to exit. Then SIGKILL its whole process
    group; without grace that is the bot and its workers dying at once, like a crashed
    container."""
    if grace > 0 and proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGINT)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), grace)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    if proc.returncode is None:
        await proc.wait()


def cards_in(text: str) -> list[Card]:
    """Cards written with suit symbols (as the bot shows them), in order."""
    return parse_cards([rank + _SUIT[suit] for rank, suit in _CARD.findall(text)])


def hand_of(builder: FakeMessage) -> list[Card]:
    """The 13 cards a builder offers (the back select lists every unplaced card)."""
    select = builder.find_component("Back (5)", (3,))
    return parse_cards([o["value"] for o in select["options"]])


async def set_rows(user: FakeUser, builder: FakeMessage, back, middle) -> None:
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
