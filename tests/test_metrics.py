"""``METRICS_PORT``: /metrics scraped during a match against the fake Discord (the counters
move, the histograms fill, a 429 is counted), and /healthz's 200 and its 503 reasons."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import aiohttp
import pytest

from bot import CapsaBot, Config
from cogs import health
from cogs.metrics import Metrics, route_template
from tests.e2e import play_builder, warung
from tests.e2e_extra import channel_posts, expire_countdown
from tests.fakediscord import FakeDiscord, eventually, running_bot


def metered_bot(fake: FakeDiscord, db: Path) -> CapsaBot:
    config = Config(
        token=fake.token, database_path=str(db), guild_ready_timeout=0.05, metrics_port=0
    )
    return CapsaBot(config, executor=ThreadPoolExecutor(2))


async def scrape(bot: CapsaBot, path: str = "/metrics") -> tuple[int, str]:
    assert bot.health is not None
    url = f"http://127.0.0.1:{bot.health.port}{path}"
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


def value(text: str, name: str, **labels: str) -> float:
    """A sample's value in Prometheus text (0 if absent)."""
    total = 0.0
    for line in text.splitlines():
        match = re.match(r"^([a-z_]+)(?:\{(.*)\})? (\S+)$", line)
        if not match or match[1] != name:
            continue
        have = dict(re.findall(r'(\w+)="([^"]*)"', match[2] or ""))
        if all(have.get(k) == v for k, v in labels.items()):
            total += float(match[3])
    return total


async def test_metrics_move_during_a_match(fake_discord, tmp_path):
    fake = fake_discord
    chan, (alice, bob) = warung(fake, "alice", "bob")
    async with running_bot(fake, metered_bot(fake, tmp_path / "db.sqlite3")) as bot:
        assert isinstance(bot, CapsaBot)
        status, before = await scrape(bot)
        assert status == 200
        assert value(before, "capsa_rounds_scored_total") == 0
        assert value(before, "capsa_open_tables") == 0

        await alice.slash("capsa new", channel=chan, seats=4, rounds=5)
        lobby = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels())
        await bob.click(lobby, "Join")
        _, lobby_time = await scrape(bot)
        assert value(lobby_time, "capsa_open_tables") == 1
        await alice.click(lobby, "Start")
        dm_a = await alice.latest_dm(timeout=10)
        # the showdown's post (a followup of Start's token) is rate-limited once: the 429
        # is counted by its route
        create = channel_posts(fake, chan)
        limited = fake.faults.rate_limit(create, times=1, retry_after=0.1, method="POST")
        await play_builder(alice, dm_a)
        # bob lets the countdown run out: its timer fires (and its lag is measured)
        match = await bot.repo.active_match_in_channel(chan.id)
        rnd = await bot.repo.current_round(match.id)
        await expire_countdown(bot, match.id, rnd.id)
        await fake.wait_for_message(chan, lambda m: "Showdown · round 1/5" in m.text(), timeout=20)
        assert limited.hits == 1

        async def shown() -> bool:  # marked a moment after the message is out
            return (await bot.repo.get_round(rnd.id)).status == "shown"

        await eventually(shown)
        status, after = await scrape(bot)
        print(after)

    assert status == 200
    assert value(after, "capsa_interactions_total", kind="application_command") == 1
    assert value(after, "capsa_interactions_total", kind="component") >= 5  # join, start, rows
    assert value(after, "capsa_interaction_ack_seconds_count") >= 6
    assert value(after, "capsa_interaction_ack_seconds_sum") > 0
    assert value(after, "capsa_rounds_scored_total") == 1
    assert value(after, "capsa_showdown_seconds_count") == 1
    assert value(after, "capsa_open_tables") == 1
    assert value(after, "capsa_worker_queue_depth") == 0
    followup = "/webhooks/{id}/{token}"
    assert value(after, "capsa_rest_requests_total", route=followup, status="429") == 1
    route = "/channels/{id}/messages"  # the two DMs
    assert value(after, "capsa_rest_requests_total", method="POST", route=route, status="200") >= 2
    callback = "/interactions/{id}/{token}/callback"
    assert value(after, "capsa_rest_requests_total", route=callback) >= 6
    assert value(after, "capsa_db_transaction_seconds_count", operation="score_round") == 1
    assert value(after, "capsa_db_transaction_seconds_count", operation="submit_hand") >= 2
    assert value(after, "capsa_timer_lag_seconds_count") >= 1  # the round's timers fired
    # no interaction token, id or bot token in any label
    assert fake.token not in after
    for token in fake.interactions:
        assert token not in after


async def test_healthz_is_200_when_connected_and_503_with_the_reason(
    fake_discord, tmp_path, monkeypatch
):
    fake = fake_discord
    async with running_bot(fake, metered_bot(fake, tmp_path / "db.sqlite3")) as bot:
        assert isinstance(bot, CapsaBot)
        assert await scrape(bot, "/healthz") == (200, "ok\n")

        bot.metrics.timer_claimed(7.25)  # a timer claimed 7.25 s after its due time
        status, text = await scrape(bot, "/healthz")
        assert (status, text) == (503, "timers: a timer ran 7.2 s late\n")
        bot.metrics.late = None

        async def stuck() -> None:
            await __import__("asyncio").sleep(5)

        monkeypatch.setattr(health, "DB_TIMEOUT", 0.1)
        monkeypatch.setattr(bot.repo, "next_timer_in", stuck)
        assert await scrape(bot, "/healthz") == (503, "database: no answer within 0.1 s\n")


async def test_healthz_names_a_gateway_that_is_not_connected(tmp_path):
    bot = CapsaBot(Config(token="x", database_path=str(tmp_path / "db.sqlite3"), metrics_port=0))
    await bot.open_database()
    try:
        found = await health.problems(bot)
    finally:
        await bot.repo.close()
        bot.workers.shutdown()
    assert found == ["gateway: not connected"]


def test_routes_never_carry_an_id_or_a_token():
    token = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDEyMzQ1Njc4OTA6abcDEF-_xyz"
    assert route_template(f"/api/v10/interactions/1180000000000000000/{token}/callback") == (
        "/interactions/{id}/{token}/callback"
    )
    assert route_template(f"/api/v10/webhooks/1180000000000000001/{token}/messages/@original") == (
        "/webhooks/{id}/{token}/messages/{value}"
    )
    assert route_template("/api/v10/channels/1180000000000000002/messages/1180000000000000003") == (
        "/channels/{id}/messages/{id}"
    )
    assert route_template("/api/v10/users/@me/channels") == "/users/{value}/channels"


def test_a_late_timer_counts_for_a_minute():
    now = [1000.0]
    metrics = Metrics(clock=lambda: now[0])
    metrics.timer_claimed(0.2)
    assert metrics.timers_late(5.0) is None  # on time enough
    metrics.timer_claimed(6.0)
    assert metrics.timers_late(5.0) == 6.0
    now[0] += 61
    assert metrics.timers_late(5.0) is None


@pytest.mark.parametrize("setting", ["METRICS_PORT=0", "METRICS_PORT=70000", "METRICS_PORT=x"])
def test_a_bad_metrics_port_is_one_line(setting, monkeypatch):
    name, _, text = setting.partition("=")
    monkeypatch.setenv(name, text)
    with pytest.raises(ValueError, match="METRICS_PORT="):
        Config.from_env()
