"""Scenario 1: a full 5-round match, 2 people and 2 computer players, through the real bot."""

from __future__ import annotations

from capsa.presets import get_preset
from tests.e2e import make_bot, play_builder, warung
from tests.e2e_extra import assert_showdown_is_engines, engine_result, field_points
from tests.fakediscord import running_bot


async def test_full_match_two_people_two_computers(fake_discord, tmp_path):
    fake = fake_discord
    chan, (alice, bob) = warung(fake, "alice", "bob")
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        opened = await alice.slash("capsa new", channel=chan, seats=4, rounds=5)
        assert opened.answered and opened.ephemeral and "Start" in opened.text()
        lobby = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels())
        joined = await bob.click(lobby, "Join")
        assert f"<@{bob.id}>" in lobby.text() and joined.answered
        await alice.click(lobby, "Start")
        assert "started" in lobby.text()

        running: dict[str, int] = {}
        for number in range(1, 6):
            title = f"Showdown · round {number}/5"
            dm_a = await alice.next_dm(lambda m, n=number: f"round {n}/5" in m.text(), timeout=10)
            dm_b = await bob.next_dm(lambda m, n=number: f"round {n}/5" in m.text(), timeout=10)
            assert dm_a.attachments, "the hand picture comes with the builder"
            await play_builder(alice, dm_a)
            await play_builder(bob, dm_b)
            assert "Locked in" in dm_a.text()
            showdown = await fake.wait_for_message(
                chan, lambda m, t=title: t in m.text(), timeout=15
            )
            assert showdown.attachments, "the showdown picture is attached"
            assert f"Round {number}/5" in showdown.text()

            # The numbers shown are the engine's numbers for the rows (and specials) shown.
            expected = engine_result(showdown, get_preset("standard"))
            assert_showdown_is_engines(showdown, expected)
            shown = field_points(showdown, "Round points")
            assert sum(shown.values()) == 0
            for name, points in shown.items():
                running[name] = running.get(name, 0) + points
            assert field_points(showdown, "Match totals") == running
            if number < 5:
                await alice.click(showdown, "Next round")

        final = await fake.wait_for_message(
            chan, lambda m: "final standings" in m.text(), timeout=10
        )
        best = max(running.values())
        winners = [name for name, total in running.items() if total == best]
        assert all(name in final.text() for name in winners)
        assert final.attachments

        board = await alice.slash("capsa leaderboard", channel=chan)
        text = board.message.text()
        assert f"<@{alice.id}>" in text and f"<@{bob.id}>" in text
        stats = await bob.slash("capsa stats", channel=chan)
        assert "Matches" in stats.message.text()
        points = f"{running['bob']:+g}".replace("+0", "0")  # a total of 0 shows as "0"
        assert f"Points\n{points}" in stats.message.text().replace("+0", "0")
