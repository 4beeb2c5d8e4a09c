"""The bot as an AutoShardedBot with SHARD_COUNT=2 in one process (``python bot.py``):
one gateway connection a shard, a match played to the end in a server on each shard at
once, the people building their rows in DMs (whose clicks Discord sends to shard 0)."""

from __future__ import annotations

import asyncio
import json

from capsa.presets import get_preset
from tests.e2e import make_bot, play_builder, start_bot_process, stop_bot_process
from tests.e2e_extra import assert_showdown_is_engines, engine_result, field_points
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser, running_bot

ROUNDS = 5


async def play_match(
    fake: FakeDiscord, chan: FakeChannel, host: FakeUser, guest: FakeUser
) -> dict[str, float]:
    """A 5-round table of two people and two computers, every round checked against the
    engine; the match totals shown at the end."""
    opened = await host.slash("capsa new", channel=chan, seats=4, rounds=ROUNDS, timeout=15)
    assert opened.answered
    lobby = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels(), timeout=15)
    await guest.click(lobby, "Join", timeout=15)
    await host.click(lobby, "Start", timeout=15)
    running: dict[str, float] = {}
    for number in range(1, ROUNDS + 1):
        tag = f"round {number}/{ROUNDS}"
        for person in (host, guest):
            dm = await person.next_dm(lambda m, t=tag: t in m.text(), timeout=20)
            await play_builder(person, dm)
        showdown = await fake.wait_for_message(
            chan, lambda m, t=f"Showdown · {tag}": t in m.text(), timeout=20
        )
        assert_showdown_is_engines(showdown, engine_result(showdown, get_preset("standard")))
        for name, points in field_points(showdown, "Round points").items():
            running[name] = running.get(name, 0) + points
        assert field_points(showdown, "Match totals") == running
        if number < ROUNDS:
            await host.click(showdown, "Next round", timeout=15)
    final = await fake.wait_for_message(chan, lambda m: "final standings" in m.text(), timeout=20)
    best = max(running.values())
    assert all(name in final.text() for name, total in running.items() if total == best)
    return running


def dispatched(fake: FakeDiscord, shard: tuple[int, int], event: str) -> list[dict]:
    """Every ``event`` the fake sent to the session of ``shard``."""
    (session,) = [s for s in fake.gateway.sessions if s.shard == shard]
    frames = (json.loads(frame) for _, frame in session.buffer)
    return [f["d"] for f in frames if f["t"] == event]


async def test_two_shards_in_one_process_play_a_match_on_each(fake_discord, tmp_path):
    fake = fake_discord
    zero, one = fake.add_guild("Zero", shard=(0, 2)), fake.add_guild("One", shard=(1, 2))
    chan0, chan1 = zero.add_text_channel("capsa"), one.add_text_channel("capsa")
    carol, dave = fake.add_user("carol", guild=zero), fake.add_user("dave", guild=zero)
    alice, bob = fake.add_user("alice", guild=one), fake.add_user("bob", guild=one)
    # discord.py waits 5 s between two shards' IDENTIFYs
    log = tmp_path / "bot.log"
    proc = await start_bot_process(
        fake,
        tmp_path / "capsa.sqlite3",
        log,
        identifies=2,
        env={"SHARD_COUNT": "2"},
        timeout=60,
    )
    try:
        assert sorted(c.shard for c in fake.gateway.connected()) == [(0, 2), (1, 2)]
        identified = [f["d"]["shard"] for f in fake.gateway.received if f["op"] == 2]
        assert sorted(identified) == [[0, 2], [1, 2]]
        assert not fake.requests_to("GET", "/gateway/bot")  # SHARD_COUNT: no recommendation

        totals0, totals1 = await asyncio.gather(
            play_match(fake, chan0, carol, dave), play_match(fake, chan1, alice, bob)
        )
        assert {"carol", "dave"} <= set(totals0) and {"alice", "bob"} <= set(totals1)

        # Each server's leaderboard, answered on its own shard, has its own people only.
        board0 = (await carol.slash("capsa leaderboard", channel=chan0, timeout=15)).text()
        board1 = (await alice.slash("capsa leaderboard", channel=chan1, timeout=15)).text()
        assert f"<@{carol.id}>" in board0 and f"<@{alice.id}>" not in board0
        assert f"<@{alice.id}>" in board1 and f"<@{carol.id}>" not in board1
    finally:
        await stop_bot_process(proc, grace=10)
    assert proc.returncode == 0, log.read_text()  # SIGINT: a clean stop of both shards
    assert "Traceback" not in log.read_text(), log.read_text()

    # Where the clicks went: a server's on its shard; every DM (the row building of both
    # tables, shard 1's people's too) on shard 0.
    on0 = dispatched(fake, (0, 2), "INTERACTION_CREATE")
    on1 = dispatched(fake, (1, 2), "INTERACTION_CREATE")
    assert {d.get("guild_id") for d in on0} == {str(zero.id), None}
    assert {d.get("guild_id") for d in on1} == {str(one.id)}
    dm_users = {d["user"]["id"] for d in on0 if "guild_id" not in d}
    assert dm_users == {str(u.id) for u in (alice, bob, carol, dave)}
    assert [d["id"] for d in dispatched(fake, (1, 2), "GUILD_CREATE")] == [str(one.id)]
    assert [d["id"] for d in dispatched(fake, (0, 2), "GUILD_CREATE")] == [str(zero.id)]


async def test_without_shard_count_the_bot_runs_discords_recommendation(fake_discord, tmp_path):
    """No SHARD_COUNT: the bot asks GET /gateway/bot (the fake recommends 2) and connects
    both shards to the configured gateway; a command in each server is answered."""
    fake = fake_discord
    fake.recommended_shards = 2
    zero, one = fake.add_guild("Zero", shard=(0, 2)), fake.add_guild("One", shard=(1, 2))
    chan0, chan1 = zero.add_text_channel("capsa"), one.add_text_channel("capsa")
    alice = fake.add_user("alice", guild=zero)
    fake.join(alice, one)
    bot = make_bot(fake, tmp_path / "capsa.sqlite3")
    async with running_bot(fake, bot, timeout=30):  # discord.py waits 5 s between shards
        assert bot.shard_count == 2 and sorted(bot.shards) == [0, 1]
        assert len(fake.requests_to("GET", "/gateway/bot")) == 1
        assert sorted(c.shard for c in fake.gateway.connected()) == [(0, 2), (1, 2)]
        assert {g.id: g.shard_id for g in bot.guilds} == {zero.id: 0, one.id: 1}
        for chan in (chan0, chan1):
            rules = await alice.slash("capsa rules", channel=chan)
            assert rules.answered and "Capsa" in rules.text(), rules.describe()
