"""Scenario 3: the countdown runs out with one player unsubmitted.

A table of alice, bob and one computer player, with the shortest countdown the command
allows (30 s). Alice submits, bob does nothing. So that the test does not wait 30 seconds,
``expire_countdown`` does now exactly what the bot's own deadline timer does when it fires
(the CLOSE_ROUND timer set to now); a real user cannot do this,
everything else is the real bot.

- With the default server setting, bob's rows are the solver's ``normal`` setting, marked
  "auto" in the showdown, and scored like anyone's.
- With ``/capsa settings timeout:foul`` (by a member with Manage Server) bob is scored as
  fouled against everyone, whatever the solver's rows, and his stats count the foul.

The deal is rigged only so that no hand holds a special (a declared special would change
which head-to-head lines appear); the cards are otherwise a shuffled deck.
"""

from __future__ import annotations

import re

from capsa.cards import parse_cards
from capsa.presets import get_preset
from capsa.solver import arrange
from cogs.life import Clock, Step
from cogs.scheduler import TimerKind
from cogs.tables import tables_of
from tests.e2e import make_bot, play_builder, warung
from tests.e2e_extra import (
    assert_showdown_is_engines,
    engine_result,
    expire_countdown,
    h2h_lines,
    open_started_table,
    player_fields,
    rig_deal,
    shown_rows,
    wait_showdown,
)
from tests.fakediscord import Perm, eventually, running_bot

AUTO_MARK = "🤖 auto-arranged (time ran out)"


async def _round_where_bob_times_out(fake, bot, chan, alice, bob):
    status = await open_started_table(
        fake, chan, alice, [bob], seats=3, rounds=5, rules="standard", countdown=30
    )
    match = await bot.repo.active_match_in_channel(chan.id)
    rnd = await bot.repo.current_round(match.id)
    assert 29 <= rnd.deadline - rnd.created_at <= 31
    assert f"<t:{int(rnd.deadline)}:R>" in status.text(), "the status shows the countdown"

    dm_a = await alice.latest_dm(lambda m: "round 1/5" in m.text(), timeout=10)
    dm_b = await bob.latest_dm(lambda m: "round 1/5" in m.text(), timeout=10)
    scheduler = tables_of(bot).scheduler

    async def armed() -> bool:  # the deadline timer
        deadline = Clock(Step.CLOSE, rnd.number).encode()
        return (await scheduler.pending(match.id)).get(TimerKind.CLOCK) == deadline

    await eventually(armed)
    await play_builder(alice, dm_a)
    await fake.wait_for_message(chan, lambda m: m.id == status.id and "✅ alice" in m.text())
    assert "⏳ bob" in status.text()
    rnd = await bot.repo.current_round(match.id)
    assert rnd.status == "open" and rnd.pending_seats == (1,), "only bob is missing"

    await expire_countdown(bot, match.id, rnd.id)
    showdown = await wait_showdown(fake, chan)
    # Bob's old builder is now refused politely.
    late = await bob.click(dm_b, "Submit")
    assert late.ephemeral and "This round is already over." in late.text()
    return match, rnd, showdown


async def test_timeout_auto_arranges_and_marks_auto(fake_discord, tmp_path, monkeypatch):
    fake = fake_discord
    preset = get_preset("standard")
    rig_deal(monkeypatch, {}, players=3, preset=preset)
    chan, (alice, bob) = warung(fake, "alice", "bob")
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        match, rnd, showdown = await _round_where_bob_times_out(fake, bot, chan, alice, bob)

        fields = player_fields(showdown)
        assert AUTO_MARK in fields["bob"]
        assert AUTO_MARK not in fields["alice"] and AUTO_MARK not in fields["Computer 1"]
        assert "Fouled" not in fields["bob"]
        # Bob's rows are the solver's normal setting for his cards.
        solver = arrange(parse_cards(rnd.hands[1].cards), preset, "normal", 2, rnd.seed + 1)
        shown = shown_rows(showdown)["bob"]
        assert [{c.code for c in row} for row in shown] == [
            {c.code for c in row} for row in (solver.back, solver.middle, solver.front)
        ]
        assert_showdown_is_engines(showdown, engine_result(showdown, preset))

        async def shown() -> bool:  # marked a moment after the message is out
            return (await bot.repo.get_round(rnd.id)).status == "shown"

        await eventually(shown)  # scored, and its showdown posted
        scored = await bot.repo.get_round(rnd.id)
        assert scored.hands[1].auto and not scored.hands[1].fouled
        assert not scored.hands[0].auto


async def test_timeout_with_server_setting_foul(fake_discord, tmp_path, monkeypatch):
    fake = fake_discord
    preset = get_preset("standard")
    rig_deal(monkeypatch, {}, players=3, preset=preset)
    guild = fake.add_guild("Warung")
    chan = guild.add_text_channel("capsa")
    alice = fake.add_user("alice", guild=guild, manage_guild=True)
    bob = fake.add_user("bob", guild=guild)
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        saved = await alice.slash("capsa settings", channel=chan, options={"timeout": "foul"})
        assert saved.ephemeral and "Saved." in saved.text()
        assert "On timeout\ncount as fouled" in saved.text()

        match, rnd, showdown = await _round_where_bob_times_out(fake, bot, chan, alice, bob)
        assert match.timeout_action == "foul"

        fields = player_fields(showdown)
        assert "❌ **Fouled**" in fields["bob"] and AUTO_MARK in fields["bob"]
        assert "Fouled" not in fields["alice"] and "Fouled" not in fields["Computer 1"]
        expected = engine_result(showdown, preset, forced_fouls=["bob"])
        assert_showdown_is_engines(showdown, expected)
        bob_lines = [ln for ln in h2h_lines(showdown) if "bob" in ln.split(":")[0]]
        assert len(bob_lines) == 2
        for line in bob_lines:
            assert re.search(r"bob fouled: all rows lost ×[24]", line), line
        bob_total = next(p.total for p in expected.players if p.name == "bob")
        assert bob_total < 0
        # Bob's own rows (the solver's) are not fouled: the table setting made them so.
        assert not engine_result(showdown, preset).players[1].fouled

        stats = await bob.slash("capsa stats", channel=chan)
        assert "Fouls\n1" in stats.text()
        assert f"{bob_total:+g}" in stats.text()


async def test_countdown_runs_even_if_the_status_message_cannot_be_posted(fake_discord, tmp_path):
    """The bot loses Send Messages in the channel after the lobby was posted (a server
    admin changed the channel). Buttons still work there (interaction answers need no
    permission), so the table starts; the round must still deal and count down."""
    fake = fake_discord
    guild = fake.add_guild("Warung")
    chan = guild.add_text_channel("capsa")
    alice = fake.add_user("alice", guild=guild)
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        await alice.slash("capsa new", channel=chan, seats=2, countdown=30)
        lobby = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels())
        chan.set_overwrite(fake.bot_user, deny=Perm.SEND_MESSAGES)
        assert (await alice.click(lobby, "Start")).answered
        match = await bot.repo.active_match_in_channel(chan.id)
        await eventually(lambda: bot.repo.current_round(match.id))
        builder = await alice.latest_dm(lambda m: "round 1/10" in m.text(), timeout=3)
        assert builder.selects(), "alice got her cards"
        scheduler = tables_of(bot).scheduler

        async def armed() -> bool:  # the deadline timer
            clock = (await scheduler.pending(match.id)).get(TimerKind.CLOCK)
            return clock == Clock(Step.CLOSE, 1).encode()

        await eventually(armed, timeout=3)


async def test_no_table_is_opened_where_the_bot_cannot_post(fake_discord, tmp_path):
    """Without Send Messages the lobby could not be shown: /capsa new says so, privately."""
    fake = fake_discord
    guild = fake.add_guild("Warung")
    chan = guild.add_text_channel("capsa")
    chan.set_overwrite(fake.bot_user, deny=Perm.SEND_MESSAGES)
    alice = fake.add_user("alice", guild=guild)
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        refused = await alice.slash("capsa new", channel=chan, seats=2)
        assert refused.ephemeral and "send_messages" in refused.text()
        assert await bot.repo.active_match_in_channel(chan.id) is None
        assert not chan.history
