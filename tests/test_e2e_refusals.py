"""Scenario 6: other people's clicks are refused, and double clicks change nothing.

Alice and bob play with one computer player; eve is a member of the server who is not at
the table. Every refusal must be an ephemeral answer to the one who clicked, and leave the
player's builder, the round and the table as they were.

Note on "someone else clicks a player's builder": in Discord only the player can see their
DM or ephemeral builder, so the only way to click it is to replay its ``custom_id`` (the
ids are persistent and carry the round and seat). The fake lets bob press the components of
alice's DM builder, which is exactly such a replay.
"""

from __future__ import annotations

import asyncio

from capsa.presets import get_preset
from capsa.solver import arrange
from tests.e2e import hand_of, make_bot, play_builder, set_rows
from tests.e2e_extra import field_points, lobby_after, wait_showdown
from tests.fakediscord import eventually, running_bot

NOT_YOUR_SEAT = "This is not your seat."


async def test_others_are_refused_and_double_clicks_count_once(fake_discord, tmp_path):
    fake = fake_discord
    guild = fake.add_guild("Warung")
    chan = guild.add_text_channel("capsa")
    alice = fake.add_user("alice", guild=guild)
    bob = fake.add_user("bob", guild=guild)
    eve = fake.add_user("eve", guild=guild)
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        # The lobby: only the host starts or cancels.
        opened = await alice.slash("capsa new", channel=chan, seats=3, rounds=5)
        lobby = await lobby_after(fake, chan, opened)
        for button in ("Start", "Cancel"):
            refused = await eve.click(lobby, button)
            assert refused.ephemeral and refused.answer.ephemeral_for is eve
            assert "Only the host" in refused.text()
        assert "Join" in lobby.button_labels(), "the lobby is still open"
        await bob.click(lobby, "Join")
        await alice.click(lobby, "Start")
        status = await fake.wait_for_message(chan, lambda m: "Show my hand" in m.button_labels())
        match = await bot.repo.active_match_in_channel(chan.id)
        dm_a = await alice.latest_dm(lambda m: "round 1/5" in m.text(), timeout=10)
        dm_b = await bob.latest_dm(lambda m: "round 1/5" in m.text(), timeout=10)

        # Someone not seated presses "Show my hand".
        refused = await eve.click(status, "Show my hand")
        assert refused.ephemeral and NOT_YOUR_SEAT in refused.text()

        # Bob replays alice's builder: every button and both selects are refused.
        before = (dm_a.edits, dm_a.text(), dm_a.components)
        cards = hand_of(dm_a)
        attempts = [
            bob.click(dm_a, "Auto-arrange"),
            bob.click(dm_a, "Clear"),
            bob.click(dm_a, "Submit"),
            bob.select(dm_a, "Back (5)", [c.code for c in cards[:5]]),
            bob.select(dm_a, "Middle (5)", [c.code for c in cards[5:10]]),
        ]
        for attempt in attempts:
            refused = await attempt
            assert refused.ephemeral and refused.answer.ephemeral_for is bob
            assert NOT_YOUR_SEAT in refused.text()
        assert (dm_a.edits, dm_a.text(), dm_a.components) == before
        rnd = await bot.repo.current_round(match.id)
        assert not rnd.hands[0].submitted and not rnd.hands[1].submitted

        # Alice double-clicks Submit: both clicks reach the bot before either is answered.
        choice = arrange(cards, get_preset("standard"), "normal", 2, seed=1)
        back, middle, _ = choice.ordinary
        await set_rows(alice, dm_a, back, middle)
        first = await alice.click(dm_a, "Submit", wait=False)
        second = await alice.click(dm_a, "Submit", wait=False)
        await asyncio.gather(first.wait(), second.wait())
        assert first.answered and second.answered

        async def refused() -> bool:
            return any(ix.followups for ix in (first, second))

        async def locked_in() -> bool:
            return "Locked in" in dm_a.text() and not dm_a.components

        # The refusal and the lock are two requests, and either may land first.
        await eventually(refused)
        await eventually(locked_in)
        answers = sorted([first, second], key=lambda ix: ix.ephemeral)
        locked, again = answers
        assert again.ephemeral and "You already submitted this round." in again.text()
        submitted = (await bot.repo.current_round(match.id)).hands[0].submitted_at
        await fake.wait_for_message(chan, lambda m: m.id == status.id and "✅ alice" in m.text())
        assert status.text().count("alice") == 1

        # Bob submits; the round is scored once, with alice's first submission.
        await play_builder(bob, dm_b)
        showdown = await wait_showdown(fake, chan)
        rnd = await bot.repo.current_round(match.id)
        assert rnd.status == "scored" and rnd.hands[0].submitted_at == submitted
        points = field_points(showdown, "Round points")
        assert field_points(showdown, "Match totals") == points
        assert await bot.repo.match_totals(match.id) == {h.seat: h.points for h in rnd.hands}
        stats = await bot.repo.player_stats(guild.id, alice.id)
        assert stats.rounds == 1 and stats.points == points["alice"]
        assert len([m for m in chan.history if "Showdown · round 1/5" in m.text()]) == 1

        # After the round: alice's /capsa hand answers that the round is over.
        late = await alice.slash("capsa hand", channel=chan)
        assert late.ephemeral and "This round is already over." in late.text()

        # Only the host presses Next; eve and bob are refused and nothing starts.
        for other in (eve, bob):
            refused = await other.click(showdown, "Next round")
            assert refused.ephemeral and "Only the host" in refused.text()
        assert (await bot.repo.current_round(match.id)).number == 1

        # The host double-clicks Next: round 2 starts once.
        first = await alice.click(showdown, "Next round", wait=False)
        second = await alice.click(showdown, "Next round", wait=False)
        await asyncio.gather(first.wait(), second.wait())
        await alice.next_dm(lambda m: "round 2/5" in m.text(), timeout=10)
        await fake.wait_for_message(chan, lambda m: "Round 2/5" in m.text())
        await asyncio.sleep(0.2)  # let a second (wrong) deal show up if there is one
        assert len([m for m in chan.history if m.text().startswith("Round 2/5")]) == 1
        assert len([m for m in alice.dms if "round 2/5" in m.text()]) == 1
        rnd = await bot.repo.current_round(match.id)
        assert rnd.number == 2
        assert showdown.button_labels() == ["Review my hand"], "Next is gone after the first press"
