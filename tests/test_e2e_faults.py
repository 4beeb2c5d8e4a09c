"""Scenario 8: rate limits and server errors while the showdown is posted; a dropped gateway."""

from __future__ import annotations

import sqlite3

from capsa.presets import get_preset
from capsa.render import render_showdown
from tests.e2e import make_bot, play_builder, warung
from tests.e2e_extra import channel_posts, engine_result
from tests.fakediscord import running_bot


async def test_showdown_survives_429_and_500_and_the_match_survives_a_gateway_drop(
    fake_discord, tmp_path
):
    fake = fake_discord
    db = tmp_path / "db.sqlite3"
    chan, (alice,) = warung(fake, "alice")
    async with running_bot(fake, make_bot(fake, db)):
        await alice.slash("capsa new", channel=chan, seats=2, rounds=5)
        lobby = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels())
        await alice.click(lobby, "Start")
        builder = await alice.next_dm(lambda m: "round 1/5" in m.text(), timeout=10)

        # The next message the bot creates in the channel is the showdown: make Discord
        # rate-limit it twice and then fail it twice with 500 before it goes through.
        create = channel_posts(fake, chan)  # through Start's token, or the bot token
        limited = fake.faults.rate_limit(create, times=2, retry_after=0.2, method="POST")
        broken = fake.faults.server_error(create, times=2, method="POST")
        await play_builder(alice, builder)
        showdown = await fake.wait_for_message(
            chan, lambda m: "Showdown · round 1/5" in m.text(), timeout=20
        )
        assert limited.hits == 2 and broken.hits == 2
        assert len([m for m in chan.history if "Showdown · round 1/5" in m.text()]) == 1
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT count(*), min(status) FROM rounds").fetchone() == (
                1,
                "scored",
            )
            assert conn.execute("SELECT count(*) FROM round_scores").fetchone() == (2,)

        # The picture attached is the engine's picture of the same round.
        expected = engine_result(showdown, get_preset("standard"))
        (picture,) = showdown.attachments
        assert picture.data == render_showdown(expected, "en", showdown.embeds[0]["title"])

        # The websocket drops; the bot resumes and the match goes on.
        await fake.drop_gateway()
        await alice.click(showdown, "Next round", timeout=15)
        builder = await alice.next_dm(lambda m: "round 2/5" in m.text(), timeout=15)
        await play_builder(alice, builder)
        await fake.wait_for_message(chan, lambda m: "Showdown · round 2/5" in m.text(), timeout=15)
        assert fake.gateway.resumes >= 1
