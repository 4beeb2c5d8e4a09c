"""A showdown posted while the database cannot store it as posted (a full disk, a server
restarting): the mark is stored once the database is back, so the showdown is posted once
and the table goes on, instead of waiting on the claim its own live process holds (and
posting it again once that process dies)."""

from __future__ import annotations

import asyncio
import sqlite3

from tests.e2e import make_bot, play_builder, warung
from tests.e2e_extra import lobby_after, wait_showdown
from tests.fakediscord import running_bot


async def test_a_showdown_marked_after_an_outage_is_posted_once(fake_discord, tmp_path):
    fake = fake_discord
    chan, (alice,) = warung(fake, "alice")
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        repo = bot.repo
        real_mark = repo.mark_showdown_posted
        failures = []

        async def full_disk_twice(round_id: int, message_id: int | None) -> bool:
            if len(failures) < 2:
                failures.append(round_id)
                raise sqlite3.OperationalError("database or disk is full")
            return await real_mark(round_id, message_id)

        repo.mark_showdown_posted = full_disk_twice  # type: ignore[method-assign]
        opened = await alice.slash("capsa new", channel=chan, seats=2, rounds=5)
        lobby = await lobby_after(fake, chan, opened)
        await alice.click(lobby, "Start")
        dm = await alice.latest_dm(lambda m: "round 1/5" in m.text(), timeout=10)
        await play_builder(alice, dm)
        await wait_showdown(fake, chan, 1)
        match = await repo.active_match_in_channel(chan.id)

        async def shown() -> bool:
            rnd = await repo.current_round(match.id)
            return rnd is not None and rnd.status == "shown"

        for _ in range(100):
            if await shown():
                break
            await asyncio.sleep(0.1)
        assert await shown(), "the showdown was never stored as posted"
        assert len(failures) == 2
        showdown = await wait_showdown(fake, chan, 1)
        await alice.click(showdown, "Next round")  # the table goes on
        await alice.latest_dm(lambda m: "round 2/5" in m.text(), timeout=10)
        assert len([m for m in chan.history if "Showdown · round 1/5" in m.text()]) == 1
