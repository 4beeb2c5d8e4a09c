"""Small robustness stories against the fake Discord: forged component ids, a DM channel
that cannot even be opened, and a lobby message left with its buttons by a crash."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from data import open_repository
from tests.e2e import make_bot, warung
from tests.e2e_extra import is_open_lobby, lobby_after, open_started_table
from tests.fakediscord import eventually, running_bot

STALE = "This table is no longer open."
HUGE = "9" * 30  # no id is this long: ids are signed 64-bit integers
TOO_BIG = str(2**63)  # one more than the largest id


async def test_out_of_range_numbers_in_custom_ids_are_stale_clicks(fake_discord, tmp_path, caplog):
    """Every component whose custom_id carries a number no id can be is answered like a click
    on a closed table, and nothing reaches the database (which raised OverflowError)."""
    fake = fake_discord
    chan, (alice,) = warung(fake, "alice")
    caplog.set_level(logging.INFO)
    buttons = {
        "Join": f"capsa:lobby:{HUGE}:join",
        "Show my hand": f"capsa:show:{TOO_BIG}",
        "Next round": f"capsa:next:{HUGE}:1",
        "Next (number)": f"capsa:next:1:{HUGE}",
        "Auto-arrange": f"capsa:h:a:{HUGE}:0:0:0",
    }
    cards = ["AS", "KS", "QS", "JS", "TS"]
    forged = {
        "content": "an old table",
        "components": [
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": 1, "label": label, "custom_id": custom_id}
                    for label, custom_id in buttons.items()
                ],
            },
            {
                "type": 1,
                "components": [
                    {
                        "type": 3,
                        "custom_id": f"capsa:h:b:{TOO_BIG}:0:0:0",
                        "placeholder": "Back (5)",
                        "min_values": 5,
                        "max_values": 5,
                        "options": [{"label": c, "value": c} for c in cards],
                    }
                ],
            },
        ],
    }
    async with running_bot(fake, make_bot(fake, tmp_path / "db.sqlite3")):
        message = fake.post_message(chan, fake.bot_user, forged)
        answers = [await alice.click(message, label) for label in buttons]
        answers.append(await alice.select(message, "Back (5)", cards))
        for answer in answers:
            assert answer.answered and answer.ephemeral, answer.describe()
            assert STALE in answer.text()
    assert "OverflowError" not in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


@pytest.mark.parametrize("status", [400, 403])
async def test_a_refused_dm_channel_is_remembered_across_a_restart(fake_discord, tmp_path, status):
    """Bob takes no DMs, and Discord already refuses to open the DM channel (400 or 403,
    code 50007). The channel is told once; after a restart the bot neither asks again nor
    tells the channel twice."""
    fake = fake_discord
    chan, (alice, bob) = warung(fake, "alice", "bob")
    bob.refuse_dm_channel(status)
    db = tmp_path / "db.sqlite3"

    def opened_for(user) -> list:
        return [
            r
            for r in fake.requests_to("POST", "*/users/@me/channels")
            if str((r.json or {}).get("recipient_id")) == str(user.id)
        ]

    def notices() -> list:
        return [m for m in chan.history if bob.mention in m.content and "DM" in m.content]

    async with running_bot(fake, make_bot(fake, db)) as bot:
        await open_started_table(fake, chan, alice, [bob], seats=3, rounds=5, countdown=120)
        await fake.wait_for_message(chan, lambda m: m in notices())
        match = await bot.repo.active_match_in_channel(chan.id)

        async def remembered() -> bool:
            rnd = await bot.repo.current_round(match.id)
            return rnd is not None and rnd.hands[1].dm_refused

        await eventually(remembered, message="the refused DM channel was not stored")
        attempts = opened_for(bob)
        assert attempts and all(r.status == status and r.error_code == 50007 for r in attempts)
        assert bob.dms == [] and len(notices()) == 1
        assert (await alice.latest_dm(timeout=10)).text()  # alice got her builder

    async with running_bot(fake, make_bot(fake, db)) as bot:  # resumed while it starts
        await asyncio.sleep(0.3)  # let a (wrong) second DM attempt or notice show up
        assert opened_for(bob) == attempts, "the refused DM channel was asked for again"
        assert len(notices()) == 1, "the channel was told twice"
        rnd = await bot.repo.current_round(match.id)
        assert rnd.status == "open" and rnd.hands[1].dm_refused


async def test_a_lobby_started_before_a_crash_loses_its_buttons_on_resume(fake_discord, tmp_path):
    """The bot died after Start was stored and before the lobby message was edited: the
    lobby kept Join and Start. On the next start the message says the match has started
    and has no buttons; the match goes on (round 1 is dealt)."""
    fake = fake_discord
    chan, (alice,) = warung(fake, "alice")
    db = tmp_path / "db.sqlite3"
    async with running_bot(fake, make_bot(fake, db)) as bot:
        opened = await alice.slash("capsa new", channel=chan, seats=2, rounds=5)
        lobby = await lobby_after(fake, chan, opened)
        match = await bot.repo.active_match_in_channel(chan.id)
        assert match.lobby_message_id == lobby.id

    # What Start stores, with no edit of the lobby message after it (the crash).
    repo = await open_repository(str(db))
    await repo.add_seat(match.id, None, "Computer 1", "normal")
    assert await repo.start_match(match.id)
    await repo.close()
    assert is_open_lobby(lobby) and "Start" in lobby.button_labels()

    edits = lobby.edits
    async with running_bot(fake, make_bot(fake, db)):
        await fake.wait_for_message(chan, lambda m: m is lobby and m.edits > edits, timeout=10)
        assert lobby.buttons() == [] and not is_open_lobby(lobby)
        assert "The match has started." in lobby.text()
        await fake.wait_for_message(chan, lambda m: "Round 1/5" in m.text(), timeout=10)
        again = lobby.edits

    # Resuming again edits it again, to the same thing.
    async with running_bot(fake, make_bot(fake, db)):
        await fake.wait_for_message(chan, lambda m: m is lobby and m.edits > again, timeout=10)
        assert lobby.buttons() == [] and "The match has started." in lobby.text()


async def test_a_click_on_the_lobby_of_a_closed_table_takes_its_buttons_off(fake_discord, tmp_path):
    """A lobby cancelled while its message could not be edited (a crash, say) is no longer
    resumed: the first click on it answers that the table has closed and takes the buttons
    off the message."""
    fake = fake_discord
    chan, (alice, bob) = warung(fake, "alice", "bob")
    db = tmp_path / "db.sqlite3"
    async with running_bot(fake, make_bot(fake, db)) as bot:
        opened = await alice.slash("capsa new", channel=chan, seats=3, rounds=5)
        lobby = await lobby_after(fake, chan, opened)
        match = await bot.repo.active_match_in_channel(chan.id)
        assert await bot.repo.cancel_match(match.id, now=time.time())  # no message edit
        joined = await bob.click(lobby, "Join")
        assert joined.ephemeral and "already started or closed" in joined.text()
        await eventually(lambda: not lobby.buttons(), message="the lobby kept its buttons")
        assert "This table was cancelled." in lobby.text()
