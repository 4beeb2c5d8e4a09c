"""A person whose hand holds a special chooses; the bot never declares it for them.

Alice is dealt a dragon (standard: 13 from each opponent), bob and a computer ordinary
hands. Her DM builder says the dragon is hers to declare; Auto-arrange fills in her best
ordinary rows and shows what the rows and the dragon are each expected to bring, the
solver's own figures. She then lets the countdown run out (timeout action: auto): her rows
are played, not the dragon, although the solver would have declared it.
"""

from __future__ import annotations

from capsa.cards import parse_cards
from capsa.presets import get_preset
from capsa.showdown import signed
from capsa.solver import arrange
from tests.e2e import make_bot, play_builder, warung
from tests.e2e_extra import (
    assert_showdown_is_engines,
    declared,
    engine_result,
    expire_countdown,
    open_started_table,
    player_fields,
    rig_deal,
    shown_rows,
    wait_showdown,
)
from tests.fakediscord import running_bot

DRAGON_ROWS = ("2C 3D 4H 5S 6C", "7D 8H 9S TC JD", "QH KS AC")


async def test_auto_arrange_offers_both_and_time_out_plays_the_rows(
    fake_discord, tmp_path, monkeypatch
):
    fake = fake_discord
    preset = get_preset("standard")
    rig_deal(monkeypatch, {0: DRAGON_ROWS}, players=3, preset=preset, seed=1)
    chan, (alice, bob) = warung(fake, "alice", "bob")
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        await open_started_table(fake, chan, alice, [bob], seats=3, rounds=5, countdown=30)
        match = await bot.repo.active_match_in_channel(chan.id)
        rnd = await bot.repo.current_round(match.id)
        dm_a = await alice.latest_dm(lambda m: "round 1/5" in m.text(), timeout=10)
        dm_b = await bob.latest_dm(lambda m: "round 1/5" in m.text(), timeout=10)
        assert "Declare Dragon" in dm_a.button_labels()
        assert "never declared for you" in dm_a.text()

        solver = arrange(parse_cards(rnd.hands[0].cards), preset, "normal", 2, rnd.seed)
        assert solver.declare == "dragon", "the solver would declare it"
        edits = dm_a.edits
        pressed = await alice.click(dm_a, "Auto-arrange")
        assert pressed.answered
        await fake.wait_for_message(alice.dm, lambda m: m is dm_a and m.edits > edits)
        text = dm_a.text()
        assert f"about {signed(round(solver.ordinary_expected, 1), 'en')} points expected" in text
        assert f"**Declare Dragon**: about {signed(round(solver.special_value, 1), 'en')}" in text
        assert "Declare Dragon" in dm_a.button_labels() and "Submit" in dm_a.button_labels()
        assert not (await bot.repo.current_round(match.id)).hands[0].submitted

        await play_builder(bob, dm_b)
        await expire_countdown(bot, match.id, rnd.id)
        showdown = await wait_showdown(fake, chan)
        assert declared(showdown) == {}
        assert "auto-arranged" in player_fields(showdown)["alice"]
        rows = shown_rows(showdown)["alice"]
        assert [set(r) for r in rows] == [set(r) for r in solver.ordinary]
        assert_showdown_is_engines(showdown, engine_result(showdown, preset))
        scored = await bot.repo.get_round(rnd.id)
        assert scored.hands[0].auto and scored.hands[0].declare is None
