"""Two bot processes on one PostgreSQL (``SHARD_COUNT=2``, ``SHARD_IDS=0`` and ``1``) against
the fake Discord, which shards as Discord does: a guild's events go to its shard's process,
every DM event to shard 0's. So in a server on shard 1, the people's builder clicks reach
the other process than the table's lobby and showdown buttons, and both processes share the
table through the database alone (its rows, its timers).

1. A match in a server on shard 1 plays to its end; every showdown is the engine's and the
   leaderboard counts each round once.
2. The shard-1 process is killed (SIGKILL) mid-round: the round's countdown still fires (the
   other process claims its timer), the showdown is posted once and counted once, and the
   killed process, started again, posts nothing twice.
3. The same Submit and the same Next reach both processes at once: one takes effect, the
   other is answered as a stale click.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from capsa.presets import get_preset
from capsa.solver import arrange
from tests.e2e import hand_of, play_builder, set_rows, start_bot_process, stop_bot_process
from tests.e2e_extra import assert_showdown_is_engines, engine_result, field_points
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser, eventually

ROUNDS = 5
RULES = get_preset("standard")

pytestmark = pytest.mark.usefixtures("pg_server")


async def two_processes(
    fake: FakeDiscord, url: str, tmp_path: Path
) -> dict[int, asyncio.subprocess.Process]:
    procs = {}
    for shard in (0, 1):
        procs[shard] = await start_bot_process(
            fake,
            tmp_path / "unused.sqlite3",
            tmp_path / f"bot-{shard}.log",
            identifies=len(procs) + 1,
            env={"DATABASE_URL": url, "SHARD_COUNT": "2", "SHARD_IDS": str(shard)},
            timeout=60,
        )
    await fake.wait_for_identify(2, timeout=30)
    return procs


@contextlib.asynccontextmanager
async def table_on_two_processes(
    fake: FakeDiscord, url: str, tmp_path: Path
) -> AsyncIterator[tuple[FakeChannel, FakeUser, FakeUser, dict[int, asyncio.subprocess.Process]]]:
    """A table of alice and bob (and two computers) in a server on shard 1, opened and
    started, with the two processes running; they are stopped at the end."""
    chan, alice, bob = table_on_shard_1(fake)
    procs = await two_processes(fake, url, tmp_path)
    try:
        await open_table(fake, chan, alice, bob)
        yield chan, alice, bob, procs
    finally:
        for proc in procs.values():
            await stop_bot_process(proc, grace=5)


def table_on_shard_1(fake: FakeDiscord) -> tuple[FakeChannel, FakeUser, FakeUser]:
    guild = fake.add_guild("Shard one", shard=(1, 2))
    chan = guild.add_text_channel("capsa")
    return chan, fake.add_user("alice", guild=guild), fake.add_user("bob", guild=guild)


async def open_table(fake, chan, host, guest, *, countdown: int = 300):
    opened = await host.slash(
        "capsa new", channel=chan, seats=4, rounds=ROUNDS, countdown=countdown, timeout=20
    )
    assert opened.answered
    lobby = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels(), timeout=20)
    await guest.click(lobby, "Join", timeout=20)
    await host.click(lobby, "Start", timeout=20)


async def submit_at_both(person: FakeUser, dm) -> None:
    """The same Submit reaches shard 0's process (a DM) and shard 1's: one locks the hand
    in (its builder says so), the other says it already was."""
    here = await person.click(dm, "Submit", wait=False)
    there = await person.click(dm, "Submit", wait=False, shard=1)
    await asyncio.gather(here.wait(20), there.wait(20))
    refused = "You already submitted this round."
    await eventually(
        lambda: any(refused in ix.text() for ix in (here, there)) and "Locked in" in dm.text(),
        timeout=20,
        message=lambda: f"{here.describe()} / {there.describe()} / {dm.text()[:200]}",
    )
    assert sum(refused in ix.text() for ix in (here, there)) == 1


def showdowns(chan: FakeChannel, number: int) -> list:
    return [m for m in chan.history if f"Showdown · round {number}/{ROUNDS}" in m.text()]


async def leaderboard_rounds(url: str, guild_id: int) -> dict[int, int]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT user_id, COUNT(*) FROM round_scores WHERE guild_id = $1"
            " AND user_id IS NOT NULL GROUP BY user_id",
            guild_id,
        )
    finally:
        await conn.close()
    return {r[0]: r[1] for r in rows}


async def test_a_match_on_shard_1_with_dm_clicks_on_shard_0_plays_to_its_end(
    fake_discord, pg_url, tmp_path
):
    fake = fake_discord
    async with table_on_two_processes(fake, pg_url, tmp_path) as (chan, alice, bob, procs):
        running: dict[str, float] = {}
        for number in range(1, ROUNDS + 1):
            tag = f"round {number}/{ROUNDS}"
            for person in (alice, bob):
                dm = await person.next_dm(lambda m, t=tag: t in m.text(), timeout=30)
                await play_builder(person, dm)  # its clicks go to shard 0's process
            showdown = await fake.wait_for_message(
                chan, lambda m, t=f"Showdown · {tag}": t in m.text(), timeout=30
            )
            assert_showdown_is_engines(showdown, engine_result(showdown, RULES))
            for name, points in field_points(showdown, "Round points").items():
                running[name] = running.get(name, 0) + points
            assert field_points(showdown, "Match totals") == running
            if number < ROUNDS:
                await alice.click(showdown, "Next round", timeout=20)
        await fake.wait_for_message(chan, lambda m: "final standings" in m.text(), timeout=30)
        assert all(len(showdowns(chan, n)) == 1 for n in range(1, ROUNDS + 1))
        counted = await leaderboard_rounds(pg_url, chan.guild.id)
        assert counted == {alice.id: ROUNDS, bob.id: ROUNDS}
        board = await alice.slash("capsa leaderboard", channel=chan, timeout=20)
        assert board.answered
        text = (await fake.wait_for_message(chan, lambda m: "Leaderboard" in m.text())).text()
        assert f"<@{alice.id}>" in text and f"<@{bob.id}>" in text


async def test_the_countdown_fires_when_the_tables_process_is_killed(
    fake_discord, pg_url, tmp_path
):
    fake = fake_discord
    async with table_on_two_processes(fake, pg_url, tmp_path) as (chan, alice, bob, procs):
        dm = await alice.next_dm(lambda m: "round 1/5" in m.text(), timeout=30)
        await play_builder(alice, dm)  # bob never sets his rows
        await stop_bot_process(procs.pop(1))  # SIGKILL, mid-round
        # the deadline arrives: what the 300 s would do, at once
        conn = await asyncpg.connect(pg_url)
        try:
            ended = await conn.execute("UPDATE rounds SET deadline = now() WHERE status = 'open'")
            moved = await conn.execute("UPDATE timers SET due_at = now() WHERE kind = 'clock'")
            await conn.execute("NOTIFY capsa_timers")
        finally:
            await conn.close()
        assert (ended, moved) == ("UPDATE 1", "UPDATE 1")
        showdown = await fake.wait_for_message(
            chan, lambda m: "Showdown · round 1/5" in m.text(), timeout=30
        )
        assert "auto-arranged (time ran out)" in showdown.text()  # bob's, by the countdown
        counted = await leaderboard_rounds(pg_url, chan.guild.id)
        assert counted == {alice.id: 1, bob.id: 1}
        # the killed process comes back: it posts nothing twice
        procs[1] = await start_bot_process(
            fake,
            tmp_path / "unused.sqlite3",
            tmp_path / "bot-1-again.log",
            identifies=3,
            env={"DATABASE_URL": pg_url, "SHARD_COUNT": "2", "SHARD_IDS": "1"},
            timeout=60,
        )
        await asyncio.sleep(3)  # time for a wrong second showdown to show up, if there were one
        assert len(showdowns(chan, 1)) == 1
        assert await leaderboard_rounds(pg_url, chan.guild.id) == {alice.id: 1, bob.id: 1}


async def test_the_same_submit_and_next_at_both_processes_count_once(
    fake_discord, pg_url, tmp_path
):
    fake = fake_discord
    async with table_on_two_processes(fake, pg_url, tmp_path) as (chan, alice, bob, procs):
        for person in (alice, bob):
            dm = await person.next_dm(lambda m: "round 1/5" in m.text(), timeout=30)
            back, middle, _ = arrange(hand_of(dm), RULES, "normal", 3, seed=1).ordinary
            await set_rows(person, dm, back, middle)
            await submit_at_both(person, dm)
        showdown = await fake.wait_for_message(
            chan, lambda m: "Showdown · round 1/5" in m.text(), timeout=30
        )
        first = await alice.click(showdown, "Next round", wait=False)  # shard 1's process
        second = await alice.click(showdown, "Next round", wait=False, shard=0)
        await asyncio.gather(first.wait(20), second.wait(20))
        for person in (alice, bob):
            await person.next_dm(lambda m: "round 2/5" in m.text(), timeout=30)
        await asyncio.sleep(2)  # time for a wrong second deal to show up, if there were one
        assert len([m for m in alice.dms if "round 2/5" in m.text()]) == 1
        assert len([m for m in bob.dms if "round 2/5" in m.text()]) == 1
        assert len([m for m in chan.history if m.text().startswith("Round 2/5")]) == 1
        assert len(showdowns(chan, 1)) == 1
        assert await leaderboard_rounds(pg_url, chan.guild.id) == {alice.id: 1, bob.id: 1}
