"""A round's and a match's life as stored data (RoundStatus DEALING -> OPEN -> SCORED ->
SHOWN, MatchStatus PLAYING -> FINISHED -> ENDED), the standings claim and a person's language
at a table, on every backend of tests/test_repository.py; and migration 0006, which brings
the rows stored before it into those phases on both backends."""

from __future__ import annotations

import asyncio
import inspect
import re
import sqlite3
from datetime import UTC, datetime

import asyncpg
import pytest

from data import open_repository, postgres_db
from data.postgres import PostgresRepository
from data.repository import (
    FINISHED_STATUSES,
    SCORED_STATUSES,
    Claimed,
    MatchStatus,
    Repository,
    RoundStatus,
    TableExists,
)
from data.schema import POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS, discover_migrations
from data.sql import Kind, SqlRepository, writes
from data.sqlite import SqliteRepository
from data.sqlite_batch import BatchedSqliteRepository
from data.sqlite_db import SqliteConnection, migrate
from tests import test_repository as contract
from tests.test_repository import (
    GUILD,
    ROOT,
    T0,
    Db,
    new_match,
    play_round,
    playing_match,
    split,
    submitted_round,
    the_deal,
    three_scores,
)

db_path = contract.db_path
db = contract.db
repo = contract.repo


# ------------------------------------------------------------------------- a round's life


async def test_a_round_goes_dealing_open_scored_shown_each_step_once(repo: Repository) -> None:
    m = await playing_match(repo)
    hands = the_deal(3, 9)
    rnd = await repo.start_round(m.id, 1, 9, T0 + 120, hands, now=T0)
    assert rnd.status == RoundStatus.DEALING and not rnd.scored
    # the computers (and a fast person) submit while the round is being dealt
    assert await repo.submit_hand(rnd.id, 2, *split(hands[2]), None, False)
    assert await repo.mark_round_open(rnd.id)
    assert not await repo.mark_round_open(rnd.id)  # once
    opened = await repo.get_round(rnd.id)
    assert opened.status == RoundStatus.OPEN and opened.hand(2).submitted
    assert (await repo.current_round(m.id)).status == RoundStatus.OPEN
    for seat in (0, 1):
        assert await repo.submit_hand(rnd.id, seat, *split(hands[seat]), None, False)
    assert not await repo.mark_showdown_posted(rnd.id, 5)  # not scored yet
    assert await repo.score_round(rnd.id, {"n": 1}, three_scores(), now=T0 + 60)
    scored = await repo.get_round(rnd.id)
    assert scored.status == RoundStatus.SCORED and scored.scored
    assert not await repo.mark_round_open(rnd.id)  # never back
    assert not await repo.submit_hand(rnd.id, 0, *split(hands[0]), None, False)

    assert await repo.claim_showdown(rnd.id, lease=30, owner="one")
    assert not await repo.claim_showdown(rnd.id, lease=30, owner="one")  # held
    assert await repo.mark_showdown_posted(rnd.id, 4242)
    assert not await repo.mark_showdown_posted(rnd.id, 9999)  # once: the id stays
    shown = await repo.get_round(rnd.id)
    assert (shown.status, shown.showdown_message_id) == (RoundStatus.SHOWN, 4242)
    assert shown.scored and shown.status in SCORED_STATUSES
    assert not await repo.claim_showdown(
        rnd.id, lease=30, owner="one"
    )  # posted: nobody posts it again
    assert [r.id for r in await repo.completed_rounds(m.id)] == [rnd.id]
    assert not await repo.score_round(rnd.id, {}, three_scores())  # counted once


async def test_a_round_scored_while_dealing_and_a_showdown_that_failed_for_good(
    repo: Repository,
) -> None:
    m = await playing_match(repo)
    rnd = await repo.get_round((await submitted_round(repo, m.id)).id)
    assert rnd.status == RoundStatus.DEALING and rnd.all_submitted
    assert await repo.score_round(rnd.id, {}, three_scores())
    assert not await repo.mark_round_open(rnd.id)
    assert await repo.claim_showdown(rnd.id, lease=30, owner="one")
    assert await repo.mark_showdown_posted(rnd.id, None)  # releases the claim as well
    shown = await repo.get_round(rnd.id)
    assert (shown.status, shown.showdown_message_id) == (RoundStatus.SHOWN, None)
    assert not await repo.claim_showdown(rnd.id, lease=30, owner="one")
    assert not await repo.mark_round_open(123456) and not await repo.mark_showdown_posted(123456, 1)


async def test_concurrent_transitions_change_a_round_once(repo: Repository) -> None:
    m = await playing_match(repo)
    rnd = await submitted_round(repo, m.id)
    opened = await asyncio.gather(*(repo.mark_round_open(rnd.id) for _ in range(4)))
    assert sorted(opened) == [False, False, False, True]
    assert await repo.score_round(rnd.id, {}, three_scores())
    posted = await asyncio.gather(*(repo.mark_showdown_posted(rnd.id, i) for i in range(4)))
    assert posted.count(True) == 1
    assert (await repo.get_round(rnd.id)).showdown_message_id == posted.index(True)


# ------------------------------------------------------------------------- a match's life


async def test_a_match_goes_finished_then_ended_with_one_standings_poster(
    repo: Repository,
) -> None:
    m = await playing_match(repo)
    lobby = await new_match(repo, channel=20, host=500)
    gone = await new_match(repo, channel=30, host=600)
    assert await repo.cancel_match(gone.id)
    assert not await repo.claim_standings(m.id, lease=30, owner="one")  # still playing
    assert not await repo.mark_standings_posted(m.id, 1)
    assert [x.id for x in await repo.unfinished_matches()] == [m.id, lobby.id]

    assert await repo.finish_match(m.id, {0: 1, 1: 2, 2: 3}, now=T0 + 50)
    done = await repo.get_match(m.id)
    assert done.status == MatchStatus.FINISHED and done.finished
    assert done.status in FINISHED_STATUSES and done.standings_message_id is None
    assert [x.id for x in await repo.active_matches()] == [lobby.id]
    assert [x.id for x in await repo.unfinished_matches()] == [m.id, lobby.id]
    assert not await repo.cancel_match(m.id)  # only a lobby or a playing table

    assert await repo.claim_standings(m.id, lease=30, owner="one")
    assert not await repo.claim_standings(m.id, lease=30, owner="one")  # one poster at a time
    await repo.release_standings(m.id, owner="one")  # the post failed: another may try,
    # looking for the post first (the failure may have come after it landed)
    assert await repo.claim_standings(m.id, lease=0.2, owner="one") == Claimed.AFTER_ANOTHER
    await asyncio.sleep(0.3)  # that poster died: its claim runs out
    assert await repo.claim_standings(m.id, lease=30, owner="one")

    assert await repo.mark_standings_posted(m.id, 777)
    assert not await repo.mark_standings_posted(m.id, 888)
    ended = await repo.get_match(m.id)
    assert (ended.status, ended.standings_message_id) == (MatchStatus.ENDED, 777)
    assert ended.finished and ended.finished_at == T0 + 50
    assert [s.place for s in ended.seats] == [1, 2, 3]
    assert not await repo.claim_standings(m.id, lease=30, owner="one")  # posted
    assert [x.id for x in await repo.unfinished_matches()] == [lobby.id]
    assert not await repo.claim_standings(lobby.id, lease=30, owner="one")


async def test_finished_and_ended_matches_and_scored_and_shown_rounds_count_alike(
    repo: Repository,
) -> None:
    """Leaderboard, stats, history, totals and the coach read both phases of each."""
    m = await playing_match(repo)
    first = await play_round(repo, m.id, 1, {0: 6.0, 1: -2.0, 2: -4.0}, scored_at=T0 + 10)
    second = await play_round(repo, m.id, 2, {0: -1.0, 1: 3.0, 2: -2.0}, scored_at=T0 + 20)
    assert await repo.finish_match(m.id, {0: 1, 1: 2, 2: 3}, now=T0 + 30)

    async def everything() -> tuple:
        board = await repo.leaderboard(GUILD, now=T0 + 40)
        stats = await repo.player_stats(GUILD, 100)
        history = await repo.finished_matches(GUILD)
        return (
            [(r.user_id, r.points, r.wins, r.matches, r.rounds) for r in board],
            await repo.leaderboard_count(GUILD, now=T0 + 40),
            (stats.matches, stats.wins, stats.rounds, stats.points),
            [(s.match.id, s.totals) for s in history],
            await repo.finished_matches_count(GUILD),
            await repo.finished_matches_count(GUILD, 101),
            [r.id for r in await repo.completed_rounds(m.id)],
            await repo.match_totals(m.id),
            await repo.unreviewed_hands(T0),
        )

    before = await everything()
    assert before[0] == [(100, 5.0, 1, 1, 2), (101, 1.0, 0, 1, 2)]
    assert before[4:7] == (1, 1, [first, second])
    assert before[8] == [(first, 0), (first, 1), (second, 0), (second, 1)]
    assert await repo.mark_showdown_posted(first, 11)
    assert await repo.mark_standings_posted(m.id, 12)
    assert await everything() == before  # nothing counts twice, nothing goes missing
    review = {"loss": 1.5}
    assert await repo.store_review(first, 0, review, 1.5, True)  # a SHOWN round
    assert await repo.store_review(second, 0, review, 0.5, True)  # a SCORED one
    assert await repo.unreviewed_hands(T0) == [(first, 1), (second, 1)]


# ------------------------------------------------------------------------- languages


async def test_a_persons_language_at_a_table_is_stored_and_kept(db: Db) -> None:
    async def languages(repo: Repository, match_id: int) -> list[str | None]:
        return [s.language for s in (await repo.get_match(match_id)).seats]

    repo = await db.open()
    try:  # stored in the catalogue's case
        m = await new_match(repo, seats=4, host_language="zh-cn")
        await repo.add_seat(m.id, 101, "vi person", language="vi")
        await repo.add_seat(m.id, 102, "no locale")
        await repo.add_seat(m.id, None, "Bot 1", "hard")
        assert await languages(repo, m.id) == ["zh-CN", "vi", None, None]
        with pytest.raises(ValueError, match="language"):
            await repo.add_seat(m.id, 103, "bad", language="tlh")
        with pytest.raises(ValueError, match="language"):
            await repo.set_seat_language(m.id, 101, "xx")
        assert await repo.set_seat_language(m.id, 102, "id")
        assert await repo.set_seat_language(m.id, 101, None)
        assert not await repo.set_seat_language(m.id, 999, "en")  # no seat there
        assert await languages(repo, m.id) == ["zh-CN", None, "id", None]
    finally:
        await repo.close()
    repo = await db.open()  # a restart keeps them
    try:
        assert await languages(repo, m.id) == ["zh-CN", None, "id", None]
    finally:
        await repo.close()


# ------------------------------------------------------------------------- migration 0006

# Rows as a database stored them before 0006: a finished match, a playing one whose round 1
# was shown and round 2 scored without a showdown, round 3 open with its status message and
# round 4 open without one (the dealer died mid-deal).
_OLD_MATCHES = (
    (1, "finished", T0 + 90),
    (2, "playing", None),
)
_OLD_ROUNDS = (
    # id, match, number, status, status message, showdown message
    (10, 1, 1, "scored", 51, 52),
    (20, 2, 1, "scored", 61, 62),
    (21, 2, 2, "scored", 63, None),
    (22, 2, 3, "open", 64, None),
    (23, 2, 4, "open", None, None),
)
_NEW_ROUND_STATUS = {10: "shown", 20: "shown", 21: "scored", 22: "open", 23: "dealing"}


def _old_inserts(mark: str, when=lambda t: t) -> list[tuple[str, list[tuple]]]:
    """The rows above as (SQL, parameter rows); ``mark`` is "?" or "$" (PostgreSQL), ``when``
    turns unix seconds into a stored time."""

    def marks(n: int) -> str:
        return ", ".join("?" if mark == "?" else f"${i}" for i in range(1, n + 1))

    cards = " ".join(the_deal(2, 1)[0])
    return [
        (
            "INSERT INTO matches (id, guild_id, channel_id, host_id, preset, rounds_total,"
            " countdown, bot_level, timeout_action, seats_count, status, created_at,"
            f" finished_at) VALUES ({marks(13)})",
            [
                (i, GUILD, 10 + i, 100, "standard", 5, 60, "normal", "auto", 2, status)
                + (when(T0), None if done is None else when(done))
                for i, status, done in _OLD_MATCHES
            ],
        ),
        (
            f"INSERT INTO match_seats (match_id, seat, user_id, name) VALUES ({marks(4)})",
            [(i, seat, 100 + seat, f"p{seat}") for i, _, _ in _OLD_MATCHES for seat in (0, 1)],
        ),
        (
            "INSERT INTO rounds (id, match_id, number, seed, deadline, status,"
            f" status_message_id, showdown_message_id, created_at) VALUES ({marks(9)})",
            [
                (r, m, n, "42", when(T0), status, sm, sd, when(T0))
                for r, m, n, status, sm, sd in _OLD_ROUNDS
            ],
        ),
        (
            f"INSERT INTO hands (round_id, seat, cards) VALUES ({marks(3)})",
            [(r[0], seat, cards) for r in _OLD_ROUNDS for seat in (0, 1)],
        ),
        (
            "INSERT INTO round_scores (round_id, seat, match_id, guild_id, user_id, points,"
            f" scored_at) VALUES ({marks(7)})",
            [
                (r[0], seat, r[1], GUILD, 100 + seat, 1.0 - 2 * seat, when(T0))
                for r in _OLD_ROUNDS
                if r[3] == "scored"
                for seat in (0, 1)
            ],
        ),
    ]


async def _check_migrated(repo: Repository) -> None:
    for round_id, status in _NEW_ROUND_STATUS.items():
        assert (await repo.get_round(round_id)).status == status
    finished, playing = await repo.get_match(1), await repo.get_match(2)
    assert (finished.status, playing.status) == (MatchStatus.ENDED, MatchStatus.PLAYING)
    assert [len(m.seats) for m in (finished, playing)] == [2, 2]  # children kept
    assert [s.language for s in finished.seats] == [None, None]
    assert [r.id for r in await repo.completed_rounds(2)] == [20, 21]
    assert await repo.match_totals(2) == {0: 2.0, 1: -2.0}
    assert await repo.finished_matches_count(GUILD) == 1
    assert [x.id for x in await repo.unfinished_matches()] == [2]
    # the ids go on after the copied ones, and the rebuilt tables keep their rules
    m = await new_match(repo, channel=99, host=300)
    assert m.id == 3
    with pytest.raises(TableExists):
        await new_match(repo, channel=99, host=301)


async def test_migration_6_puts_old_sqlite_rows_in_their_phase(db_path: str) -> None:
    conn = await SqliteConnection.open(db_path)

    def old_rows(db: sqlite3.Connection) -> None:
        for sql, rows in _old_inserts("?"):
            db.executemany(sql, rows)

    def schema(db: sqlite3.Connection) -> tuple:
        indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        keys = {
            t: {(r[2], r[5], r[6]) for r in db.execute(f"PRAGMA foreign_key_list({t})")}
            for t in ("match_seats", "rounds", "hands", "round_scores", "timers")
        }
        return indexes, keys, db.execute("PRAGMA foreign_keys").fetchone()[0]

    try:
        before = discover_migrations(SQLITE_MIGRATIONS)
        assert await migrate(conn, [m for m in before if m.version < 6]) == [1, 2, 3, 4, 5]
        await conn.run(old_rows)
        indexes, keys, _ = await conn.run(schema)
        assert await migrate(conn, [m for m in before if m.version <= 6]) == [6]
        assert await conn.run(schema) == (indexes, keys, 1)  # and foreign keys are on again
    finally:
        await conn.close()
    repo = await open_repository(db_path)
    try:
        await _check_migrated(repo)
    finally:
        await repo.close()
    # a match's deletion still reaches its rows (the foreign keys point at the new tables)
    db = sqlite3.connect(db_path, isolation_level=None)
    try:
        with pytest.raises(sqlite3.IntegrityError):  # the new CHECK
            db.execute("UPDATE rounds SET status = 'closing'")
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("DELETE FROM matches WHERE id = 2")
        assert db.execute("SELECT COUNT(*) FROM hands").fetchone()[0] == 2
    finally:
        db.close()


async def test_migration_6_puts_old_postgres_rows_in_their_phase(empty_pg_url: str) -> None:
    conn = await asyncpg.connect(empty_pg_url)
    try:
        before = discover_migrations(POSTGRES_MIGRATIONS)
        versions = [m.version for m in before]
        assert versions[versions.index(3) + 1] == 6  # the numbers meet again at 0006
        assert await postgres_db.migrate(conn, [m for m in before if m.version < 6]) == [1, 2, 3]
        for sql, rows in _old_inserts("$", lambda t: datetime.fromtimestamp(t, UTC)):
            await conn.executemany(sql, rows)
        for table in ("matches", "rounds"):  # as ids the database gave would have done
            await conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), MAX(id)) FROM {table}"
            )
        assert await postgres_db.migrate(conn, [m for m in before if m.version <= 6]) == [6]
        with pytest.raises(asyncpg.CheckViolationError):
            await conn.execute("UPDATE rounds SET status = 'closing' WHERE id = 23")
    finally:
        await conn.close()
    repo = await open_repository(database_url=empty_pg_url)
    try:
        await _check_migrated(repo)
    finally:
        await repo.close()


# ------------------------------------------------------------------------- the data layer's rules

# Methods of the protocol that touch nothing stored.
_NOT_STORAGE = {"close", "watch_timers"}


def _protocol_methods() -> list[str]:
    return sorted(
        name
        for name, member in vars(Repository).items()
        if inspect.iscoroutinefunction(member) and not name.startswith("_")
    )


@pytest.mark.parametrize(
    "backend", [SqlRepository, SqliteRepository, BatchedSqliteRepository, PostgresRepository]
)
def test_every_method_declares_what_it_changes_or_that_it_reads(backend: type) -> None:
    """A write names the records it changes (the SQLite cache drops and reloads them from
    that); a read says it is one. A method that declares nothing fails here."""
    undeclared = []
    for name in _protocol_methods():
        method = getattr(backend, name, None)
        if name in _NOT_STORAGE or (backend is SqlRepository and method is None):
            continue
        assert method is not None, f"{backend.__name__} has no {name}"
        changes = getattr(method, "changes", ())
        if bool(changes) == bool(getattr(method, "reads", False)):
            undeclared.append(name)
        for change in changes:
            if change.argument is not None:  # the key is an argument of the method
                assert change.argument in inspect.signature(method).parameters, (name, change)
    assert undeclared == []
    with pytest.raises(TypeError, match="declares"):
        writes()


def test_every_write_method_of_the_protocol_is_covered() -> None:
    """Each protocol method is implemented once in data/sql.py, or by each backend."""
    backends = (SqliteRepository, PostgresRepository)
    for name in _protocol_methods():
        shared = name in vars(SqlRepository)
        own = [name in vars(b) for b in backends]
        assert shared or all(own), name


async def test_the_cache_is_dropped_by_what_a_write_declares(db_path: str) -> None:
    """Nothing but the declaration tells the SQLite cache what a write changed: a write
    that declares another record leaves the changed one stale (so the declarations matter)."""
    repo = await open_repository(db_path)
    try:
        m = await playing_match(repo)
        rnd = await repo.start_round(m.id, 1, 1, T0, the_deal(3, 1))
        assert (await repo.get_round(rnd.id)).status == RoundStatus.DEALING  # cached
        plain = SqliteRepository.mark_round_open.__wrapped__  # type: ignore[attr-defined]
        assert await writes(Kind.MATCH.by("round_id"))(plain)(repo, rnd.id)
        assert (await repo.get_round(rnd.id)).status == RoundStatus.DEALING  # stale
        await repo.set_dm_message(rnd.id, 0, 1, 2)  # declares the round: read again
        assert (await repo.get_round(rnd.id)).status == RoundStatus.OPEN
    finally:
        await repo.close()


async def test_a_record_read_after_a_writes_last_statement_is_cached_without_reading_again(
    db_path: str,
) -> None:
    """add_seat reads its match, and start_round its new round, after their last INSERT:
    that read is what the SQLite cache keeps (as the table's latest round too), with no
    second read of it."""
    repo = await open_repository(db_path)
    try:
        statements: list[str] = []
        await repo._conn.run(lambda db: db.set_trace_callback(statements.append))
        m = await new_match(repo, seats=2)
        m = await repo.add_seat(m.id, 101, "Budi")
        assert sum("FROM match_seats s WHERE" in s for s in statements) == 2  # one each
        assert repo._match_cache[m.id] == m
        await repo.start_match(m.id)
        statements.clear()
        rnd = await repo.start_round(m.id, 1, 1, T0, the_deal(2, 1))
        await repo._conn.run(lambda db: db.set_trace_callback(None))
        assert sum("FROM hands h WHERE" in s for s in statements) == 1  # read once
        assert repo._round_cache[rnd.id] == rnd and repo._latest_round[m.id] == rnd.id
        assert await repo.current_round(m.id) == rnd
    finally:
        await repo.close()


async def test_a_record_read_before_a_writes_last_statement_is_read_again(db_path: str) -> None:
    """A write that reads a record, then writes to it: the cache keeps it as it was left."""
    repo = await open_repository(db_path)
    try:
        m = await playing_match(repo)

        @writes(Kind.MATCH.by("match_id"))
        async def read_then_write(self: SqlRepository, match_id: int) -> None:
            async def tx(db) -> None:  # type: ignore[no-untyped-def]
                await self._load_match(db, match_id)
                await db.run("UPDATE matches SET countdown = 99 WHERE id = ?", match_id)

            await self._tx(tx)

        await read_then_write(repo, m.id)
        assert repo._match_cache[m.id].countdown == 99
        assert (await repo.get_match(m.id)).countdown == 99
    finally:
        await repo.close()


def test_migrations_from_6_on_have_the_same_numbers_in_both_folders() -> None:
    sqlite = {m.version: m.name for m in discover_migrations(SQLITE_MIGRATIONS) if m.version >= 6}
    postgres = {
        m.version: m.name for m in discover_migrations(POSTGRES_MIGRATIONS) if m.version >= 6
    }
    assert sqlite == postgres and 6 in sqlite


def test_migrations_name_only_files_that_exist() -> None:
    """A migration's comments that name a file of the project (data/....py) name one that is
    there."""
    named = {
        (path.name, found)
        for folder in (SQLITE_MIGRATIONS, POSTGRES_MIGRATIONS)
        for path in folder.glob("*.sql")
        for found in re.findall(r"\b(?:data|capsa|cogs)/[\w/]+\.py\b", path.read_text())
    }
    assert named  # they do name some
    missing = sorted((name, found) for name, found in named if not (ROOT / found).exists())
    assert missing == []
