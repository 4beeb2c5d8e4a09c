"""The database agrees with capsa.settings' table, on a freshly migrated database (SQLite,
and PostgreSQL where one answers).

A table's own settings are columns of ``matches``: every DEFAULT of a setting's column is
the table's default, every value the table allows is stored, and a column's CHECK is either
exactly the table's (both values just beyond its ends are refused) or says nothing about
them. So a change to the table that forgets the migrations fails here.

A server's settings are one JSON object (migration 0008): every value the table allows is
written and read back, a value beyond it is refused when written and reads as the default
when it is found stored (with a log line), and 0008 moved the old columns' values into it."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import asyncpg
import pytest

from capsa.settings import SERVER_SETTINGS, TABLE_SETTINGS, Setting, TableSetting
from data import open_repository
from data.postgres_db import migrate as migrate_postgres
from data.repository import GuildSettings, Repository
from data.schema import POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS, discover_migrations
from data.sqlite_db import SqliteConnection
from data.sqlite_db import migrate as migrate_sqlite

# Where each setting of a table is stored.
MATCH_COLUMNS = {
    Setting.PRESET: "preset",
    Setting.ROUNDS: "rounds_total",
    Setting.COUNTDOWN: "countdown",
    Setting.BOT_LEVEL: "bot_level",
    Setting.TIMEOUT_ACTION: "timeout_action",
    Setting.SEATS: "seats_count",
    Setting.LANGUAGE: "language",
}
COLUMNS = {"matches": MATCH_COLUMNS}
# A row each table accepts, apart from the setting columns (the table's defaults).
BASE_ROWS: dict[str, dict[str, Any]] = {
    "matches": {"guild_id": 1, "channel_id": 2, "host_id": 3, "created_at": 0.0},
}

# (table, values by column) -> stored (True) or refused by the database (False)
Insert = Callable[[str, dict[str, Any]], Awaitable[bool]]
# (table, column) -> the value a row gets when the insert leaves the column out, or None
# when the column has no DEFAULT
Default = Callable[[str, str], Awaitable[Any]]


def beyond(setting: TableSetting[Any]) -> tuple[Any, ...]:
    """The values just outside what the setting allows."""
    if setting.kind is int:
        low, high = setting.bounds
        return low - 1, high + 1
    return (f"no-such-{setting.name}",)


def allowed(setting: TableSetting[Any]) -> tuple[Any, ...]:
    return setting.choices or (*setting.bounds, setting.default)


def full_row(table: str) -> dict[str, Any]:
    defaults = {col: TABLE_SETTINGS[s].default for s, col in COLUMNS[table].items()}
    if table == "matches":  # a table is in one language; "auto" is a server's choice only
        defaults["language"] = "en"
    return {**BASE_ROWS[table], **defaults}


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest) -> tuple[Insert, Default]:
    """A fresh database's probes; PostgreSQL's is skipped where no server answers."""
    return request.getfixturevalue(f"{request.param}_probes")


@pytest.fixture
async def sqlite_probes(tmp_path) -> AsyncIterator[tuple[Insert, Default]]:
    path = str(tmp_path / "fresh.db")
    repo = await open_repository(path)
    await repo.close()
    conn = sqlite3.connect(path, isolation_level=None)

    def sql_row(table: str, row: dict[str, Any]) -> tuple[str, list[Any]]:
        marks = ", ".join("?" for _ in row)
        return f"INSERT INTO {table} ({', '.join(row)}) VALUES ({marks})", list(row.values())

    async def insert(table: str, row: dict[str, Any]) -> bool:
        conn.execute("BEGIN")
        try:
            conn.execute(*sql_row(table, row))
            return True
        except sqlite3.IntegrityError:
            return False
        finally:
            conn.execute("ROLLBACK")

    async def default(table: str, column: str) -> Any:
        info = {r[1]: r[4] for r in conn.execute(f"PRAGMA table_info({table})")}
        if info[column] is None:
            return None
        conn.execute("BEGIN")
        try:
            conn.execute(*sql_row(table, without(full_row(table), column)))
            return conn.execute(f"SELECT {column} FROM {table}").fetchone()[0]
        finally:
            conn.execute("ROLLBACK")

    yield insert, default
    conn.close()


@pytest.fixture
async def postgres_probes(pg_url: str) -> AsyncIterator[tuple[Insert, Default]]:
    pg = await asyncpg.connect(pg_url)

    def sql_row(table: str, row: dict[str, Any]) -> tuple[str, list[Any]]:
        marks = ", ".join(
            f"to_timestamp(${n})" if name == "created_at" else f"${n}"
            for n, name in enumerate(row, 1)
        )
        return f"INSERT INTO {table} ({', '.join(row)}) VALUES ({marks})", list(row.values())

    async def insert(table: str, row: dict[str, Any]) -> bool:
        tx = pg.transaction()
        await tx.start()
        try:
            query, values = sql_row(table, row)
            await pg.execute(query, *values)
            return True
        except asyncpg.IntegrityConstraintViolationError:
            return False
        finally:
            await tx.rollback()

    async def default(table: str, column: str) -> Any:
        has_default = await pg.fetchval(
            "SELECT column_default IS NOT NULL FROM information_schema.columns"
            " WHERE table_name = $1 AND column_name = $2",
            table,
            column,
        )
        if not has_default:
            return None
        tx = pg.transaction()
        await tx.start()
        try:
            query, values = sql_row(table, without(full_row(table), column))
            await pg.execute(query, *values)
            return await pg.fetchval(f"SELECT {column} FROM {table}")
        finally:
            await tx.rollback()

    yield insert, default
    await pg.close()


def without(row: dict[str, Any], column: str) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != column}


CASES = [(table, setting) for table, columns in COLUMNS.items() for setting in columns]


@pytest.mark.parametrize(("table", "setting"), CASES, ids=[f"{t}.{s}" for t, s in CASES])
async def test_the_schema_agrees_with_the_option_table(
    database: tuple[Insert, Default], table: str, setting: Setting
) -> None:
    insert, default = database
    option = TABLE_SETTINGS[setting]
    column = COLUMNS[table][setting]
    row = full_row(table)
    assert await insert(table, row), "the base row itself is refused"
    for value in allowed(option):
        assert await insert(table, {**row, column: value}), f"{column}={value!r} is refused"
    refused = [v for v in beyond(option) if not await insert(table, {**row, column: v})]
    # a CHECK on the column is the table's exactly, or none at all
    assert refused in ([], list(beyond(option))), f"{column}: the CHECK refuses only {refused}"
    stored = await default(table, column)
    assert stored is None or stored == option.default, f"{column} DEFAULT {stored!r}"


async def test_the_probe_sees_a_check(database: tuple[Insert, Default]) -> None:
    """The probes can fail: the schema refuses 5 seats and an unknown level."""
    insert, default = database
    row = full_row("matches")
    assert not await insert("matches", {**row, "seats_count": 5})
    assert not await insert("matches", {**row, "timeout_action": "godlike"})
    assert await default("matches", "language") == "auto"
    assert await default("matches", "countdown") is None


# ------------------------------------------------------------------ a server's settings


Store = Callable[[int, str], Awaitable[None]]


@pytest.fixture(params=["sqlite", "postgres"])
def server_store(request: pytest.FixtureRequest) -> tuple[Repository, Store]:
    """A fresh repository, and a way to store a server's settings object as raw JSON text
    (as an older or newer version, or a hand, may have left it) before the repository
    reads it (SQLite's keeps what it read: one process a file)."""
    return request.getfixturevalue(f"{request.param}_store")


@pytest.fixture
async def sqlite_store(tmp_path) -> AsyncIterator[tuple[Repository, Store]]:
    path = str(tmp_path / "fresh.db")
    repo = await open_repository(path)

    async def store(guild_id: int, text: str) -> None:
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            conn.execute(
                "INSERT INTO guild_settings (guild_id, settings) VALUES (?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET settings = excluded.settings",
                (guild_id, text),
            )
        finally:
            conn.close()

    yield repo, store
    await repo.close()


@pytest.fixture
async def postgres_store(pg_url: str) -> AsyncIterator[tuple[Repository, Store]]:
    repo = await open_repository(database_url=pg_url)

    async def store(guild_id: int, text: str) -> None:
        pg = await asyncpg.connect(pg_url)
        try:
            await pg.execute(
                "INSERT INTO guild_settings (guild_id, settings) VALUES ($1, $2)"
                " ON CONFLICT (guild_id) DO UPDATE SET settings = excluded.settings",
                guild_id,
                text,
            )
        finally:
            await pg.close()

    yield repo, store
    await repo.close()


SERVER_CASES = [TABLE_SETTINGS[s] for s in SERVER_SETTINGS]


@pytest.mark.parametrize("setting", SERVER_CASES, ids=[str(s.name) for s in SERVER_CASES])
async def test_a_server_stores_every_value_the_table_allows(server_store, setting) -> None:
    repo, _ = server_store
    assert (await repo.guild_settings(1)).get(setting) == setting.default
    for value in allowed(setting):
        stored = await repo.update_guild_settings(1, **{str(setting.name): value})
        assert stored.get(setting) == value
        assert (await repo.guild_settings(1)).get(setting) == value
    last = allowed(setting)[-1]
    for bad in beyond(setting):
        with pytest.raises(ValueError, match=str(setting.name)):
            await repo.update_guild_settings(1, **{str(setting.name): bad})
    assert (await repo.guild_settings(1)).get(setting) == last  # nothing changed


async def test_a_stored_value_the_table_refuses_reads_as_the_default(
    server_store, caplog: pytest.LogCaptureFixture
) -> None:
    repo, store = server_store
    await store(1, '{"rounds": 7, "countdown": 45, "seats": 3, "options": {"standard": {}}}')
    with caplog.at_level("WARNING", logger="data.repository"):
        settings = await repo.guild_settings(1)
    assert settings.get(TABLE_SETTINGS[Setting.ROUNDS]) == TABLE_SETTINGS[Setting.ROUNDS].default
    assert settings.get(TABLE_SETTINGS[Setting.COUNTDOWN]) == 45
    assert "rounds must be one of 5, 10, not 7" in caplog.text
    assert "'seats' is unknown" in caplog.text  # a table's own setting, never a server's
    # a write keeps what it does not change, and replaces what it does
    settings = await repo.update_guild_settings(1, rounds=5, language="vi")
    assert settings == GuildSettings.from_stored(
        1, {"rounds": 5, "countdown": 45, "language": "vi", "options": {"standard": {}}}
    )


async def test_a_server_keeps_table_options_for_each_preset(server_store) -> None:
    repo, _ = server_store
    await repo.update_guild_settings(1, options={"chinese-poker": {"method": "2-4"}})
    settings = await repo.update_guild_settings(1, options={"sayapoker": {"room_fee": True}})
    assert settings.options == {
        "chinese-poker": {"method": "2-4", "surrender": False},
        "sayapoker": {"room_fee": True},
    }
    assert settings.table_preset("chinese-poker").method == "2-4"
    assert settings.table_preset("sayapoker").room_fee is True
    with pytest.raises(ValueError, match="allowed: method, surrender"):
        await repo.update_guild_settings(1, options={"chinese-poker": {"room_fee": True}})
    assert (await repo.guild_settings(1)) == settings


# ------------------------------------------------------------------ migration 0008

# A server's row as the columns held it before 0008: every value other than the default.
OLD_ROW = {
    "guild_id": 5,
    "preset": "sayapoker",
    "rounds": 5,
    "countdown": 45,
    "bot_level": "hard",
    "timeout_action": "foul",
    "language": "id",
}


def _moved(settings: GuildSettings) -> dict[str, Any]:
    """The values of the old columns, as the settings read them now."""
    return {
        name: settings.get(TABLE_SETTINGS[Setting(name)]) for name in OLD_ROW if name != "guild_id"
    }


async def test_migration_8_moves_sqlite_columns_into_the_object(tmp_path) -> None:
    path = str(tmp_path / "old.db")
    conn = await SqliteConnection.open(path)
    try:
        found = discover_migrations(SQLITE_MIGRATIONS)
        await migrate_sqlite(conn, [m for m in found if m.version < 8])

        def old_row(db: sqlite3.Connection) -> None:
            marks = ", ".join("?" for _ in OLD_ROW)
            db.execute(
                f"INSERT INTO guild_settings ({', '.join(OLD_ROW)}) VALUES ({marks})",
                list(OLD_ROW.values()),
            )
            db.execute("INSERT INTO guild_settings (guild_id) VALUES (6)")  # all defaults

        await conn.run(old_row)
        assert await migrate_sqlite(conn, [m for m in found if m.version <= 8]) == [8]
    finally:
        await conn.close()
    repo = await open_repository(path)
    try:
        assert _moved(await repo.guild_settings(5)) == without(OLD_ROW, "guild_id")
        assert await repo.guild_settings(6) == GuildSettings(6)
    finally:
        await repo.close()


async def test_migration_8_moves_postgres_columns_into_the_object(empty_pg_url: str) -> None:
    conn = await asyncpg.connect(empty_pg_url)
    try:
        found = discover_migrations(POSTGRES_MIGRATIONS)
        await migrate_postgres(conn, [m for m in found if m.version < 8])
        marks = ", ".join(f"${n}" for n in range(1, len(OLD_ROW) + 1))
        await conn.execute(
            f"INSERT INTO guild_settings ({', '.join(OLD_ROW)}) VALUES ({marks})",
            *OLD_ROW.values(),
        )
        await conn.execute("INSERT INTO guild_settings (guild_id) VALUES (6)")
        assert await migrate_postgres(conn, [m for m in found if m.version <= 8]) == [8]
    finally:
        await conn.close()
    repo = await open_repository(database_url=empty_pg_url)
    try:
        assert _moved(await repo.guild_settings(5)) == without(OLD_ROW, "guild_id")
        assert await repo.guild_settings(6) == GuildSettings(6)
    finally:
        await repo.close()
