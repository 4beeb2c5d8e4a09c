"""A fake Discord (REST + gateway) on 127.0.0.1 for end-to-end tests of a real discord.py bot.

Quick start (pytest, asyncio_mode=auto)::

    from tests.fakediscord import FakeDiscord, only_localhost, running_bot

    @pytest.fixture
    async def fake():
        with only_localhost():
            async with FakeDiscord() as fake:
                yield fake

    async def test_story(fake):
        guild = fake.add_guild("Test"); chan = guild.add_text_channel("capsa")
        alice = fake.add_user("alice", guild=guild, manage_guild=True)
        async with running_bot(fake, make_bot()):   # make_bot: guild_ready_timeout=0.05
            res = await alice.slash("capsa new", channel=chan, seats=4)
            msg = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels())
            await alice.click(msg, "Join")

Discord's rate limits are on (``limits.py``: the global 50 a second on bot-token routes,
the interaction routes exempt; per-channel buckets for message posts and edits; DM-channel
opens), with Discord's headers and 429s; ``FakeDiscord(limits=RateLimits.off())`` or
``fake.limits = RateLimits(...)`` changes them, ``fake.rate_limited`` lists the 429s they
gave and ``fake.invalid_requests`` counts the 401s, 403s and 429s.

A bot subprocess gets ``fake.bot_env()`` (DISCORD_API_BASE, DISCORD_GATEWAY_URL,
DISCORD_TOKEN) and calls ``cogs.discord_endpoints.apply_endpoints`` before creating its client.
"""

from .fake import FakeDiscord
from .faults import Faults, RouteFault, Stall
from .harness import assert_points_at, only_localhost, restored_endpoints, running_bot, spawn_bot
from .interactions import InteractionResult
from .limits import RateLimits, is_interaction_route
from .server import RecordedRequest
from .state import (
    FakeAccount,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    Perm,
)
from .users import FakeUser
from .validate import ApiError
from .waiting import FakeTimeout, eventually

__all__ = [
    "ApiError",
    "FakeAccount",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeTimeout",
    "FakeUser",
    "Faults",
    "InteractionResult",
    "Perm",
    "RateLimits",
    "RecordedRequest",
    "RouteFault",
    "Stall",
    "assert_points_at",
    "eventually",
    "is_interaction_route",
    "only_localhost",
    "restored_endpoints",
    "running_bot",
    "spawn_bot",
]
