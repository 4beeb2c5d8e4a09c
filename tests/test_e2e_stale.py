"""Clicks on components their message no longer shows (a client not redrawn yet): the old
lobby's Join after Start, a locked DM's Submit, an old showdown's Next after the next deal.
discord.py alone drops them unanswered (the person sees "This interaction failed"); the bot
answers each with its route's refusal, and none changes anything."""

from __future__ import annotations

from tests.e2e import make_bot, play_builder, warung
from tests.e2e_extra import lobby_after, wait_showdown
from tests.fakediscord import FakeMessage, FakeUser, InteractionResult, running_bot
from tests.fakediscord.interactions import COMPONENT


async def stale_click(user: FakeUser, message: FakeMessage, custom_id: str) -> InteractionResult:
    """A click on ``custom_id`` of ``message`` as an old client still shows it."""
    data = {"custom_id": custom_id, "component_type": 2}
    ix = InteractionResult(user._fake, COMPONENT, user, message.channel, data, source=message)
    return await user._send(ix, True, 5)


async def test_clicks_on_components_that_are_gone_are_answered(fake_discord, tmp_path):
    fake = fake_discord
    chan, (alice, bob) = warung(fake, "alice", "bob")
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        opened = await alice.slash("capsa new", channel=chan, seats=3, rounds=5)
        lobby = await lobby_after(fake, chan, opened)
        join = lobby.find_component("Join", (2,))["custom_id"]
        await bob.click(lobby, "Join")
        await alice.click(lobby, "Start")
        dms = {}
        for person in (alice, bob):
            dms[person] = await person.latest_dm(lambda m: "round 1/5" in m.text(), timeout=10)
        submit = dms[alice].find_component("Submit", (2,))["custom_id"]
        for person, dm in dms.items():
            await play_builder(person, dm)
        showdown = await wait_showdown(fake, chan, 1)
        next_id = showdown.find_component("Next round", (2,))["custom_id"]
        await alice.click(showdown, "Next round")
        await alice.latest_dm(lambda m: "round 2/5" in m.text(), timeout=10)

        assert join not in str(lobby.components)  # every one of them is gone now
        assert submit not in str(dms[alice].components)
        assert next_id not in str(showdown.components)
        old_join = await stale_click(bob, lobby, join)
        old_submit = await stale_click(alice, dms[alice], submit)
        old_next = await stale_click(alice, showdown, next_id)
        for ix in (old_join, old_submit, old_next):
            assert ix.answered and ix.ephemeral, ix.describe()
            assert "Something went wrong" not in ix.text()
        assert "already started or closed" in old_join.text()
        assert "already over" in old_submit.text()  # round 1 is scored
        # nothing moved: round 2 is dealt once, round 1 shown once
        assert len([m for m in alice.dms if "round 2/5" in m.text()]) == 1
        assert len([m for m in chan.history if "Showdown · round 1/5" in m.text()]) == 1
