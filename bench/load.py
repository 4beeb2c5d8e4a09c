"""Load bench: N tables at once through the real bot (a subprocess) and the fake Discord.

Run from the repository root (prints a table; checks nothing):

    .venv/bin/python bench/load.py                      # 50, 200, 500 tables, a fresh bot each
    .venv/bin/python bench/load.py --tables 200         # one size
    .venv/bin/python bench/load.py --tables 200 --deadline 0   # no 3 s expiry: every table ends
    .venv/bin/python bench/load.py --tables 200 --think 5 15   # people who take 5-15 s a click
    .venv/bin/python bench/load.py --tables 200 --profile /tmp/bot.prof   # bot under cProfile
    .venv/bin/python bench/load.py --tables 200 --coach on off   # with and without the coach
    .venv/bin/python bench/load.py --tables 200 --database postgres   # the bot on PostgreSQL
    .venv/bin/python bench/load.py --tables 200 --database postgres --processes 2   # 2 shards

Issue 11's table (one process on SQLite, one on PostgreSQL, two processes on PostgreSQL, at
200 and 500 tables, in one run; the sqlite x 2 combination is skipped with a note):

    eval "$(bash scripts/postgres)"; export CAPSA_TEST_DATABASE_URL   # if none runs yet
    .venv/bin/python bench/load.py --tables 200 500 --database sqlite postgres --processes 1 2

Its targets: two processes reach at least 1.5x the rounds/s of one (same tables, database
and coach; printed as "speed-up"), and at 500 tables ack p99 < 250 ms and showdown p99 < 1 s.
(The first target, at 200 tables, was the same ack p99 and showdown p99.)

Under Discord's rate limits (issue 18; tests/fakediscord/limits.py), on by default:

    .venv/bin/python bench/load.py --tables 200 --limits on off           # with and without
    .venv/bin/python bench/load.py --tables 30 --dm-channels cold --dm-opens 10/10 50/10

``--limits on`` gives the fake Discord's limits (50 bot-token requests a second, the
interaction routes exempt; 5 message posts and 5 edits per 5 s per channel; DM-channel
opens ``--dm-opens N/S``, default 10 per 10 s, which Discord does not publish: give several
values to measure each). ``--dm-channels known`` (the default) stores every person's DM
channel in the bot's database before the load, as after their first match (the bot opens
one per person once, cogs/table_base.py); ``cold`` lets the bot open each. Printed per run:
the load's bot-token requests and interaction requests per round by route, the 429s, the
invalid requests (401, 403, 429), the seconds the bot's bot-token requests waited on the
limits (its ``capsa_rest_wait_seconds``, scraped from its /metrics, so every bot runs with
METRICS_PORT unless ``--metrics off``), the ceiling ``50 / bot-token requests per round``
beside the measured rounds/s, and when the last round-1 DM arrived against ``1.2 x
(bot-token requests until then) / 50 + 1 s``.

Issue 18's other two counts (one value each):

    .venv/bin/python bench/load.py --tables 5 --match-rounds 10 --rounds 10 --next timer
    .venv/bin/python bench/load.py --tables 200 --hands channel

``--next timer``: nobody presses Next; the table's clock deals each next round after the
pause (30 s), so the channel's interaction token (Start's) ages; printed: the rounds whose
channel messages fell back to the bot token (a request on the channel's bot-token routes
between the round's start and its showdown). ``--hands channel``: both people chose
``/capsa me hands:channel`` first and play from "Show my hand" on the round's status (an
ephemeral builder, no DM). ``--match-rounds 10``: the tables are opened with 10 rounds.

Issue 17's comparison with the code before issue 18 (which never paced its requests):

    .venv/bin/python bench/load.py --tables 200 --limits off --global-limit 5000

``--global-limit N`` runs the bot with ``GLOBAL_RATE_LIMIT=N``; with ``--limits off`` and
a large N the bot's requests go as fast as the code before issue 18 sent them.

``--tables``, ``--coach``, ``--database``, ``--processes``, ``--limits`` and ``--dm-opens``
each take several values; the run covers every combination, a fresh bot (and a fresh
database) for each.

Each table gets its own channel and plays like tests/test_e2e_match.py: the host runs
``/capsa new seats:4 rounds:5``, a second person presses Join, the host presses Start (two
computer players fill the seats). For rounds 1..3 both people answer their DM builder at
once: pick the rows in the "Back (5)" and "Middle (5)" selects (cards by rank group, cut
5/5/3, or the engine's "easy" setting when that would foul; see ``person_rows``) and press
Submit (``--mode auto``: press Auto-arrange,
wait for the redrawn builder, press Submit). When the showdown is posted the host presses
"Next round" at once. After the round-3 showdown the host runs ``/capsa cancel`` (the bot
only offers 5 or 10 rounds), so every measured round is a real, complete round.

The fake Discord runs in this process (127.0.0.1 only). The bot is ``python bot.py`` in its
own process group with a temporary DATABASE_PATH, so its CPU time and RSS (main process plus
its solver workers and any other child) are sampled with psutil every 0.2 s.

``--database postgres``: each run gets a fresh database ``capsa_load_<random>`` on the server
at CAPSA_TEST_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres; loopback
only), made with asyncpg, given to the bot as DATABASE_URL and dropped at the end; the bot
migrates it at start. No server answering: one line on how to start one, exit 2.

``--processes N`` (N > 1 needs PostgreSQL, as the bot itself refuses several processes on
one SQLite file): N ``bot.py`` processes with SHARD_COUNT=N and SHARD_IDS=i, N guilds, guild
i on shard i of N, the tables dealt over the guilds round-robin, so each process runs its
share of the tables' channels; every DM click (the builders) goes to shard 0's process, as
on Discord. CPU and RSS are summed over all the processes and their children. With N = 1 the
bot gets no shard settings and there is one guild, as before, so the numbers compare.

What is measured, and how:

* ack latency: from the fake creating the INTERACTION_CREATE (``InteractionResult.created_at``,
  just before it is queued on the gateway) to the bot's ``POST /interactions/.../callback``
  arriving at the fake (``RecordedRequest.at``, stamped when the request body was read).
  Every interaction of every table counts: slash commands, clicks and selects.
* showdown after last submit: from the dispatch of the later of the two Submit clicks of a
  round to the showdown message being created in the fake (``FakeMessage.created_at``).
* rounds/s: rounds with a showdown, divided by the time from the first Start click to the
  last round-3 showdown.
* bot CPU: user+system seconds of the bot and all its descendants during the load phase
  (from just before the first ``/capsa new`` to the last table's end), and in % of one core.
* SQLite write time per round: the bot's database gives no write timings, so after the bot
  stopped the database is copied (sqlite backup API, same directory) and the repository's
  own write calls for one more round are replayed, sequentially and uncontended, on up to
  ``--db-samples`` of the tables: start_round, set_round_messages (status), 4 submit_hand,
  2 set_dm_message, score_round (payload and scores made by cogs.table_base.round_result /
  round_scores, outside the timing), set_round_messages (showdown) = 11 transactions, each
  BEGIN IMMEDIATE..COMMIT with the repository's PRAGMAs (WAL, synchronous=FULL). Reported:
  the sum per round, and score_round alone. Beside it, from the bot's own database,
  ``rounds.scored_at - max(hands.submitted_at)`` (the wait inside the bot between the last
  hand being stored and the score being stored: queueing, not write time). The side run is
  SQLite's only ("-" for PostgreSQL); the in-bot wait is read from either database.
* the fake's side: this process's CPU and its event-loop lag are printed too, so one can see
  whether the load generator (not the bot) was the limit.

Every wait has a timeout (``--step-timeout``), every size a time limit (``--time-limit``);
unfinished tables are cancelled and counted. After the load (outside the measurement) the
bench waits, at most 10 s, until no request has reached the fake for 0.5 s (the cancel
announcements, the coach's late edits), then stops the bots (SIGINT, then SIGKILL of each
one's process group). A run that fails (a bot that exits or never identifies) is reported
as FAILED below the table and the others still run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import os
import random
import re
import secrets
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import asyncpg
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import data  # noqa: E402
from capsa.cards import deal  # noqa: E402
from capsa.hands import evaluate, is_fouled  # noqa: E402
from capsa.presets import get_preset  # noqa: E402
from capsa.solver import arrange  # noqa: E402
from data.postgres_db import address as pg_address  # noqa: E402
from data.postgres_db import redact  # noqa: E402
from tests.e2e import hand_of, spawn_bot_process, stop_bot_process  # noqa: E402
from tests.fakediscord import (  # noqa: E402
    FakeDiscord,
    FakeMessage,
    FakeUser,
    InteractionResult,
    RateLimits,
    is_interaction_route,
    only_localhost,
)

TARGET_TABLES = (200, 500)  # the first targets' size, then issue 11's
TARGET_ACK_P99 = 0.250
TARGET_SHOWDOWN = 1.0
TARGET_SPEEDUP = 1.5  # two processes vs one, rounds/s
GLOBAL_LIMIT = 50  # Discord's global limit: bot-token requests a second
PG_DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
PG_HOW = 'eval "$(bash scripts/postgres)"; export CAPSA_TEST_DATABASE_URL'
ROUNDS_TOTAL = 5  # the bot offers 5 or 10; we cancel after ROUNDS_PLAYED
PRESET = get_preset("standard")


# --- numbers --------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float | None:
    """The q-th percentile (nearest rank) of ``values``; None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.0f} ms"


def secs(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


# --- the bot process ------------------------------------------------------------------------


class ProcWatch:
    """Samples process trees (one per bot process): summed RSS (peak) and user+system CPU per
    pid (latest), also per tree."""

    def __init__(self, pids: list[int], interval: float = 0.2) -> None:
        self.roots = [psutil.Process(pid) for pid in pids]
        self.interval = interval
        self.cpu: dict[int, float] = {}
        self.tree: dict[int, int] = {}  # pid -> its bot process's index in ``roots``
        self.peak_rss = 0
        self.peak_rss_main = 0  # the bot processes themselves, summed
        self.peak_procs = 0
        self._task: asyncio.Task | None = None

    def sample(self) -> None:
        rss = main = alive = 0
        for index, root in enumerate(self.roots):
            try:
                procs = [root, *root.children(recursive=True)]
            except psutil.Error:
                continue
            for proc in procs:
                try:
                    with proc.oneshot():
                        times = proc.cpu_times()
                        mem = proc.memory_info().rss
                except psutil.Error:
                    continue
                alive += 1
                rss += mem
                self.cpu[proc.pid] = times.user + times.system
                self.tree[proc.pid] = index
                if proc.pid == root.pid:
                    main += mem
        self.peak_rss = max(self.peak_rss, rss)
        self.peak_rss_main = max(self.peak_rss_main, main)
        self.peak_procs = max(self.peak_procs, alive)

    def cpu_total(self) -> float:
        return sum(self.cpu.values())

    def cpu_per_process(self) -> list[float]:
        """CPU seconds of each bot process with its children, in the order of ``pids``."""
        out = [0.0] * len(self.roots)
        for pid, seconds in self.cpu.items():
            out[self.tree[pid]] += seconds
        return out

    async def _run(self) -> None:
        while True:
            self.sample()
            await asyncio.sleep(self.interval)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        self.sample()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


class LoopLag:
    """How late this process's event loop wakes a 50 ms sleeper (the fake's own health)."""

    def __init__(self, period: float = 0.05) -> None:
        self.period = period
        self.lags: list[float] = []
        self._task: asyncio.Task | None = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(self.period)
            self.lags.append(loop.time() - before - self.period)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


# --- the tables -----------------------------------------------------------------------------


@dataclass
class Table:
    index: int
    host: FakeUser
    guest: FakeUser
    channel: object
    stage: str = "new"
    done: bool = False
    error: str | None = None
    interactions: list[tuple[str, InteractionResult]] = field(default_factory=list)
    # per round: (last submit dispatched [monotonic], showdown created [wall])
    rounds: list[tuple[float, float]] = field(default_factory=list)
    started_at: float | None = None  # Start click dispatched [monotonic]
    finished_at: float | None = None  # round-3 showdown seen [monotonic]
    first_dms: list[float] = field(default_factory=list)  # round-1 builders created [wall]


def is_builder(number: int):
    def pred(m: FakeMessage) -> bool:
        return f"round {number}/{ROUNDS_TOTAL}" in m.text() and "Submit" in m.button_labels()

    return pred


def is_status(number: int):
    """The round's status message with its "Show my hand" (``--hands channel``)."""

    def pred(m: FakeMessage) -> bool:
        return f"Round {number}/{ROUNDS_TOTAL}" in m.text() and "Show my hand" in m.button_labels()

    return pred


def person_rows(builder: FakeMessage, seed: int) -> tuple[list[str], list[str]]:
    """A person's back and middle rows: the cards by rank group (quads, trips, pairs, then
    singles; high first) cut 5 / 5 / 3, which rarely fouls and costs next to nothing, so
    the load generator stays light; if it fouls, the solver's "easy" setting."""
    cards = hand_of(builder)
    counts = Counter(c.rank for c in cards)
    ordered = sorted(cards, key=lambda c: (counts[c.rank], c.rank), reverse=True)
    back, middle, front = ordered[:5], ordered[5:10], ordered[10:]
    if is_fouled(evaluate(back), evaluate(middle), evaluate(front)):
        back, middle, _front = arrange(cards, PRESET, "easy", 3, seed=seed).ordinary
    return [c.code for c in back], [c.code for c in middle]


class Bench:
    def __init__(self, fake: FakeDiscord, args: argparse.Namespace) -> None:
        self.fake = fake
        self.args = args
        self.step = args.step_timeout

    async def act(self, table: Table, kind: str, call) -> InteractionResult:
        """Think (``--think``), then make the interaction ``call`` and keep its result."""
        low, high = self.args.think
        if high > 0:
            await asyncio.sleep(random.uniform(low, high))
        ix = await call
        table.interactions.append((kind, ix))
        if ix.expired or not ix.answered:
            raise RuntimeError(f"{kind}: not acknowledged ({ix.describe()[:160]})")
        return ix

    async def human(self, table: Table, user: FakeUser, number: int) -> InteractionResult:
        step = self.step
        if self.args.hands == "channel":  # no DM: "Show my hand" on the status opens it
            status = await self.fake.wait_for_message(table.channel, is_status(number), step)
            shown = await self.act(table, "show hand", user.click(status, "Show my hand"))
            await shown.wait_until(lambda r: r.message is not None and not r.message.loading, step)
            dm = await user.wait_for_ephemeral(is_builder(number), timeout=step)
        else:
            dm = await user.next_dm(is_builder(number), timeout=step)
        if number == 1:
            table.first_dms.append(dm.created_at)
        if self.args.mode == "selects":
            back, middle = person_rows(dm, table.index * 100 + number)
            await self.act(table, "select", user.select(dm, "Back (5)", back, timeout=step))
            await self.act(table, "select", user.select(dm, "Middle (5)", middle, timeout=step))
        else:
            edits = dm.edits
            ix = await self.act(table, "auto", user.click(dm, "Auto-arrange", timeout=step))
            await ix.wait_until(lambda r: r.message is not None and r.message.edits > edits, step)
        return await self.act(table, "submit", user.click(dm, "Submit", timeout=step))

    async def play(self, table: Table) -> None:
        fake, step, chan = self.fake, self.step, table.channel
        host, guest = table.host, table.guest
        table.stage = "open"
        if self.args.hands == "channel":  # their hands in the channel, never by DM
            for person in (host, guest):
                me = person.slash("capsa me", channel=chan, hands="channel", timeout=step)
                await self.act(table, "slash me", me)
        opened = await self.act(
            table,
            "slash new",
            host.slash("capsa new", channel=chan, seats=4, rounds=ROUNDS_TOTAL, timeout=step),
        )
        assert opened.ephemeral, opened.describe()  # the host's private "table is open"
        lobby = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels(), step)
        table.stage = "join"
        await self.act(table, "join", guest.click(lobby, "Join", timeout=step))
        table.stage = "start"
        table.started_at = time.monotonic()
        await self.act(table, "start", host.click(lobby, "Start", timeout=step))
        for number in range(1, self.args.rounds + 1):
            table.stage = f"round {number}: builders"
            submits = await asyncio.gather(
                self.human(table, host, number), self.human(table, guest, number)
            )
            last_submit = max(ix.created_at for ix in submits)
            table.stage = f"round {number}: showdown"
            title = f"Showdown · round {number}/{ROUNDS_TOTAL}"
            showdown = await fake.wait_for_message(chan, lambda m, t=title: t in m.text(), step)
            table.rounds.append((last_submit, showdown.created_at))
            if number < self.args.rounds and self.args.next == "press":
                table.stage = f"round {number}: next"
                await self.act(table, "next", host.click(showdown, "Next round", timeout=step))
        table.finished_at = time.monotonic()
        table.stage = "cancel"
        cancel = host.slash("capsa cancel", channel=chan, timeout=step)
        await self.act(table, "slash cancel", cancel)
        table.stage = "done"
        table.done = True

    async def guarded(self, table: Table, delay: float) -> None:
        await asyncio.sleep(delay)
        try:
            await self.play(table)
        except asyncio.CancelledError:
            table.error = "cancelled at the time limit"
            raise
        except Exception as exc:  # counted and reported, never raised
            table.error = f"{type(exc).__name__}: {str(exc)[:300]}"


# --- the SQLite side run ----------------------------------------------------------------------


async def sqlite_side_run(db: Path, samples: int) -> dict[str, list[float]]:
    """Replay one more round's repository writes on a copy of the bot's database."""
    from cogs.table_base import round_result, round_scores
    from data import open_repository

    copy = db.with_name("side-run.sqlite3")
    src, dst = sqlite3.connect(db), sqlite3.connect(copy)
    with dst:
        src.backup(dst)
    src.close()
    # the bench cancelled the tables after round 3: let them play once more in the copy
    ids = [
        r[0]
        for r in dst.execute(
            "SELECT m.id FROM matches m WHERE m.status = 'cancelled' AND"
            " (SELECT count(*) FROM rounds r WHERE r.match_id = m.id"
            " AND status IN ('scored', 'shown')) > 0"
            " ORDER BY m.id LIMIT ?",
            (samples,),
        )
    ]
    with dst:
        dst.executemany("UPDATE matches SET status = 'playing' WHERE id = ?", [(i,) for i in ids])
    dst.close()

    repo = await open_repository(str(copy))
    out: dict[str, list[float]] = {"round": [], "score_round": []}
    clock = time.perf_counter
    try:
        for match_id in ids:
            match = await repo.get_match(match_id)
            current = await repo.current_round(match_id)
            number = (current.number if current else 0) + 1
            seed = random.getrandbits(48)
            hands = deal(len(match.seats), seed)
            rows = [arrange(h, PRESET, "easy", 3, seed=seed).ordinary for h in hands]
            spent = 0.0
            t0 = clock()
            rnd = await repo.start_round(
                match_id,
                number,
                seed,
                time.time() + 120,
                {s.seat: [c.code for c in hands[s.seat]] for s in match.seats},
            )
            await repo.set_round_messages(rnd.id, status_message_id=1)
            for seat in match.seats:
                back, middle, front = ([c.code for c in row] for row in rows[seat.seat])
                await repo.submit_hand(rnd.id, seat.seat, back, middle, front, None, False)
                if not seat.is_bot:
                    await repo.set_dm_message(rnd.id, seat.seat, 2, 3)
            spent += clock() - t0
            rnd = await repo.get_round(rnd.id)  # untimed: reads and scoring
            result = round_result(match, rnd)
            payload = result.to_dict() | {"auto": []}
            scores = round_scores(result)
            t0 = clock()
            await repo.score_round(rnd.id, payload, scores)
            scored = clock() - t0
            t0 = clock()
            await repo.set_round_messages(rnd.id, showdown_message_id=4)
            spent += scored + clock() - t0
            out["round"].append(spent)
            out["score_round"].append(scored)
    finally:
        await repo.close()
    return out


def score_lag(db: Path) -> list[float]:
    """rounds.scored_at - max(hands.submitted_at), from the bot's own database."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(
            "SELECT r.scored_at - max(h.submitted_at) FROM rounds r"
            " JOIN hands h ON h.round_id = r.id WHERE r.status IN ('scored', 'shown')"
            " GROUP BY r.id"
        ).fetchall()
    return [r[0] for r in rows if r[0] is not None]


async def score_lag_pg(url: str) -> list[float]:
    """The same as ``score_lag``, from a PostgreSQL database."""
    conn = await asyncpg.connect(url, timeout=10)
    try:
        rows = await conn.fetch(
            "SELECT EXTRACT(EPOCH FROM r.scored_at - max(h.submitted_at)) FROM rounds r"
            " JOIN hands h ON h.round_id = r.id WHERE r.status IN ('scored', 'shown')"
            " GROUP BY r.id"
        )
    finally:
        await conn.close()
    return [float(r[0]) for r in rows if r[0] is not None]


REVIEWS_SQL = (
    "SELECT (SELECT COUNT(*) FROM hand_reviews),"
    " (SELECT COUNT(*) FROM hands h JOIN rounds r ON r.id = h.round_id"
    "  JOIN match_seats s ON s.match_id = r.match_id AND s.seat = h.seat"
    "  WHERE r.status IN ('scored', 'shown') AND s.user_id IS NOT NULL)"
)


def reviews_done(db: Path) -> tuple[int, int]:
    """(people's hands the coach reviewed, people's hands of scored rounds) at the end."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        done, hands = conn.execute(REVIEWS_SQL).fetchone()
    return int(done), int(hands)


async def reviews_done_pg(url: str) -> tuple[int, int]:
    conn = await asyncpg.connect(url, timeout=10)
    try:
        row = await conn.fetchrow(REVIEWS_SQL)
    finally:
        await conn.close()
    assert row is not None
    return int(row[0]), int(row[1])


# --- PostgreSQL -----------------------------------------------------------------------------


def pg_admin_url() -> str:
    return os.environ.get("CAPSA_TEST_DATABASE_URL", "").strip() or PG_DEFAULT_URL


def pg_problem(url: str) -> str | None:
    """Why the server at ``url`` may not be used (not PostgreSQL, not loopback), or None."""
    try:
        host, port = pg_address(url)
    except ValueError as exc:
        return f"CAPSA_TEST_DATABASE_URL: {exc}"
    if not _is_loopback(host):
        return (
            f"CAPSA_TEST_DATABASE_URL names {host}:{port}, which is not loopback: the bench"
            " only uses a PostgreSQL server on 127.0.0.1, ::1 or localhost"
        )
    return None


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def pg_check(url: str) -> str | None:
    """None if a PostgreSQL server answers at ``url`` (loopback), else one line saying what is
    wrong and how to start one."""
    problem = pg_problem(url)
    if problem:
        return problem
    try:
        await data.check_reachable(url)
    except data.DatabaseUnreachable as exc:
        where = f"{exc.host}:{exc.port}"
        return (
            f"--database postgres: no PostgreSQL answers at {where} ({exc.reason});"
            f" start one and point the bench at it with: {PG_HOW}"
        )
    except (data.DatabaseUnavailable, ValueError) as exc:
        return f"--database postgres: {exc}; the bench needs a server where it may CREATE DATABASE"
    return None


def pg_url_of(admin_url: str, name: str) -> str:
    return urlunsplit(urlsplit(admin_url)._replace(path=f"/{name}"))


async def pg_admin(admin_url: str, sql: str) -> None:
    conn = await asyncpg.connect(admin_url, timeout=10)
    try:
        await conn.execute(sql, timeout=60)
    finally:
        await conn.close()


async def pg_create(admin_url: str) -> tuple[str, str]:
    """A fresh, empty database on the server: its name and URL."""
    name = f"capsa_load_{secrets.token_hex(4)}"
    await pg_admin(admin_url, f'CREATE DATABASE "{name}"')
    return name, pg_url_of(admin_url, name)


async def pg_drop(admin_url: str, name: str) -> None:
    await pg_admin(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# --- the bot processes ----------------------------------------------------------------------


async def start_bots(
    fake: FakeDiscord,
    procs: list[asyncio.subprocess.Process],
    envs: list[dict[str, str]],
    db: Path,
    logs: list[Path],
    profiles: list[str | None],
    timeout: float,
) -> None:
    """``python bot.py`` once per entry of ``envs``, one after the other (each waits for its
    IDENTIFY, as tests/e2e.start_bot_process does), each in its own process group. Every
    process is appended to ``procs`` as soon as it exists, so the caller stops it whatever
    happens here; a process that exits before it identifies fails the run at once."""
    for i, env in enumerate(envs):
        profile = profiles[i]
        proc = await spawn_bot_process(
            fake,
            db,
            logs[i],
            env=env,
            python_args=["-m", "cProfile", "-o", profile] if profile else [],
        )
        procs.append(proc)
        ready = asyncio.create_task(fake.wait_for_identify(i + 1, timeout=timeout))
        died = asyncio.create_task(proc.wait())
        try:
            await asyncio.wait({ready, died}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (ready, died):
                if not task.done():
                    task.cancel()
            await asyncio.gather(ready, died, return_exceptions=True)
        if not ready.done() or ready.cancelled() or ready.exception() is not None:
            tail = logs[i].read_text(errors="replace").strip().splitlines()[-3:]
            why = (
                f"exited with {proc.returncode}"
                if died.done() and not died.cancelled()
                else (f"did not identify within {timeout:g} s")
            )
            raise RuntimeError(f"bot process {i} {why}; its log ends: {' | '.join(tail)}")


async def quiesce(fake: FakeDiscord, quiet: float = 0.5, limit: float = 10.0) -> float:
    """Wait (outside the measurement) until no request has reached the fake for ``quiet`` s,
    at most ``limit`` s: a table is done when its /capsa cancel is acknowledged, but the bot
    still announces the cancel in the channel after that, and a bot stopped meanwhile logs
    those requests as errors (so do the coach's late edits). Returns the s waited."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    seen, since = len(fake.requests), start
    while loop.time() < start + limit and loop.time() - since < quiet:
        await asyncio.sleep(0.05)
        if len(fake.requests) != seen:
            seen, since = len(fake.requests), loop.time()
    return loop.time() - start


async def stop_bots(procs: list[asyncio.subprocess.Process], grace: float) -> None:
    """SIGINT to every bot at once, up to ``grace`` s for each to exit, then SIGKILL of each
    one's process group (tests/e2e.stop_bot_process)."""
    await asyncio.gather(
        *(stop_bot_process(proc, grace=grace) for proc in procs), return_exceptions=True
    )


# --- one size -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Combo:
    """One run: a table count, the bot's COACH setting, its database, its process count, and
    the fake's rate limits: ``limits`` on or off, and (on) the DM-open bucket ``dm_opens``,
    ``N/S``: N opens per S seconds."""

    tables: int
    coach: str
    database: str
    processes: int
    limits: bool = True
    dm_opens: str = "10/10"

    def __str__(self) -> str:
        limits = f"limits on (DM opens {self.dm_opens} s)" if self.limits else "limits off"
        return (
            f"{self.tables} tables, COACH={self.coach}, {self.database},"
            f" {self.processes} process{'es' if self.processes > 1 else ''}, {limits}"
        )

    @property
    def limits_label(self) -> str:
        return f"on, DM {self.dm_opens}" if self.limits else "off"

    @property
    def tag(self) -> str:
        limits = f"dm{self.dm_opens.replace('/', '-')}" if self.limits else "nolimits"
        return f"{self.tables}-{self.coach}-{self.database}-p{self.processes}-{limits}"

    def rate_limits(self) -> RateLimits:
        """The fake's limits for this run."""
        if not self.limits:
            return RateLimits.off()
        count, seconds = parse_window(self.dm_opens)
        return RateLimits(dm_opens=(count, seconds))


def parse_window(text: str) -> tuple[int, float]:
    """``N/S`` (N requests per S seconds), as ``--dm-opens`` takes it."""
    count, sep, seconds = text.partition("/")
    try:
        window = int(count), float(seconds)
    except ValueError:
        window = (0, 0.0)
    if not sep or window[0] < 1 or window[1] <= 0:
        raise argparse.ArgumentTypeError(
            f"{text!r}: write a DM-open bucket as N/S, N opens per S seconds (e.g. 10/10)"
        )
    return window


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on now (for a bot's METRICS_PORT)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


_WAIT_LINE = re.compile(r"^capsa_rest_wait_seconds_(sum|count)\{.*\} ([0-9.e+-]+)$", re.M)


async def rest_waits(port: int) -> tuple[float, int]:
    """From a bot's /metrics: the seconds its bot-token requests waited (the global pace,
    the routes' buckets, 429s; cogs/rest_pace.py) and how many requests that was."""
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{port}/metrics") as resp:
            text = await resp.text()
    total, count = 0.0, 0
    for kind, value in _WAIT_LINE.findall(text):
        if kind == "sum":
            total += float(value)
        else:
            count += int(float(value))
    return total, count


async def seed_dm_channels(
    fake: FakeDiscord, world: list[Table], db: Path, pg_url: str | None
) -> None:
    """``--dm-channels known``: every person has played before, so the bot's database holds
    the DM channel it opened with them (cogs/table_base.py reads it instead of opening one)."""
    repo = await data.open_repository(str(db), database_url=pg_url)
    try:
        for table in world:
            for user in (table.host, table.guest):
                await repo.remember_dm_channel(user.id, fake.dm_channel(user).id)
    finally:
        await repo.close()


def profile_path(args: argparse.Namespace, combo: Combo, shard: int) -> str | None:
    """``PROFILE.<tables>`` as before for one process on SQLite and one coach setting; the
    other runs and shards get suffixes so that no profile overwrites another."""
    if not args.profile:
        return None
    path = f"{args.profile}.{combo.tables}"
    if len(args.coach) > 1:
        path += f".coach-{combo.coach}"
    if combo.database != "sqlite":
        path += f".{combo.database}"
    if combo.processes > 1:
        path += f".shard{shard}of{combo.processes}"
    return path


async def run_size(combo: Combo, args: argparse.Namespace, workdir: Path) -> dict:
    here = psutil.Process()
    tables, coach, n = combo.tables, combo.coach, combo.processes
    result: dict = {
        "tables": tables,
        "coach": coach,
        "database": combo.database,
        "processes": n,
        "limits": combo.limits_label,
    }
    db = workdir / f"load-{combo.tag}.sqlite3"
    logs = [
        workdir / (f"bot-{combo.tag}.log" if n == 1 else f"bot-{combo.tag}-shard{i}.log")
        for i in range(n)
    ]
    admin_url = pg_admin_url()
    pg_name = pg_url = None
    if combo.database == "postgres":
        pg_name, pg_url = await pg_create(admin_url)
    try:
        async with FakeDiscord(
            interaction_deadline=args.deadline or None, limits=combo.rate_limits()
        ) as fake:
            fake.settle_deferred_updates = True  # people see each click's result before next
            if n == 1:
                guilds = [fake.add_guild("Load")]  # as before: no shard settings
            else:
                guilds = [fake.add_guild(f"Load {i}", shard=(i, n)) for i in range(n)]
            world = []
            for i in range(tables):
                guild = guilds[i % n]  # round-robin: each process its share of the tables
                chan = guild.add_text_channel(f"capsa-{i:03d}")
                host = fake.add_user(f"host{i:03d}", guild=guild)
                guest = fake.add_user(f"guest{i:03d}", guild=guild)
                world.append(Table(i, host, guest, chan))
            base_env = {"SOLVER_WORKERS": str(args.solver_workers), "COACH": coach}
            if args.global_limit is not None:
                base_env["GLOBAL_RATE_LIMIT"] = str(args.global_limit)
            if pg_url is not None:
                base_env["DATABASE_URL"] = pg_url
            # /metrics: the waits on Discord (--metrics off: none, as a bot that serves none)
            ports = [free_port() for _ in range(n)] if args.metrics == "on" else []
            envs = [
                (base_env if n == 1 else base_env | {"SHARD_COUNT": str(n), "SHARD_IDS": str(i)})
                | ({"METRICS_PORT": str(ports[i])} if ports else {})
                for i in range(n)
            ]
            if args.dm_channels == "known":
                await seed_dm_channels(fake, world, db, pg_url)
            procs: list[asyncio.subprocess.Process] = []
            watch: ProcWatch | None = None
            lag = LoopLag()
            bench = Bench(fake, args)
            try:
                profiles = [profile_path(args, combo, i) for i in range(n)]
                await start_bots(fake, procs, envs, db, logs, profiles, timeout=60)
                await asyncio.sleep(1.0)  # GUILD_CREATE handled (guild_ready_timeout 0.1 s)
                watch = ProcWatch([proc.pid for proc in procs])
                watch.sample()
                cpu0, own0 = watch.cpu_per_process(), sum(here.cpu_times()[:2])
                watch.start()
                lag.start()
                offset = time.time() - time.monotonic()
                first_request = len(fake.requests)
                waits0 = [await rest_waits(port) for port in ports]
                t0 = time.monotonic()
                tasks = [
                    asyncio.create_task(bench.guarded(t, args.ramp * i / max(1, tables)))
                    for i, t in enumerate(world)
                ]
                _done, pending = await asyncio.wait(tasks, timeout=args.time_limit)
                for task in pending:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                wall = time.monotonic() - t0
                await watch.stop()
                await lag.stop()
                per = [b - a for a, b in zip(cpu0, watch.cpu_per_process(), strict=True)]
                result["cpu"] = sum(per)
                result["cpu_per_process"] = per
                result["own_cpu"] = sum(here.cpu_times()[:2]) - own0
                result["wall"] = wall
                result["load_requests"] = fake.requests[first_request:]
                waits1 = [await rest_waits(port) for port in ports]
                if ports:
                    result["waited"] = sum(b[0] - a[0] for a, b in zip(waits0, waits1, strict=True))
                result["quiesce"] = await quiesce(fake)
            finally:
                if watch is not None:
                    await watch.stop()
                await lag.stop()
                await stop_bots(procs, grace=20)  # SIGINT, then SIGKILL of each group
            result.update(peak_rss=watch.peak_rss, peak_rss_main=watch.peak_rss_main)
            result.update(procs=watch.peak_procs, lag=lag.lags)
            result.update(collect(fake, world, offset))
            result.update(traffic(result.pop("load_requests", []), world, offset, result["rounds"]))
        if pg_url is not None:
            result["score_lag"] = await score_lag_pg(pg_url)
            result["reviews"] = await reviews_done_pg(pg_url)
            result["db"] = None  # the SQLite side run is SQLite's only
        else:
            result["score_lag"] = score_lag(db)
            result["reviews"] = reviews_done(db)
            result["db"] = await sqlite_side_run(db, args.db_samples)
    finally:
        if pg_name is not None:
            await pg_drop(admin_url, pg_name)
    result["log_errors"] = result["log_warnings"] = 0
    for log in logs:
        text = log.read_text(errors="replace") if log.exists() else ""
        result["log_errors"] += text.count(" ERROR ") + text.count("Traceback")
        result["log_warnings"] += text.count(" WARNING ")
    result["log"] = ", ".join(str(log) for log in logs)
    return result


def collect(fake: FakeDiscord, world: list[Table], offset: float) -> dict:
    """Join the interactions with the fake's request log; per-round timings."""
    acks: dict[int, tuple[float, int]] = {}
    routes: Counter[str] = Counter()
    for rec in fake.requests:
        parts = rec.path.split("/")
        if rec.method == "POST" and parts[1] == "interactions" and parts[-1] == "callback":
            acks.setdefault(int(parts[2]), (rec.at, rec.status))
            routes["POST /interactions/{id}/{token}/callback"] += 1
        else:
            routes[route_shape(rec.method, rec.path)] += 1
    latency: dict[str, list[float]] = defaultdict(list)
    expired = unanswered = 0
    showdown: list[float] = []
    rounds = 0
    starts = [t.started_at for t in world if t.started_at is not None]
    ends = [t.finished_at for t in world if t.finished_at is not None]
    for table in world:
        for kind, ix in table.interactions:
            got = acks.get(ix.id)
            if got is None:
                unanswered += 1
                continue
            at, status = got
            if status >= 400 or ix.expired:
                expired += 1
            latency[kind].append(at - (ix.created_at + offset))
        for last_submit, posted in table.rounds:
            showdown.append(posted - (last_submit + offset))
            rounds += 1
    span = (max(ends) - min(starts)) if starts and ends else None
    errors = Counter(t.error.split(":")[0] + " @ " + t.stage for t in world if t.error)
    first_errors = [f"table {t.index} ({t.stage}): {t.error}" for t in world if t.error][:3]
    return {
        "latency": dict(latency),
        "expired": expired,
        "unanswered": unanswered,
        "showdown": showdown,
        "rounds": rounds,
        "span": span,
        "completed": sum(t.done for t in world),
        "errors": errors,
        "first_errors": first_errors,
        "routes": routes,
    }


def route_shape(method: str, path: str) -> str:
    """A request's route with its ids and token as ``{id}`` and ``{token}``."""
    parts = path.split("/")
    if is_interaction_route(path):
        if parts[1] == "interactions":
            return "POST /interactions/{id}/{token}/callback"
        tail = "/".join("{id}" if p.isdigit() else p for p in parts[4:])
        return f"{method} /webhooks/{{id}}/{{token}}" + (f"/{tail}" if tail else "")
    return f"{method} " + "/".join("{id}" if p.isdigit() else p for p in parts)


def traffic(requests: list, world: list[Table], offset: float, rounds: int) -> dict:
    """The requests of the load (first Start to the last table's end): bot-token ones and
    interaction ones by route, the 429s (by the limits, by scope), the invalid requests
    (401, 403, 429), and the round-1 DMs against the global limit's pace."""
    bot: Counter[str] = Counter()
    interaction: Counter[str] = Counter()
    limited: Counter[str] = Counter()
    invalid = 0
    for rec in requests:
        shape = route_shape(rec.method, rec.path)
        (interaction if is_interaction_route(rec.path) else bot)[shape] += 1
        if rec.status == 429:
            limited[rec.limited or "injected"] += 1
        invalid += rec.status in (401, 403, 429)
    fell_back, channel_bot = fallbacks(requests, world, offset)
    starts = [t.started_at + offset for t in world if t.started_at is not None]
    dms = [at for t in world for at in t.first_dms]
    first_dms = None
    if starts and dms:
        begin, last = min(starts), max(dms)
        needed = sum(
            begin <= rec.at <= last and not is_interaction_route(rec.path) for rec in requests
        )
        first_dms = (last - begin, needed, 1.2 * needed / GLOBAL_LIMIT + 1.0)
    return {
        "bot_routes": bot,
        "interaction_routes": interaction,
        "limited": limited,
        "invalid": invalid,
        "first_dms": first_dms,
        "per_round": (sum(bot.values()) / rounds) if rounds else None,
        "fell_back": fell_back,
        "channel_bot": channel_bot,
    }


def fallbacks(requests: list, world: list[Table], offset: float) -> tuple[int, int]:
    """(rounds whose channel messages fell back to the bot token, the table channels'
    bot-token requests after Start): a round fell back if a bot-token request reached its
    table's channel between the round's start (Start, or the showdown before) and its own
    showdown."""
    by_channel: dict[int, list[float]] = defaultdict(list)
    for rec in requests:
        parts = rec.path.split("/")
        if is_interaction_route(rec.path) or len(parts) < 3 or parts[1] != "channels":
            continue
        by_channel[int(parts[2])].append(rec.at)
    fell_back = total = 0
    for table in world:
        if table.started_at is None:
            continue
        begin = table.started_at + offset
        times = [at for at in by_channel.get(table.channel.id, ()) if at >= begin]
        total += len(times)
        for _last_submit, shown in table.rounds:
            fell_back += any(begin <= at <= shown for at in times)
            begin = shown
    return fell_back, total


# --- report ---------------------------------------------------------------------------------


def code_version() -> str:
    """The git commit the bot ran from (and whether the tree had local changes)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "unknown"
    return f"{head or 'unknown'}{' + local changes' if dirty else ''}"


def rounds_per_s(r: dict) -> float | None:
    return r["rounds"] / r["span"] if r.get("span") else None


def speedups(results: list[dict]) -> list[str]:
    """For each run with several processes: its rounds/s over the one-process run's with the
    same tables, coach and database."""
    single = {
        (r["tables"], r["coach"], r["database"], r["limits"]): r
        for r in results
        if r["processes"] == 1
    }
    lines = []
    for r in results:
        one = single.get((r["tables"], r["coach"], r["database"], r["limits"]))
        if r["processes"] == 1 or one is None:
            continue
        many, base = rounds_per_s(r), rounds_per_s(one)
        if many is None or not base:
            ratio = "-"
            verdict = "no rounds to compare"
        else:
            ratio = f"{many / base:.2f}x"
            verdict = "met" if many / base >= TARGET_SPEEDUP else "MISSED"
        lines.append(
            f"speed-up, {r['tables']} tables, COACH={r['coach']}, {r['database']}: "
            f"{r['processes']} processes {ratio} the rounds/s of one "
            f"(target >= {TARGET_SPEEDUP:g}x: {verdict})"
        )
    return lines


def report(results: list[dict], args: argparse.Namespace) -> None:
    mb = 1024 * 1024
    print()
    print(f"Code: {args.code} (at the start of the run)")
    sizes = " and ".join(str(n) for n in TARGET_TABLES)
    print(
        f"Targets at {sizes} tables: ack p99 < {ms(TARGET_ACK_P99)}, "
        f"showdown p99 < {secs(TARGET_SHOWDOWN)} after the last submit; two processes "
        f">= {TARGET_SPEEDUP:g}x the rounds/s of one."
    )
    print(
        f"Setup: 4 seats (2 scripted people + 2 computers), {args.rounds} rounds played of a "
        f"{ROUNDS_TOTAL}-round table, then /capsa cancel; mode={args.mode}, "
        f"SOLVER_WORKERS={args.solver_workers} per process, "
        f"interaction deadline={args.deadline or 'off'} s, "
        f"ramp={args.ramp} s, think={args.think[0]:g}-{args.think[1]:g} s, "
        f"DM channels {args.dm_channels}, {os.cpu_count()} CPUs."
    )
    if any(r["database"] == "postgres" for r in results):
        print(f"PostgreSQL: {redact(pg_admin_url())} (a fresh database each run)")
    rows: list[tuple[str, ...]] = []
    for r in results:
        every = [v for vals in r["latency"].values() for v in vals]
        db = r["db"]
        rps = rounds_per_s(r)
        per_round = r.get("per_round")
        ceiling = f" (≤ {GLOBAL_LIMIT / per_round:.1f})" if per_round else ""
        rows.append(
            (
                str(r["tables"]),
                r["database"],
                str(r["processes"]),
                r["coach"],
                r["limits"],
                f"{r['completed']}/{r['tables']}",
                f"{ms(pct(every, 50))} / {ms(pct(every, 99))}",
                f"{secs(pct(r['showdown'], 50))} / {secs(pct(r['showdown'], 99))}",
                ("-" if rps is None else f"{rps:.1f}") + ceiling,
                "-" if per_round is None else f"{per_round:.1f}",
                str(sum(r.get("limited", {}).values())),
                "-" if r.get("waited") is None else f"{r['waited']:.1f} s",
                f"{r['cpu']:.1f} s ({100 * r['cpu'] / r['wall']:.0f}%)",
                f"{r['peak_rss'] / mb:.0f} MB",
                "-" if db is None else f"{ms(pct(db['round'], 50))} / {ms(pct(db['round'], 99))}",
                "-" if db is None else f"{ms(pct(db['score_round'], 50))}",
            )
        )
    head = (
        "tables",
        "database",
        "processes",
        "coach",
        "limits",
        "done",
        "ack p50 / p99",
        "showdown p50 / p99",
        "rounds/s (ceiling)",
        "bot-token req/round",
        "429s",
        "waited on Discord",
        "bot CPU",
        "bot peak RSS",
        "SQLite writes/round p50 / p99",
        "score_round p50",
    )
    if rows:
        widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
        print()
        print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |")
        print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
        for row in rows:
            print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
    lines = speedups(results)
    if lines:
        print()
        for line in lines:
            print(line)
    for note in args.notes:
        print(f"note: {note}")
    for r in results:
        every = [v for vals in r["latency"].values() for v in vals]
        plural = "es" if r["processes"] > 1 else ""
        print(
            f"\n--- {r['tables']} tables, COACH={r['coach']}, database={r['database']}, "
            f"{r['processes']} process{plural} ---"
        )
        met_ack = (pct(every, 99) or 99) < TARGET_ACK_P99
        met_sd = (pct(r["showdown"], 99) or 99) < TARGET_SHOWDOWN
        if r["tables"] in TARGET_TABLES:
            print(f"target ack p99: {'met' if met_ack else 'MISSED'}; ", end="")
            print(f"target showdown p99: {'met' if met_sd else 'MISSED'}")
        print(
            f"wall {r['wall']:.1f} s, measured span {secs(r['span'])}, rounds {r['rounds']}, "
            f"interactions {len(every)}, expired (10062) {r['expired']}, "
            f"never answered {r['unanswered']}"
        )
        for kind, vals in sorted(r["latency"].items()):
            print(
                f"  ack {kind:<13} n={len(vals):<5} p50 {ms(pct(vals, 50)):>8}  "
                f"p90 {ms(pct(vals, 90)):>8}  p99 {ms(pct(vals, 99)):>8}  "
                f"max {ms(max(vals)):>8}"
            )
        sd = r["showdown"]
        if sd:
            print(
                f"  showdown after last submit: p50 {secs(pct(sd, 50))}, p90 {secs(pct(sd, 90))}, "
                f"p99 {secs(pct(sd, 99))}, max {secs(max(sd))}"
            )
        if r.get("reviews"):
            done, hands = r["reviews"]
            print(
                f"  coach: {done} of {hands} people's hands reviewed when the bot stopped"
                " (reviews run after the showdowns, at the lowest priority)"
            )
        lag = r["score_lag"]
        if lag:
            print(
                f"  in the bot: last hand stored -> score stored: p50 {ms(pct(lag, 50))}, "
                f"p99 {ms(pct(lag, 99))} ({len(lag)} rounds; queueing, not write time)"
            )
        db = r["db"]
        if db is not None and db["round"]:
            print(
                f"  SQLite side run ({len(db['round'])} rounds, 11 write transactions each): "
                f"per round p50 {ms(pct(db['round'], 50))}, p99 {ms(pct(db['round'], 99))}; "
                f"score_round p50 {ms(pct(db['score_round'], 50))}, "
                f"p99 {ms(pct(db['score_round'], 99))}"
            )
        quiet = r.get("quiesce")
        if quiet is not None:
            busy = " (the 10 s limit: the bot was stopped still busy)" if quiet >= 10 else ""
            print(
                f"  after the load: {quiet:.1f} s until no request reached the fake for 0.5 s{busy}"
            )
        main_label = "main" if r["processes"] == 1 else f"the {r['processes']} bot processes"
        print(
            f"  bot: CPU {r['cpu']:.1f} s over {r['wall']:.1f} s, peak RSS "
            f"{r['peak_rss'] / mb:.0f} MB with children ({main_label} "
            f"{r['peak_rss_main'] / mb:.0f} MB, up to {r['procs']} processes)"
        )
        if r["processes"] > 1:
            per = ", ".join(f"shard {i} {cpu:.1f} s" for i, cpu in enumerate(r["cpu_per_process"]))
            print(f"  CPU per bot process (with its children): {per}")
        lags = r["lag"]
        print(
            f"  this process (fake + scripted users): CPU {r['own_cpu']:.1f} s; event-loop lag "
            f"p50 {ms(pct(lags, 50))}, p99 {ms(pct(lags, 99))}, max {ms(max(lags or [0]))}"
        )
        top = ", ".join(f"{k} ×{n}" for k, n in r["routes"].most_common(8))
        print(f"  requests to the fake: {sum(r['routes'].values())} ({top})")
        traffic_lines(r)
        print(
            f"  bot log{'s' if r['processes'] > 1 else ''} {r['log']}: {r['log_errors']} "
            f"error/traceback lines, {r['log_warnings']} warnings"
        )
        if r["errors"]:
            print(f"  unfinished tables: {dict(r['errors'])}")
            for line in r["first_errors"]:
                print(f"    {line}")


def traffic_lines(r: dict) -> None:
    """The load's requests per round, by kind and route; 429s; waits; the round-1 DMs."""
    rounds = r["rounds"]
    if not rounds or "bot_routes" not in r:
        return
    per_round = r["per_round"]
    print(
        f"  bot-token requests per round: {per_round:.2f} (the whole load over {rounds} rounds:"
        f" lobbies, deals, DMs, showdowns, cancels); ceiling {GLOBAL_LIMIT} / {per_round:.2f}"
        f" = {GLOBAL_LIMIT / per_round:.1f} rounds/s, measured {rounds_per_s(r) or 0:.1f}"
    )
    for label, routes in (("bot token", r["bot_routes"]), ("interaction", r["interaction_routes"])):
        for route, count in routes.most_common():
            print(f"    {label:<11} {count / rounds:6.2f}/round  ({count:>6})  {route}")
    limited = ", ".join(f"{scope} {n}" for scope, n in r["limited"].items()) or "none"
    print(f"  429s: {limited}; invalid requests (401, 403, 429): {r['invalid']}")
    waited = r.get("waited")
    if waited is not None:
        print(
            f"  the bot's bot-token requests waited {waited:.1f} s in all on Discord's limits"
            f" (global pace, buckets, 429s; cogs/rest_pace.py): {waited / rounds:.3f} s a round"
        )
    if "fell_back" in r:
        print(
            f"  rounds that fell back to the bot token in the channel: {r['fell_back']} of"
            f" {rounds} ({r['channel_bot']} bot-token requests in the tables' channels after"
            " Start)"
        )
    if r["first_dms"] is not None:
        last, needed, bound = r["first_dms"]
        print(
            f"  last round-1 DM {last:.1f} s after the first Start; {needed} bot-token requests"
            f" in that time: 1.2 x {needed} / {GLOBAL_LIMIT} + 1 = {bound:.1f} s"
            f" ({'within' if last <= bound else 'OVER'})"
        )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, nargs="+", default=[50, 200, 500])
    p.add_argument("--rounds", type=int, default=3, choices=range(1, 11), help="played")
    p.add_argument(
        "--match-rounds", type=int, default=5, choices=(5, 10), help="the match's rounds"
    )
    p.add_argument(
        "--next",
        choices=("press", "timer"),
        default="press",
        help="press: the host presses Next at once; timer: nobody does (the clock deals)",
    )
    p.add_argument(
        "--hands",
        choices=("dm", "channel"),
        default="dm",
        help="channel: both people chose /capsa me hands:channel (no DMs)",
    )
    p.add_argument("--mode", choices=("selects", "auto"), default="selects")
    p.add_argument("--solver-workers", type=int, default=1, help="per bot process")
    p.add_argument("--ramp", type=float, default=0.0, help="open the tables over this many s")
    p.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(0.0, 0.0),
        metavar=("MIN", "MAX"),
        help="s a person waits before each click/select (uniform); default 0 0 = immediate",
    )
    p.add_argument("--step-timeout", type=float, default=60.0, help="s, for every single wait")
    p.add_argument("--time-limit", type=float, default=600.0, help="s, per run")
    p.add_argument("--deadline", type=float, default=3.0, help="interaction deadline; 0 = off")
    p.add_argument("--db-samples", type=int, default=100, help="rounds in the SQLite side run")
    p.add_argument(
        "--profile",
        help="run the bot under cProfile; writes PROFILE.<tables> (suffixed per database, "
        "shard and coach where there are several)",
    )
    p.add_argument("--keep", action="store_true", help="keep the temporary directory")
    p.add_argument(
        "--coach",
        nargs="+",
        choices=("on", "off"),
        default=["on"],
        help="the bot's COACH setting; 'on off' runs each size both ways",
    )
    p.add_argument(
        "--database",
        nargs="+",
        choices=("sqlite", "postgres"),
        default=["sqlite"],
        help="the bot's database: a temporary SQLite file, or a fresh PostgreSQL database on "
        "CAPSA_TEST_DATABASE_URL's server (default " + PG_DEFAULT_URL + ")",
    )
    p.add_argument(
        "--limits",
        nargs="+",
        choices=("on", "off"),
        default=["on"],
        help="the fake's Discord rate limits (tests/fakediscord/limits.py); 'on off' runs both",
    )
    p.add_argument(
        "--metrics",
        choices=("on", "off"),
        default="on",
        help="serve the bot's /metrics (METRICS_PORT), which counts every REST request and"
        " times every database call; off: the bot as deployed without it, no 'waited on"
        " Discord' figure (issue 17's like-for-like comparison: the code before it had none)",
    )
    p.add_argument(
        "--global-limit",
        type=int,
        default=None,
        metavar="N",
        help="the bot's GLOBAL_RATE_LIMIT (default: its own, Discord's 50 a second); with"
        " --limits off and a large N, the bot's code against a bot that never paced itself"
        " (issue 17's like-for-like comparison with the code before issue 18)",
    )
    p.add_argument(
        "--dm-opens",
        nargs="+",
        default=["10/10"],
        metavar="N/S",
        help="with limits on: the DM-open bucket, N opens per S seconds (Discord does not"
        " publish it); several values run each",
    )
    p.add_argument(
        "--dm-channels",
        choices=("known", "cold"),
        default="known",
        help="known: the bot's database holds every person's DM channel before the load (they"
        " played before); cold: the bot opens each one",
    )
    p.add_argument(
        "--processes",
        nargs="+",
        type=int,
        default=[1],
        help="bot processes, SHARD_COUNT=N and SHARD_IDS=i (N > 1: PostgreSQL only)",
    )
    args = p.parse_args(argv)
    if args.rounds > args.match_rounds:
        p.error("--rounds: at most --match-rounds")
    global ROUNDS_TOTAL
    ROUNDS_TOTAL = args.match_rounds
    if any(n < 1 for n in args.processes):
        p.error("--processes: each value must be 1 or more")
    for value in args.dm_opens:
        try:
            parse_window(value)
        except argparse.ArgumentTypeError as exc:
            p.error(f"--dm-opens: {exc}")
    return args


def combinations(args: argparse.Namespace) -> tuple[list[Combo], list[str]]:
    """Every combination asked for, in order, and a note for each one skipped (several
    processes on one SQLite file, which the bot refuses)."""
    combos, notes = [], []
    for n in args.tables:
        for database in dict.fromkeys(args.database):
            for processes in dict.fromkeys(args.processes):
                for coach in dict.fromkeys(args.coach):
                    for limits in dict.fromkeys(args.limits):
                        opens = args.dm_opens if limits == "on" else args.dm_opens[:1]
                        for dm_opens in dict.fromkeys(opens):
                            combo = Combo(n, coach, database, processes, limits == "on", dm_opens)
                            if database == "sqlite" and processes > 1:
                                notes.append(
                                    f"skipped {combo}: a SQLite file serves one bot process"
                                    " (use --database postgres for several)"
                                )
                                continue
                            combos.append(combo)
    return combos, list(dict.fromkeys(notes))


async def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    combos, args.notes = combinations(args)
    if not combos:
        print(
            f"--processes {' '.join(map(str, args.processes))} on SQLite: a SQLite file serves"
            " one bot process (the bot refuses SHARD_IDS on SQLite); add --database postgres",
            file=sys.stderr,
        )
        return 2
    if any(c.database == "postgres" for c in combos):
        problem = await pg_check(pg_admin_url())
        if problem:
            print(problem, file=sys.stderr)
            return 2
    args.code = code_version()
    for note in args.notes:
        print(f"note: {note}", flush=True)
    results = []
    failed: list[str] = []
    workdir = Path(tempfile.mkdtemp(prefix="capsa-load-"))
    try:
        with only_localhost():
            for combo in combos:
                print(f"running {combo} ...", flush=True)
                start = time.monotonic()
                try:
                    results.append(await run_size(combo, args, workdir))
                except Exception as exc:  # one run failed: reported, and the others go on
                    failed.append(f"{combo}: {type(exc).__name__}: {exc}")
                    print(f"  FAILED: {failed[-1]}", flush=True)
                    continue
                print(f"  {combo} took {time.monotonic() - start:.0f} s", flush=True)
        report(results, args)
        for line in failed:
            print(f"\nFAILED run (not in the table): {line}")
    finally:
        if args.keep:
            print(f"\nkept {workdir}")
        else:
            for path in sorted(workdir.iterdir()):
                path.unlink()
            workdir.rmdir()
    return 1 if failed and not results else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
