"""The daily hand through the real bot and the fake Discord, on SQLite and on PostgreSQL:
three members play the same 13 cards (one across a restart, with a builder opened before
it), each is told their setting's value against the coach's best, their loss and their
place; a second try is refused; the board is right, and shows the cards and the best
setting only once the day is over (the bot's clock moved on a day)."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot import CapsaBot, Config
from capsa.builder import Draft
from capsa.cards import parse_cards
from capsa.coach import review_hand
from capsa.daily import DAILY_OPPONENTS, daily_cards, day_of, places
from capsa.i18n import t
from capsa.names import special_name
from capsa.presets import get_preset
from capsa.showdown import signed
from capsa.solver import arrange
from cogs.tables import tables_of
from data import open_repository
from tests.e2e import cards_in, hand_of, set_rows, warung
from tests.fakediscord import FakeMessage, FakeUser, running_bot

NOON = datetime(2026, 12, 2, 12, 0, tzinfo=UTC).timestamp()
DAY = day_of(NOON)
MENTION = re.compile(r"<@(\d+)>")


async def until(check, timeout: float = 20.0) -> None:
    """Wait for ``check()`` to hold (the coach's review runs in a worker)."""
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.05)


async def open_builder(user: FakeUser, chan, after: FakeMessage | None = None) -> FakeMessage:
    opened = await user.slash("capsa daily play", channel=chan, timeout=10)
    assert opened.answered and opened.ephemeral
    return await user.wait_for_ephemeral(lambda m: bool(m.selects()), after=after, timeout=10)


async def submit(user: FakeUser, builder: FakeMessage, back, middle) -> str:
    """Set the rows, Submit (confirming a fouled setting) and wait for the result."""
    await set_rows(user, builder, back, middle)
    draft = Draft.start(hand_of(builder)).with_setting(back, middle)
    pressed = await user.click(builder, "Submit")
    assert pressed.answered
    result = builder
    if draft.fouled:
        result = await user.wait_for_ephemeral(
            lambda m: "Submit fouled setting" in m.button_labels(), after=builder
        )
        await user.click(result, "Submit fouled setting")
    await until(lambda: "you lost" in result.text())
    return result.text()


def board_ids(text: str) -> list[int]:
    return [int(m) for m in MENTION.findall(text)]


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """Where the bot keeps its data: a SQLite file, or this run's PostgreSQL database."""
    if request.param == "postgres":
        return {"database_url": request.getfixturevalue("pg_url")}
    return {"database_path": str(tmp_path / "capsa.sqlite3")}


def make_bot(fake, database: dict[str, str]) -> CapsaBot:
    config = Config(token=fake.token, guild_ready_timeout=0.05, **database)
    return CapsaBot(config, executor=ThreadPoolExecutor(2))


async def test_three_members_play_the_daily_hand(fake_discord, database):
    fake = fake_discord
    db = database
    chan, (alice, bob, carol) = warung(fake, "alice", "bob", "carol")
    guild_id = chan.guild.id
    cards = daily_cards(guild_id, DAY)
    preset = get_preset("standard")

    bot = make_bot(fake, db)
    async with running_bot(fake, bot):
        tables_of(bot).daily.clock = lambda: NOON
        builder = await open_builder(alice, chan)
        assert hand_of(builder) == list(cards), "everyone gets the day's cards"
        assert f"Daily hand · {DAY.isoformat()}" in builder.text()
        back, middle, front = arrange(cards, preset, "normal", DAILY_OPPONENTS, seed=1).ordinary
        text = await submit(alice, builder, back, middle)
        # the value, the best and the loss are the coach's for the same rows
        review = review_hand(
            Draft.start(cards).hand, preset, DAILY_OPPONENTS, (back, middle, front)
        )
        assert f"worth **{signed(review.played_value, 'en')}** points" in text
        assert f"the coach's best **{signed(review.best_value, 'en')}**" in text
        assert f"you lost **{review.loss:.2f}**" in text
        assert "You are **#1** of 1 who played" in text

        # a second try is refused: the command shows what was played
        await alice.slash("capsa daily play", channel=chan)
        again = await alice.wait_for_ephemeral(lambda m: "already" in m.text(), after=builder)
        assert "You played today's hand already: one try a day." in again.text()
        assert not again.selects()

        bobs = await open_builder(bob, chan)  # opened before the restart, used after it

    bot = make_bot(fake, db)
    async with running_bot(fake, bot):
        daily = tables_of(bot).daily
        daily.clock = lambda: NOON
        # bob's rows: the hand in order, weakest cards at the back (most likely a foul)
        ordered = Draft.start(cards).hand
        await submit(bob, bobs, ordered[8:], ordered[3:8])
        # carol opens the builder twice and submits from the first
        first = await open_builder(carol, chan)
        second = await open_builder(carol, chan, after=first)
        easy = arrange(cards, preset, "easy", DAILY_OPPONENTS, seed=7).ordinary
        await submit(carol, first, easy[0], easy[1])
        await set_rows(carol, second, easy[0], easy[1])
        await carol.click(second, "Submit")
        refused = await carol.wait_for_ephemeral(lambda m: "one try a day" in m.text(), after=first)
        assert "You played today's hand already" in refused.text()

        plays = await bot.repo.daily_plays(guild_id, DAY)
        assert {p.user_id for p in plays} == {alice.id, bob.id, carol.id}
        ranked = places([p.loss for p in plays])

        # today's board: places and losses, no cards
        board = (await alice.slash("capsa daily board", channel=chan)).message
        text = board.text()
        assert board_ids(text) == [p.user_id for p in plays]
        for play, place in zip(plays, ranked, strict=True):
            assert f"{place}. <@{play.user_id}>: lost {play.loss:.2f}" in text
        assert cards_in(text) == [] and "shown once the day is over" in text

        # the next day: yesterday's board shows the cards and the coach's best setting
        daily.clock = lambda: NOON + 86400
        board = (await bob.slash("capsa daily board", channel=chan, day="yesterday")).message
        text = board.text()
        assert board_ids(text) == [p.user_id for p in plays]
        assert f"The coach's best setting ({signed(review.best_value, 'en')})" in text
        fields = {f["name"]: f["value"] for f in board.embeds[0]["fields"]}
        assert sorted(cards_in(fields["The day's 13 cards"])) == sorted(cards)
        best = fields[f"The coach's best setting ({signed(review.best_value, 'en')})"].split("\n")
        # front on top, as on the table; then, where the best is to declare a special the
        # day's hand holds, a line naming it
        front_back = [set(cards_in(line)) for line in best if cards_in(line)]
        assert front_back == [set(row) for row in reversed(review.best)]
        if review.best_declare is not None:
            special = special_name(review.best_declare, "en")
            assert best[3] == t("rev.declared", "en", special=special)
        # a builder of yesterday's hand is over
        await carol.click(second, "Clear")
        over = await carol.wait_for_ephemeral(lambda m: "is over" in m.text(), after=refused)
        assert "That day's hand is over: today's is a new one." in over.text()
        # and today's hand is a new one, with nobody on its board yet
        board = (await carol.slash("capsa daily board", channel=chan)).message
        assert "Nobody has played this day's hand." in board.text()

        stats = (await alice.slash("capsa stats", channel=chan)).message
        # no match played, but the daily hand: its streak is there
        assert "Daily hand: days in a row: 1 now · longest 1" in stats.text()


async def test_a_special_is_declared_from_the_daily_builder(fake_discord, tmp_path):
    fake = fake_discord
    chan, (alice,) = warung(fake, "alice")
    database = {"database_path": str(tmp_path / "capsa.sqlite3")}
    dragon = parse_cards("AS KH QD JC TS 9H 8D 7C 6S 5H 4D 3C 2S".split())
    repo = await open_repository(database["database_path"])
    try:  # a rigged day: its hand is a dragon
        await repo.open_daily(chan.guild.id, DAY, "standard", [c.code for c in dragon])
    finally:
        await repo.close()

    bot = make_bot(fake, database)
    async with running_bot(fake, bot):
        tables_of(bot).daily.clock = lambda: NOON
        builder = await open_builder(alice, chan)
        declare = f"Declare {special_name('dragon', 'en')}"
        assert declare in builder.button_labels() and "Auto-arrange" not in builder.button_labels()
        await alice.click(builder, declare)
        await until(lambda: "you lost" in builder.text())
        hand = Draft.start(dragon).hand
        rows = (hand[:5], hand[5:10], hand[10:])
        review = review_hand(hand, get_preset("standard"), DAILY_OPPONENTS, rows, "dragon")
        text = builder.text()
        assert f"worth **{signed(review.played_value, 'en')}** points" in text
        assert f"Declared {special_name('dragon', 'en')}" in text
        play = await bot.repo.daily_play(chan.guild.id, DAY, alice.id)
        assert play is not None and play.declare == "dragon"
