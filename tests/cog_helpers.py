"""Shared pieces of the Discord-glue unit tests (tests/test_cogs_*.py): players, hands,
a fake Discord client with the tables assembled on it, fake interactions, and what they were
answered with. The fixtures (``repo``, ``executor``, ``fake_bot``) are in tests/conftest.py.

Interactions are ``unittest.mock`` objects; the repository is the real SQLite one on a
temporary file. The end-to-end stories against the fake Discord live in tests/test_e2e_*.py.
"""

from __future__ import annotations

import itertools
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from unittest.mock import AsyncMock, MagicMock

import discord

from capsa.builder import Draft
from capsa.cards import parse_cards
from cogs.capsa import build_tables
from cogs.components import BuilderAction, BuilderClick, Click, Refusal, member
from cogs.replies import refuse
from cogs.worker_pool import WorkerPool

GUILD = 1
CHANNEL = 10
OTHER_CHANNEL = 11
ALICE, BOB, CAROL, EVE = 101, 102, 103, 109
EN = discord.Locale.american_english
ID = discord.Locale.indonesian

# Two hands of one deck that each hold a dragon (one card of every rank), with weak rows.
DRAGON = "2C 3D 4H 5S 6C 7D 8H 9S TC JD QH KS AC"
OTHER_DRAGON = "2D 3C 4S 5H 6D 7C 8S 9H TD JC QS KH AD"

# Alice's hand holds no special; a valid and a fouled setting of it.
ALICE_HAND = "AS KS QS JS TS 9H 9D 5C 5D 3H 2C 7D 8C"
STRONG, PAIRS = "AS KS QS JS TS", "9H 9D 5C 5D 3H"
BOB_HAND = "AH KH QH JH 2D 3D 4D 6S 7S 8S 4C 6H TC"

NOT_YOUR_SEAT = "This is not your seat."


# --- fakes ------------------------------------------------------------------------------


class FakeResponse:
    """``interaction.response``: one answer only, as on Discord."""

    def __init__(self) -> None:
        self.done = False
        self.send_message = AsyncMock(side_effect=self._respond)
        self.edit_message = AsyncMock(side_effect=self._respond)
        self.defer = AsyncMock(side_effect=self._respond)

    async def _respond(self, *args: object, **kwargs: object) -> None:
        if self.done:
            raise AssertionError("the interaction was answered twice")
        self.done = True

    def is_done(self) -> bool:
        return self.done


BOT_USER = 4000  # the bot's own user id


class FakeBot:
    """The Discord client as the tables use it (channels by id, DM channels), with the
    tables assembled on it as the Capsa cog assembles them, on a thread pool."""

    def __init__(self, repo, executor: ThreadPoolExecutor) -> None:
        self.repo = repo
        self.user = SimpleNamespace(id=BOT_USER)  # the bot's own user, as after login
        self.channels: dict[int, MagicMock] = {}
        self.sent: dict[int, list[SimpleNamespace]] = {}  # per channel, oldest first
        self._ids = itertools.count(5000)
        self.http = SimpleNamespace(start_private_message=AsyncMock(side_effect=self._open_dm))
        self.workers = WorkerPool(1, executor)
        self.tables = build_tables(self, repo, self.workers)

    async def _open_dm(self, user_id: int) -> dict:
        return {"id": str(90_000 + user_id)}

    def _message(self, channel_id: int, view: discord.ui.View | None = None) -> SimpleNamespace:
        """A message sent, by the bot, with its view's components as one row."""
        message = SimpleNamespace(
            id=next(self._ids),
            channel=SimpleNamespace(id=channel_id),
            author=self.user,
            components=[] if view is None else [SimpleNamespace(children=list(view.children))],
        )
        self.sent.setdefault(channel_id, []).append(message)
        return message

    def _history(self, channel_id: int, limit: int = 100):
        """The channel's last ``limit`` messages, newest first (as Messageable.history)."""

        async def newest_first():
            for message in reversed(self.sent.get(channel_id, [])[-limit:]):
                yield message

        return newest_first()

    def get_partial_messageable(self, channel_id: int, **_: object) -> MagicMock:
        if channel_id not in self.channels:
            channel = MagicMock(name=f"channel-{channel_id}")
            channel.id = channel_id
            channel.send = AsyncMock(
                side_effect=lambda *a, **k: self._message(channel_id, k.get("view"))
            )
            channel.history = MagicMock(
                side_effect=lambda limit=100, **_: self._history(channel_id, limit)
            )
            messages: dict[int, MagicMock] = {}

            def partial(message_id: int) -> MagicMock:
                if message_id not in messages:
                    message = MagicMock(name=f"message-{message_id}")
                    message.id = message_id
                    message.edit = AsyncMock()
                    messages[message_id] = message
                return messages[message_id]

            channel.get_partial_message = MagicMock(side_effect=partial)
            self.channels[channel_id] = channel
        return self.channels[channel_id]


def make_ix(
    client,
    user_id: int,
    *,
    name: str | None = None,
    locale: discord.Locale = EN,
    guild_id: int | None = GUILD,
    channel_id: int | None = CHANNEL,
    manage_guild: bool = False,
    message_id: int | None = None,
) -> MagicMock:
    ix = MagicMock(spec=discord.Interaction)
    ix.client = client
    ix.token = f"interaction-token-{user_id}"
    ix.created_at = discord.utils.utcnow()
    ix.user = SimpleNamespace(id=user_id, display_name=name or f"user{user_id}")
    ix.permissions = SimpleNamespace(manage_guild=manage_guild)
    ix.locale = locale
    ix.guild_id = guild_id
    ix.channel_id = channel_id
    ix.response = FakeResponse()
    ix.followup = SimpleNamespace(send=AsyncMock(return_value=SimpleNamespace(id=777)))
    ix.edit_original_response = AsyncMock()
    ix.original_response = AsyncMock(return_value=SimpleNamespace(id=777))
    ix.message = SimpleNamespace(id=message_id) if message_id is not None else None
    ix.command = None
    ix.data = {}
    return ix


async def press(client, ix: MagicMock, click: Click) -> None:
    """A click as its component hands it over: through the router's one wrapper (the id
    check, the handler, a refusal told, an error reported)."""
    await client.tables.router.dispatch(ix, click)


async def press_builder(
    client, ix: MagicMock, act: str, round_id: int, seat: int, state, values=()
) -> None:
    """A hand builder's select (``values``: the cards chosen) or button."""
    state = (*state, False)[:3]  # a draft's masks, not marked arranged unless given
    click = BuilderClick(member(BuilderAction, act), round_id, seat, state, tuple(values))
    await press(client, ix, click)


async def command(repo, ix: MagicMock, work) -> None:
    """A command's handler, a refusal it raises told as the command tree tells it."""
    try:
        await work
    except Refusal as refusal:
        await refuse(repo, ix, refusal)


def ephemeral(ix: MagicMock) -> str:
    """The one ephemeral text the interaction was answered with."""
    calls = ix.response.send_message.await_args_list + ix.followup.send.await_args_list
    assert len(calls) == 1, calls
    args, kwargs = calls[0]
    assert kwargs.get("ephemeral") is True
    assert not ix.response.edit_message.await_args_list
    return args[0] if args else kwargs["content"]


def edited(ix: MagicMock) -> dict:
    """The keyword arguments of the one edit that answered: ``edit_message``, or (for the
    hand builder, which acknowledges first) ``edit_original_response``."""
    edits = ix.response.edit_message.await_args_list + ix.edit_original_response.await_args_list
    assert len(edits) == 1, edits
    assert not ix.response.send_message.await_args_list and not ix.followup.send.await_args_list
    return edits[0].kwargs


def cards(text: str) -> list:
    return parse_cards(text)


def draft_of(hand: str, back: str = "", middle: str = "") -> Draft:
    return Draft.start(cards(hand)).with_setting(cards(back), cards(middle))


def custom_ids(view: discord.ui.View) -> list[str]:
    return [child.custom_id for child in view.children]


def embed_text(embed: discord.Embed) -> str:
    parts = [embed.title or "", embed.description or ""]
    parts += [f"{f.name}\n{f.value}" for f in embed.fields]
    return "\n".join(parts)


# --- the database -----------------------------------------------------------------------


async def new_lobby(repo, *, host=ALICE, seats=3, channel=CHANNEL, language="en"):
    return await repo.create_match(
        guild_id=GUILD,
        channel_id=channel,
        host_id=host,
        preset="standard",
        options={},
        rounds_total=5,
        countdown=120,
        bot_level="normal",
        timeout_action="auto",
        seats_count=seats,
        language=language,
        lobby_expires_at=time.time() + 600,
        host_name="alice",
    )


async def playing_round(repo, *, countdown: float = 120):
    """Alice (seat 0, host) and bob (seat 1) in round 1 of a started match, dealt and open,
    its deadline ``countdown`` seconds away (0 or less: it has run out)."""
    match = await new_lobby(repo, seats=2)
    await repo.add_seat(match.id, BOB, "bob")
    assert await repo.start_match(match.id)
    rnd = await repo.start_round(
        match.id, 1, 12345, time.time() + countdown, {0: ALICE_HAND.split(), 1: BOB_HAND.split()}
    )
    assert await repo.mark_round_open(rnd.id)
    return await repo.get_match(match.id), await repo.get_round(rnd.id)


async def dealt_round(
    repo, hands: dict[int, str], *, computer: bool = False, language="en", countdown=120.0
):
    """Round 1 of a started two-seat match with these hands, dealt and open: alice (seat 0,
    host) and bob, or a computer player, in seat 1; its deadline ``countdown`` s away."""
    match = await new_lobby(repo, seats=2, language=language)
    if computer:
        await repo.add_seat(match.id, None, "Computer 1", "normal")
    else:
        await repo.add_seat(match.id, BOB, "bob")
    assert await repo.start_match(match.id)
    dealt = {seat: hand.split() for seat, hand in hands.items()}
    rnd = await repo.start_round(match.id, 1, 12345, time.time() + countdown, dealt)
    assert await repo.mark_round_open(rnd.id)
    return await repo.get_match(match.id), await repo.get_round(rnd.id)


async def hand_of(repo, rnd, seat: int = 0):
    return (await repo.get_round(rnd.id)).hands[seat]


def http_error() -> discord.HTTPException:
    return discord.HTTPException(MagicMock(status=500, reason="boom"), "boom")
