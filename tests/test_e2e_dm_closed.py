"""Scenario 2: a 4-person table where one player's DMs are closed.

Dave turned DMs off: the bot's DM to him is answered 403 / 50007. The channel tells him so,
he presses "Show my hand" on the round's status message, and sets and submits his rows in
the ephemeral builder that opens. The round closes on his submission like on anyone's, and
the showdown shows his rows as he set them (not auto-arranged).
"""

from __future__ import annotations

from capsa.presets import get_preset
from tests.e2e import hand_of, make_bot, play_builder, warung
from tests.e2e_extra import (
    assert_showdown_is_engines,
    engine_result,
    open_started_table,
    player_fields,
    shown_rows,
    wait_showdown,
)
from tests.fakediscord import running_bot


async def test_player_with_closed_dms_plays_through_show_my_hand(fake_discord, tmp_path):
    fake = fake_discord
    chan, (alice, bob, carol, dave) = warung(fake, "alice", "bob", "carol", "dave")
    dave.refuse_dms()
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        status = await open_started_table(
            fake, chan, alice, [bob, carol, dave], seats=4, rounds=5, countdown=120
        )
        notice = await fake.wait_for_message(chan, lambda m: dave.mention in m.content)
        assert "couldn't DM you your cards" in notice.content
        assert "Show my hand" in notice.content
        for user in (alice, bob, carol):
            assert user.mention not in notice.content
        builders = {
            user.name: await user.latest_dm(lambda m: "round 1/5" in m.text(), timeout=10)
            for user in (alice, bob, carol)
        }
        refused = fake.requests_to("POST", f"*/channels/{dave.dm.id}/messages")
        assert refused and all(r.status == 403 and r.error_code == 50007 for r in refused)
        assert dave.dms == []

        opened = await dave.click(status, "Show my hand")
        builder = await dave.wait_for_ephemeral(lambda m: bool(m.selects()))
        assert opened.answered and builder.ephemeral_for is dave
        assert "Your hand · round 1/5" in builder.text()
        cards = hand_of(builder)
        stored = await bot.repo.current_round((await bot.repo.active_match_in_channel(chan.id)).id)
        assert sorted(c.code for c in cards) == sorted(stored.hands[3].cards), "dave's deal"

        # /capsa hand opens the same builder, ephemerally, with the same cards.
        again = await dave.slash("capsa hand", channel=chan)
        second = await dave.wait_for_ephemeral(lambda m: bool(m.selects()), after=builder)
        assert again.answered and second.ephemeral_for is dave
        assert hand_of(second) == cards

        for name in ("alice", "bob", "carol"):
            await play_builder(fake.user(name), builders[name])
        assert (await bot.repo.current_round(stored.match_id)).status == "open"
        back, middle, front = await play_builder(dave, builder)
        assert "Locked in" in builder.text() and not builder.selects()

        showdown = await wait_showdown(fake, chan)
        rows = shown_rows(showdown)["dave"]
        assert [set(r) for r in rows] == [set(back), set(middle), set(front)]
        assert "auto-arranged" not in player_fields(showdown)["dave"]
        assert_showdown_is_engines(showdown, engine_result(showdown, get_preset("standard")))
