"""Issue 18: no Discord request is made while a table's lock is held. A message held up on
Discord (a rate-limit wait, a slow answer: here the fake holds the request) delays only
itself and what the table does after it: the table's lock is free meanwhile, a click that
takes it is answered, and another table deals on. Once the message lands it is there once.

The fake holds the request until the test lets it go, so each check below is an order
(done while the request is still held), never a time."""

from __future__ import annotations

import asyncio

from cogs.tables import tables_of
from tests.e2e import make_bot, play_builder, warung
from tests.e2e_extra import channel_posts, lobby_after, wait_showdown
from tests.fakediscord import FakeDiscord, eventually, running_bot
from tests.test_e2e_stale import stale_click

HELD = 60.0  # s: the fake holds the request this long at most (the test lets it go first)
REVIEW = "Review my hand"


async def start_table(fake: FakeDiscord, chan, host, *, rounds: int = 5):
    """``host``'s table with one computer in ``chan``, started; its lobby message and the
    custom_id of its Join (gone from the message since Start, still on an old client)."""
    opened = await host.slash("capsa new", channel=chan, seats=2, rounds=rounds, countdown=300)
    lobby = await lobby_after(fake, chan, opened)
    join = lobby.find_component("Join", (2,))["custom_id"]
    assert (await host.click(lobby, "Start")).answered
    await fake.wait_for_message(chan, lambda m: "Show my hand" in m.button_labels(), timeout=15)
    return lobby, join


async def test_a_held_showdown_holds_no_lock_nor_a_click_nor_another_table(
    fake_discord, tmp_path
) -> None:
    fake = fake_discord
    chan_a, (alice, bob, carol) = warung(fake, "alice", "bob", "carol")
    chan_b = next(iter(fake.guilds.values())).add_text_channel("capsa-2")
    async with running_bot(fake, make_bot(fake, tmp_path / "capsa.sqlite3")) as bot:
        tables = tables_of(bot)
        lobby_a, join_a = await start_table(fake, chan_a, alice)
        await start_table(fake, chan_b, bob)
        dm_a = await alice.latest_dm(lambda m: "round 1/5" in m.text(), timeout=15)
        dm_b = await bob.latest_dm(lambda m: "round 1/5" in m.text(), timeout=15)
        table_a = await bot.repo.active_match_in_channel(chan_a.id)
        kept = await bot.repo.channel_token(chan_a.id)
        assert kept is not None  # table A's messages go through Start's token
        # table A's showdown, posted through that token, is held up on Discord
        post = fake.faults.stall(f"/webhooks/{fake.application_id}/{kept[0]}", HELD, method="POST")
        await play_builder(alice, dm_a)
        await eventually(lambda: post.held == 1, timeout=20, message="table A's showdown post")

        # 1. table A's lock is free while its showdown waits on Discord
        assert not tables.flow.locks[table_a.id].locked()
        # 2. a click that takes table A's lock (its old lobby's Join, from a client not
        # redrawn yet) is answered, refused, while the showdown still waits
        joined = await stale_click(carol, lobby_a, join_a)
        assert joined.answered
        await joined.wait_until(lambda r: bool(r.followups), timeout=15)
        assert joined.followups[0].ephemeral  # refused: the table is no longer a lobby
        assert post.held == 1, "the click waited for table A's showdown"
        # 3. table B plays a round and deals the next while table A's showdown waits
        await play_builder(bob, dm_b)
        showdown_b = await wait_showdown(fake, chan_b, timeout=20)
        assert (await bob.click(showdown_b, "Next round", timeout=15)).answered
        await bob.next_dm(lambda m: "round 2/5" in m.text(), timeout=20)
        assert post.held == 1, "table B's deal waited for table A's showdown"

        # the showdown lands once, and the table goes on from it
        post.released.set()
        showdown_a = await wait_showdown(fake, chan_a, timeout=20)
        assert [m.id for m in chan_a.history if "Showdown · round 1/5" in m.text()] == [
            showdown_a.id
        ]
        await shown(bot, table_a.id, showdown_a.id)


async def shown(bot, match_id: int, message_id: int) -> None:
    """The table's round is stored as shown with that showdown message."""
    for _ in range(400):
        rnd = await bot.repo.current_round(match_id)
        if rnd is not None and rnd.showdown_message_id is not None:
            assert rnd.showdown_message_id == message_id
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the showdown was not stored as posted")


async def test_a_held_deal_message_holds_no_lock_and_the_status_follows_it(
    fake_discord, tmp_path
) -> None:
    """Round 2's DM held up on Discord (the hands go out before the status, and the
    countdown runs from the last one delivered): the table's lock is free meanwhile and an
    old lobby button on the table is answered; once the DM lands, the status follows."""
    fake = fake_discord
    chan, (alice, carol) = warung(fake, "alice", "carol")
    async with running_bot(fake, make_bot(fake, tmp_path / "capsa.sqlite3")) as bot:
        tables = tables_of(bot)
        lobby, join = await start_table(fake, chan, alice)
        dm = await alice.latest_dm(lambda m: "round 1/5" in m.text(), timeout=15)
        table = await bot.repo.active_match_in_channel(chan.id)
        await play_builder(alice, dm)
        showdown = await wait_showdown(fake, chan, timeout=20)
        held = fake.faults.stall(
            f"/channels/{fake.dm_channel(alice).id}/messages", HELD, method="POST"
        )
        assert (await alice.click(showdown, "Next round", timeout=15)).answered
        await eventually(lambda: held.held == 1, timeout=20, message="round 2's DM")

        assert not tables.flow.locks[table.id].locked()
        joined = await stale_click(carol, lobby, join)
        await joined.wait_until(lambda r: bool(r.followups), timeout=15)
        assert held.held == 1, "the click waited for the deal's DM"
        assert not [m for m in chan.history if "Round 2/5" in m.text()]  # the status: after

        held.released.set()
        await alice.next_dm(lambda m: "round 2/5" in m.text(), timeout=20)
        status_2 = await fake.wait_for_message(
            chan, lambda m: "Round 2/5" in m.text() and "Show my hand" in m.button_labels()
        )
        assert len([m for m in chan.history if m.id == status_2.id]) == 1
        assert len([m for m in alice.dms if "round 2/5" in m.text()]) == 1


async def test_dm_edits_after_a_click_go_through_that_clicks_token(fake_discord, tmp_path) -> None:
    """Issue 18: the DM a click came from is edited afterwards (the coach's "Review my
    hand" put on it after the showdown) through that click's token, by its original
    response's route (exempt from the global limit), not the bot token; once Discord no
    longer knows the token, the bot token edits it."""
    fake = fake_discord
    chan, (alice,) = warung(fake, "alice")
    app = fake.application_id
    async with running_bot(fake, make_bot(fake, tmp_path / "capsa.sqlite3")):
        await start_table(fake, chan, alice)
        dm = await alice.latest_dm(lambda m: "round 1/5" in m.text(), timeout=15)
        before = len(fake.requests_to(None, f"/channels/{dm.channel.id}/messages/*"))
        await play_builder(alice, dm)
        submitted = next(
            ix
            for ix in reversed(list(fake.interactions.values()))
            if ix.user is alice and ix.source is dm
        )
        await fake.wait_for_message(
            alice.dm, lambda m: m.id == dm.id and REVIEW in m.button_labels(), timeout=30
        )
        through_token = fake.requests_to(
            "PATCH", f"/webhooks/{app}/{submitted.token}/messages/@original"
        )
        assert len(through_token) == 2  # locked by the Submit, the review put on it
        assert fake.requests_to(None, f"/channels/{dm.channel.id}/messages/*")[before:] == []

        # round 2: the Submit's token unknown to Discord by the time the review comes
        showdown = await wait_showdown(fake, chan, timeout=20)
        assert (await alice.click(showdown, "Next round", timeout=15)).answered
        dm_2 = await alice.next_dm(lambda m: "round 2/5" in m.text(), timeout=20)
        post = fake.faults.stall(channel_posts(fake, chan), HELD, method="POST")
        await play_builder(alice, dm_2)
        await eventually(lambda: post.held == 1, timeout=20, message="the showdown's post")
        submitted_2 = next(
            ix
            for ix in reversed(list(fake.interactions.values()))
            if ix.user is alice and ix.source is dm_2
        )
        del fake.interactions[submitted_2.token]
        post.released.set()
        await fake.wait_for_message(
            alice.dm, lambda m: m.id == dm_2.id and REVIEW in m.button_labels(), timeout=30
        )
        by_bot = fake.requests_to("PATCH", f"/channels/{dm.channel.id}/messages/{dm_2.id}")
        assert len(by_bot) == 1  # the review, after the token was refused (404)
        refused = fake.requests_to(
            "PATCH", f"/webhooks/{app}/{submitted_2.token}/messages/@original"
        )
        assert [r.status for r in refused][-1] == 404
