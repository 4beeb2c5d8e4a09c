"""cogs/rest_pace.py: the bot keeps Discord's global limit itself (the fake would answer
429 otherwise), discord.py keeps the routes' buckets from the headers, and the waits are
timed."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp
import discord
import discord.http
import pytest

from cogs.discord_endpoints import apply_endpoints
from cogs.rest_pace import DISCORD_GLOBAL_LIMIT, GlobalPace, install, is_bot_token_request, share
from tests.fakediscord import FakeDiscord, RateLimits, only_localhost, restored_endpoints


def test_share_splits_the_limit_by_shards() -> None:
    assert share(None, None) == DISCORD_GLOBAL_LIMIT
    assert share(4, None) == DISCORD_GLOBAL_LIMIT  # every shard of the token here
    assert share(2, (0,)) == 25
    assert share(4, (1, 3)) == 25
    assert share(200, (7,)) == 1  # at least one a window
    assert share(2, (0,), limit=500) == 250  # a token whose limit Discord raised


def test_only_bot_token_requests_are_paced() -> None:
    assert is_bot_token_request({"Authorization": "Bot abc"}, "/api/v10/channels/1/messages")
    assert not is_bot_token_request({}, "/api/v10/webhooks/1/tok")
    assert not is_bot_token_request(
        {"Authorization": "Bot abc"}, "/api/v10/interactions/1/t/callback"
    )


async def test_a_place_is_held_from_the_send_until_a_window_after_the_answer() -> None:
    pace = GlobalPace(3, window=0.2)
    order: list[int] = []

    async def one(i: int, answer_after: float) -> float:
        waited = await pace.acquire()
        order.append(i)
        await asyncio.sleep(answer_after)  # the request on its way, then its answer
        pace.answered()
        return waited

    start = time.monotonic()
    waits = await asyncio.gather(*(one(i, 0.1 if i < 3 else 0.0) for i in range(7)))
    spent = time.monotonic() - start
    assert order == list(range(7))  # first come, first served
    assert max(waits[:3]) < 0.05  # the first three at once
    # the next three: a window after the first three were answered (0.1 s on their way)
    assert min(waits[3:6]) >= 0.29
    assert waits[6] >= 0.49 and spent >= 0.49


def test_the_pace_refuses_a_limit_below_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        GlobalPace(0)


@pytest.fixture
async def fake() -> Any:
    with only_localhost():
        async with FakeDiscord() as fake:
            yield fake


async def paced_client(
    fake: FakeDiscord, pace: GlobalPace, waits: list[tuple[str, float]]
) -> discord.http.HTTPClient:
    trace = aiohttp.TraceConfig()
    http = discord.http.HTTPClient(asyncio.get_running_loop(), http_trace=trace)
    install(http, trace, pace, lambda route, seconds: waits.append((route, seconds)))
    await http.static_login(fake.token)
    return http


async def test_a_burst_stays_within_the_global_limit(fake: FakeDiscord) -> None:
    fake.limits = RateLimits(global_limit=4, global_per=0.5)
    waits: list[tuple[str, float]] = []
    with restored_endpoints():
        apply_endpoints(fake.api_base, fake.gateway_url)
        http = await paced_client(fake, GlobalPace(4, window=0.6), waits)
        try:
            start = time.monotonic()
            got = await asyncio.gather(*(http.get_user(fake.bot_user.id) for _ in range(12)))
            spent = time.monotonic() - start
        finally:
            await http.close()
    assert len(got) == 12
    assert not fake.rate_limited  # without the pace: 429s, global
    assert spent >= 1.0  # 13 requests (the login's too), 4 a window
    assert sum(seconds for _route, seconds in waits) > 1.0
    assert {route for route, _s in waits} == {"/users/@me", "/users/{user_id}"}


async def test_without_the_pace_the_fake_answers_429(fake: FakeDiscord) -> None:
    """The test above is not vacuous: the same burst unpaced runs into the global limit
    (discord.py then waits and tries again, so every call still succeeds)."""
    fake.limits = RateLimits(global_limit=4, global_per=0.5)
    with restored_endpoints():
        apply_endpoints(fake.api_base, fake.gateway_url)
        http = discord.http.HTTPClient(asyncio.get_running_loop())
        await http.static_login(fake.token)
        try:
            await asyncio.gather(*(http.get_user(fake.bot_user.id) for _ in range(12)))
        finally:
            await http.close()
    assert fake.rate_limited
    assert {r.limited for r in fake.rate_limited} == {"global"}


async def test_a_spent_route_bucket_is_waited_on_and_timed(fake: FakeDiscord) -> None:
    fake.limits = RateLimits(message_posts=(2, 0.5))
    chan = fake.add_guild().add_text_channel("a")
    waits: list[tuple[str, float]] = []
    with restored_endpoints():
        apply_endpoints(fake.api_base, fake.gateway_url)
        http = await paced_client(fake, GlobalPace(), waits)
        try:
            for i in range(5):
                await http.send_message(
                    chan.id, params=discord.http.handle_message_parameters(f"m{i}")
                )
        finally:
            await http.close()
    assert len(chan.history) == 5
    assert not fake.rate_limited  # discord.py read the headers and waited
    posted = [s for route, s in waits if route == "/channels/{channel_id}/messages"]
    assert len(posted) == 5 and sum(posted) >= 0.9  # two windows of 0.5 s waited
