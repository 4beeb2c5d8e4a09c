"""Ratings through the real bot and the fake Discord: matches finished before ratings
existed are rated when the bot starts, a match played through the bot rates its players,
``/capsa stats`` shows the rating, and the leaderboard's ``rating`` sort orders by it."""

from __future__ import annotations

import re
import sqlite3

from capsa.rating import PROVISIONAL_MATCHES, RatedPlayer, replay
from data import open_repository
from tests.e2e import make_bot, play_builder, warung
from tests.fakediscord import running_bot
from tests.test_e2e_history import HOUR, T0, seed_match

MENTION = re.compile(r"<@(\d+)>")


async def test_a_match_rates_its_players_and_the_rating_sort_orders_them(fake_discord, tmp_path):
    fake = fake_discord
    db = tmp_path / "capsa.sqlite3"
    chan, (alice, bob, carol, dave) = warung(fake, "alice", "bob", "carol", "dave")
    guild_id = chan.guild.id

    # Two matches of carol and dave finished before this version: no ratings stored.
    repo = await open_repository(str(db))
    try:
        for n in range(2):  # long over: showdowns and standings posted
            await seed_match(repo, guild_id, chan.id, [carol, dave], when=T0 + n * HOUR)
    finally:
        await repo.close()
    lite = sqlite3.connect(db, isolation_level=None)
    lite.executescript(
        "DELETE FROM rating_changes; DELETE FROM ratings; DELETE FROM rated_matches;"
        " DELETE FROM rating_guilds;"
    )
    lite.close()

    bot = make_bot(fake, db)
    async with running_bot(fake, bot):
        repo = bot.repo
        old = await repo.ratings(guild_id)  # rated as the bot started
        assert old[RatedPlayer.member(carol.id)].matches == 2
        assert RatedPlayer.computer("normal") in old

        opened = await alice.slash("capsa new", channel=chan, seats=3, rounds=5)
        assert opened.answered
        lobby = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels())
        await bob.click(lobby, "Join")
        await alice.click(lobby, "Start")
        for number in range(1, 6):
            for user in (alice, bob):
                dm = await user.next_dm(lambda m, n=number: f"round {n}/5" in m.text(), timeout=10)
                await play_builder(user, dm)
            showdown = await fake.wait_for_message(
                chan, lambda m, n=number: f"Showdown · round {n}/5" in m.text(), timeout=15
            )
            if number < 5:
                await alice.click(showdown, "Next round")
        await fake.wait_for_message(chan, lambda m: "final standings" in m.text(), timeout=10)

        ratings = await repo.ratings(guild_id)
        assert replay(await repo.rated_placings(guild_id)) == ratings  # from scratch
        for user in (alice, bob):
            assert ratings[RatedPlayer.member(user.id)].matches == 1
        assert ratings[RatedPlayer.computer("normal")].matches == 3

        stats = await bob.slash("capsa stats", channel=chan)
        text = stats.message.text()
        mine = ratings[RatedPlayer.member(bob.id)]
        assert f"Rating\n{mine.conservative:.1f} (skill {mine.mu:.1f} ± {mine.sigma:.1f})" in text
        assert f"provisional: 1 of {PROVISIONAL_MATCHES} matches played" in text

        board = await alice.slash("capsa leaderboard", channel=chan, sort="rating")
        text = board.message.text()
        assert "Leaderboard · rating" in text
        shown = [int(m) for m in MENTION.findall(text)]
        members = {u.id for u in (alice, bob, carol, dave)}
        expected = sorted(members, key=lambda u: -ratings[RatedPlayer.member(u)].conservative)
        assert shown == expected
