"""The first story: open a table, join, start, set rows, see the showdown."""

from __future__ import annotations

from tests.e2e import make_bot, play_builder, warung
from tests.fakediscord import running_bot


async def test_lobby_to_first_showdown(fake_discord, tmp_path):
    fake = fake_discord
    chan, (alice, bob) = warung(fake, "alice", "bob")
    async with running_bot(fake, make_bot(fake, tmp_path / "db.sqlite3")):
        await alice.slash("capsa new", channel=chan, seats=4, rounds=5)
        lobby = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels())
        await bob.click(lobby, "Join")
        await alice.click(lobby, "Start")
        dm_a = await alice.latest_dm(timeout=10)
        dm_b = await bob.latest_dm(timeout=10)
        await play_builder(alice, dm_a)
        await play_builder(bob, dm_b)
        showdown = await fake.wait_for_message(
            chan, lambda m: "Showdown · round 1/5" in m.text(), timeout=10
        )
        print(showdown.text())
        assert "Round 1/5" in showdown.text()
        assert showdown.attachments
