"""``python -m data.backup``: a backup taken while rounds are being scored restores to a
database whose leaderboard is the live one at the moment of the copy.

One writer plays match after match on the live file through the bot's own repository and
notes the leaderboard after every change to it (a round scored, a match finished), keyed
by how many rounds are scored and matches finished. The backup runs as its own process in
the middle of that; the copy, opened as the bot would open it after a restore, must show
the leaderboard noted for the state it holds, and the writer must have gone on writing
while the copy was taken."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from capsa.cards import deal
from data import Repository, RoundScore, open_repository
from data.backup import main

ROOT = Path(__file__).resolve().parent.parent
GUILD, CHANNEL = 7, 70
PLAYERS = (100, 101, 102)
ROUNDS = 5


def board(rows) -> list[tuple]:
    return [(r.user_id, r.points, r.wins, r.matches, r.rounds) for r in rows]


async def state_of(repo: Repository) -> tuple[int, int]:
    """(rounds scored, matches finished) in the database."""
    rounds = finished = 0
    match_id = 1
    while (match := await repo.get_match(match_id)) is not None:
        rounds += len(await repo.completed_rounds(match_id))
        finished += match.status == "finished"
        match_id += 1
    return rounds, finished


class Writer:
    """Plays matches of three people, ``ROUNDS`` rounds each, noting the leaderboard."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self.rng = random.Random(5)
        self.rounds = self.finished = 0
        self.boards: dict[tuple[int, int], list[tuple]] = {}

    async def note(self) -> None:
        rows = await self.repo.leaderboard(GUILD, limit=50)
        self.boards[(self.rounds, self.finished)] = board(rows)

    async def match(self) -> None:
        repo = self.repo
        m = await repo.create_match(
            GUILD, CHANNEL, PLAYERS[0], "standard", {}, ROUNDS, 120, "normal", "auto",
            len(PLAYERS), "auto", None, "user100",
        )  # fmt: skip
        for user in PLAYERS[1:]:
            await repo.add_seat(m.id, user, f"user{user}")
        assert await repo.start_match(m.id)
        totals = dict.fromkeys(range(len(PLAYERS)), 0.0)
        for number in range(1, ROUNDS + 1):
            hands = {i: [c.code for c in h] for i, h in enumerate(deal(len(PLAYERS), seed=number))}
            rnd = await repo.start_round(m.id, number, number, 1e10, hands)
            for seat, cards in hands.items():
                rows = cards[:5], cards[5:10], cards[10:]
                await repo.submit_hand(rnd.id, seat, *rows, None, False)
            a, b = self.rng.randint(-6, 6), self.rng.randint(-6, 6)
            points = {0: float(a), 1: float(b), 2: float(-a - b)}
            scores = [RoundScore(seat, p) for seat, p in points.items()]
            assert await repo.score_round(rnd.id, {"round": number}, scores)
            for seat, p in points.items():
                totals[seat] += p
            self.rounds += 1
            await self.note()
        order = sorted(totals, key=lambda s: -totals[s])
        assert await repo.finish_match(m.id, {seat: place + 1 for place, seat in enumerate(order)})
        self.finished += 1
        await self.note()


async def test_a_backup_under_load_restores_the_leaderboard_of_its_moment(tmp_path):
    live, copy = tmp_path / "live.sqlite3", tmp_path / "backup.sqlite3"
    repo = await open_repository(live)
    writer = Writer(repo)
    try:
        await writer.note()
        for _ in range(25):  # a database of some size, so the copy takes a moment
            await writer.match()
        backup = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "data.backup", "--from", str(live), "--to", str(copy),
            cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        started = writer.rounds
        while backup.returncode is None:  # the bot keeps playing while the copy is made
            await writer.match()
            with_timeout = asyncio.wait_for(backup.wait(), 0.001)
            try:
                await with_timeout
            except TimeoutError:
                pass
        out, err = await backup.communicate()
        ended = writer.rounds
    finally:
        await repo.close()
    assert (backup.returncode, err) == (0, b""), err.decode()
    assert out.decode().startswith(f"copied {live} to {copy} (")

    restored_path = tmp_path / "restored.sqlite3"
    shutil.copy(copy, restored_path)  # the README's restore: the copy at DATABASE_PATH
    restored = await open_repository(restored_path)
    try:
        moment = await state_of(restored)
        restored_board = board(await restored.leaderboard(GUILD, limit=50))
    finally:
        await restored.close()
    assert started <= moment[0] <= ended, "the copy is of a moment while it ran"
    assert ended > started, "rounds were scored while the copy was taken"
    assert restored_board == writer.boards[moment]
    assert restored_board, "the leaderboard has players"


def test_the_copy_of_a_closed_database_is_whole(tmp_path, capsys):
    live = tmp_path / "live.sqlite3"
    with sqlite3.connect(live) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(1000)])
    conn.close()
    assert main(["--from", str(live), "--to", str(tmp_path / "b.sqlite3")]) == 0
    with sqlite3.connect(tmp_path / "b.sqlite3") as conn:
        assert conn.execute("SELECT count(*), sum(x) FROM t").fetchone() == (1000, 499500)
    conn.close()
    assert not list(tmp_path.glob(".*partial"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", "{tmp}/none.sqlite3", "--to", "{tmp}/b"], "no such database file"),
        (["--from", "{tmp}/live.sqlite3", "--to", "{tmp}/live.sqlite3"], "the same file"),
        (["--from", "{tmp}/live.sqlite3", "--to", "{tmp}/exists"], "the file exists"),
        (["--from", "{tmp}/live.sqlite3", "--to", "{tmp}/no/dir/b"], "does not exist"),
    ],
)
def test_a_wrong_argument_is_one_line(tmp_path, capsys, args, message):
    sqlite3.connect(tmp_path / "live.sqlite3").close()
    (tmp_path / "exists").write_text("keep me")
    assert main([a.format(tmp=tmp_path) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert (tmp_path / "exists").read_text() == "keep me"


def test_the_default_is_the_database_of_env_and_postgres_is_pg_dumps(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # data.backup loads .env into os.environ: a copy of it, put back after the test
    monkeypatch.setattr(os, "environ", os.environ.copy())
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("DATABASE_PATH", None)
    (tmp_path / "mine.sqlite3").write_bytes(b"")
    sqlite3.connect(tmp_path / "mine.sqlite3").close()
    (tmp_path / ".env").write_text("DATABASE_PATH=mine.sqlite3\n")
    assert main(["--to", "copy.sqlite3"]) == 0
    assert (tmp_path / "copy.sqlite3").is_file()
    done = subprocess.run(
        [sys.executable, "-m", "data.backup", "--to", "x"],
        cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "DATABASE_URL": "postgresql://u:secret@h/d"},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "pg_dump" in done.stderr and "secret" not in done.stderr
