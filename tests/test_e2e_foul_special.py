"""Scenario 4: a fouled submission (after the confirm step) and a declared special, scored
per the preset, at a table of two people and two computer players.

The deal is rigged (``rig_deal`` replaces the bot's dealer; everything after the deal is the
real bot) so that bob holds six pairs and alice a plain hand; the computers get the rest of
the deck, checked to hold no special. Alice sets her middle stronger than her back (fouled),
is asked to confirm, and confirms. Bob presses "Declare Six pairs".

Per RULES §4-§5 the showdown must then show: bob is paid his six pairs by everyone (3 in
standard, 18 in indocapsa), alice loses all three rows to each computer at the preset's
foul multiplier (×2 standard, ×3 indocapsa) with the computers' row bonuses counted, and the
stored stats count alice's foul and bob's special.
"""

from __future__ import annotations

import pytest

from capsa.cards import parse_cards
from capsa.presets import get_preset
from tests.e2e import make_bot, set_rows, warung
from tests.e2e_extra import (
    assert_showdown_is_engines,
    declared,
    engine_result,
    h2h_lines,
    open_started_table,
    pair_of,
    player_fields,
    rig_deal,
    shown_rows,
    wait_showdown,
)
from tests.fakediscord import running_bot

ALICE = ("AS KD 9C 7H 3D", "QS QH 8S 5D 2C", "JC TD 4H")  # middle (pair) beats back: fouled
BOB = ("2S 2H 4D 4C 6S", "6H 8D 8C TS TH", "QD QC KS")  # six pairs

# preset: (foul multiplier, what six pairs is paid)
EXPECTED = {"standard": (2, 3), "indocapsa": (3, 18)}


@pytest.mark.parametrize("rules", list(EXPECTED))
async def test_fouled_submission_and_declared_special(fake_discord, tmp_path, monkeypatch, rules):
    fake = fake_discord
    preset = get_preset(rules)
    foul_multiplier, six_pairs = EXPECTED[rules]
    rig_deal(monkeypatch, {0: ALICE, 1: BOB}, players=4, preset=preset)
    chan, (alice, bob) = warung(fake, "alice", "bob")
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        status = await open_started_table(
            fake, chan, alice, [bob], seats=4, rounds=5, rules=rules, countdown=120
        )
        dm_a = await alice.latest_dm(lambda m: "round 1/5" in m.text(), timeout=10)
        dm_b = await bob.latest_dm(lambda m: "round 1/5" in m.text(), timeout=10)
        assert not any(label.startswith("Declare") for label in dm_a.button_labels())
        assert "Declare Six pairs" in dm_b.button_labels()

        # Alice: a fouled setting is not taken on the first Submit.
        back, middle, _ = (parse_cards(row.split()) for row in ALICE)
        await set_rows(alice, dm_a, back, middle)
        assert "⚠️ Fouled" in dm_a.text()
        asked = await alice.click(dm_a, "Submit")
        assert asked.ephemeral and "**fouled**" in asked.text()
        assert "Submit" in dm_a.button_labels(), "the builder is still open"
        match = await bot.repo.active_match_in_channel(chan.id)
        rnd = await bot.repo.current_round(match.id)
        assert not rnd.hands[0].submitted
        assert "⏳ alice" in status.text()

        confirmed = await alice.click(asked, "Submit fouled setting")
        assert confirmed.answered and "Locked in" in confirmed.text()
        assert not confirmed.message.buttons()
        await fake.wait_for_message(
            alice.dm, lambda m: m.id == dm_a.id and "Locked in" in m.text() and not m.buttons()
        )  # the DM builder is locked as well

        # Bob declares his six pairs.
        declaring = await bob.click(dm_b, "Declare Six pairs")
        assert declaring.answered
        await fake.wait_for_message(
            bob.dm, lambda m: m.id == dm_b.id and "You declared **Six pairs**" in m.text()
        )

        showdown = await wait_showdown(fake, chan)
        fields = player_fields(showdown)
        assert "❌ **Fouled**" in fields["alice"]
        assert "✨ Declared **Six pairs**" in fields["bob"]
        assert "Fouled" not in fields["bob"]
        shown = [{c.code for c in row} for row in shown_rows(showdown)["alice"]]
        assert shown == [{c.code for c in parse_cards(row.split())} for row in ALICE]

        assert declared(showdown) == {"bob": "six_pairs"}
        expected = engine_result(showdown, preset)
        assert_showdown_is_engines(showdown, expected)

        pair, alice_pays = pair_of(expected, "alice", "bob")
        assert pair.kind == "special" and alice_pays == -six_pairs
        line = next(ln for ln in h2h_lines(showdown) if "alice vs bob" in ln)
        assert "Six pairs paid to bob" in line
        assert f"→ alice -{six_pairs}, bob +{six_pairs}" in line
        for computer in expected.players[2:]:
            # Alice loses every row to each computer, which collects its own row values.
            pair, points = pair_of(expected, "alice", computer.name)
            positions = ("back", "middle", "front")
            values = [
                preset.row_value(pos, row.category)
                for pos, row in zip(positions, computer.rows, strict=True)
            ]
            assert pair.kind == "foul" and points == -foul_multiplier * sum(values)
            line = next(ln for ln in h2h_lines(showdown) if f"alice vs {computer.name}" in ln)
            assert f"alice fouled: all rows lost ×{foul_multiplier}" in line
        bob_total = next(p.total for p in expected.players if p.name == "bob")
        assert bob_total == 3 * six_pairs, "every other player pays the special"

        stats_a = await alice.slash("capsa stats", channel=chan)
        assert "Fouls\n1" in stats_a.text()
        stats_b = await bob.slash("capsa stats", channel=chan)
        assert "Six pairs ×1" in stats_b.text()
        assert f"+{3 * six_pairs}" in stats_b.text()
