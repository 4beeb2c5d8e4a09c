"""The fake Discord's rate limits (tests/fakediscord/limits.py), over real HTTP on
127.0.0.1: the per-route buckets and their headers, the 429's body and headers, the global
limit on bot-token requests with the interaction routes exempt, and the count of invalid
requests."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest

from tests.fakediscord import FakeDiscord, RateLimits, is_interaction_route, only_localhost

ONLY_GLOBAL = RateLimits(message_posts=None, message_edits=None, dm_opens=None)


@pytest.fixture
async def fake() -> Any:
    with only_localhost():
        async with FakeDiscord() as fake:
            yield fake


class Api:
    """Raw requests to the fake's REST API, with or without the bot token."""

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession) -> None:
        self.fake = fake
        self.session = session

    async def call(
        self, method: str, path: str, body: Any = None, *, token: bool = True
    ) -> tuple[int, dict[str, str], Any]:
        headers = {"Authorization": f"Bot {self.fake.token}"} if token else {}
        url = self.fake.api_base + path
        async with self.session.request(method, url, json=body, headers=headers) as resp:
            data = await resp.json() if resp.content_type == "application/json" else None
            return resp.status, dict(resp.headers), data

    async def post(self, channel_id: int, text: str = "hi") -> tuple[int, dict[str, str], Any]:
        return await self.call("POST", f"/channels/{channel_id}/messages", {"content": text})


@pytest.fixture
async def api(fake: FakeDiscord) -> Any:
    async with aiohttp.ClientSession() as session:
        yield Api(fake, session)


async def test_message_posts_carry_the_bucket_headers_and_the_sixth_is_refused(
    fake: FakeDiscord, api: Api
) -> None:
    guild = fake.add_guild()
    chan, other = guild.add_text_channel("a"), guild.add_text_channel("b")
    seen = []
    for _ in range(5):
        status, headers, _data = await api.post(chan.id)
        assert status == 200
        seen.append(headers)
    assert [h["X-RateLimit-Remaining"] for h in seen] == ["4", "3", "2", "1", "0"]
    assert {h["X-RateLimit-Limit"] for h in seen} == {"5"}
    assert len({h["X-RateLimit-Bucket"] for h in seen}) == 1
    reset_after = float(seen[-1]["X-RateLimit-Reset-After"])
    assert 0 < reset_after <= 5.0
    assert float(seen[-1]["X-RateLimit-Reset"]) > float(seen[0]["X-RateLimit-Reset"]) - 1
    assert "X-RateLimit-Scope" not in seen[0]  # only on a 429 (Discord's docs)

    status, headers, body = await api.post(chan.id)
    assert status == 429
    assert body["global"] is False and 0 < body["retry_after"] <= 5.0
    assert body["message"] == "You are being rate limited."
    assert headers["X-RateLimit-Scope"] == "user"
    assert headers["X-RateLimit-Remaining"] == "0"
    assert headers["X-RateLimit-Bucket"] == seen[0]["X-RateLimit-Bucket"]
    assert int(headers["Retry-After"]) >= body["retry_after"]
    assert headers["Via"]  # discord.py reads a 429 without Via as a Cloudflare ban
    assert "X-RateLimit-Global" not in headers
    assert len(chan.history) == 5  # the refused post was not made

    # another channel is another bucket (the same bucket id: per top-level resource)
    status, headers, _data = await api.post(other.id)
    assert status == 200 and headers["X-RateLimit-Remaining"] == "4"
    assert headers["X-RateLimit-Bucket"] == seen[0]["X-RateLimit-Bucket"]
    assert [(r.limited, r.status) for r in fake.rate_limited] == [("user", 429)]


async def test_a_bucket_opens_again_when_its_window_ends(fake: FakeDiscord, api: Api) -> None:
    fake.limits = RateLimits(message_posts=(2, 0.3))
    chan = fake.add_guild().add_text_channel("a")
    assert [(await api.post(chan.id))[0] for _ in range(3)] == [200, 200, 429]
    await asyncio.sleep(0.35)
    status, headers, _data = await api.post(chan.id)
    assert status == 200 and headers["X-RateLimit-Remaining"] == "1"


async def test_dm_posts_edits_and_dm_opens_have_buckets(fake: FakeDiscord, api: Api) -> None:
    fake.limits = RateLimits(message_posts=(1, 5.0), message_edits=(2, 5.0), dm_opens=(2, 5.0))
    guild = fake.add_guild()
    chan = guild.add_text_channel("a")
    people = [fake.add_user(name, guild=guild) for name in ("ana", "budi", "citra")]
    opened = [
        await api.call("POST", "/users/@me/channels", {"recipient_id": str(p.id)}) for p in people
    ]
    assert [status for status, _h, _d in opened] == [200, 200, 429]
    assert opened[2][2]["global"] is False  # one bucket for the whole bot, not per person
    dm = fake.dm_channel(people[0])
    assert [(await api.post(dm.id))[0] for _ in range(2)] == [200, 429]  # DMs included
    status, _h, posted = await api.post(chan.id)
    assert status == 200
    edit = f"/channels/{chan.id}/messages/{posted['id']}"
    edits = [(await api.call("PATCH", edit, {"content": "x"}))[0] for _ in range(3)]
    assert edits == [200, 200, 429]


async def test_the_global_limit_binds_bot_token_requests_and_not_interaction_routes(
    fake: FakeDiscord, api: Api
) -> None:
    fake.limits = RateLimits(global_limit=3, global_per=5.0)
    assert [(await api.call("GET", "/users/@me"))[0] for _ in range(3)] == [200, 200, 200]
    status, headers, body = await api.call("GET", "/users/@me")
    assert status == 429
    assert body["global"] is True and 0 < body["retry_after"] <= 5.0
    assert headers["X-RateLimit-Global"] == "true"
    assert headers["X-RateLimit-Scope"] == "global"
    assert int(headers["Retry-After"]) >= 1 and headers["Via"]
    # the interaction routes go on: the callback and an interaction token's webhook routes
    # (here answered 404 for an unknown token, not 429)
    app = fake.application_id
    for method, path in (
        ("POST", "/interactions/1/sometoken/callback"),
        ("POST", f"/webhooks/{app}/sometoken"),
        ("PATCH", f"/webhooks/{app}/sometoken/messages/@original"),
    ):
        status, _h, _d = await api.call(method, path, {"type": 1}, token=False)
        assert status == 404, (method, path)
    assert [r.limited for r in fake.rate_limited] == ["global"]


async def test_a_global_refusal_does_not_spend_the_route_bucket(
    fake: FakeDiscord, api: Api
) -> None:
    fake.limits = RateLimits(global_limit=1, global_per=5.0)
    chan = fake.add_guild().add_text_channel("a")
    await api.call("GET", "/users/@me")
    status, _h, body = await api.post(chan.id)
    assert status == 429 and body["global"] is True
    fake.limits = RateLimits()  # a fresh second
    status, headers, _d = await api.post(chan.id)
    assert status == 200 and headers["X-RateLimit-Remaining"] == "4"


async def test_invalid_requests_are_counted(fake: FakeDiscord, api: Api) -> None:
    fake.limits = ONLY_GLOBAL
    guild = fake.add_guild()
    closed = fake.add_user("closed", guild=guild)
    fake.faults.refuse_dms(closed)
    await api.call("GET", "/users/@me", token=False)  # 401
    dm = fake.dm_channel(closed)
    assert (await api.post(dm.id))[0] == 403
    fake.limits = RateLimits(global_limit=1, global_per=5.0)
    assert (await api.call("GET", "/users/@me"))[0] == 200
    assert (await api.call("GET", "/users/@me"))[0] == 429
    assert (await api.call("GET", f"/channels/{dm.id}"))[0] == 429  # the global limit too
    assert fake.invalid_requests == 4
    assert len(fake.rate_limited) == 2


async def test_limits_off_lets_everything_through(fake: FakeDiscord, api: Api) -> None:
    fake.limits = RateLimits.off()  # this test needs unlimited traffic
    chan = fake.add_guild().add_text_channel("a")
    statuses = [(await api.post(chan.id))[0] for _ in range(60)]
    assert statuses == [200] * 60
    assert not fake.rate_limited
    assert "X-RateLimit-Limit" not in fake.requests[-1].headers


def test_interaction_routes() -> None:
    assert is_interaction_route("/interactions/123/abc.def/callback")
    assert is_interaction_route("/webhooks/1/tok")
    assert is_interaction_route("/webhooks/1/tok/messages/@original")
    assert not is_interaction_route("/channels/1/messages")
    assert not is_interaction_route("/users/@me/channels")
