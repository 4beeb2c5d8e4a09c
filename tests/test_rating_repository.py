"""Ratings as stored, on every backend of tests/test_repository.py: each finished match is
rated once, in the transaction that finishes it, in order; matches finished before ratings
existed are rated once at start; and the stored numbers are capsa.rating's, computed again
from scratch from the stored places."""

from __future__ import annotations

import asyncio

import pytest

from capsa.rating import PROVISIONAL_MATCHES, Placing, RatedPlayer, Rating, replay
from data import sql
from data.repository import Repository
from tests import test_repository as contract
from tests.test_repository import GUILD, OTHER_GUILD, T0, Db, build_history, playing_match

db_path = contract.db_path
db = contract.db
repo = contract.repo

ANI, BUDI, CITRA = (RatedPlayer.member(u) for u in (100, 101, 102))
HARD = RatedPlayer.computer("hard")  # playing_match seats "hard" computers


async def finished(
    repo: Repository,
    users: tuple[int, ...],
    bots: int,
    places: dict[int, int],
    *,
    at: float,
    guild: int = GUILD,
    channel: int = 10,
) -> int:
    m = await playing_match(repo, users, bots, guild=guild, channel=channel, now=at)
    assert await repo.finish_match(m.id, places, now=at + 60)
    return m.id


def placings(match_users: tuple[int | None, ...], places: dict[int, int]) -> tuple[Placing, ...]:
    """A match's placings as capsa.rating takes them, seat by seat."""
    return tuple(
        Placing(HARD if user is None else RatedPlayer.member(user), places[seat])
        for seat, user in enumerate(match_users)
    )


async def test_each_finished_match_is_rated_once_in_order(repo: Repository) -> None:
    games = [
        ((100, 101), 1, {0: 1, 1: 2, 2: 3}),
        ((101, 102), 2, {0: 1, 1: 3, 2: 2, 3: 4}),
        ((100, 102), 0, {0: 2, 1: 1}),
        ((100, 101), 1, {0: 1, 1: 1, 2: 3}),  # equal totals share a place
    ]
    for i, (users, bots, places) in enumerate(games):
        await finished(repo, users, bots, places, at=T0 + i * 1000)
    expected = replay(placings((*users, *[None] * bots), places) for users, bots, places in games)
    stored = await repo.ratings(GUILD)
    assert stored == expected  # the same numbers, to the last bit
    assert stored[HARD].matches == 3 and stored[ANI].matches == 3
    assert replay(await repo.rated_placings(GUILD)) == stored
    # nothing is rated twice: finishing again, or rating at start, changes nothing
    assert not await repo.finish_match(1, {0: 2, 1: 1, 2: 3}, now=T0 + 10**5)
    assert await repo.rate_finished_matches() == 0
    assert await repo.ratings(GUILD) == stored
    assert await repo.ratings(OTHER_GUILD) == {}


async def test_stats_and_the_rating_sort(repo: Repository) -> None:
    await finished(repo, (100, 101), 1, {0: 3, 1: 1, 2: 2}, at=T0)
    await finished(repo, (100, 101, 102), 0, {0: 3, 1: 1, 2: 2}, at=T0 + 1000)
    ratings = await repo.ratings(GUILD)
    budi = await repo.player_stats(GUILD, 101)
    assert budi.rating == ratings[BUDI] and budi.rating.matches == 2
    before = replay([placings((100, 101, None), {0: 3, 1: 1, 2: 2})])[BUDI]
    assert budi.rating_change is not None
    assert abs(budi.rating_change - (ratings[BUDI].conservative - before.conservative)) < 1e-9
    assert (await repo.player_stats(GUILD, 999)).rating is None

    rows = await repo.leaderboard(GUILD, "rating")
    assert [r.user_id for r in rows] == [101, 102, 100]  # computers are not listed
    assert [r.rating for r in rows] == [ratings[BUDI], ratings[CITRA], ratings[ANI]]
    assert rows[0].rating.conservative > rows[1].rating.conservative > rows[2].rating.conservative
    assert await repo.leaderboard_count(GUILD, sort="rating") == 3
    assert await repo.leaderboard(OTHER_GUILD, "rating") == []
    assert all(r.rating is not None for r in await repo.leaderboard(GUILD, "points"))


async def test_matches_finished_before_ratings_are_rated_once_in_finish_order(db: Db) -> None:
    repo = await db.open()
    try:
        await build_history(repo)  # matches A (40 days ago) and B (3 days ago), one elsewhere
        rated = await repo.ratings(GUILD)
        other = await repo.ratings(OTHER_GUILD)
    finally:
        await repo.close()
    # A database from before migration 0009: no match rated.
    await db.execute(
        "DELETE FROM rating_changes; DELETE FROM ratings; DELETE FROM rated_matches;"
        " DELETE FROM rating_guilds;"
    )
    repo = await db.open()
    try:
        assert await repo.ratings(GUILD) == {}
        assert (await repo.player_stats(GUILD, 100)).rating is None
        assert await repo.rate_finished_matches() == 3
        assert await repo.ratings(GUILD) == rated
        assert await repo.ratings(OTHER_GUILD) == other
        assert rated[RatedPlayer.member(100)].matches == 2
        assert replay(await repo.rated_placings(GUILD)) == rated
        assert await repo.rate_finished_matches() == 0  # a restart rates nothing again
    finally:
        await repo.close()


async def test_a_long_past_is_rated_in_order_a_few_matches_a_transaction(
    db: Db, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At start the queue is rated RATE_AT_ONCE matches a transaction (so PostgreSQL's event
    loop is never held for the whole past), with the same numbers as all at once."""
    games = [{0: 1, 1: 2}, {0: 2, 1: 1}, {0: 1, 1: 2}, {0: 1, 1: 1}, {0: 2, 1: 1}]
    repo = await db.open()
    try:
        for i, places in enumerate(games):
            await finished(repo, (100, 101), 0, places, at=T0 + i * 1000)
        await db.execute(
            "DELETE FROM rating_changes; DELETE FROM ratings; DELETE FROM rated_matches;"
            " DELETE FROM rating_guilds; INSERT INTO rating_queue (match_id, guild_id)"
            " SELECT id, guild_id FROM matches WHERE status IN ('finished', 'ended');"
        )
    finally:
        await repo.close()
    monkeypatch.setattr(sql, "RATE_AT_ONCE", 2)
    repo = await db.open()
    try:
        assert await repo.rate_finished_matches() == len(games)
        assert await repo.ratings(GUILD) == replay(placings((100, 101), g) for g in games)
        assert replay(await repo.rated_placings(GUILD)) == await repo.ratings(GUILD)
        assert await repo.rate_finished_matches() == 0
    finally:
        await repo.close()


async def test_a_match_finished_while_older_ones_wait_is_rated_after_them(db: Db) -> None:
    repo = await db.open()
    try:
        await finished(repo, (100, 101), 0, {0: 1, 1: 2}, at=T0)
        await finished(repo, (100, 101), 0, {0: 1, 1: 2}, at=T0 + 1000)
        # as migration 0009 leaves a database: its finished matches queued, none rated
        await db.execute(
            "DELETE FROM rating_changes; DELETE FROM ratings; DELETE FROM rated_matches;"
            " DELETE FROM rating_guilds; INSERT INTO rating_queue (match_id, guild_id)"
            " SELECT id, guild_id FROM matches WHERE status IN ('finished', 'ended');"
        )
        # the next finish rates the two waiting matches first, then itself
        await finished(repo, (100, 101), 0, {0: 2, 1: 1}, at=T0 + 2000)
        games = [{0: 1, 1: 2}, {0: 1, 1: 2}, {0: 2, 1: 1}]
        assert await repo.ratings(GUILD) == replay(placings((100, 101), g) for g in games)
        assert await repo.rate_finished_matches() == 0
    finally:
        await repo.close()


async def test_tables_finishing_at_once_are_each_rated_once(repo: Repository) -> None:
    """Eight tables of one server, each with a hard computer (one rating for all of them),
    finish at the same moment: on PostgreSQL from several connections."""
    ids = []
    for channel in range(8):
        users = (1000 + 2 * channel, 1001 + 2 * channel)
        m = await playing_match(repo, users, 1, channel=100 + channel, now=T0)
        ids.append(m.id)
    done = await asyncio.gather(
        *(repo.finish_match(i, {0: 1, 1: 2, 2: 3}, now=T0 + 60) for i in ids)
    )
    assert all(done)
    stored = await repo.ratings(GUILD)
    assert stored[HARD].matches == 8
    assert replay(await repo.rated_placings(GUILD)) == stored


async def test_provisional_until_enough_matches(repo: Repository) -> None:
    for i in range(PROVISIONAL_MATCHES):
        await finished(repo, (100, 101), 0, {0: 1, 1: 2}, at=T0 + i * 1000)
        rating = (await repo.player_stats(GUILD, 100)).rating
        assert isinstance(rating, Rating)
        assert rating.provisional == (i + 1 < PROVISIONAL_MATCHES)
