"""The database agrees with capsa.settings' table: on a freshly migrated database (SQLite,
and PostgreSQL where one answers), every DEFAULT of a setting's column is the table's
default, every value the table allows is stored, and a column's CHECK is either exactly the
table's (both values just beyond its ends are refused) or says nothing about them. So a
change to the table that forgets the migrations fails here."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import asyncpg
import pytest

from capsa.settings import SERVER_SETTINGS, TABLE_SETTINGS, Setting, TableSetting
from data import open_repository

# Where each setting is stored: the server's default, and a table's own value.
GUILD_COLUMNS = {s: str(s) for s in SERVER_SETTINGS}
MATCH_COLUMNS = {
    Setting.PRESET: "preset",
    Setting.ROUNDS: "rounds_total",
    Setting.COUNTDOWN: "countdown",
    Setting.BOT_LEVEL: "bot_level",
    Setting.TIMEOUT_ACTION: "timeout_action",
    Setting.SEATS: "seats_count",
    Setting.LANGUAGE: "language",
}
COLUMNS = {"guild_settings": GUILD_COLUMNS, "matches": MATCH_COLUMNS}
# A row each table accepts, apart from the setting columns (the table's defaults).
BASE_ROWS: dict[str, dict[str, Any]] = {
    "guild_settings": {"guild_id": 1},
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
    assert not await insert("guild_settings", {"guild_id": 1, "bot_level": "godlike"})
    assert await default("guild_settings", "rounds") == 10
    assert await default("matches", "countdown") is None
