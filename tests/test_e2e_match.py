"""Scenario 1: a full 5-round match, 2 people and 2 computer players, through the real bot."""

from __future__ import annotations

import re

from capsa.cards import Card
from capsa.presets import get_preset
from capsa.scoring import Seat, score_round
from tests.e2e import cards_in, make_bot, play_builder
from tests.fakediscord import FakeMessage, running_bot

ROW_LINE = re.compile(r"^(Front|Middle|Back): (.*?) — ", re.M)


def rows_from_showdown(message: FakeMessage) -> dict[str, dict[str, list[Card]]]:
    """Each player's rows as the showdown embed shows them."""
    rows: dict[str, dict[str, list[Card]]] = {}
    for field in message.embeds[0]["fields"]:
        name = field["name"].rsplit(" (", 1)[0]
        rows[name] = {
            pos.lower(): cards_in(cards) for pos, cards in ROW_LINE.findall(field["value"])
        }
    return rows


def round_points(message: FakeMessage) -> dict[str, int]:
    field = next(f for f in message.embeds[1]["fields"] if f["name"] == "Round points")
    return {
        name: int(points)
        for name, points in re.findall(r"^(.+?): \*\*([+-]?\d+)\*\*$", field["value"], re.M)
    }


def match_totals(message: FakeMessage) -> dict[str, int]:
    field = next(f for f in message.embeds[1]["fields"] if f["name"] == "Match totals")
    return {
        name: int(points)
        for name, points in re.findall(r"^(.+?): \*\*([+-]?\d+)\*\*$", field["value"], re.M)
    }


async def test_full_match_two_people_two_computers(fake_discord, tmp_path):
    fake = fake_discord
    guild = fake.add_guild("Warung")
    chan = guild.add_text_channel("capsa")
    alice = fake.add_user("alice", guild=guild)
    bob = fake.add_user("bob", guild=guild)
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        opened = await alice.slash("capsa new", channel=chan, seats=4, rounds=5)
        assert opened.answered and not opened.ephemeral
        lobby = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels())
        joined = await bob.click(lobby, "Join")
        assert "<@%d>" % bob.id in lobby.text() and joined.answered
        await alice.click(lobby, "Start")
        assert "started" in lobby.text()

        running: dict[str, int] = {}
        for number in range(1, 6):
            title = f"Showdown · round {number}/5"
            dm_a = await alice.next_dm(lambda m: f"round {number}/5" in m.text(), timeout=10)
            dm_b = await bob.next_dm(lambda m: f"round {number}/5" in m.text(), timeout=10)
            assert dm_a.attachments, "the hand picture comes with the builder"
            await play_builder(alice, dm_a)
            await play_builder(bob, dm_b)
            assert "Locked in" in dm_a.text()
            showdown = await fake.wait_for_message(
                chan, lambda m, t=title: t in m.text(), timeout=15
            )
            assert showdown.attachments, "the showdown picture is attached"
            assert f"Round {number}/5" in showdown.text()

            # The numbers shown are the engine's numbers for the rows shown.
            rows = rows_from_showdown(showdown)
            seats = [
                Seat(name, tuple(r["back"]), tuple(r["middle"]), tuple(r["front"]))
                for name, r in rows.items()
            ]
            expected = score_round(seats, get_preset("standard"))
            shown = round_points(showdown)
            assert shown == {p.name: p.total for p in expected.players}
            assert sum(shown.values()) == 0
            for name, points in shown.items():
                running[name] = running.get(name, 0) + points
            assert match_totals(showdown) == running
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
        assert (
            f"{running['bob']:+d}" in stats.message.text()
            or str(running["bob"]) in stats.message.text()
        )
