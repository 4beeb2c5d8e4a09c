"""Idempotence per phase (issue 19): for each phase of ``cogs.life.Phase`` the bot process
(a real ``bot.py`` on SQLite) is killed with SIGKILL at that point, or the point is
simulated (what a dead process leaves in the file: its held watchdog, its running clock,
its claims), and started again at once; the next process does what ``next_step`` says
within the target: 5 s after it is ready (its IDENTIFY), with a margin for a loaded
machine, and nothing twice.

Two of them are the issue's "Done when": killed while Start's edit is in flight, round 1 is
dealt; killed while the showdown's post is in flight, the showdown is posted. The fake
Discord holds that request (``Faults.stall``) so the kill lands while it is in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

from capsa.presets import get_preset
from capsa.solver import arrange
from cogs.life import Phase
from tests.e2e import hand_of, play_builder, start_bot_process, stop_bot_process, warung
from tests.e2e_extra import channel_posts, is_open_lobby
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, eventually

TARGET = 5.0  # s after the restarted process is ready
MARGIN = 3.0  # a loaded machine
STALL = 120.0  # a request held this long is still in flight when the test ends
RULES = get_preset("standard")


class Bot:
    """The bot process on one SQLite file, killed and started again."""

    def __init__(self, fake: FakeDiscord, tmp_path: Path) -> None:
        self.fake = fake
        self.db = tmp_path / "capsa.sqlite3"
        self.log = tmp_path / "bot.log"
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0
        self.ready = 0.0

    async def start(self) -> float:
        self.starts += 1
        self.proc = await start_bot_process(
            self.fake, self.db, self.log, identifies=self.starts, timeout=60
        )
        self.ready = time.time()
        return self.ready

    async def kill(self) -> None:
        assert self.proc is not None
        await stop_bot_process(self.proc)  # SIGKILL of the bot and its workers

    async def restart(self) -> float:
        await self.kill()
        self.fake.faults.clear()
        return await self.start()

    def sql(self, query: str, *args: object) -> list[tuple]:
        with sqlite3.connect(self.db) as conn:
            return conn.execute(query, args).fetchall()

    async def until(self, query: str, expected: object, timeout: float = 20) -> None:
        await eventually(
            lambda: self.sql(query) == expected,
            timeout=timeout,
            interval=0.05,
            message=lambda: f"{query} is {self.sql(query)}, not {expected}",
        )

    def clock_at(self, when: float) -> None:
        """The table's one timer is its clock, due at ``when``."""
        ((kind, due),) = self.sql("SELECT kind, due_at FROM timers")
        assert kind == "clock" and abs(due - when) < 0.01, (kind, due, when)

    def within_target(self, message: FakeMessage) -> None:
        late = message.created_at - self.ready
        assert late <= TARGET + MARGIN, f"{late:.1f} s after the restarted process was ready"


@contextlib.asynccontextmanager
async def running(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[Bot]:
    """The bot process started, and killed at the end whatever happens."""
    bot = Bot(fake, tmp_path)
    await bot.start()
    try:
        yield bot
    finally:
        await bot.kill()


async def opened(fake: FakeDiscord, chan: FakeChannel, host: FakeUser) -> FakeMessage:
    await host.slash("capsa new", channel=chan, seats=2, rounds=5, countdown=300, timeout=15)
    return await fake.wait_for_message(chan, is_open_lobby, timeout=15)


async def started(bot: Bot, chan: FakeChannel, host: FakeUser) -> FakeMessage:
    """A table of ``host`` and one computer, started, its round 1 open; ``host``'s
    round-1 builder."""
    lobby = await opened(bot.fake, chan, host)
    await host.click(lobby, "Start", timeout=15)
    dm = await host.latest_dm(lambda m: "round 1/5" in m.text(), timeout=20)
    await bot.until("SELECT status FROM rounds", [(Phase.OPEN.value,)])
    return dm


def showdowns(chan: FakeChannel, number: int) -> list[FakeMessage]:
    return [m for m in chan.history if f"Showdown · round {number}/5" in m.text()]


def builders(user: FakeUser, number: int) -> list[FakeMessage]:
    return [m for m in user.dms if f"round {number}/5" in m.text()]


async def test_lobby(fake_discord, tmp_path):
    """Killed with a lobby open: after the restart its buttons work and it still closes at
    its expiry (its clock is stored)."""
    fake = fake_discord
    chan, (alice, bob) = warung(fake, "alice", "bob")
    async with running(fake, tmp_path) as bot:
        lobby = await opened(fake, chan, alice)
        assert bot.sql("SELECT status FROM matches") == [(Phase.LOBBY.value,)]
        await bot.restart()
        joined = await bob.click(lobby, "Join", timeout=TARGET + MARGIN)
        assert joined.answered and bob.mention in lobby.text()
        (expires,) = bot.sql("SELECT lobby_expires_at FROM matches")[0]
        bot.clock_at(expires)


async def test_starting_killed_while_starts_edit_is_in_flight(fake_discord, tmp_path):
    """Done when: killed while Start's edit of the lobby is in flight (the match stored as
    playing, round 1 not dealt, the watchdog held by the dead process), round 1 is dealt
    within 5 s of the restarted process being ready. Start's edit is no longer under the
    table's lock, so round 1 is dealt meanwhile (its DM held too, so nobody sees it): the
    round, dealt by a process that then died, is taken out of the file, as it would be
    had the process died between Start and the deal."""
    fake = fake_discord
    chan, (alice,) = warung(fake, "alice")
    async with running(fake, tmp_path) as bot:
        lobby = await opened(fake, chan, alice)
        edit = fake.faults.stall("/webhooks/*/*/messages/@original", STALL, method="PATCH")
        dm_post = fake.faults.stall(f"/channels/{alice.dm.id}/messages", STALL, method="POST")
        await alice.click(lobby, "Start", wait=False)
        await eventually(lambda: edit.held == 1, timeout=15, message="Start's edit")
        await eventually(lambda: dm_post.held == 1, timeout=15, message="round 1's DM")
        await bot.kill()
        fake.faults.clear()  # (what they held never reaches Discord)
        bot.sql("DELETE FROM hands")
        bot.sql("DELETE FROM rounds")
        bot.sql("UPDATE timers SET arg = 0 WHERE kind = 'watchdog'")
        assert bot.sql("SELECT status FROM matches") == [("playing",)]
        assert ("watchdog", 1) in bot.sql("SELECT kind, lease_owner IS NOT NULL FROM timers")
        await bot.start()
        dm = await alice.latest_dm(lambda m: "round 1/5" in m.text(), timeout=TARGET + MARGIN)
        bot.within_target(dm)
        await asyncio.sleep(1)
        assert len(builders(alice, 1)) == 1
        assert bot.sql("SELECT number FROM rounds") == [(1,)]


async def test_dealing_killed_while_the_dm_is_in_flight(fake_discord, tmp_path):
    """Killed while round 1's DM is in flight (the round stored, ``dealing``): the next
    process finishes the deal (the dead dealer's ``prepare``) within the target, and the
    person gets the builder once."""
    fake = fake_discord
    chan, (alice,) = warung(fake, "alice")
    async with running(fake, tmp_path) as bot:
        lobby = await opened(fake, chan, alice)
        dm_post = fake.faults.stall(f"/channels/{alice.dm.id}/messages", STALL, method="POST")
        await alice.click(lobby, "Start", timeout=15)
        await eventually(lambda: dm_post.held == 1, timeout=15, message="round 1's DM")
        assert bot.sql("SELECT status FROM rounds") == [(Phase.DEALING.value,)]
        await bot.restart()
        dm = await alice.latest_dm(lambda m: "round 1/5" in m.text(), timeout=TARGET + MARGIN)
        bot.within_target(dm)
        await bot.until("SELECT status FROM rounds", [("open",)], timeout=TARGET + MARGIN)
        await asyncio.sleep(1)
        assert len(builders(alice, 1)) == 1


async def test_open(fake_discord, tmp_path):
    """Killed while people set their rows: after the restart the builder answers, and the
    countdown's clock is still set for the stored deadline (no fresh countdown)."""
    fake = fake_discord
    chan, (alice,) = warung(fake, "alice")
    async with running(fake, tmp_path) as bot:
        dm = await started(bot, chan, alice)
        await bot.restart()
        picked = await alice.select(dm, "Back (5)", [c.code for c in hand_of(dm)[:5]])
        assert picked.answered
        (deadline,) = bot.sql("SELECT deadline FROM rounds")[0]
        bot.clock_at(deadline)


async def test_closing_simulated(fake_discord, tmp_path):
    """Every hand in but not scored when the process died (simulated: the last hand written
    to the file while no process runs): the next process scores the round and posts the
    showdown within the target."""
    fake = fake_discord
    chan, (alice,) = warung(fake, "alice")
    async with running(fake, tmp_path) as bot:
        dm = await started(bot, chan, alice)
        await bot.kill()
        back, middle, front = arrange(hand_of(dm), RULES, "normal", 3, seed=1).ordinary
        rows = [" ".join(c.code for c in row) for row in (back, middle, front)]
        bot.sql(
            "UPDATE hands SET back = ?, middle = ?, front = ?, submitted_at = ? WHERE seat = 0",
            *rows,
            time.time(),
        )
        assert bot.sql("SELECT count(*) FROM hands WHERE submitted_at IS NULL") == [(0,)]
        await bot.start()
        showdown = await fake.wait_for_message(
            chan, lambda m: "Showdown · round 1/5" in m.text(), timeout=TARGET + MARGIN
        )
        bot.within_target(showdown)
        await asyncio.sleep(1)
        assert len(showdowns(chan, 1)) == 1
        assert bot.sql("SELECT count(*), sum(points) FROM round_scores") == [(2, 0.0)]


async def test_scored_killed_while_the_showdown_post_is_in_flight(fake_discord, tmp_path):
    """Done when: killed while the showdown's post is in flight (the round scored, its
    claim held by the dead process), the showdown is posted within 5 s of the restarted
    process being ready, and the round counted once."""
    fake = fake_discord
    chan, (alice,) = warung(fake, "alice")
    async with running(fake, tmp_path) as bot:
        dm = await started(bot, chan, alice)
        post = fake.faults.stall(channel_posts(fake, chan), STALL, method="POST")
        await play_builder(alice, dm)
        await eventually(lambda: post.held == 1, timeout=20, message="the showdown's post")
        assert bot.sql("SELECT status, showdown_claim_owner IS NOT NULL FROM rounds") == [
            (Phase.SCORED.value, 1)
        ]
        await bot.restart()
        showdown = await fake.wait_for_message(
            chan, lambda m: "Showdown · round 1/5" in m.text(), timeout=TARGET + MARGIN
        )
        bot.within_target(showdown)
        await bot.until("SELECT status FROM rounds", [("shown",)], timeout=TARGET)
        assert len(showdowns(chan, 1)) == 1
        assert bot.sql("SELECT count(*), sum(points) FROM round_scores") == [(2, 0.0)]


async def test_scored_killed_once_the_showdown_landed_unstored(fake_discord, tmp_path):
    """Killed after the showdown's post reached Discord but before its answer came back
    (posted, not stored as posted; channel posts go as interaction followups, which take no
    nonce): the next process finds the bot's message with this round's Review button in
    the channel and stores it, and posts no second showdown."""
    fake = fake_discord
    chan, (alice,) = warung(fake, "alice")
    async with running(fake, tmp_path) as bot:
        dm = await started(bot, chan, alice)
        post = fake.faults.stall(channel_posts(fake, chan), STALL, method="POST", landed=True)
        await play_builder(alice, dm)
        await eventually(lambda: post.held == 1, timeout=20, message="the showdown's answer")
        (landed,) = showdowns(chan, 1)
        assert bot.sql("SELECT status, showdown_message_id FROM rounds") == [
            (Phase.SCORED.value, None)
        ]
        await bot.restart()
        await bot.until("SELECT status FROM rounds", [("shown",)], timeout=TARGET + MARGIN)
        assert bot.sql("SELECT showdown_message_id FROM rounds") == [(landed.id,)]
        await asyncio.sleep(1)
        assert len(showdowns(chan, 1)) == 1
        assert bot.sql("SELECT count(*), sum(points) FROM round_scores") == [(2, 0.0)]


async def test_shown_with_rounds_to_go_simulated(fake_discord, tmp_path):
    """Killed during the pause after a showdown, which runs out while no process runs
    (simulated: the round scored and its clock due 40 s ago): round 2 is dealt within the
    target."""
    fake = fake_discord
    chan, (alice,) = warung(fake, "alice")
    async with running(fake, tmp_path) as bot:
        dm = await started(bot, chan, alice)
        await play_builder(alice, dm)
        await fake.wait_for_message(chan, lambda m: "Showdown · round 1/5" in m.text())
        await bot.until("SELECT status FROM rounds", [(Phase.SHOWN.value,)])
        await bot.kill()
        bot.sql("UPDATE rounds SET scored_at = scored_at - 40")
        bot.sql("UPDATE timers SET due_at = due_at - 40 WHERE kind = 'clock'")
        await bot.start()
        dm2 = await alice.latest_dm(lambda m: "round 2/5" in m.text(), timeout=TARGET + MARGIN)
        bot.within_target(dm2)
        await asyncio.sleep(1)
        assert len(builders(alice, 2)) == 1


async def play_to_the_end(bot: Bot, chan: FakeChannel, alice: FakeUser) -> None:
    fake = bot.fake
    dm = await started(bot, chan, alice)
    for number in range(1, 6):
        if number > 1:
            dm = await alice.latest_dm(lambda m, n=number: f"round {n}/5" in m.text(), timeout=20)
        await play_builder(alice, dm)
        showdown = await fake.wait_for_message(
            chan, lambda m, n=number: f"Showdown · round {n}/5" in m.text(), timeout=20
        )
        if number < 5:
            await alice.click(showdown, "Next round", timeout=15)
    await fake.wait_for_message(chan, lambda m: "final standings" in m.text(), timeout=20)


async def test_finished_simulated(fake_discord, tmp_path):
    """The places stored but the standings not posted, their claim held by a process that
    died (simulated: the ended match put back to ``finished``, the claim given to a dead
    process's row): the next process posts the standings within the target, once."""
    fake = fake_discord
    chan, (alice,) = warung(fake, "alice")
    async with running(fake, tmp_path) as bot:
        await play_to_the_end(bot, chan, alice)
        await bot.until("SELECT status FROM matches", [(Phase.ENDED.value,)])
        await bot.kill()
        bot.sql("INSERT INTO processes VALUES ('gone:1', '', ?, ?)", time.time(), time.time())
        bot.sql(
            "UPDATE matches SET status = 'finished', standings_message_id = NULL,"
            " standings_claim_owner = 'gone:1', standings_claim_until = ?",
            time.time() + 600,
        )
        posted = [m for m in chan.history if "final standings" in m.text()]
        fake.delete_message(posted[-1])  # not posted: else the next process finds it there
        before = len(posted) - 1
        await bot.start()
        standings = await fake.wait_for_message(
            chan,
            lambda m: "final standings" in m.text() and m.created_at > bot.ready,
            timeout=TARGET + MARGIN,
        )
        bot.within_target(standings)
        await bot.until("SELECT status FROM matches", [(Phase.ENDED.value,)], timeout=TARGET)
        await asyncio.sleep(1)
        assert len([m for m in chan.history if "final standings" in m.text()]) == before + 1


async def test_ended_and_cancelled_do_nothing(fake_discord, tmp_path):
    """An ended match and a cancelled one: the next process posts nothing and sets no
    timer for them."""
    fake = fake_discord
    guild = fake.add_guild("Warung")
    chan, other = guild.add_text_channel("capsa"), guild.add_text_channel("other")
    alice = fake.add_user("alice", guild=guild)
    bob = fake.add_user("bob", guild=guild)
    async with running(fake, tmp_path) as bot:
        await play_to_the_end(bot, chan, alice)
        lobby = await opened(fake, other, bob)
        await bob.click(lobby, "Start", timeout=15)
        await bob.latest_dm(lambda m: "round 1/5" in m.text(), timeout=20)
        await bob.slash("capsa cancel", channel=other, timeout=15)
        await bot.until(
            "SELECT status FROM matches ORDER BY id",
            [(Phase.ENDED.value,), (Phase.CANCELLED.value,)],
        )
        await bot.until("SELECT count(*) FROM timers", [(0,)])
        await fake.wait_for_message(other, lambda m: "cancelled" in m.text(), timeout=10)
        await asyncio.sleep(1)  # the old process's last edits
        posted = len(fake.requests)
        await bot.restart()
        await asyncio.sleep(TARGET)
        new = [r for r in fake.requests[posted:] if r.method in ("POST", "PATCH")]
        assert not [r for r in new if "/channels/" in r.path], [r.path for r in new]
        assert bot.sql("SELECT count(*) FROM timers") == [(0,)]
