"""History, replay and rematch through the real bot and the fake Discord.

The finished matches are written beforehand through the repository exactly as the bot
writes them (dealt, set by the solver, scored by the engine, each showdown marked posted,
places stored, the standings marked posted), so each test
starts from a server with a past; the rematch's match is left with its last round scored
but not finished, as a bot that died right after scoring leaves it, so the restarted bot
finishes it and posts the standings with their Rematch button."""

from __future__ import annotations

import sqlite3

from capsa.cards import deal
from capsa.match import standings
from capsa.presets import get_preset
from capsa.showdown import signed
from capsa.solver import arrange
from cogs.table_base import round_result, round_scores, seat_names
from data import open_repository
from data.repository import MatchRecord, Repository
from tests.e2e import make_bot, start_bot_process, stop_bot_process, warung
from tests.e2e_extra import field_points, is_open_lobby
from tests.fakediscord import FakeUser, running_bot

T0 = 1_780_000_000.0
HOUR = 3600.0


async def seed_match(
    repo: Repository,
    guild_id: int,
    channel_id: int,
    people: list[FakeUser],
    *,
    computers: int = 1,
    rounds: int = 5,
    preset: str = "standard",
    level: str = "normal",
    countdown: int = 60,
    timeout_action: str = "auto",
    free: int = 0,
    when: float = T0,
    finish: bool = True,
) -> MatchRecord:
    """A match played to its last round as the bot plays one; finished unless ``finish``
    is False (then it is left playing with every round scored)."""
    rules = get_preset(preset)
    host = people[0]
    match = await repo.create_match(
        guild_id, channel_id, host.id, rules.name, rules.options, rounds, countdown, level,
        timeout_action, len(people) + computers + free, "en", when + 600, host.name, now=when,
    )  # fmt: skip
    for person in people[1:]:
        match = await repo.add_seat(match.id, person.id, person.name, now=when)
    for n in range(computers):
        match = await repo.add_seat(match.id, None, f"Computer {n + 1}", level, now=when)
    assert await repo.start_match(match.id, now=when)
    started = await repo.get_match(match.id)
    assert started is not None
    for number in range(1, rounds + 1):
        at = when + number * 60
        seed = match.id * 1000 + number
        hands = deal(len(started.seats), seed)
        rnd = await repo.start_round(
            match.id, number, seed, at + 60, {s: [c.code for c in h] for s, h in enumerate(hands)},
            now=at,
        )  # fmt: skip
        for seat, cards in enumerate(hands):
            back, middle, front = arrange(
                cards, rules, "normal", len(hands) - 1, seed + seat
            ).ordinary
            assert await repo.submit_hand(
                rnd.id, seat, [c.code for c in back], [c.code for c in middle],
                [c.code for c in front], None, fouled=False, now=at,
            )  # fmt: skip
        rnd = await repo.get_round(rnd.id)
        result = round_result(started, rnd)
        payload = result.to_dict() | {"auto": []}
        assert await repo.score_round(rnd.id, payload, round_scores(result), now=at + 30)
        if finish or number < rounds:  # its showdown was posted (and Discord kept no id)
            assert await repo.mark_showdown_posted(rnd.id, None)
    if finish:
        names = seat_names(started)
        totals = await repo.match_totals(match.id)
        table = standings({names[seat]: total for seat, total in totals.items()})
        by_name = {name: seat for seat, name in names.items()}
        places = {by_name[s.name]: s.place for s in table}
        assert await repo.finish_match(match.id, places, now=when + HOUR)
        assert await repo.mark_standings_posted(match.id, None)  # and its standings
    found = await repo.get_match(match.id)
    assert found is not None
    return found


async def test_history_pages_replay_walk_across_a_restart_and_refusals(fake_discord, tmp_path):
    fake = fake_discord
    db = tmp_path / "capsa.sqlite3"
    chan, (alice, bob, carol) = warung(fake, "alice", "bob", "carol")
    away = fake.add_guild("Elsewhere")
    away_chan = away.add_text_channel("capsa")
    dave = fake.add_user("dave", guild=away)
    guild_id = chan.guild.id

    repo = await open_repository(str(db))
    try:
        ours = []
        for n in range(11):  # alice plays them all, bob the even ones, carol the odd ones
            partner = bob if n % 2 == 0 else carol
            ours.append(
                await seed_match(repo, guild_id, chan.id, [alice, partner], when=T0 + n * HOUR)
            )
        theirs = await seed_match(repo, away.id, away_chan.id, [dave], when=T0)
        cancelled = await repo.create_match(
            guild_id, chan.id, carol.id, "standard", {}, 5, 60, "normal", "auto", 2, "en",
            T0 + 600, "carol", now=T0,
        )  # fmt: skip
        assert await repo.cancel_match(cancelled.id, now=T0 + 1)
        replayed = ours[4]
        totals = await repo.match_totals(replayed.id)
    finally:
        await repo.close()

    log = tmp_path / "bot.log"
    proc = await start_bot_process(fake, db, log, identifies=1)
    try:
        # History, newest first, ten to a page; anyone may turn the pages.
        listed = await alice.slash("capsa history", channel=chan, timeout=15)
        page = listed.message
        assert not listed.ephemeral and "Page 1/2" in page.text()
        text = page.text()
        places = [text.index(f"**#{m.id}**") for m in reversed(ours[1:])]
        assert places == sorted(places)
        assert f"**#{ours[0].id}**" not in text and f"**#{theirs.id}**" not in text
        assert f"**#{cancelled.id}**" not in text
        # each line: preset, players with their final totals, the winner
        lines = page.embeds[0]["description"].split("\n")
        at = lines.index(next(x for x in lines if x.startswith(f"**#{replayed.id}**")))
        line = f"{lines[at]}\n{lines[at + 1]}"
        assert "standard" in line and f"<@{alice.id}>" in line and "🤖 Computer 1" in line
        for seat, total in totals.items():
            who = "🤖 Computer 1" if seat == 2 else f"<@{[alice, bob][seat].id}>"
            assert f"{who} {signed(total, 'en')}" in line
        best = max(totals.values())
        winners = [s for s, total in totals.items() if total == best]
        assert "🏆" in line and all(
            ("🤖 Computer 1" if s == 2 else f"<@{[alice, bob][s].id}>") in line.split("🏆")[1]
            for s in winners
        )
        turned = await carol.click(page, "Next ▶", timeout=15)
        assert turned.answered and "Page 2/2" in page.text()
        assert f"**#{ours[0].id}**" in page.text() and f"**#{ours[1].id}**" not in page.text()

        # With a member: only the matches they sat in.
        bobs = await alice.slash("capsa history", channel=chan, member=bob, timeout=15)
        shown = bobs.message.text()
        assert "Page 1/1" in shown and f"Only the matches {bob.mention} played:" in shown
        for n, match in enumerate(ours):
            assert (f"**#{match.id}**" in shown) == (n % 2 == 0)

        # Replay: private to alice, round 1 first, with the picture.
        opened = await alice.slash("capsa replay", channel=chan, match=replayed.id, timeout=20)
        replay = opened.message
        assert opened.ephemeral
        assert "Showdown · round 1/5" in replay.text() and f"#{replayed.id}" in replay.text()
        assert replay.attachments, "the round's showdown picture"
        running = field_points(replay, "Round points")
        assert field_points(replay, "Match totals") == running
        assert [b["disabled"] for b in replay.buttons()] == [True, True, False, False]

        await alice.click(replay, "Next ▶", timeout=20)
        assert "Showdown · round 2/5" in replay.text() and replay.attachments
        for name, points in field_points(replay, "Round points").items():
            running[name] += points
        assert field_points(replay, "Match totals") == running
    finally:
        await stop_bot_process(proc)  # killed: only the database and the custom_ids remain

    proc = await start_bot_process(fake, db, log, identifies=2)
    try:
        # The same private message's buttons work in the restarted bot.
        await alice.click(replay, "Last", timeout=20)
        assert "Showdown · round 5/5" in replay.text() and replay.attachments
        final = field_points(replay, "Match totals")
        names = {0: "alice", 1: "bob", 2: "Computer 1"}
        assert final == {names[seat]: total for seat, total in totals.items()}
        assert [b["disabled"] for b in replay.buttons()] == [False, False, True, True]
        await alice.click(replay, "First", timeout=20)
        assert "Showdown · round 1/5" in replay.text()
        # and so do the history's pages
        await bob.click(page, "◀ Previous", timeout=15)
        assert "Page 1/2" in page.text() and f"**#{ours[10].id}**" in page.text()

        # Refused, each with what to do: another server's match, an unknown number, a
        # cancelled match.
        for number, expected in (
            (theirs.id, f"This server has no finished match #{theirs.id}"),
            (999_999, "This server has no finished match #999999"),
            (cancelled.id, f"Match #{cancelled.id} was cancelled"),
        ):
            refused = await alice.slash("capsa replay", channel=chan, match=number, timeout=15)
            assert refused.ephemeral and expected in refused.text(), refused.text()
            assert "/capsa history" in refused.text() and not refused.message.attachments
        # and the other server sees its own match
        theirs_shown = await dave.slash(
            "capsa replay", channel=away_chan, match=theirs.id, timeout=20
        )
        assert "Showdown · round 1/5" in theirs_shown.text()
    finally:
        await stop_bot_process(proc)


async def test_rematch_opens_the_same_table_and_pings_the_players(fake_discord, tmp_path):
    fake = fake_discord
    db = tmp_path / "capsa.sqlite3"
    chan, (alice, bob, carol, dave) = warung(fake, "alice", "bob", "carol", "dave")
    repo = await open_repository(str(db))
    try:  # died right after scoring the last round: the bot finishes it when it starts
        played = await seed_match(
            repo, chan.guild.id, chan.id, [alice, bob, dave], computers=1, rounds=5,
            preset="chinese-poker", level="hard", countdown=45, timeout_action="foul",
            finish=False,
        )  # fmt: skip
    finally:
        await repo.close()

    async with running_bot(fake, make_bot(fake, db)):
        final = await fake.wait_for_message(
            chan, lambda m: "final standings" in m.text(), timeout=20
        )
        assert "Rematch" in final.button_labels()
        assert final.buttons()[0]["custom_id"] == f"capsa:rematch:{played.id}"

    # The button is pressed after a restart: another bot, on the same database.
    async with running_bot(fake, make_bot(fake, db)):
        # Someone who did not play is refused.
        outsider = await carol.click(final, "Rematch", timeout=10)
        assert outsider.ephemeral and "Only the players of this match" in outsider.text()
        assert not any(is_open_lobby(m) for m in chan.history)

        # bob asks: a new lobby in the channel, bob hosting, the computer seated again at
        # its level, alice and dave pinged.
        asked = await bob.click(final, "Rematch", timeout=15)
        assert asked.ephemeral and "Your table is open" in asked.text(), asked.text()
        lobby = await fake.wait_for_message(chan, is_open_lobby, timeout=10)
        assert alice.mention in lobby.content and dave.mention in lobby.content
        assert bob.mention not in lobby.content and "bob" in lobby.content
        seats = lobby.embeds[0]["fields"][0]["value"]
        assert seats.split("\n") == [
            f"1. {bob.mention}",
            "2. 🤖 Computer 1",
            "3. (empty)",
            "4. (empty)",
        ]

        # Anyone else who played is refused while that table is open: the usual message.
        again = await alice.click(final, "Rematch", timeout=10)
        assert again.ephemeral and "This channel already has an open table" in again.text()
        joined = await alice.click(lobby, "Join", timeout=10)
        assert joined.answered and alice.mention in lobby.embeds[0]["fields"][0]["value"]

    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        old, new = conn.execute("SELECT * FROM matches ORDER BY id").fetchall()
        same = (
            "guild_id", "channel_id", "preset", "options", "rounds_total", "countdown",
            "bot_level", "timeout_action", "seats_count", "language",
        )  # fmt: skip
        assert {k: new[k] for k in same} == {k: old[k] for k in same}
        assert (old["status"], new["status"], new["host_id"]) == ("ended", "lobby", bob.id)
        seated = conn.execute(
            "SELECT seat, user_id, is_bot, level FROM match_seats WHERE match_id = ? ORDER BY seat",
            (new["id"],),
        ).fetchall()
        assert [tuple(r) for r in seated] == [
            (0, bob.id, 0, None),
            (1, None, 1, "hard"),
            (2, alice.id, 0, None),
        ]
