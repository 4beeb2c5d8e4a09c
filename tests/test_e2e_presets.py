"""Scenario 5: each preset's bonus names and multipliers, in one round of a real table.

Three people sit at a table under each preset. The deal is rigged (``rig_deal`` replaces the
bot's dealer; everything after the deal is the real bot) so that alice can set four of a
kind at the back, a full house in the middle and three aces in the front, and sweep both
others. Her rows pay the preset's bonuses, and the sweep pays the preset's multiplier:

- standard: 7 + 3 + 5, a sweep of the table ×4 (two opponents are enough): +60 each;
- sayapoker: the same bonuses, but a sweep of the table needs three opponents, so each
  sweep is ×2 on the base 1 per row, the bonus surplus added unmultiplied: 6 + 12 = 18;
- indocapsa: 8 + 4 + 6, sweep of the table ×4: +72 each;
- chinese-poker: 1 per row plus royalties 4 + 2 + 3, then +3 for the sweep: 15, no table
  sweep.

Bob and carol split their rows 2-1, so their pair shows the plain (unbonused) scoring.
"""

from __future__ import annotations

import pytest

from capsa.cards import parse_cards
from capsa.presets import get_preset
from tests.e2e import make_bot, set_rows, warung
from tests.e2e_extra import (
    assert_showdown_is_engines,
    engine_result,
    h2h_lines,
    open_started_table,
    pair_of,
    rig_deal,
    wait_showdown,
)
from tests.fakediscord import running_bot

ROWS = {  # seat: back, middle, front
    0: ("9S 9H 9D 9C 2C", "KS KH KD 5C 5D", "AS AH AD"),  # alice
    1: ("2H 4H 6H 8H TH", "3C 4D 5S 6D 7C", "QS JD 3H"),  # bob
    2: ("7S 7H 7D 2S 3S", "8D 8C TS TD 2D", "JS JH 4S"),  # carol
}

# preset: (row values back/middle/front as shown, sweep words, alice's points per opponent)
EXPECTED = {
    "standard": ((7, 3, 5), "sweep of the table by alice ×4", 60),
    "sayapoker": ((7, 3, 5), "sweep by alice ×2", 18),
    "indocapsa": ((8, 4, 6), "sweep of the table by alice ×4", 72),
    "chinese-poker": ((5, 3, 4), "+3 for the sweep", 15),
}


@pytest.mark.parametrize("rules", list(EXPECTED))
async def test_preset_bonuses_and_multipliers(fake_discord, tmp_path, monkeypatch, rules):
    fake = fake_discord
    preset = get_preset(rules)
    rig_deal(monkeypatch, ROWS, players=3, preset=preset)
    chan, (alice, bob, carol) = warung(fake, "alice", "bob", "carol")
    async with running_bot(fake, make_bot(fake, tmp_path / "db.sqlite3")):
        await open_started_table(
            fake, chan, alice, [bob, carol], seats=3, rounds=5, rules=rules, countdown=120
        )
        for seat, user in enumerate((alice, bob, carol)):
            builder = await user.latest_dm(lambda m: "round 1/5" in m.text(), timeout=10)
            back, middle, _front = (r.split() for r in ROWS[seat])
            await set_rows(user, builder, parse_cards(back), parse_cards(middle))
            assert "Valid setting" in builder.text()
            assert (await user.click(builder, "Submit")).answered
        showdown = await wait_showdown(fake, chan)

        text = showdown.text()
        assert f"rules: {rules}" in text
        expected = engine_result(showdown, preset)
        assert_showdown_is_engines(showdown, expected)

        (back, middle, front), sweep_words, per_opponent = EXPECTED[rules]
        for other in ("bob", "carol"):
            line = next(ln for ln in h2h_lines(showdown) if f"alice vs {other}" in ln)
            assert f"Back: alice +{back} (Four of a kind)" in line
            assert f"Middle: alice +{middle} (Full house)" in line
            assert f"Front: alice +{front} (Three of a kind)" in line
            assert sweep_words in line
            assert f"→ alice +{per_opponent}, {other} -{per_opponent}" in line
            _, points = pair_of(expected, "alice", other)
            assert points == per_opponent
        bob_carol = next(ln for ln in h2h_lines(showdown) if "bob vs carol" in ln)
        assert "sweep" not in bob_carol and "(" not in bob_carol.split("**", 2)[2]
        assert "Front: carol +1" in bob_carol
        if rules == "chinese-poker":
            assert "sweep of the table" not in text and "×" not in h2h_lines(showdown)[0]
