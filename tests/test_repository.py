"""The repository layer on both backends, SQLite (a real file) and PostgreSQL (a database of
this test run's, see tests/conftest.py): migrations, settings, lobby, rounds, the atomic
exactly-once round commit, resume after a restart, leaderboards and stats. Then what is
SQLite's own (WAL, the group commit and the cache) and PostgreSQL's own (the row locks that
let several processes share one database, the schema's types)."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import socket
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import pytest

from capsa.cards import deal
from capsa.i18n import LANGS
from capsa.settings import COUNTDOWN, LANGUAGE, PRESET, ROUNDS
from data import (
    AlreadySeated,
    DatabaseUnavailable,
    DatabaseUnreachable,
    GuildSettings,
    NotInLobby,
    NotPlaying,
    NotSeated,
    Repository,
    RepositoryError,
    RoundScore,
    TableExists,
    TableFull,
    database_address,
    open_repository,
    postgres_db,
)
from data.common import cards_text
from data.migrate import TABLES
from data.postgres import PostgresRepository
from data.repository import Preferences
from data.schema import POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS, discover_migrations
from data.sqlite import SqliteRepository
from data.sqlite_batch import BatchedSqliteRepository
from data.sqlite_db import SqliteConnection, migrate

ROOT = Path(__file__).resolve().parents[1]
GUILD = 1
OTHER_GUILD = 2
DAY = 86400.0
T0 = 1_700_000_000.0


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "nested" / "dir" / "capsa.sqlite3")


@dataclass
class Db:
    """The database under test: ``open()`` gives a repository on it, the same data each
    time (a restart); ``execute`` runs SQL on it beside the repository. ``plain``: SQLite's
    SQL alone, a transaction at a time, with no group commit and no cache."""

    backend: str  # "sqlite" or "postgres"
    target: str  # the file, or the URL
    plain: bool = False

    async def open(self) -> Repository:
        if self.plain:
            return await SqliteRepository.open(self.target)
        if self.backend == "sqlite":
            return await open_repository(self.target)
        return await open_repository(database_url=self.target)

    async def execute(self, sql: str) -> None:
        if self.backend == "sqlite":
            db = sqlite3.connect(self.target, isolation_level=None)
            try:
                db.executescript(sql)
            finally:
                db.close()
        else:
            conn = await asyncpg.connect(self.target)
            try:
                await conn.execute(sql)
            finally:
                await conn.close()


@pytest.fixture(params=["sqlite", "sqlite-plain", "postgres"])
def db(request: pytest.FixtureRequest, db_path: str) -> Db:
    """Each backend: SQLite as open_repository gives it, SQLite's SQL alone, PostgreSQL."""
    if request.param == "postgres":
        return Db("postgres", request.getfixturevalue("pg_url"))
    return Db("sqlite", db_path, plain=request.param == "sqlite-plain")


@pytest.fixture
async def repo(db: Db):
    r = await db.open()
    try:
        yield r
    finally:
        await r.close()


@pytest.fixture
async def sqlite_repo(db_path: str):
    r = await open_repository(db_path)
    assert isinstance(r, BatchedSqliteRepository)
    try:
        yield r
    finally:
        await r.close()


@pytest.fixture
async def pg_repo(pg_url: str):
    r = await open_repository(database_url=pg_url)
    assert isinstance(r, PostgresRepository)
    try:
        yield r
    finally:
        await r.close()


def codes(cards) -> list[str]:
    return [c.code for c in cards]


def the_deal(seats: int, seed: int) -> dict[int, list[str]]:
    return {i: codes(sorted(h)) for i, h in enumerate(deal(seats, seed))}


def split(cards: list[str] | tuple[str, ...]) -> tuple[list[str], list[str], list[str]]:
    cards = list(cards)
    return cards[:5], cards[5:10], cards[10:]


async def new_match(
    repo: Repository,
    *,
    guild: int = GUILD,
    channel: int = 10,
    host: int = 100,
    seats: int = 3,
    expires: float | None = T0 + 600,
    now: float = T0,
    host_language: str | None = None,
):
    return await repo.create_match(
        guild,
        channel,
        host,
        "standard",
        {"method": "1-6"},
        10,
        120,
        "normal",
        "auto",
        seats,
        "auto",
        expires,
        f"user{host}",
        now=now,
        host_language=host_language,
    )


async def playing_match(
    repo: Repository,
    users: tuple[int, ...] = (100, 101),
    bots: int = 1,
    *,
    guild: int = GUILD,
    channel: int = 10,
    now: float = T0,
):
    m = await new_match(
        repo, guild=guild, channel=channel, host=users[0], seats=len(users) + bots, now=now
    )
    for u in users[1:]:
        m = await repo.add_seat(m.id, u, f"user{u}")
    for i in range(bots):
        m = await repo.add_seat(m.id, None, f"Bot {i + 1}", "hard")
    assert await repo.start_match(m.id, now=now)
    return await repo.get_match(m.id)


async def play_round(
    repo: Repository,
    match_id: int,
    number: int,
    points: dict[int, float],
    *,
    scored_at: float,
    seed: int | None = None,
    **extra: dict,
) -> int:
    """Deal, submit every seat and score a round; ``extra`` holds per-field dicts by seat."""
    m = await repo.get_match(match_id)
    hands = the_deal(len(m.seats), seed if seed is not None else match_id * 100 + number)
    rnd = await repo.start_round(match_id, number, 1234, scored_at + 120, hands, now=scored_at)
    for seat, cards in hands.items():
        assert await repo.submit_hand(rnd.id, seat, *split(cards), None, False, now=scored_at)
    scores = [
        RoundScore(
            seat=seat,
            points=pts,
            fouled=extra.get("fouled", {}).get(seat, False),
            special=extra.get("special", {}).get(seat),
            sweeps_given=extra.get("given", {}).get(seat, 0),
            sweeps_taken=extra.get("taken", {}).get(seat, 0),
            table_sweep=extra.get("table", {}).get(seat, False),
            best_row=extra.get("best", {}).get(seat),
        )
        for seat, pts in points.items()
    ]
    assert await repo.score_round(rnd.id, {"round": number}, scores, now=scored_at)
    return rnd.id


# ------------------------------------------------------------------------- migrations


async def test_open_creates_directory_applies_and_records_migrations(db_path: str) -> None:
    repo = await open_repository(db_path)
    assert isinstance(repo, Repository) and isinstance(repo, BatchedSqliteRepository)
    assert Path(db_path).exists()

    def read(db: sqlite3.Connection) -> tuple[list[tuple], set[str]]:
        rows = [
            tuple(r) for r in db.execute("SELECT version, name, applied_at FROM schema_migrations")
        ]
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return rows, tables

    rows, tables = await repo._conn.run(read)
    assert [(v, n) for v, n, _ in rows] == [
        (m.version, m.name) for m in discover_migrations(SQLITE_MIGRATIONS)
    ]
    assert [(v, n) for v, n, _ in rows] == [
        (1, "init"),
        (2, "dm_refused"),
        (3, "any_catalogue_language"),
        (4, "hand_reviews"),
        (5, "timers"),
        (6, "round_life"),
        (7, "processes"),
        (8, "guild_settings_json"),
        (9, "ratings"),
        (10, "daily"),
        (11, "preferences"),
        (12, "fewer_requests"),
        (13, "surrender"),
    ]
    assert set(TABLES) <= tables
    await repo.close()

    # Re-opening applies nothing again and keeps the original record.
    conn = await SqliteConnection.open(db_path)
    try:
        assert await migrate(conn) == []
        assert (await conn.run(read))[0] == rows
    finally:
        await conn.close()
    repo = await open_repository(db_path)
    await repo.close()


async def test_the_sqlite_migrations_kept_their_names_and_contents() -> None:
    """Databases made before the move to data/migrations/sqlite/ recorded these versions: the
    files are the same ones, so nothing is applied twice."""
    found = discover_migrations(SQLITE_MIGRATIONS)
    assert [(m.version, m.name) for m in found][:2] == [(1, "init"), (2, "dm_refused")]
    assert "ALTER TABLE hands ADD COLUMN dm_refused" in found[1].sql()
    assert not list((ROOT / "data" / "migrations").glob("*.sql"))  # one folder per backend


async def test_postgres_open_applies_and_records_migrations(empty_pg_url: str) -> None:
    repo = await open_repository(database_url=empty_pg_url)
    assert isinstance(repo, PostgresRepository)
    await repo.close()
    conn = await asyncpg.connect(empty_pg_url)
    try:
        rows = [
            tuple(r)
            for r in await conn.fetch(
                "SELECT version, name, applied_at FROM schema_migrations ORDER BY version"
            )
        ]
        assert [(v, n) for v, n, _ in rows] == [
            (m.version, m.name) for m in discover_migrations(POSTGRES_MIGRATIONS)
        ]
        assert rows[0][:2] == (1, "init")
        tables = {
            r[0]
            for r in await conn.fetch(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            )
        }
        assert {
            "guild_settings",
            "matches",
            "match_seats",
            "rounds",
            "hands",
            "round_scores",
        } <= tables
        # Re-opening applies nothing again and keeps the original record.
        assert await postgres_db.migrate(conn) == []
        again = await conn.fetch(
            "SELECT version, name, applied_at FROM schema_migrations ORDER BY version"
        )
        assert [tuple(r) for r in again] == rows
    finally:
        await conn.close()


async def test_postgres_schema_types(pg_url: str) -> None:
    """Discord ids (and every id) are BIGINT, times timestamptz, JSON jsonb, flags boolean."""
    conn = await asyncpg.connect(pg_url)
    try:
        types = {
            (r["table_name"], r["column_name"]): r["data_type"]
            for r in await conn.fetch(
                "SELECT table_name, column_name, data_type FROM information_schema.columns"
                " WHERE table_schema = 'public' AND table_name <> 'schema_migrations'"
            )
        }
    finally:
        await conn.close()
    ids = {k: t for k, t in types.items() if k[1] == "id" or k[1].endswith("_id")}
    times = {k: t for k, t in types.items() if k[1].endswith("_at") or k[1] == "deadline"}
    assert len(ids) >= 20 and set(ids.values()) == {"bigint"}, ids
    assert len(times) >= 19 and set(times.values()) == {"timestamp with time zone"}, times
    assert {types[("matches", "options")], types[("rounds", "result")]} == {"jsonb"}
    assert types[("round_scores", "best_row")] == "jsonb"
    for flag in [("hands", "fouled"), ("hands", "dm_refused"), ("match_seats", "is_bot")]:
        assert types[flag] == "boolean"


async def test_wal_mode_and_foreign_keys_are_on(
    sqlite_repo: BatchedSqliteRepository, db_path: str
) -> None:
    def pragmas(db: sqlite3.Connection) -> tuple:
        return (
            db.execute("PRAGMA journal_mode").fetchone()[0],
            db.execute("PRAGMA foreign_keys").fetchone()[0],
        )

    assert await sqlite_repo._conn.run(pragmas) == ("wal", 1)
    await sqlite_repo.update_guild_settings(GUILD, rounds=5)
    assert Path(db_path + "-wal").exists()


def _two_migrations(tmp_path: Path, failing: bool) -> Path:
    mig = tmp_path / "migrations"
    mig.mkdir(exist_ok=True)
    (mig / "2_first.sql").write_text("CREATE TABLE a (x INTEGER);")
    (mig / "10_second.sql").write_text(
        "CREATE TABLE b (x INTEGER);\nINSERT INTO a (x) VALUES (1);\n"
        + ("INSERT INTO nope VALUES (1);" if failing else "")
    )
    return mig


async def test_migrations_apply_in_numeric_order_and_a_failing_one_rolls_back(
    tmp_path: Path,
) -> None:
    mig = _two_migrations(tmp_path, failing=True)
    conn = await SqliteConnection.open(tmp_path / "m.sqlite3")

    def query(sql: str) -> Callable[[sqlite3.Connection], list]:
        return lambda db: [tuple(r) for r in db.execute(sql)]

    try:
        with pytest.raises(sqlite3.OperationalError, match="nope"):
            await migrate(conn, discover_migrations(mig))
        assert not await conn.run(lambda db: db.in_transaction)
        assert await conn.run(query("SELECT version FROM schema_migrations")) == [(2,)]
        # the failed migration left nothing behind
        assert await conn.run(query("SELECT name FROM sqlite_master WHERE name = 'b'")) == []
        assert await conn.run(query("SELECT COUNT(*) FROM a")) == [(0,)]

        _two_migrations(tmp_path, failing=False)
        assert await migrate(conn, discover_migrations(mig)) == [10]
        assert await migrate(conn, discover_migrations(mig)) == []
        assert await conn.run(query("SELECT x FROM a")) == [(1,)]
    finally:
        await conn.close()


async def test_postgres_migrations_apply_in_order_and_a_failing_one_rolls_back(
    tmp_path: Path, empty_pg_url: str
) -> None:
    mig = _two_migrations(tmp_path, failing=True)
    conn = await asyncpg.connect(empty_pg_url)
    try:
        with pytest.raises(asyncpg.UndefinedTableError, match="nope"):
            await postgres_db.migrate(conn, discover_migrations(mig))
        assert not conn.is_in_transaction()
        assert [r[0] for r in await conn.fetch("SELECT version FROM schema_migrations")] == [2]
        assert await conn.fetchval("SELECT to_regclass('b')") is None
        assert await conn.fetchval("SELECT COUNT(*) FROM a") == 0
        # the advisory lock was let go: another session can take it at once
        other = await asyncpg.connect(empty_pg_url)
        try:
            assert await other.fetchval(
                "SELECT pg_try_advisory_lock($1)", postgres_db.MIGRATION_LOCK
            )
        finally:
            await other.close()

        _two_migrations(tmp_path, failing=False)
        assert await postgres_db.migrate(conn, discover_migrations(mig)) == [10]
        assert await postgres_db.migrate(conn, discover_migrations(mig)) == []
        assert await conn.fetchval("SELECT x FROM a") == 1
    finally:
        await conn.close()


async def test_postgres_concurrent_starters_apply_each_migration_once(empty_pg_url: str) -> None:
    """Several processes starting at once on an empty database: one applies the migrations
    (the advisory lock), the others wait and find them applied."""
    conns = [await asyncpg.connect(empty_pg_url) for _ in range(4)]
    try:
        applied = await asyncio.gather(*(postgres_db.migrate(c) for c in conns))
        versions = [m.version for m in discover_migrations(POSTGRES_MIGRATIONS)]
        assert sorted(v for done in applied for v in done) == versions
        assert sum(bool(done) for done in applied) == 1
        rows = await conns[0].fetch("SELECT version FROM schema_migrations ORDER BY version")
        assert [r[0] for r in rows] == versions
    finally:
        for c in conns:
            await c.close()
    # and whole repositories opening together
    repos = await asyncio.gather(*(open_repository(database_url=empty_pg_url) for _ in range(3)))
    for r in repos:
        await r.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_an_unreachable_postgres_is_named_by_host_and_port() -> None:
    port = _free_port()  # nothing listens there
    url = f"postgresql://capsa:secret@127.0.0.1:{port}/capsa"
    with pytest.raises(DatabaseUnreachable) as caught:
        await open_repository(database_url=url)
    assert (caught.value.host, caught.value.port) == ("127.0.0.1", port)
    message = str(caught.value)
    assert f"127.0.0.1:{port}" in message and "refused" in message.lower()
    assert "secret" not in message and "\n" not in message
    assert isinstance(caught.value, DatabaseUnavailable)
    with pytest.raises(ValueError, match="postgresql://"):
        await open_repository(database_url="mysql://capsa@127.0.0.1/capsa")


def test_database_urls_are_read_for_their_host_and_port_without_the_password() -> None:
    assert database_address("postgresql://u:p@db.example:6543/capsa") == ("db.example", 6543)
    assert database_address("postgres://u@[::1]/capsa") == ("::1", 5432)
    assert database_address("postgresql:///capsa?host=/run/pg&port=6000") == ("/run/pg", 6000)
    for bad, message in [
        ("mysql://u@h/db", "must look like postgresql://"),
        ("data/capsa.sqlite3", "must look like postgresql://"),
        ("postgresql://u:hunter2@h:port/db", "bad port"),
    ]:
        with pytest.raises(ValueError, match=message) as caught:
            database_address(bad)
        assert "hunter2" not in str(caught.value)
    unreachable = DatabaseUnreachable("::1", 5432, "Connection refused")
    assert "[::1]:5432" in str(unreachable)


async def test_a_wrong_database_name_is_one_clear_line(pg_server) -> None:
    url = pg_server.url_of("capsa_no_such_database")
    with pytest.raises(DatabaseUnavailable, match="does not exist") as caught:
        await open_repository(database_url=url)
    assert not isinstance(caught.value, DatabaseUnreachable)
    assert "\n" not in str(caught.value)


async def test_migration_2_turns_a_dm_message_id_of_0_into_dm_refused(db_path: str) -> None:
    """A database last used before 0002 stored a refused DM as dm_message_id = 0."""
    conn = await SqliteConnection.open(db_path)
    cards = " ".join(the_deal(3, 1)[0])

    def old_rows(db: sqlite3.Connection) -> None:
        db.execute(
            "INSERT INTO matches (id, guild_id, channel_id, host_id, preset, rounds_total,"
            " countdown, bot_level, timeout_action, seats_count, status, created_at)"
            " VALUES (1, 1, 10, 100, 'standard', 5, 60, 'normal', 'auto', 3, 'playing', 0)"
        )
        db.execute(
            "INSERT INTO rounds (id, match_id, number, seed, deadline, created_at)"
            " VALUES (7, 1, 1, '42', 100, 0)"
        )
        db.executemany(
            "INSERT INTO hands (round_id, seat, cards, dm_channel_id, dm_message_id)"
            " VALUES (7, ?, ?, ?, ?)",
            [(0, cards, 31, 32), (1, cards, None, 0), (2, cards, None, None)],
        )

    try:
        assert await migrate(conn, discover_migrations(SQLITE_MIGRATIONS)[:1]) == [1]
        await conn.run(old_rows)
        assert 2 in await migrate(conn)
    finally:
        await conn.close()

    repo = await open_repository(db_path)
    try:
        hands = (await repo.get_round(7)).hands
        assert [(h.dm_channel_id, h.dm_message_id, h.dm_refused) for h in hands] == [
            (31, 32, False),
            (None, None, True),
            (None, None, False),
        ]
    finally:
        await repo.close()


def test_the_storage_api_does_not_import_its_backend() -> None:
    """data/repository.py is the protocol only; data/__init__.py picks the backend."""
    tree = ast.parse((ROOT / "data" / "repository.py").read_text(encoding="utf-8"))
    imported = {
        name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else ["." * node.level + (node.module or "")]
        )
    }
    backends = {".sqlite", ".sqlite_db", ".sqlite_batch", ".postgres", ".postgres_db"}
    backends |= {f"data{name}" for name in backends} | {"aiosqlite", "asyncpg", "sqlite3"}
    assert imported and not backends & imported


def test_bad_migration_file_names_are_refused(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="no migrations folder"):
        discover_migrations(tmp_path / "nope")
    (tmp_path / "init.sql").write_text("")
    with pytest.raises(RuntimeError, match="NNNN_name"):
        discover_migrations(tmp_path)
    (tmp_path / "init.sql").unlink()
    (tmp_path / "0001_a.sql").write_text("")
    (tmp_path / "1_b.sql").write_text("")
    with pytest.raises(RuntimeError, match="two migrations"):
        discover_migrations(tmp_path)


# ------------------------------------------------------------------------- settings


async def test_settings_defaults_update_and_persist(db: Db) -> None:
    repo = await db.open()
    assert await repo.guild_settings(GUILD) == GuildSettings(GUILD)
    s = await repo.update_guild_settings(GUILD, preset="SayaPoker", rounds=5, language="ID")
    assert [s.get(x) for x in (PRESET, ROUNDS, LANGUAGE, COUNTDOWN)] == ["sayapoker", 5, "id", 120]
    s = await repo.update_guild_settings(
        GUILD, countdown=30, bot_level="hard", timeout_action="foul"
    )
    assert s == GuildSettings.from_stored(
        GUILD,
        {
            "preset": "sayapoker",
            "rounds": 5,
            "countdown": 30,
            "bot_level": "hard",
            "timeout_action": "foul",
            "language": "id",
        },
    )
    assert await repo.update_guild_settings(GUILD) == s  # nothing to change
    assert await repo.guild_settings(OTHER_GUILD) == GuildSettings(OTHER_GUILD)
    await repo.close()

    repo = await db.open()
    assert await repo.guild_settings(GUILD) == s
    await repo.close()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"colour": "red"}, "unknown setting"),
        ({"rounds": 7}, "rounds must be one of 5, 10"),
        ({"rounds": "10"}, "whole number"),
        ({"rounds": True}, "whole number"),
        ({"countdown": 29}, "between 30 and 300"),
        ({"countdown": 301}, "between 30 and 300"),
        ({"preset": "texas"}, "preset must be one of"),
        ({"bot_level": "godlike"}, "bot_level must be one of easy, normal, hard"),
        ({"timeout_action": "skip"}, "timeout_action must be one of auto, foul"),
        ({"language": "fr"}, "language must be one of auto, en, id"),
        ({"language": None}, "must be text"),
    ],
)
async def test_settings_validation(repo: Repository, fields: dict, message: str) -> None:
    await repo.update_guild_settings(GUILD, rounds=5)
    with pytest.raises(ValueError, match=message):
        await repo.update_guild_settings(GUILD, **{"language": "en", **fields})
    # Nothing of a refused update is stored, not even its valid fields.
    assert await repo.guild_settings(GUILD) == GuildSettings.from_stored(GUILD, {"rounds": 5})


# ------------------------------------------------------------------------- lobby


async def test_lobby_flow_and_its_errors(repo: Repository) -> None:
    m = await new_match(repo, seats=3)
    assert m.status == "lobby" and m.options == {"method": "1-6"}
    assert [(s.seat, s.user_id, s.name, s.is_bot) for s in m.seats] == [(0, 100, "user100", False)]
    assert (m.created_at, m.lobby_expires_at, m.started_at) == (T0, T0 + 600, None)

    with pytest.raises(TableExists):
        await new_match(repo, channel=10, host=200)
    with pytest.raises(AlreadySeated):
        await new_match(repo, channel=11, host=100)  # the host already sits at a table

    m = await repo.add_seat(m.id, 101, "Budi")
    with pytest.raises(AlreadySeated):
        await repo.add_seat(m.id, 101, "Budi")
    m = await repo.add_seat(m.id, None, "Bot 1", "easy")
    assert [(s.seat, s.user_id, s.is_bot, s.level) for s in m.seats] == [
        (0, 100, False, None),
        (1, 101, False, None),
        (2, None, True, "easy"),
    ]
    assert m.free_seats == 0 and m.seat_of(101).seat == 1
    with pytest.raises(TableFull):
        await repo.add_seat(m.id, 102, "Citra")
    with pytest.raises(AlreadySeated):  # sitting here beats "full"
        await repo.add_seat(m.id, 100, "user100")

    # Someone at another table cannot join this one.
    other = await new_match(repo, channel=11, host=300)
    with pytest.raises(AlreadySeated):
        await repo.add_seat(other.id, 101, "Budi")

    # Leaving frees the seat, which is reused; the host may leave too.
    m = await repo.remove_seat(m.id, 101)
    assert [s.seat for s in m.seats] == [0, 2]
    with pytest.raises(NotSeated):
        await repo.remove_seat(m.id, 101)
    m = await repo.add_seat(m.id, 102, "Citra")
    assert m.seat_of(102).seat == 1
    m = await repo.remove_seat(m.id, 100)
    assert [s.user_id for s in m.seats] == [102, None]
    assert await repo.active_match_of_user(100) is None

    await repo.set_lobby_message(m.id, 5555)
    assert (await repo.get_match(m.id)).lobby_message_id == 5555
    assert (await repo.active_match_in_channel(10)).id == m.id
    assert (await repo.active_match_of_user(102)).id == m.id
    assert await repo.get_match(999) is None

    assert await repo.start_match(m.id, now=T0 + 5)
    assert not await repo.start_match(m.id)
    started = await repo.get_match(m.id)
    assert (started.status, started.started_at) == ("playing", T0 + 5)
    for call in (repo.add_seat(m.id, 103, "Dewi"), repo.remove_seat(m.id, 102)):
        with pytest.raises(NotInLobby):
            await call
    with pytest.raises(NotInLobby):
        await repo.add_seat(999, 103, "Dewi")
    with pytest.raises(TableExists):  # a playing table still holds the channel
        await new_match(repo, channel=10, host=400)

    assert await repo.cancel_match(m.id, now=T0 + 9)
    assert not await repo.cancel_match(m.id)
    cancelled = await repo.get_match(m.id)
    assert (cancelled.status, cancelled.finished_at) == ("cancelled", T0 + 9)
    assert await repo.active_match_in_channel(10) is None
    assert await repo.active_match_of_user(102) is None
    again = await new_match(repo, channel=10, host=102)  # channel and player are free again
    assert issubclass(TableExists, RepositoryError) and again.id != m.id


async def test_concurrent_joins_never_overfill_a_table(repo: Repository) -> None:
    m = await new_match(repo, seats=4)
    results = await asyncio.gather(
        *(repo.add_seat(m.id, 200 + i, f"p{i}") for i in range(10)), return_exceptions=True
    )
    assert sum(not isinstance(r, Exception) for r in results) == 3
    assert all(isinstance(r, TableFull) for r in results if isinstance(r, Exception))
    seats = (await repo.get_match(m.id)).seats
    assert [s.seat for s in seats] == [0, 1, 2, 3]


async def test_finish_match_stores_places_once(repo: Repository) -> None:
    m = await playing_match(repo)
    with pytest.raises(ValueError, match="no seat 7"):
        await repo.finish_match(m.id, {0: 1, 7: 2})
    assert (await repo.get_match(m.id)).status == "playing"  # rolled back whole
    assert await repo.finish_match(m.id, {0: 2, 1: 1, 2: 3}, now=T0 + 50)
    assert not await repo.finish_match(m.id, {0: 1, 1: 2, 2: 3})
    done = await repo.get_match(m.id)
    assert (done.status, done.finished_at) == ("finished", T0 + 50)
    assert [s.place for s in done.seats] == [2, 1, 3]
    assert not await repo.cancel_match(m.id)
    assert await repo.active_matches() == []


# ------------------------------------------------------------------------- rounds


async def test_start_round_is_idempotent_and_needs_a_playing_match(repo: Repository) -> None:
    lobby = await new_match(repo, channel=11, host=300)
    with pytest.raises(NotPlaying):
        await repo.start_round(lobby.id, 1, 1, T0, {0: []})
    m = await playing_match(repo)
    with pytest.raises(ValueError, match="no seat"):
        await repo.start_round(m.id, 1, 1, T0, {5: codes(deal(2, 1)[0])})
    hands = the_deal(3, 42)
    big_seed = 2**70 + 3
    r1 = await repo.start_round(m.id, 1, big_seed, T0 + 120, hands, now=T0)
    assert (r1.number, r1.seed, r1.deadline, r1.status) == (1, big_seed, T0 + 120, "dealing")
    assert [(h.seat, list(h.cards)) for h in r1.hands] == sorted(hands.items())
    assert r1.hand(0).submitted_at is None and r1.pending_seats == (0, 1, 2)
    again = await repo.start_round(m.id, 1, 999, T0 + 999, the_deal(3, 7), now=T0 + 5)
    assert again == r1
    assert await repo.current_round(m.id) == r1
    r2 = await repo.start_round(m.id, 2, 5, T0 + 300, the_deal(3, 43))
    assert (await repo.current_round(m.id)).id == r2.id
    assert await repo.get_round(r1.id) == r1
    await repo.cancel_match(m.id)
    assert await repo.start_round(m.id, 2, 5, T0, {}) == r2  # existing: still returned
    with pytest.raises(NotPlaying):
        await repo.start_round(m.id, 3, 5, T0, the_deal(3, 44))


async def test_submit_hand_is_idempotent(repo: Repository) -> None:
    m = await playing_match(repo)
    hands = the_deal(3, 1)
    rnd = await repo.start_round(m.id, 1, 1, T0 + 120, hands)
    back, middle, front = split(hands[0])
    assert await repo.submit_hand(rnd.id, 0, back, middle, front, "dragon", False, now=T0 + 3)
    before = await repo.get_round(rnd.id)
    # A double click, even with another setting, changes nothing.
    assert not await repo.submit_hand(rnd.id, 0, middle, back, front, None, True, True)
    after = await repo.get_round(rnd.id)
    assert after == before
    h = after.hand(0)
    assert (h.back, h.middle, h.front) == (tuple(back), tuple(middle), tuple(front))
    assert (h.declare, h.fouled, h.auto, h.submitted_at) == ("dragon", False, False, T0 + 3)

    # The setting must use exactly the dealt cards.
    other = hands[1]
    with pytest.raises(ValueError, match="exactly the cards"):
        await repo.submit_hand(rnd.id, 1, *split(hands[0]), None, False)
    with pytest.raises(ValueError, match="exactly the cards"):  # one card twice, one left out
        twice = [other[10], other[11], other[10]]
        await repo.submit_hand(rnd.id, 1, other[:5], other[5:10], twice, None, False)
    with pytest.raises(ValueError, match="front row needs 3"):
        await repo.submit_hand(rnd.id, 1, other[:5], other[5:10], other[10:12], None, False)
    with pytest.raises(ValueError, match="all three rows"):
        await repo.submit_hand(rnd.id, 1, other[:5], None, None, None, True)
    assert (await repo.get_round(rnd.id)).hand(1).submitted_at is None
    # No setting at all: a timeout foul.
    assert await repo.submit_hand(rnd.id, 1, None, None, None, None, True, auto=True)
    h1 = (await repo.get_round(rnd.id)).hand(1)
    assert (h1.back, h1.fouled, h1.auto) == (None, True, True)

    assert not await repo.submit_hand(rnd.id, 9, *split(hands[2]), None, False)  # no such seat
    assert not await repo.submit_hand(9999, 0, back, middle, front, None, False)

    assert await repo.score_round(rnd.id, {}, [RoundScore(0, 1), RoundScore(1, -1)])
    # A click on a finished round is refused.
    assert not await repo.submit_hand(rnd.id, 2, *split(hands[2]), None, False)
    assert (await repo.get_round(rnd.id)).hand(2).submitted_at is None


async def test_concurrent_double_submit_counts_once(repo: Repository) -> None:
    m = await playing_match(repo)
    hands = the_deal(3, 2)
    rnd = await repo.start_round(m.id, 1, 2, T0 + 120, hands)
    results = await asyncio.gather(
        *(repo.submit_hand(rnd.id, 0, *split(hands[0]), None, False) for _ in range(5))
    )
    assert sorted(results) == [False, False, False, False, True]


async def test_messages_are_stored(repo: Repository) -> None:
    m = await playing_match(repo)
    rnd = await repo.start_round(m.id, 1, 3, T0 + 120, the_deal(3, 3))
    await repo.set_round_messages(rnd.id, status_message_id=11)
    await repo.set_round_messages(rnd.id, showdown_message_id=22)
    await repo.set_round_messages(rnd.id)  # nothing to change
    await repo.set_dm_message(rnd.id, 1, 777, 888)
    got = await repo.get_round(rnd.id)
    assert (got.status_message_id, got.showdown_message_id) == (11, 22)
    assert (got.hand(1).dm_channel_id, got.hand(1).dm_message_id) == (777, 888)
    assert got.hand(0).dm_channel_id is None
    assert not any(h.dm_refused for h in got.hands)


async def test_a_refused_dm_is_remembered_across_a_restart(db: Db) -> None:
    repo = await db.open()
    m = await playing_match(repo)
    rnd = await repo.start_round(m.id, 1, 3, T0 + 120, the_deal(3, 3))
    await repo.set_dm_message(rnd.id, 0, 31, 32)
    await repo.mark_dm_refused(rnd.id, 1)
    got = await repo.get_round(rnd.id)
    assert got.hand(1).dm_refused and got.hand(1).dm_message_id is None
    assert got.hand(1).dm_channel_id is None
    assert not got.hand(0).dm_refused and got.hand(0).dm_message_id == 32
    await repo.close()

    repo = await db.open()  # read from the database, not from a cache
    try:
        got = await repo.get_round(rnd.id)
        assert [h.dm_refused for h in got.hands] == [False, True, False]
        assert (got.hand(0).dm_channel_id, got.hand(0).dm_message_id) == (31, 32)
    finally:
        await repo.close()


# ------------------------------------------------------------------------- scoring


def three_scores(points=(6.0, -2.0, -4.0)) -> list[RoundScore]:
    return [
        RoundScore(0, points[0], sweeps_given=1, best_row={"category": "flush", "strength": 9}),
        RoundScore(1, points[1], fouled=True),
        RoundScore(2, points[2], sweeps_taken=1, special="six_pairs"),
    ]


async def submitted_round(repo: Repository, match_id: int, number: int = 1, seed: int = 5):
    hands = the_deal(3, seed)
    rnd = await repo.start_round(match_id, number, seed, T0 + 120, hands)
    for seat, cards in hands.items():
        await repo.submit_hand(rnd.id, seat, *split(cards), None, False)
    return rnd


async def test_score_round_is_exactly_once(repo: Repository) -> None:
    m = await playing_match(repo)
    rnd = await submitted_round(repo, m.id)
    assert await repo.match_totals(m.id) == {0: 0.0, 1: 0.0, 2: 0.0}
    assert await repo.completed_rounds(m.id) == []

    assert await repo.score_round(rnd.id, {"pairs": [1, 2]}, three_scores(), now=T0 + 60)
    scored = await repo.get_round(rnd.id)
    assert (scored.status, scored.scored_at, scored.result) == (
        "scored",
        T0 + 60,
        {"pairs": [1, 2]},
    )
    assert [h.points for h in scored.hands] == [6.0, -2.0, -4.0]
    assert scored.hand(1).fouled  # the score's foul is recorded on the hand
    totals = await repo.match_totals(m.id)
    assert totals == {0: 6.0, 1: -2.0, 2: -4.0}

    # Again, with other numbers, sequentially and concurrently: nothing changes.
    assert not await repo.score_round(rnd.id, {"x": 1}, three_scores((100, 100, 100)))
    again = await asyncio.gather(
        *(repo.score_round(rnd.id, {}, three_scores((9, 9, 9))) for _ in range(5))
    )
    assert again == [False] * 5
    assert await repo.match_totals(m.id) == totals
    assert await repo.get_round(rnd.id) == scored
    assert [r.id for r in await repo.completed_rounds(m.id)] == [rnd.id]
    assert (await repo.player_stats(GUILD, 100)).rounds == 1


async def test_concurrent_first_scoring_counts_once(repo: Repository) -> None:
    m = await playing_match(repo)
    rnd = await submitted_round(repo, m.id)
    results = await asyncio.gather(
        *(repo.score_round(rnd.id, {}, three_scores()) for _ in range(6))
    )
    assert sorted(results) == [False] * 5 + [True]
    assert await repo.match_totals(m.id) == {0: 6.0, 1: -2.0, 2: -4.0}


# A trigger that fails the ledger insert of seat 2: after the round flipped and seat 0's and
# seat 1's rows were written.
CRASH = {
    "sqlite": (
        "CREATE TRIGGER crash BEFORE INSERT ON round_scores WHEN NEW.seat = 2"
        " BEGIN SELECT RAISE(ABORT, 'disk on fire'); END",
        "DROP TRIGGER crash",
    ),
    "postgres": (
        "CREATE FUNCTION crash() RETURNS trigger LANGUAGE plpgsql AS"
        " $$ BEGIN RAISE EXCEPTION 'disk on fire'; END $$;"
        " CREATE TRIGGER crash BEFORE INSERT ON round_scores FOR EACH ROW"
        " WHEN (NEW.seat = 2) EXECUTE FUNCTION crash()",
        "DROP TRIGGER crash ON round_scores; DROP FUNCTION crash()",
    ),
}


async def test_score_round_failing_mid_transaction_stores_nothing(repo: Repository, db: Db) -> None:
    m = await playing_match(repo)
    rnd = await submitted_round(repo, m.id)
    before = await repo.get_round(rnd.id)

    create, drop = CRASH[db.backend]
    await db.execute(create)
    try:
        with pytest.raises((sqlite3.IntegrityError, asyncpg.RaiseError), match="disk on fire"):
            await repo.score_round(rnd.id, {"r": 1}, three_scores(), now=T0 + 60)
    finally:
        await db.execute(drop)
    assert await repo.get_round(rnd.id) == before  # still open, no points, no result
    assert await repo.match_totals(m.id) == {0: 0.0, 1: 0.0, 2: 0.0}
    assert (await repo.player_stats(GUILD, 100)).rounds == 0
    assert await repo.leaderboard_count(GUILD) == 0

    # A failure in our own code (an unserialisable best row) stores nothing either.
    bad = three_scores()
    bad[1] = RoundScore(1, -2.0, best_row={"cards": object()})
    with pytest.raises(TypeError):
        await repo.score_round(rnd.id, {"r": 1}, bad)
    # And a score for a seat the round does not have.
    with pytest.raises(ValueError, match="no hand for seat 3"):
        await repo.score_round(rnd.id, {"r": 1}, [three_scores()[0], RoundScore(3, 1.0)])
    with pytest.raises(ValueError, match="twice"):
        await repo.score_round(rnd.id, {"r": 1}, [*three_scores(), RoundScore(0, 1.0)])
    assert await repo.get_round(rnd.id) == before

    # Once the fault is gone, the round scores normally, exactly once.
    assert await repo.score_round(rnd.id, {"r": 1}, three_scores(), now=T0 + 60)
    assert not await repo.score_round(rnd.id, {"r": 1}, three_scores(), now=T0 + 60)
    assert await repo.match_totals(m.id) == {0: 6.0, 1: -2.0, 2: -4.0}


async def test_score_round_failing_after_any_write_is_all_or_nothing(
    repo: Repository, db: Db, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash right after its k-th write (the round flip, the hands, the ledger rows):
    nothing of it is stored, nothing stale is cached, and a retry scores it once."""
    m = await playing_match(repo)
    tx = repo.TX  # type: ignore[attr-defined]
    writes = 0
    crash_after = 0

    def crashing(real):
        async def write_then_crash(self, sql, *args):
            changed = await real(self, sql, *args)
            nonlocal writes
            writes += 1
            if writes == crash_after:
                raise OSError("power cut")
            return changed

        return write_then_crash

    monkeypatch.setattr(tx, "run", crashing(tx.run))
    monkeypatch.setattr(tx, "many", crashing(tx.many))
    n_writes = 3
    expected = {0: 0.0, 1: 0.0, 2: 0.0}
    for k in range(1, n_writes + 1):
        rnd = await submitted_round(repo, m.id, k, seed=k)
        before = await repo.get_round(rnd.id)
        writes, crash_after = 0, k
        with pytest.raises(OSError, match="power cut"):
            await repo.score_round(rnd.id, {}, three_scores())
        assert writes == k
        assert await repo.get_round(rnd.id) == before
        assert await repo.match_totals(m.id) == expected
        crash_after = 0
        writes = 0
        assert await repo.score_round(rnd.id, {}, three_scores())  # the retry after a restart
        assert writes == n_writes
        assert not await repo.score_round(rnd.id, {}, three_scores())
        assert (await repo.get_round(rnd.id)).status == "scored"
        expected = {s: expected[s] + p for s, p in zip(expected, (6.0, -2.0, -4.0), strict=True)}
        assert await repo.match_totals(m.id) == expected
    assert (await repo.player_stats(GUILD, 100)).rounds == n_writes


async def _cancel_scoring_after(repo: Repository, rnd_id: int, wait: Callable[[], Awaitable]):
    task = asyncio.create_task(repo.score_round(rnd_id, {}, three_scores()))
    await wait()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def _check_scored_whole_or_not(
    repo: Repository, match_id: int, rnd_id: int, expected: dict[int, float]
) -> tuple[bool, dict[int, float]]:
    """After a cancelled score_round: the round is scored whole or not at all, and the retry
    (what the bot does on its next start) scores it only if it was not."""
    totals = await repo.match_totals(match_id)
    stored = (await repo.get_round(rnd_id)).status == "scored"
    assert totals == await repo.match_totals(match_id)
    if stored:
        expected = {s: expected[s] + p for s, p in zip(expected, (6, -2, -4), strict=True)}
    assert await repo.match_totals(match_id) == expected
    assert await repo.score_round(rnd_id, {}, three_scores()) is not stored
    if not stored:
        expected = {s: expected[s] + p for s, p in zip(expected, (6, -2, -4), strict=True)}
    assert await repo.match_totals(match_id) == expected
    return stored, expected


async def test_a_cancelled_caller_never_leaves_half_a_transaction(
    sqlite_repo: BatchedSqliteRepository,
) -> None:
    """The caller of score_round is cancelled after 0, 1, 2 ... event-loop turns: the round is
    then either scored whole or not at all, and counted once however often it is retried."""
    repo = sqlite_repo
    m = await playing_match(repo)
    expected = {0: 0.0, 1: 0.0, 2: 0.0}
    outcomes = set()
    for k in range(8):
        rnd = await submitted_round(repo, m.id, k + 1, seed=k + 1)

        async def turns(k: int = k) -> None:
            for _ in range(k):
                await asyncio.sleep(0)

        await _cancel_scoring_after(repo, rnd.id, turns)
        # (match_totals is queued after it: the transaction has ended)
        stored, expected = await _check_scored_whole_or_not(repo, m.id, rnd.id, expected)
        outcomes.add(stored)
    assert (await repo.player_stats(GUILD, 100)).rounds == 8
    assert outcomes == {False, True}  # cancelled before it was queued, or after


async def test_postgres_a_cancelled_caller_never_leaves_half_a_transaction(
    pg_repo: PostgresRepository,
) -> None:
    """The same on PostgreSQL, where the transaction is a conversation with the server: the
    caller is cancelled at points spread over one score_round's time (before it starts,
    between its statements, after it committed); the pool's connection is rolled back and
    stays usable."""
    repo = pg_repo
    m = await playing_match(repo)
    probe = await submitted_round(repo, m.id, 1, seed=1)
    started = time.perf_counter()
    await repo.score_round(probe.id, {}, three_scores())
    took = time.perf_counter() - started
    expected = {0: 6.0, 1: -2.0, 2: -4.0}
    outcomes = set()
    delays = [0.0, took / 8, took / 4, took / 2, 3 * took / 4, took, 2 * took, 20 * took]
    for k, delay in enumerate(delays):
        rnd = await submitted_round(repo, m.id, k + 2, seed=k + 2)

        async def pause(delay: float = delay) -> None:
            if delay:
                await asyncio.sleep(delay)

        await _cancel_scoring_after(repo, rnd.id, pause)
        stored, expected = await _check_scored_whole_or_not(repo, m.id, rnd.id, expected)
        outcomes.add(stored)
    assert (await repo.player_stats(GUILD, 100)).rounds == len(delays) + 1
    assert outcomes == {False, True}


async def test_score_round_refuses_a_cancelled_match(repo: Repository) -> None:
    m = await playing_match(repo)
    done = await submitted_round(repo, m.id, 1)
    assert await repo.score_round(done.id, {}, three_scores())
    open_round = await submitted_round(repo, m.id, 2, seed=6)
    assert await repo.cancel_match(m.id)
    assert not await repo.score_round(open_round.id, {}, three_scores())
    # The completed round stays recorded; the open one was never counted.
    assert [r.number for r in await repo.completed_rounds(m.id)] == [1]
    assert await repo.match_totals(m.id) == {0: 6.0, 1: -2.0, 2: -4.0}
    assert (await repo.player_stats(GUILD, 100)).points == 6.0


# ------------------------------------------------------------------------- restart


async def test_resume_after_reopen(db: Db) -> None:
    repo = await db.open()
    m = await playing_match(repo, now=T0)
    await repo.set_lobby_message(m.id, 4444)
    first = await submitted_round(repo, m.id, 1)
    await repo.score_round(first.id, {"n": 1}, three_scores(), now=T0 + 100)
    hands = the_deal(3, 77)
    rnd = await repo.start_round(m.id, 2, 77, T0 + 400, hands, now=T0 + 280)
    await repo.submit_hand(rnd.id, 1, *split(hands[1]), "six_pairs", False, now=T0 + 300)
    await repo.set_round_messages(rnd.id, status_message_id=9001)
    await repo.set_dm_message(rnd.id, 0, 31, 32)
    assert await repo.mark_round_open(rnd.id)
    lobby = await new_match(repo, channel=20, host=500)
    before_match = await repo.get_match(m.id)
    before_round = await repo.get_round(rnd.id)
    await repo.close()

    repo = await db.open()
    try:
        active = await repo.active_matches()
        assert [x.id for x in active] == [m.id, lobby.id]
        assert active[0] == before_match and active[0].lobby_message_id == 4444
        assert active[1].status == "lobby"
        cur = await repo.current_round(m.id)
        assert cur == before_round
        assert (cur.number, cur.seed, cur.deadline, cur.status) == (2, 77, T0 + 400, "open")
        assert {h.seat: list(h.cards) for h in cur.hands} == hands
        assert cur.pending_seats == (0, 2)
        assert cur.hand(1).submitted_at == T0 + 300 and cur.hand(1).declare == "six_pairs"
        assert cur.hand(1).front == tuple(hands[1][10:])
        assert (cur.status_message_id, cur.hand(0).dm_message_id) == (9001, 32)
        assert await repo.match_totals(m.id) == {0: 6.0, 1: -2.0, 2: -4.0}
        # The scored round cannot be counted again after the restart; play goes on.
        assert not await repo.score_round(first.id, {}, three_scores())
        assert await repo.start_round(m.id, 2, 1, T0, the_deal(3, 1)) == before_round
        for seat in (0, 2):
            assert await repo.submit_hand(rnd.id, seat, *split(hands[seat]), None, False)
        assert (await repo.current_round(m.id)).all_submitted
        assert await repo.score_round(rnd.id, {}, three_scores((1, 1, -2)))
        assert await repo.match_totals(m.id) == {0: 7.0, 1: -1.0, 2: -6.0}
    finally:
        await repo.close()


# ------------------------------------------------------------------------- stats


async def build_history(repo: Repository) -> None:
    """Two finished matches and one cancelled match in GUILD, one in OTHER_GUILD.

    Users 100 (Ani), 101 (Budi), 102 (Citra); computer players never appear in stats.
    """
    old = T0 - 40 * DAY
    recent = T0 - 3 * DAY

    # Match A, 40 days ago: 100 vs 101 vs bot. 101 wins.
    a = await playing_match(repo, (100, 101), 1, channel=10, now=old)
    await play_round(
        repo,
        a.id,
        1,
        {0: -5, 1: 8, 2: -3},
        scored_at=old,
        given={1: 2},
        taken={0: 1, 2: 1},
        table={1: True},
        fouled={2: True},
        best={
            1: {"category": "four_of_a_kind", "cards": ["AS"], "strength": 900, "position": "back"}
        },
    )
    await play_round(
        repo,
        a.id,
        2,
        {0: 1, 1: 2, 2: -3},
        scored_at=old + 60,
        special={0: "dragon"},
        best={0: {"category": "flush", "cards": ["2S"], "strength": 500, "position": "middle"}},
    )
    assert await repo.finish_match(a.id, {1: 1, 0: 2, 2: 3}, now=old + 100)

    # Match B, 3 days ago: 100 vs 102 vs bot. 100 wins.
    b = await playing_match(repo, (100, 102), 1, channel=11, now=recent)
    await play_round(
        repo,
        b.id,
        1,
        {0: 4, 1: -1, 2: -3},
        scored_at=recent,
        given={0: 1, 2: 5},
        taken={1: 1},
        fouled={0: True},
        special={0: "six_pairs"},
        best={0: {"category": "straight", "cards": ["9S"], "strength": 700, "position": "back"}},
    )
    assert await repo.finish_match(b.id, {0: 1, 1: 2, 2: 3}, now=recent + 100)

    # Match C, 1 day ago, cancelled after one round: 102 vs bot. Counts for points, not
    # matches/wins.
    c = await playing_match(repo, (102,), 1, channel=12, now=T0 - DAY)
    await play_round(repo, c.id, 1, {0: 10, 1: -10}, scored_at=T0 - DAY, given={0: 1})
    assert await repo.cancel_match(c.id)

    # Another guild: 100 scores big there, which must not leak into GUILD.
    d = await playing_match(repo, (100,), 1, guild=OTHER_GUILD, channel=99, now=T0 - DAY)
    await play_round(repo, d.id, 1, {0: 50, 1: -50}, scored_at=T0 - DAY, given={0: 3})
    assert await repo.finish_match(d.id, {0: 1, 1: 2}, now=T0 - DAY)


def board(rows) -> list[tuple]:
    return [(r.user_id, r.points, r.wins, r.matches, r.sweeps, r.rounds) for r in rows]


async def test_leaderboard_sorts_and_periods(repo: Repository) -> None:
    await build_history(repo)
    # all time: 100: -5+1+4=0 pts, 1 win, 2 matches, 1 sweep, 3 rounds
    #           101: 8+2=10 pts, 1 win, 1 match, 2 sweeps, 2 rounds
    #           102: -1+10=9 pts, 0 wins, 1 match, 1 sweep, 2 rounds
    everyone = {
        100: (100, 0.0, 1, 2, 1, 3),
        101: (101, 10.0, 1, 1, 2, 2),
        102: (102, 9.0, 0, 1, 1, 2),
    }
    lb = await repo.leaderboard(GUILD, now=T0)
    assert board(lb) == [everyone[101], everyone[102], everyone[100]]
    assert [r.name for r in lb] == ["user101", "user102", "user100"]
    assert board(await repo.leaderboard(GUILD, "wins")) == [
        everyone[101],  # 1 win, 10 points
        everyone[100],  # 1 win, 0 points
        everyone[102],
    ]
    assert board(await repo.leaderboard(GUILD, "matches")) == [
        everyone[100],
        everyone[101],  # 1 match, 1 win
        everyone[102],
    ]
    assert board(await repo.leaderboard(GUILD, "sweeps")) == [
        everyone[101],
        everyone[102],  # 1 sweep, 9 points
        everyone[100],
    ]
    assert await repo.leaderboard_count(GUILD) == 3

    # Last 7 / 30 days: match A (40 days ago) drops out entirely.
    for days in (7, 30):
        assert board(await repo.leaderboard(GUILD, "points", days, now=T0)) == [
            (102, 9.0, 0, 1, 1, 2),
            (100, 4.0, 1, 1, 1, 1),
        ]
        assert await repo.leaderboard_count(GUILD, days, now=T0) == 2
    # Last 2 days: only the cancelled match's round: points but no matches.
    assert board(await repo.leaderboard(GUILD, "wins", 2, now=T0)) == [(102, 10.0, 0, 0, 1, 1)]
    assert await repo.leaderboard_count(GUILD, 1, now=T0 + DAY) == 0
    assert await repo.leaderboard(GUILD, period_days=1, now=T0 + DAY) == []

    # Paging and the other guild.
    assert [r.user_id for r in await repo.leaderboard(GUILD, limit=2)] == [101, 102]
    assert [r.user_id for r in await repo.leaderboard(GUILD, limit=2, offset=2)] == [100]
    assert await repo.leaderboard(GUILD, limit=2, offset=3) == []
    assert board(await repo.leaderboard(OTHER_GUILD)) == [(100, 50.0, 1, 1, 3, 1)]
    assert await repo.leaderboard(3) == [] and await repo.leaderboard_count(3) == 0

    with pytest.raises(ValueError, match="sort must be one of"):
        await repo.leaderboard(GUILD, "fouls")
    with pytest.raises(ValueError, match="period_days"):
        await repo.leaderboard(GUILD, period_days=0)


async def test_leaderboard_uses_latest_name(repo: Repository) -> None:
    m = await playing_match(repo, (100, 101), 1)
    await play_round(repo, m.id, 1, {0: 1, 1: 2, 2: -3}, scored_at=T0)
    await repo.cancel_match(m.id)
    m2 = await new_match(repo, channel=10, host=300)
    await repo.add_seat(m2.id, 100, "Ani (new nick)")
    names = {r.user_id: r.name for r in await repo.leaderboard(GUILD)}
    assert names == {100: "Ani (new nick)", 101: "user101"}


async def test_player_stats(repo: Repository) -> None:
    await build_history(repo)
    s = await repo.player_stats(GUILD, 100)
    assert (s.matches, s.wins, s.points, s.rounds) == (2, 1, 0.0, 3)
    assert s.points_per_round == 0.0
    assert (s.sweeps_given, s.sweeps_taken, s.table_sweeps, s.fouls) == (1, 1, 0, 1)
    assert s.specials == {"dragon": 1, "six_pairs": 1}
    assert s.best_hand == {
        "category": "straight",
        "cards": ["9S"],
        "strength": 700,
        "position": "back",
    }

    s = await repo.player_stats(GUILD, 101)
    assert (s.matches, s.wins, s.points, s.rounds, s.points_per_round) == (1, 1, 10.0, 2, 5.0)
    assert (s.sweeps_given, s.sweeps_taken, s.table_sweeps, s.fouls) == (2, 0, 1, 0)
    assert s.specials == {} and s.best_hand["category"] == "four_of_a_kind"

    s = await repo.player_stats(GUILD, 102)
    assert (s.matches, s.wins, s.points, s.rounds, s.points_per_round) == (1, 0, 9.0, 2, 4.5)
    assert s.best_hand is None

    s = await repo.player_stats(OTHER_GUILD, 100)
    assert (s.matches, s.wins, s.points, s.rounds, s.sweeps_given) == (1, 1, 50.0, 1, 3)

    nobody = await repo.player_stats(GUILD, 12345)
    assert (nobody.matches, nobody.points, nobody.rounds, nobody.points_per_round) == (0, 0, 0, 0)
    assert nobody.specials == {} and nobody.best_hand is None


# ------------------------------------------------------------------------- group commit


async def test_transactions_waiting_together_commit_together_each_all_or_nothing(
    sqlite_repo: BatchedSqliteRepository,
) -> None:
    """Three transactions queued in the same loop turn go as one batch: the one that fails
    halfway leaves nothing, the others are stored, and every caller gets its own answer."""
    repo = sqlite_repo
    m = await playing_match(repo)
    rnd = await submitted_round(repo, m.id)
    batches = []
    real_group = repo._group

    def group(db, *, fns):
        batches.append(len(fns))
        return real_group(db, fns=fns)

    repo._group = group
    bad = three_scores()
    bad[2] = RoundScore(7, 1.0)  # no such seat: fails after the round flipped
    results = await asyncio.gather(
        repo.set_lobby_message(m.id, 777),
        repo.score_round(rnd.id, {}, bad),
        repo.set_round_messages(rnd.id, status_message_id=888),
        return_exceptions=True,
    )
    assert batches == [3]
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], ValueError) and "no hand for seat 7" in str(results[1])
    assert (await repo.get_match(m.id)).lobby_message_id == 777
    stored = await repo.get_round(rnd.id)
    assert stored.status == "dealing" and stored.status_message_id == 888
    assert all(h.points is None for h in stored.hands)
    assert await repo.match_totals(m.id) == {0: 0.0, 1: 0.0, 2: 0.0}
    assert await repo.score_round(rnd.id, {}, three_scores())  # and it still scores once


async def test_a_write_in_the_same_batch_as_a_read_never_leaves_the_read_cached(
    sqlite_repo: BatchedSqliteRepository,
) -> None:
    """A read that loads a record and a later write to it in the same batch: the cache ends
    with the written state, not the one read before it."""
    repo = sqlite_repo
    m = await new_match(repo)
    await repo.add_seat(m.id, 101, "user101")
    repo._match_cache.clear()
    read, started = await asyncio.gather(repo.get_match(m.id), repo.start_match(m.id))
    assert read.status == "lobby" and started
    assert repo._match_cache[m.id].status == "playing"  # read again by the write, after it
    assert (await repo.get_match(m.id)).status == "playing"


async def test_preferences_are_cached_and_a_change_is_read_at_once(
    sqlite_repo: BatchedSqliteRepository,
) -> None:
    """A person's preferences (read on every click) come from the cache once read, and an
    update replaces the cached ones, in the same batch as a read too."""
    repo = sqlite_repo
    assert (await repo.preferences(7)).language is None
    assert repo._preferences_cache[7] == Preferences(7)  # kept, though nothing is stored
    read, changed = await asyncio.gather(
        repo.preferences(7), repo.update_preferences(7, language="vi", deck="four_colour")
    )
    assert read.language is None and changed.language == "vi"
    assert repo._preferences_cache[7] == changed
    statements: list[str] = []
    await repo._conn.run(lambda db: db.set_trace_callback(statements.append))
    try:
        assert await repo.preferences(7) == changed
    finally:
        await repo._conn.run(lambda db: db.set_trace_callback(None))
    assert statements == []  # from the cache: no round trip to the database


async def test_a_batch_that_sqlite_ends_fails_for_every_transaction_in_it(
    sqlite_repo: BatchedSqliteRepository,
) -> None:
    """If the transaction as a whole is lost (here: ended under our feet), no caller of the
    batch is told it was stored, and nothing of it is."""
    repo = sqlite_repo
    m = await playing_match(repo)

    def end_everything() -> None:
        repo._db.execute("ROLLBACK")
        raise sqlite3.OperationalError("disk I/O error")

    results = await asyncio.gather(
        repo.set_lobby_message(m.id, 999),
        repo._run(end_everything),
        return_exceptions=True,
    )
    assert all(isinstance(r, sqlite3.OperationalError) for r in results), results
    assert (await repo.get_match(m.id)).lobby_message_id != 999
    await repo.set_lobby_message(m.id, 1000)  # the connection is fine afterwards
    assert (await repo.get_match(m.id)).lobby_message_id == 1000


async def test_close_writes_what_is_queued_first(db_path: str) -> None:
    repo = await open_repository(db_path)
    m = await playing_match(repo)
    writes = [asyncio.ensure_future(repo.set_lobby_message(m.id, n)) for n in range(1, 30)]
    await asyncio.sleep(0)  # queued, not yet written
    await repo.close()
    assert all(w.done() and w.exception() is None for w in writes)
    repo = await open_repository(db_path)
    try:
        assert (await repo.get_match(m.id)).lobby_message_id == 29
    finally:
        await repo.close()


async def test_a_flusher_cancelled_before_it_ran_does_not_stall_the_queue(
    sqlite_repo: BatchedSqliteRepository,
) -> None:
    repo = sqlite_repo
    m = await playing_match(repo)
    first = asyncio.ensure_future(repo.set_lobby_message(m.id, 1))
    await asyncio.sleep(0)  # queued; its flusher is created but has not run
    repo._flusher.cancel()
    await asyncio.sleep(0)
    await asyncio.wait_for(repo.set_lobby_message(m.id, 2), 5)  # a new flusher takes both
    await asyncio.wait_for(first, 5)
    assert (await repo.get_match(m.id)).lobby_message_id == 2


# ------------------------------------------------------------------------- PostgreSQL: locks


@contextlib.asynccontextmanager
async def holding_match_row(url: str, match_id: int):
    """Another session holds the table's row lock (SELECT ... FOR UPDATE) until the block
    ends."""
    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction():
            await conn.execute("SELECT 1 FROM matches WHERE id = $1 FOR UPDATE", match_id)
            yield
    finally:
        await conn.close()


async def still_waiting(*tasks: asyncio.Task, seconds: float = 0.3) -> bool:
    await asyncio.sleep(seconds)
    return not any(t.done() for t in tasks)


async def test_postgres_every_state_change_waits_for_the_tables_row_lock(
    pg_repo: PostgresRepository, pg_url: str
) -> None:
    """Each state change locks the table's row first: while another session holds it, it
    does not get through; once the lock is let go, it does."""
    repo = pg_repo

    async def waits_for_the_lock(match_id: int, change: Awaitable):
        async with holding_match_row(pg_url, match_id):
            task = asyncio.ensure_future(change)
            assert await still_waiting(task, seconds=0.15)
        return await task

    lobby = await new_match(repo, channel=20, host=300)
    joined = await waits_for_the_lock(lobby.id, repo.add_seat(lobby.id, 301, "p301"))
    assert [s.user_id for s in joined.seats] == [300, 301]
    left = await waits_for_the_lock(lobby.id, repo.remove_seat(lobby.id, 300))
    assert [s.user_id for s in left.seats] == [301]
    assert await waits_for_the_lock(lobby.id, repo.start_match(lobby.id))

    m = await playing_match(repo)
    hands = the_deal(3, 9)
    rnd = await waits_for_the_lock(m.id, repo.start_round(m.id, 1, 9, T0 + 120, hands))
    for seat in range(3):
        submit = repo.submit_hand(rnd.id, seat, *split(hands[seat]), None, False)
        assert await waits_for_the_lock(m.id, submit)
    assert await waits_for_the_lock(m.id, repo.score_round(rnd.id, {}, three_scores()))
    assert await waits_for_the_lock(m.id, repo.finish_match(m.id, {0: 1, 1: 2, 2: 3}))
    assert await waits_for_the_lock(lobby.id, repo.cancel_match(lobby.id))
    assert await repo.active_matches() == []


async def test_postgres_the_same_submit_in_two_processes_counts_once(pg_url: str) -> None:
    """Two processes (two repositories, each with its own pool) get the same Submit, and
    another the same hand with another setting, at the same moment: exactly one is stored,
    the others are told it was not, and the stored rows are the winner's."""
    repos = [await open_repository(database_url=pg_url) for _ in range(2)]
    try:
        m = await playing_match(repos[0])
        hands = the_deal(3, 4)
        rnd = await repos[0].start_round(m.id, 1, 4, T0 + 120, hands)
        back, middle, front = split(hands[0])
        settings = [(back, middle, front), (back, middle, front), (middle, back, front)]
        async with holding_match_row(pg_url, m.id):  # all three queue on the lock
            tasks = [
                asyncio.create_task(repos[i % 2].submit_hand(rnd.id, 0, *rows, None, False))
                for i, rows in enumerate(settings)
            ]
            assert await still_waiting(*tasks, seconds=0.2)
        results = await asyncio.gather(*tasks)
        assert sorted(results) == [False, False, True]
        winner = settings[results.index(True)]
        for repo in repos:  # both processes read the same, stored hand
            h = (await repo.get_round(rnd.id)).hand(0)
            assert (h.back, h.middle, h.front) == tuple(tuple(r) for r in winner)
    finally:
        for repo in repos:
            await repo.close()


async def test_postgres_the_same_next_in_two_processes_deals_once(pg_url: str) -> None:
    """Two processes start the same round at once (a Next clicked twice): one round, one
    deal; both get the same record."""
    repos = [await open_repository(database_url=pg_url) for _ in range(2)]
    try:
        m = await playing_match(repos[0])
        async with holding_match_row(pg_url, m.id):
            tasks = [
                asyncio.create_task(
                    repo.start_round(m.id, 1, seed, T0 + 120, the_deal(3, seed), now=T0)
                )
                for seed, repo in zip((1, 2), repos, strict=True)
            ]
            assert await still_waiting(*tasks, seconds=0.2)
        first, second = await asyncio.gather(*tasks)
        assert first == second and first.seed in (1, 2)
        assert [r.number for r in await repos[1].completed_rounds(m.id)] == []
        assert (await repos[1].current_round(m.id)) == first
    finally:
        for repo in repos:
            await repo.close()


async def test_postgres_nobody_sits_at_two_tables_across_processes(pg_url: str) -> None:
    """The same person joins two lobbies through two processes at once: one seat, and the
    other process is told AlreadySeated."""
    repos = [await open_repository(database_url=pg_url) for _ in range(2)]
    try:
        a = await new_match(repos[0], channel=10, host=100)
        b = await new_match(repos[1], channel=11, host=200)
        lock = await asyncpg.connect(pg_url)
        try:
            await lock.execute("SELECT pg_advisory_lock($1)", 777)  # both wait on it
            tasks = [
                asyncio.create_task(repos[0].add_seat(a.id, 777, "p777")),
                asyncio.create_task(repos[1].add_seat(b.id, 777, "p777")),
                asyncio.create_task(repos[1].create_match(*new_match_args(12, 777))),
            ]
            assert await still_waiting(*tasks, seconds=0.2)
            await lock.execute("SELECT pg_advisory_unlock($1)", 777)
        finally:
            await lock.close()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert sum(not isinstance(r, Exception) for r in results) == 1, results
        assert all(isinstance(r, AlreadySeated) for r in results if isinstance(r, Exception))
        seated = await repos[0].active_match_of_user(777)
        assert seated is not None and seated.seat_of(777) is not None
    finally:
        for repo in repos:
            await repo.close()


def new_match_args(channel: int, host: int) -> tuple:
    return (
        GUILD,
        channel,
        host,
        "standard",
        {},
        10,
        120,
        "normal",
        "auto",
        3,
        "auto",
        None,
        f"user{host}",
    )


async def test_postgres_keeps_nothing_in_memory(pg_url: str) -> None:
    """What one process writes, another reads at once: settings, matches, rounds, hands."""
    one, two = [await open_repository(database_url=pg_url) for _ in range(2)]
    try:
        assert await two.guild_settings(GUILD) == GuildSettings(GUILD)
        await one.update_guild_settings(GUILD, rounds=5)
        assert (await two.guild_settings(GUILD)).get(ROUNDS) == 5

        m = await playing_match(one)
        assert (await two.get_match(m.id)).status == "playing"
        rnd = await one.start_round(m.id, 1, 3, T0 + 120, the_deal(3, 3))
        assert await two.current_round(m.id) == rnd
        await one.set_dm_message(rnd.id, 0, 31, 32)
        await one.mark_dm_refused(rnd.id, 1)
        await one.set_round_messages(rnd.id, status_message_id=11)
        got = await two.get_round(rnd.id)
        assert (got.hand(0).dm_message_id, got.hand(1).dm_refused, got.status_message_id) == (
            32,
            True,
            11,
        )
        assert await two.cancel_match(m.id)
        assert (await one.get_match(m.id)).status == "cancelled"
        assert await one.active_matches() == []
    finally:
        await one.close()
        await two.close()


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != lang.lower()] or ["en"])
async def test_a_language_code_keeps_its_case_whatever_is_typed(
    repo: Repository, lang: str
) -> None:
    """'zh-cn' typed is stored as the catalogue's 'zh-CN' (and any catalogue language is
    accepted by the database: no CHECK lists the languages)."""
    await repo.update_guild_settings(1, language=lang.lower())
    assert (await repo.guild_settings(1)).get(LANGUAGE) == lang


@pytest.mark.parametrize(
    ("cards", "stored"), [(["AS", "KD"], "AS KD"), ([" AS "], "AS"), ([], ""), (None, None)]
)
def test_card_codes_are_stored_as_one_text(cards, stored) -> None:
    assert cards_text(cards) == stored


@pytest.mark.parametrize("cards", [["AS", ""], ["A S"], ["AS", "K D", "QH"], [""]])
def test_a_card_code_that_is_empty_or_holds_a_space_is_refused_by_name(cards) -> None:
    bad = next(code for code in cards if not code.strip() or " " in code.strip())
    with pytest.raises(ValueError, match=f"bad card code {bad.strip()!r}"):
        cards_text(cards)


async def test_the_connection_hands_back_every_result_in_order_and_each_at_once_when_idle(
    tmp_path: Path,
) -> None:
    """Calls queued together get their own results (an error to its own caller), in the
    order they ran, however many are handed back at once; a lone call is not held back."""
    conn = await SqliteConnection.open(tmp_path / "c.sqlite3")
    try:
        ran: list[int] = []

        def job(i: int) -> Callable[[sqlite3.Connection], int]:
            def fn(db: sqlite3.Connection) -> int:
                ran.append(i)
                if i == 37:
                    raise ValueError("job 37")
                return int(db.execute("SELECT ?", (i,)).fetchone()[0])

            return fn

        results = await asyncio.gather(
            *(conn.run(job(i)) for i in range(100)), return_exceptions=True
        )
        assert ran == list(range(100))
        assert [r for i, r in enumerate(results) if i != 37] == [i for i in range(100) if i != 37]
        assert isinstance(results[37], ValueError)
        for _ in range(20):  # one at a time: each answered once it ran (not held for others)
            assert await asyncio.wait_for(conn.run(lambda db: 1), 30) == 1
    finally:
        await conn.close()
