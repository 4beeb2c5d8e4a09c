"""`python -m data.migrate`: an existing SQLite database copied into an empty PostgreSQL
one reads back the same through the repository (ids kept, sequences continued, counts
checked and printed); a non-empty target, a missing source and an unreachable server are
refused; a count that differs keeps nothing."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import socket
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

import asyncpg
import pytest

import data.migrate
from capsa.daily import daily_cards
from data import Repository, open_repository
from tests.test_repository import (
    DAY,
    GUILD,
    OTHER_GUILD,
    T0,
    build_history,
    new_match,
    playing_match,
    split,
    submitted_round,
    the_deal,
    three_scores,
)

ROOT = Path(__file__).resolve().parents[1]
TABLES = data.migrate.TABLES


def run_migrate(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    return subprocess.run(
        [sys.executable, "-m", "data.migrate", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


async def a_used_database(path: Path) -> dict[str, list[int]]:
    """A SQLite database with some of everything: settings, finished, cancelled and open
    tables, a lobby, scored and open rounds, DM messages and a refused DM. Its ids."""
    repo = await open_repository(path)
    try:
        await repo.update_guild_settings(GUILD, rounds=5, language="id", countdown=45)
        await repo.update_preferences(100, language="vi", deck="four_colour_letters")
        await build_history(repo)
        m = await playing_match(repo, (300, 301), 1, channel=40, now=T0)
        await repo.set_lobby_message(m.id, 2**62 + 5)  # a Discord-sized id
        done = await submitted_round(repo, m.id, 1)
        assert await repo.score_round(done.id, {"round": 1, "x": [1.5, None]}, three_scores())
        review = {"loss": 1.25, "best": [["AS"]], "origin": "played"}
        assert await repo.store_review(done.id, 0, review, 1.25, True, now=T0 + 310.5)
        assert await repo.set_timer(m.id, "close_round", done.id, 3600)
        hands = the_deal(3, 8)
        rnd = await repo.start_round(m.id, 2, 2**70 + 1, T0 + 500, hands, now=T0 + 380)
        await repo.submit_hand(rnd.id, 1, *split(hands[1]), "six_pairs", False, now=T0 + 400.25)
        await repo.set_round_messages(rnd.id, status_message_id=9001)
        await repo.set_dm_message(rnd.id, 0, 31, 32)
        await repo.mark_dm_refused(rnd.id, 2)
        await repo.remember_dm_channel(100, 2**62 + 7)
        await repo.keep_channel_token(10, "interaction-token", T0 + 900)
        await repo.keep_message_token(9001, "interaction-token", time.time() + 900)
        day = date(2023, 11, 14)  # a daily hand played
        cards = [c.code for c in daily_cards(GUILD, day)]
        await repo.open_daily(GUILD, day, "standard", cards, now=T0 + 5)
        daily_review = {"played_value": -1.5, "best_value": 2.25, "loss": 3.75}
        rows = (cards[:5], cards[5:10], cards[10:])
        assert await repo.record_daily_play(
            GUILD, day, 300, rows, None, True, daily_review, now=T0 + 6.5
        )
        lobby = await new_match(repo, channel=50, host=500, now=T0 + 7.5)
        matches = [x.id for x in await repo.active_matches()]
        assert lobby.id in matches
        return {"matches": list(range(1, lobby.id + 1)), "rounds": list(range(1, rnd.id + 1))}
    finally:
        await repo.close()


def to_microseconds(value: Any) -> Any:
    """Records with their times to the microsecond: what timestamptz keeps (SQLite keeps
    time.time()'s float whole)."""
    if isinstance(value, list | tuple):
        return type(value)(to_microseconds(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: round(v, 6) if f.name.endswith("_at") and isinstance(v, float) else v
            for f in dataclasses.fields(value)
            if (v := getattr(value, f.name)) is not None
        }
        changes = {k: to_microseconds(v) if isinstance(v, tuple) else v for k, v in changes.items()}
        return dataclasses.replace(value, **changes)
    return value


async def everything(repo: Repository, ids: dict[str, list[int]]) -> list:
    """What the bot can read, through the repository (times to the microsecond)."""
    out: list = [await repo.guild_settings(g) for g in (GUILD, OTHER_GUILD, 3)]
    out += [await repo.get_match(i) for i in ids["matches"]]
    out += [await repo.get_round(i) for i in ids["rounds"]]
    out += [await repo.active_matches()]
    for match_id in ids["matches"]:
        out += [
            await repo.current_round(match_id),
            await repo.completed_rounds(match_id),
            await repo.match_totals(match_id),
        ]
    for guild in (GUILD, OTHER_GUILD):
        for sort in ("points", "wins", "matches", "sweeps", "sharpest", "rating"):
            for days in (None, 2, 7, 30):
                out.append(await repo.leaderboard(guild, sort, days, now=T0))
                out.append(await repo.leaderboard_count(guild, days, now=T0, sort=sort))
        out += [await repo.player_stats(guild, u) for u in (100, 101, 102, 300, 301, 500)]
    out += [await repo.hand_review(r, seat) for r in ids["rounds"] for seat in range(4)]
    out += [await repo.unreviewed_hands(T0 - 10**6)]
    out += [await repo.timers_of(i) for i in ids["matches"]]
    out += [await repo.active_match_of_user(u) for u in (100, 300, 301, 500)]
    out += [await repo.active_match_in_channel(c) for c in (10, 40, 50)]
    out += [await repo.preferences(u) for u in (100, 101)]
    out += [await repo.ratings(GUILD), await repo.daily_plays(GUILD, date(2023, 11, 14))]
    return to_microseconds(out)


async def test_a_copy_reads_back_the_same_and_continues_the_ids(
    tmp_path: Path, empty_pg_url: str
) -> None:
    source = tmp_path / "capsa.sqlite3"
    ids = await a_used_database(source)

    done = run_migrate("--from", str(source), "--to", empty_pg_url)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    counts = {line.split()[0]: line.split()[1:] for line in lines[2:-1]}
    lite = await open_repository(source)
    try:
        expected = {
            t: await lite._conn.run(  # type: ignore[attr-defined]
                lambda db, t=t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
            )
            for t in TABLES
        }
        assert {t: counts[t] for t in TABLES} == {t: [str(n)] * 2 for t, n in expected.items()}
        assert counts["total"] == [str(sum(expected.values()))] * 2
        assert all(n > 0 for n in expected.values())
        assert "every table's row count matches" in lines[-1]
        before = await everything(lite, ids)
    finally:
        await lite.close()

    pg = await open_repository(database_url=empty_pg_url)
    try:
        assert await everything(pg, ids) == before
        # New tables and rounds get new ids after the copied ones.
        m = await new_match(pg, channel=60, host=600, now=T0 + 2 * DAY)
        assert m.id == ids["matches"][-1] + 1
        m = await pg.add_seat(m.id, 601, "p601")
        await pg.add_seat(m.id, None, "Bot", "easy")
        assert await pg.start_match(m.id)
        rnd = await pg.start_round(m.id, 1, 1, T0, the_deal(3, 1))
        assert rnd.id == ids["rounds"][-1] + 1
    finally:
        await pg.close()


async def test_a_non_empty_target_is_refused_and_left_alone(
    tmp_path: Path, empty_pg_url: str
) -> None:
    source = tmp_path / "capsa.sqlite3"
    await a_used_database(source)
    assert run_migrate("--from", str(source), "--to", empty_pg_url).returncode == 0
    conn = await asyncpg.connect(empty_pg_url)
    try:
        before = {t: await conn.fetchval(f"SELECT COUNT(*) FROM {t}") for t in TABLES}
    finally:
        await conn.close()

    again = run_migrate("--from", str(source), "--to", empty_pg_url)
    assert again.returncode == 2
    assert "not empty" in again.stderr and "matches:" in again.stderr
    assert again.stdout == "" and len(again.stderr.strip().splitlines()) == 1

    # One row anywhere is enough to refuse.
    conn = await asyncpg.connect(empty_pg_url)
    try:
        assert {t: await conn.fetchval(f"SELECT COUNT(*) FROM {t}") for t in TABLES} == before
        await conn.execute(f"TRUNCATE {', '.join(TABLES)} CASCADE")
        await conn.execute("INSERT INTO players VALUES (1, 2, 'x', now())")
    finally:
        await conn.close()
    third = run_migrate("--from", str(source), "--to", empty_pg_url)
    assert third.returncode == 2 and "players: 1" in third.stderr


async def test_a_missing_source_or_an_unreachable_target_is_refused(
    tmp_path: Path, empty_pg_url: str
) -> None:
    missing = run_migrate("--from", str(tmp_path / "nope.sqlite3"), "--to", empty_pg_url)
    assert missing.returncode == 2 and "no SQLite database at" in missing.stderr
    assert not (tmp_path / "nope.sqlite3").exists()

    source = tmp_path / "capsa.sqlite3"
    await a_used_database(source)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    away = run_migrate("--from", str(source), "--to", f"postgresql://u:pw@127.0.0.1:{port}/db")
    assert away.returncode == 2
    assert f"127.0.0.1:{port}" in away.stderr and "pw" not in away.stderr

    bad = run_migrate("--from", str(source), "--to", "sqlite:///x.db")
    assert bad.returncode == 2 and "postgresql://" in bad.stderr
    assert run_migrate("--from", str(source)).returncode == 2  # no target at all


async def test_a_count_that_differs_keeps_nothing(
    tmp_path: Path, empty_pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    source = tmp_path / "capsa.sqlite3"
    await a_used_database(source)
    real_chunks = data.migrate._chunks

    def one_row_short(db, *, table, columns):
        for rows in real_chunks(db, table=table, columns=columns):
            yield rows[1:] if table == "hands" else rows

    monkeypatch.setattr(data.migrate, "_chunks", one_row_short)
    # (in this process: asyncio.run in a thread of its own, beside the test's loop)
    code = await _main_in_a_thread(["--from", str(source), "--to", empty_pg_url])
    assert code == 1
    err = capsys.readouterr().err
    assert "hands:" in err and "nothing was kept" in err
    conn = await asyncpg.connect(empty_pg_url)
    try:
        assert all([await conn.fetchval(f"SELECT COUNT(*) = 0 FROM {t}") for t in TABLES])
        # and the sequences were rolled back with the rest: a real copy still works after
        monkeypatch.setattr(data.migrate, "_chunks", real_chunks)
        assert await _main_in_a_thread(["--from", str(source), "--to", empty_pg_url]) == 0
        assert await conn.fetchval("SELECT COUNT(*) FROM hands") > 0
    finally:
        await conn.close()


async def _main_in_a_thread(argv: list[str]) -> int:
    return await asyncio.to_thread(data.migrate.main, argv)
