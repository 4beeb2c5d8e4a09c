"""Chaos run: real ``bot.py`` processes against the fake Discord, many matches played by
scripted people, while a driver kills a random bot process at random moments and starts
it again; at the end, checks from the fake's record and the database that nothing was lost
or done twice and that no table stalled (issue 19).

Run from the repository root (under ``nice``: the machine is shared):

    nice -n 5 .venv/bin/python bench/chaos.py --minutes 20                       # SQLite
    nice -n 5 .venv/bin/python bench/chaos.py --minutes 20 --database postgres --processes 2 3

What happens:

* ``--tables`` channels, each playing match after match (``/capsa new seats:4 rounds:5
  countdown:30``, a second person joins, the host starts; two computers fill the seats).
  Each person of each match has a way of playing: ``quick`` (sets the rows with the
  selects and submits), ``slow`` (the same after 3-20 s), ``absent`` (never answers: the
  countdown fills the hand in; an absent host never presses Next, so the pause deals) and
  ``double`` (clicks Submit twice at once, then the locked DM's Submit again; as host,
  Next twice, and the previous showdown's Next; and the old lobby's Join). Stale clicks
  are made from the custom_id the message had, as a client that was not redrawn sends it.
* Every ``--kill-every`` seconds (at random within the range) a random bot process is
  killed: SIGKILL of its process group mostly, SIGTERM (``--term-share``) sometimes, and
  started again at once. On SQLite there is one process; on PostgreSQL ``N`` with
  ``SHARD_COUNT=N``, ``SHARD_IDS=i`` and a guild on each shard, as bench/load.py runs them.
* PostgreSQL (``--pg-restart``, on by default): the run uses a private cluster of its own
  (``CAPSA_PG_PORT=<free> CAPSA_PG_DIR=/tmp/capsa-chaos-pg bash scripts/postgres``; the
  machine's server is never restarted) and stops it for ``--outage`` s once, halfway.
* SQLite (``--disk-full``, on by default): the database lives in a small tmpfs mounted for
  the run (root only); halfway its write-ahead log is checkpointed and truncated and a
  filler file takes every free byte for ``--outage`` s, so no write fits (SQLite:
  "database or disk is full"). Where no tmpfs can be mounted, this part is skipped with a
  message (a read-only bind mount is no way out: Linux refuses to make one read-only while
  the bot has its files open for writing).
* After ``--minutes``, the kills stop, every table plays its match to its end (at most
  ``--drain`` s; what is left then is cancelled), and the bots stop.

The checks (each failure is a violation; the run exits 1 if there is any):

* every round of every match scored exactly once (its ledger, ``round_scores``, one row a
  seat, summing to zero; so do the hands' points); every ended match has all its rounds;
* every scored round's showdown posted exactly once, every ended match's standings exactly
  once, no round's DM dealt twice to a person (from the fake's record);
* every showdown's round points are the engine's score of the stored hands, and the
  head-to-head lines are the engine's for the rows it shows;
* no table stuck: each step (deal round 1, the DMs, the close, the showdown, the next deal,
  the standings) happens within ``--normal`` s of being due (a DM whose person's DM channel
  waited for the fake's DM-open bucket is due from the bucket's reopening: Discord's limit,
  see ``dm_open_waits``), or, when a disruption came in
  between, within the targets of capsa/timings.py's issue: 5 s after the restarted process
  is ready on SQLite, 15 s after the death on PostgreSQL with another process alive (with
  none: the later of that and 5 s after the restarted one is ready), 15 s after the
  PostgreSQL server is back, 5 s after the SQLite disk has room again; ``--margin`` s are
  allowed on top for a loaded machine. A disruption excuses only a step still pending and
  not late yet when it began (a DM stuck in a live process is late though a kill later
  frees it). A step never done is a violation, and so is one a cancelled match left
  undone past its target (a builder DM that never came, among them);
* every interaction acknowledged within 3 s, unless the process its shard goes to was dead
  at some moment of those 3 s; no answer is the bot's "Something went wrong" (a database
  outage is answered with its own "try again").

The printed table: matches (ended / cancelled), rounds scored, kills by signal, takeovers
(steps that were due or under way when a process died and were done after it), the longest
stall (and where), the longest delay after a disruption's target point, violations.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import person_rows, pg_admin_url, pg_check, pg_create, pg_drop  # noqa: E402
from capsa.cards import parse_cards  # noqa: E402
from capsa.i18n import t  # noqa: E402
from capsa.presets import get_preset  # noqa: E402
from capsa.scoring import Seat, score_round  # noqa: E402
from capsa.timings import NEXT_ROUND_SECONDS  # noqa: E402
from tests.e2e import spawn_bot_process, stop_bot_process  # noqa: E402
from tests.e2e_extra import (  # noqa: E402
    assert_showdown_is_engines,
    engine_result,
    field_points,
    is_open_lobby,
)
from tests.fakediscord import (  # noqa: E402
    FakeChannel,
    FakeDiscord,
    FakeMessage,
    FakeTimeout,
    FakeUser,
    InteractionResult,
    eventually,
    only_localhost,
)
from tests.fakediscord.interactions import COMPONENT  # noqa: E402

ROUNDS = 5
COUNTDOWN = 30
PRESET = get_preset("standard")
ACK_SECONDS = 3.0
SQLITE_TARGET = 5.0  # a due step after the restarted process is ready (SQLite)
PG_TARGET = 15.0  # a due step after the death, another process alive (PostgreSQL)
STYLES = ("quick", "slow", "absent", "double")
STYLE_WEIGHTS = (0.5, 0.2, 0.1, 0.2)
ERROR_TEXT = t("ans.error", "en")
TRY_AGAIN = (t("ans.db_down", "en"), t("ans.restarting", "en"))  # an outage, a restart
ROUND_OVER = t("hand.round_over", "en")
ALREADY = t("hand.already", "en")
SHOWN_SECONDS = 15.0  # a pick, a Submit, Next: what a person waits to see it before again


def showdown_title(number: int) -> str:
    return f"Showdown · round {number}/{ROUNDS}"


def is_lobby(message: FakeMessage) -> bool:
    return message.text().startswith("Capsa Susun table")


def is_standings(message: FakeMessage) -> bool:
    return "final standings" in message.text()


def is_builder_of(number: int, after: int) -> Callable[[FakeMessage], bool]:
    tag = f"round {number}/{ROUNDS}"
    return lambda m: m.id > after and tag in m.text() and "Submit" in m.button_labels()


# --- the bot processes ----------------------------------------------------------------------


@dataclass
class Slot:
    """One bot process (a shard on PostgreSQL): its runs, each from ready to death."""

    index: int
    env: dict[str, str]
    log: Path
    proc: asyncio.subprocess.Process | None = None
    spans: list[list[float]] = field(default_factory=list)  # [ready, died or inf]

    def alive_at(self, when: float) -> bool:
        return any(start <= when < end for start, end in self.spans)

    def dead_within(self, start: float, end: float) -> bool:
        """Was this process not running at some moment of [start, end]?"""
        covered = sorted((a, b) for a, b in self.spans if b > start and a < end)
        at = start
        for a, b in covered:
            if a > at:
                return True
            at = max(at, b)
        return at < end


@dataclass
class Disruption:
    """A kill (and restart), a database outage: steps due meanwhile have until ``target``."""

    kind: str  # "SIGKILL 0", "SIGTERM 1", "postgres restart", "disk full"
    start: float
    end: float = float("inf")  # the restarted process ready / the database back
    target: float = float("inf")  # steps pending meanwhile are done by then
    took_over: int = 0


class Cluster:
    """The bot processes of a run, the fake, and the disruptions made to them."""

    def __init__(self, fake: FakeDiscord, slots: list[Slot], db: Path, postgres: bool) -> None:
        self.fake = fake
        self.slots = slots
        self.db = db
        self.postgres = postgres
        self.disruptions: list[Disruption] = []
        self.kills: Counter[str] = Counter()
        self.terms: list[tuple[float, float | None]] = []  # SIGTERM: gateway closed, exited
        self.locks = {slot.index: asyncio.Lock() for slot in slots}  # a slot killed at a time

    async def start(self, slot: Slot, timeout: float = 90.0) -> float:
        """Start ``slot``'s process; returns when its shard identified (wall time). A bot
        that exits at start (its database out of reach: it says so and exits 2) is started
        again a second later, as a service manager restarts it."""
        seen = self._sessions(slot)
        slot.proc = await spawn_bot_process(self.fake, self.db, slot.log, env=slot.env)
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while self._sessions(slot) <= seen:
            if loop.time() > end:
                tail = slot.log.read_text(errors="replace").strip().splitlines()[-3:]
                raise RuntimeError(
                    f"bot {slot.index} did not identify within {timeout:g} s: {' | '.join(tail)}"
                )
            if slot.proc.returncode is not None:
                await asyncio.sleep(1)
                slot.proc = await spawn_bot_process(self.fake, self.db, slot.log, env=slot.env)
            await asyncio.sleep(0.02)
        ready = time.time()
        slot.spans.append([ready, float("inf")])
        return ready

    def _serving(self, slot: Slot) -> bool:
        """Whether ``slot``'s process is still connected to the gateway."""
        shard = slot.index if len(self.slots) > 1 else 0
        return any(
            s.shard[0] == shard and s.conn is not None and not s.conn.closed
            for s in self.fake.gateway.sessions
        )

    def _sessions(self, slot: Slot) -> set[str]:
        """The gateway sessions of ``slot``'s shard (a new one: its process identified)."""
        shard = slot.index if len(self.slots) > 1 else 0
        return {s.id for s in self.fake.gateway.sessions if s.shard[0] == shard}

    async def kill(self, slot: Slot, sig: signal.Signals) -> None:
        """Kill ``slot``'s process with ``sig`` and start it again at once (another slot may
        be killed meanwhile: two deaths in a row)."""
        async with self.locks[slot.index]:
            proc = slot.proc
            assert proc is not None
            died = time.time()
            others = any(s.alive_at(died) for s in self.slots if s is not slot)
            event = Disruption(f"{sig.name} {slot.index}", died)
            self.disruptions.append(event)
            slot.spans[-1][1] = died  # dead from the signal on (the people's scripts ask now)
            if sig == signal.SIGKILL:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                await proc.wait()
            else:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, sig)
                # Dead to Discord from the signal on: it lets its posts under way land, but
                # discord.py closes its HTTP session at once (a click then finds "Session is
                # closed", unanswered), while its gateway connection may stay open for seconds
                # (the fake's then still hands it clicks). Started again once it is gone.
                stopped = asyncio.create_task(proc.wait())
                while self._serving(slot) and not stopped.done():
                    await asyncio.sleep(0.02)
                closed = time.time()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stopped, 20)
                exited = time.time() if stopped.done() else None
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                await proc.wait()
                self.terms.append((closed - died, None if exited is None else exited - died))
            self.kills[sig.name] += 1
            ready = await self.start(slot)
            event.end = ready
            if self.postgres and others:  # another process takes over (the target)
                event.target = event.start + PG_TARGET
            elif self.postgres:  # none alive: the restarted one, once the dead one is known dead
                event.target = max(ready + SQLITE_TARGET, event.start + PG_TARGET)
            else:
                event.target = ready + SQLITE_TARGET

    async def stop_all(self, grace: float = 20.0) -> None:
        async def one(slot: Slot) -> None:
            if slot.proc is None:
                return
            await stop_bot_process(slot.proc, grace=grace)  # SIGINT, then SIGKILL
            if slot.spans and slot.spans[-1][1] == float("inf"):
                slot.spans[-1][1] = time.time()

        await asyncio.gather(*(one(s) for s in self.slots))


async def kill_loop(cluster: Cluster, args: argparse.Namespace, until: float) -> None:
    """A kill every ``--kill-every`` s: with several processes from the kill before (not
    from its restart: a slow start on a loaded machine does not thin the kills out, and
    another process may die while one starts; a slot still starting is killed once it is
    up), with one from its restart (the table gets on between the kills)."""
    rng = random.Random(args.seed + 1)
    low, high = args.kill_every
    kills: list[asyncio.Task[None]] = []
    try:
        while True:
            wait = rng.uniform(low, high)
            if time.time() + wait >= until:
                break
            await asyncio.sleep(wait)
            slot = rng.choice(cluster.slots)
            sig = signal.SIGTERM if rng.random() < args.term_share else signal.SIGKILL
            kills.append(asyncio.create_task(cluster.kill(slot, sig)))
            if len(cluster.slots) == 1:
                await kills[-1]
    finally:
        await asyncio.gather(*kills)


# --- outages: the PostgreSQL server, a full disk ----------------------------------------------


def private_postgres(where: str) -> str:
    """A private cluster in ``where`` (never the machine's server): its admin URL."""
    env = os.environ | {"CAPSA_PG_PORT": str(free_port()), "CAPSA_PG_DIR": where}
    out = subprocess.run(
        ["bash", str(ROOT / "scripts/postgres")],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("CAPSA_TEST_DATABASE_URL="))
    return line.split("=", 1)[1]


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def pg_ctl(where: str, *args: str) -> None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    if not found:
        raise RuntimeError("no pg_ctl: the private cluster cannot be restarted")
    owner = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    subprocess.run(
        [*owner, str(found[-1]), "-D", f"{where}/data", *args],
        check=True,
        capture_output=True,
    )


async def pg_outage(cluster: Cluster, where: str, seconds: float) -> None:
    """The private cluster in ``where`` stopped (fast: its connections cut) for ``seconds``,
    then started again on the same port."""
    port = Path(where, "port").read_text().strip()
    event = Disruption("postgres restart", time.time())
    cluster.disruptions.append(event)
    await asyncio.to_thread(pg_ctl, where, "-m", "fast", "-w", "stop")
    await asyncio.sleep(seconds)
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {where}"
    log = f"{where}/server.log"
    await asyncio.to_thread(pg_ctl, where, "-l", log, "-w", "-t", "60", "-o", options, "start")
    event.end = time.time()
    event.target = event.end + PG_TARGET


class DiskFull:
    """The database's directory: a small tmpfs, filled up on demand (root only)."""

    def __init__(self, where: Path, size_mb: int) -> None:
        self.where = where
        self.size_mb = size_mb
        self.mounted = False
        self.why_not = ""
        self.left = -1  # bytes free once filled (0: full)
        self.wal_emptied = False

    def mount(self) -> bool:
        self.where.mkdir(parents=True, exist_ok=True)
        if os.getuid() != 0 or shutil.which("mount") is None:
            self.why_not = "not root: no tmpfs can be mounted"
            return False
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={self.size_mb}m", "tmpfs", str(self.where)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            self.why_not = f"mount -t tmpfs failed: {done.stderr.strip()}"
            return False
        self.mounted = True
        return True

    def unmount(self) -> None:
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.where)], capture_output=True)
            self.mounted = False

    def fill(self, filler: Path) -> int:
        """Write ``filler`` until the file system has no byte left; returns the bytes free
        then (0). Unbuffered: a buffered file keeps the part of a block that did not fit and
        raises ENOSPC again when it is closed (the bench's own crash, seed 11 among others)."""
        block = b"\0" * 65536
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            while True:
                try:
                    os.write(fd, block)  # a short write fills the last pages; the next fails
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
        finally:
            os.close(fd)
        free = os.statvfs(self.where)
        return free.f_bavail * free.f_frsize

    @staticmethod
    def empty_wal(db: Path) -> bool:
        """Checkpoint the database and truncate its write-ahead log, so that the next write
        needs a new byte on the disk: a full disk leaves SQLite the room its log already
        has, and writes that fit there would go through (earlier runs filled the disk
        without the bot ever meeting it). Whether it was truncated (not busy)."""
        conn = sqlite3.connect(db, timeout=5)
        try:
            for _ in range(50):
                busy, _log, _done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                if not busy:
                    return True
                time.sleep(0.02)
            return False
        finally:
            conn.close()

    async def outage(self, cluster: Cluster, seconds: float) -> None:
        filler = self.where / "filler"
        event = Disruption("disk full", time.time())
        cluster.disruptions.append(event)
        try:
            self.wal_emptied = await asyncio.to_thread(self.empty_wal, cluster.db)
            self.left = await asyncio.to_thread(self.fill, filler)
            await asyncio.sleep(seconds)
        finally:
            filler.unlink(missing_ok=True)
            event.end = time.time()
            event.target = event.end + SQLITE_TARGET


# --- the people -----------------------------------------------------------------------------


@dataclass
class Notes:
    """What the people saw that was wrong (besides what the checks find at the end)."""

    problems: list[str] = field(default_factory=list)
    matches_started: int = 0
    stale_clicks: int = 0
    # each pick or Submit: how long until the DM showed it
    shown_after: list[float] = field(default_factory=list)


class Table:
    """One channel, match after match, with its host and guest."""

    def __init__(
        self,
        index: int,
        fake: FakeDiscord,
        chan: FakeChannel,
        host: FakeUser,
        guest: FakeUser,
        notes: Notes,
        rng: random.Random,
        styles: tuple[str, ...],
    ) -> None:
        self.index = index
        self.fake = fake
        self.chan = chan
        self.host = host
        self.guest = guest
        self.notes = notes
        self.rng = rng
        self.styles = styles
        self.floor = 0  # messages of this channel before the current match
        self.dm_floor: dict[FakeUser, int] = {}  # each person's DMs before it
        self.began = 0.0  # the run's start (wall time): its times are told from it
        # whether the process serving the people's DMs lived all through [start, end]
        self.dm_alive: Callable[[float, float], bool] = lambda start, end: True

    def problem(self, text: str) -> None:
        clicks = [
            f"{ix.name!r} by {ix.user.name} -> {ix.text()[:60]!r}"
            for ix in (self.host.interactions + self.guest.interactions)[-4:]
        ]
        self.notes.problems.append(
            f"table {self.index} (#{self.chan.name}): {text}; last clicks: {'; '.join(clicks)}"
        )

    def style(self) -> str:
        weights = [STYLE_WEIGHTS[STYLES.index(s)] for s in self.styles]
        return self.rng.choices(self.styles, weights)[0]

    async def answered(
        self, make: Callable[[], Awaitable[InteractionResult]], tries: int = 6
    ) -> InteractionResult | None:
        """Make an interaction until the bot acknowledges one (a process may be dead)."""
        for _ in range(tries):
            ix = await make()
            with contextlib.suppress(FakeTimeout):
                await ix.wait(ACK_SECONDS + 1)
            if ix.answered:
                return ix
            await asyncio.sleep(1 + self.rng.random())
        return None

    async def stale(self, user: FakeUser, message: FakeMessage, custom_id: str) -> None:
        """A click on what ``message`` once showed (its custom_id kept by an old client)."""
        data = {"custom_id": custom_id, "component_type": 2}
        ix = InteractionResult(
            self.fake, COMPONENT, user, message.channel, data, source=message, name="stale"
        )
        await user._send(ix, False, 0)
        self.notes.stale_clicks += 1

    def newest(self, pred: Callable[[FakeMessage], bool]) -> FakeMessage | None:
        found = [m for m in self.chan.history if m.id > self.floor and pred(m)]
        return found[-1] if found else None

    async def wait_for(self, pred: Callable[[FakeMessage], bool], timeout: float) -> FakeMessage:
        floor = self.floor
        return await self.fake.wait_for_message(
            self.chan, lambda m: m.id > floor and pred(m), timeout
        )

    async def run(self, until: float, drain: float) -> None:
        while time.time() < until:
            try:
                await asyncio.wait_for(self.match(), (ROUNDS + 1) * (COUNTDOWN + 120))
            except (TimeoutError, FakeTimeout, LookupError, RuntimeError) as exc:
                self.problem(f"{type(exc).__name__}: {str(exc)[:200]}")
                await self.cancel()
        del drain

    async def cancel(self) -> None:
        await self.answered(lambda: self.host.slash("capsa cancel", channel=self.chan, wait=False))
        await asyncio.sleep(1)

    async def match(self) -> None:
        host, guest = self.host, self.guest
        self.floor = max((m.id for m in self.chan.history), default=0)
        self.dm_floor = {u: max((m.id for m in u.dm.history), default=0) for u in (host, guest)}
        opened = await self.answered(
            lambda: host.slash(
                "capsa new",
                channel=self.chan,
                seats=4,
                rounds=ROUNDS,
                countdown=COUNTDOWN,
                wait=False,
            )
        )
        if opened is None:
            raise RuntimeError("/capsa new was never answered")
        try:
            lobby = await self.wait_for(is_open_lobby, 15)
        except FakeTimeout:  # a table of before still runs here (its end was not seen)
            await self.cancel()
            return
        self.notes.matches_started += 1
        styles = {host: self.style(), guest: self.style()}
        join_id = lobby.find_component("Join", (2,))["custom_id"]
        for _ in range(4):  # a Join is acknowledged first and stored after: seen in the lobby
            if await self.answered(lambda: guest.click(lobby, "Join", wait=False)) is None:
                raise RuntimeError("Join was never answered")
            with contextlib.suppress(FakeTimeout):
                await eventually(lambda: guest.mention in lobby.text(), timeout=8)
                break
        else:
            raise RuntimeError("Join never took: the guest is not in the lobby")
        if "Start" not in lobby.button_labels():
            raise RuntimeError(f"no Start on the lobby: {lobby.text()[:100]}")
        start = await self.answered(lambda: host.click(lobby, "Start", wait=False))
        if start is None:
            raise RuntimeError("Start was never answered")
        if styles[guest] == "double":
            await self.stale(guest, lobby, join_id)
        previous: FakeMessage | None = None
        for number in range(1, ROUNDS + 1):
            await asyncio.gather(*(self.play(user, styles[user], number) for user in styles))
            showdown = await self.wait_for(
                lambda m, n=number: showdown_title(n) in m.text(), COUNTDOWN + 90
            )
            if number < ROUNDS:
                await self.next_round(showdown, previous, styles[host])
            previous = showdown
        await self.wait_for(is_standings, 60)

    async def play(self, user: FakeUser, style: str, number: int) -> None:
        floor = self.dm_floor[user]  # (the match's: its DM may come before this starts)
        dm = await self.fake.wait_for_message(user.dm, is_builder_of(number, floor), COUNTDOWN + 90)
        if style == "absent":
            return
        if style == "slow":
            await asyncio.sleep(self.rng.uniform(3, 20))
        back, middle = person_rows(dm, self.rng.randrange(1 << 30))
        for select, cards in (("Back (5)", back), ("Middle (5)", middle)):
            # as a person: the next pick once the DM shows this one (the draft lives in the
            # message's custom_ids: a click on the message before it is redrawn drops it)
            if not await self.settle(
                user,
                dm,
                f"{select} in round {number}",
                lambda s=select, c=cards: user.select(dm, s, c, wait=False),
            ):
                return
        if "Submit" not in dm.button_labels():
            return  # the countdown ran out meanwhile
        submit_id = dm.find_component("Submit", (2,))["custom_id"]
        if style == "double":
            await asyncio.gather(
                user.click(dm, "Submit", wait=False), user.click(dm, "Submit", wait=False)
            )
            await asyncio.sleep(1)
        await self.settle(
            user,
            dm,
            f"Submit in round {number}",
            lambda: user.click(dm, "Submit", wait=False),
            locks=True,
        )
        if style == "double":
            await self.stale(user, dm, submit_id)  # the locked DM's Submit

    async def settle(
        self,
        user: FakeUser,
        dm: FakeMessage,
        what: str,
        make: Callable[[], Awaitable[InteractionResult]],
        *,
        locks: bool = False,
        tries: int = 10,
    ) -> bool:
        """Make a builder interaction until the DM shows it took (edited; ``locks``: locked,
        Submit gone), as a person who waits to see each pick: again when nothing showed
        within ``SHOWN_SECONDS`` (its process died before the edit: else that is a problem,
        a stall of a live bot) or the answer was "try again" (an outage, a restart); "the
        round is over" ends it (the countdown ran out), any other answer is a problem.
        False: the DM was locked first (the countdown ran out), or it never took."""
        began = time.time()
        for _ in range(tries):
            if "Submit" not in dm.button_labels():
                return locks  # locked: by this Submit before it, or by the countdown
            before = dm.edits
            clicked = time.time()
            ix = await make()

            def took(before: int = before) -> bool:
                if locks:
                    return "Submit" not in dm.button_labels()
                return dm.edits > before

            with contextlib.suppress(FakeTimeout):
                await eventually(
                    lambda ix=ix, took=took, at=clicked: (
                        took()
                        or ix.followups
                        or ix.expired
                        or (not ix.answered and time.time() > at + ACK_SECONDS + 1)
                    ),
                    timeout=SHOWN_SECONDS,
                    interval=0.05,
                )
            if took():
                self.notes.shown_after.append(time.time() - began)
                return True
            answer = ix.followups[0].text() if ix.followups else ""
            if ROUND_OVER in answer:
                return False  # the countdown ran out while the picks were made again
            if locks and ALREADY in answer:  # stored by a process that died before the lock
                return True
            if answer and not any(text in answer for text in TRY_AGAIN):
                self.problem(f"{user.name}'s {what} was answered {answer[:100]!r}")
                return False
            if not answer and self.dm_alive(clicked, time.time()):
                self.problem(
                    f"{user.name}'s {what} at +{clicked - self.began:.1f} s"
                    f" {'acknowledged' if ix.answered else 'not acknowledged'} by a live"
                    f" process, and not shown within {SHOWN_SECONDS:g} s"
                )
            await asyncio.sleep(1 + self.rng.random())
        return False  # (each try a live process did not show is a problem above)

    async def next_round(
        self, showdown: FakeMessage, previous: FakeMessage | None, style: str
    ) -> None:
        if style == "absent" or "Next round" not in showdown.button_labels():
            return  # the pause deals the next round
        if style == "slow":
            await asyncio.sleep(self.rng.uniform(1, 8))
        if "Next round" not in showdown.button_labels():
            return
        next_id = showdown.find_component("Next round", (2,))["custom_id"]
        if style == "double":

            async def press() -> None:  # (a button gone meanwhile: pressed as a client not
                with contextlib.suppress(LookupError):  # redrawn yet would, its old id)
                    await self.host.click(showdown, "Next round", wait=False)
                    return
                await self.stale(self.host, showdown, next_id)

            await asyncio.gather(press(), press())
            if previous is not None and previous.edits >= 0:
                await self.stale(self.host, previous, self.previous_next or next_id)
        # as a person: pressed again while the button stays (a process that died before
        # it took the press: the button goes once the press is stored), or "try again"
        wait = style == "double"  # (pressed twice already)
        for _ in range(8):
            if wait:
                with contextlib.suppress(FakeTimeout):
                    await eventually(
                        lambda: "Next round" not in showdown.button_labels(),
                        timeout=SHOWN_SECONDS,
                        interval=0.05,
                    )
            wait = True
            if "Next round" not in showdown.button_labels():
                break
            with contextlib.suppress(LookupError):  # (gone just now: the round started)
                ix = await self.host.click(showdown, "Next round", wait=False)
                with contextlib.suppress(FakeTimeout):
                    await eventually(lambda ix=ix: ix.answered or ix.expired, ACK_SECONDS + 1)
                if not ix.answered:  # its process is dead: again soon
                    await asyncio.sleep(1 + self.rng.random())
                    wait = False
                    continue
                with contextlib.suppress(FakeTimeout):
                    await eventually(lambda ix=ix: ix.followups or ix.expired, timeout=2)
                answer = ix.followups[0].text() if ix.followups else ""
                if answer and not any(text in answer for text in TRY_AGAIN):
                    break  # (refused: the round has started, or is being dealt)
        self.previous_next = next_id

    previous_next: str | None = None


# --- the checks -----------------------------------------------------------------------------


@dataclass
class Step:
    """A step of a table: when it was due and when it happened (wall time; None: never).
    ``cut``: when it stopped being needed (its match cancelled): a step not done by then
    is judged as if done then, late only if its target had passed."""

    where: str
    due: float
    done: float | None
    cut: float | None = None


@dataclass
class Report:
    label: str
    minutes: float
    matches: Counter[str] = field(default_factory=Counter)
    rounds: int = 0
    kills: Counter[str] = field(default_factory=Counter)
    takeovers: int = 0
    outages: list[str] = field(default_factory=list)
    longest_stall: tuple[float, str] = (0.0, "-")
    longest_after_target: tuple[float, str] = (0.0, "-")
    interactions: int = 0
    excused: int = 0
    ack_p99: float = 0.0
    shown_after: list[float] = field(default_factory=list)
    terms: list[tuple[float, float | None]] = field(default_factory=list)
    stale_clicks: int = 0
    people_hands: Counter[str] = field(default_factory=Counter)  # set by them, by the countdown
    dm_open_waits: list[float] = field(default_factory=list)  # s a round's DM was due from later
    violations: list[str] = field(default_factory=list)
    log_errors: int = 0
    began: float = 0.0  # the kills' start (wall time): the run's times are told from it

    def term_times(self) -> str:
        """How long a SIGTERM'd process kept its gateway connection, and took to exit."""
        if not self.terms:
            return "-"
        gateway = sorted(g for g, _ in self.terms)
        exits = sorted(e for _, e in self.terms if e is not None)
        killed = sum(1 for _, e in self.terms if e is None)
        out = (
            f"gateway closed after p50 {gateway[len(gateway) // 2]:.1f} s, max {gateway[-1]:.1f} s"
        )
        if exits:
            out += f"; exited after p50 {exits[len(exits) // 2]:.1f} s, max {exits[-1]:.1f} s"
        return out + (f"; {killed} SIGKILLed after 20 s" if killed else "")

    def shown(self) -> str:
        """How long the people's picks and Submits took to show in their DMs (from the
        first click; tries again included)."""
        if not self.shown_after:
            return "-"
        times = sorted(self.shown_after)
        p50, p99 = (times[min(len(times) - 1, int(q * len(times)))] for q in (0.5, 0.99))
        return f"{len(times)}: p50 {p50:.2f} s, p99 {p99:.2f} s, longest {times[-1]:.1f} s"

    def table(self) -> str:
        kills = ", ".join(f"{k} {v}" for k, v in sorted(self.kills.items())) or "0"
        rows = [
            ("run", self.label),
            ("duration", f"{self.minutes:.1f} min of kills"),
            ("matches", f"{sum(self.matches.values())} ({dict(self.matches)})"),
            ("rounds scored", str(self.rounds)),
            (
                "people's hands",
                f"{self.people_hands['submitted']} submitted, {self.people_hands['auto']} set by"
                f" the countdown, {self.people_hands['open']} not set",
            ),
            ("kills", f"{sum(self.kills.values())} ({kills})"),
            ("after a SIGTERM", self.term_times()),
            ("takeovers", str(self.takeovers)),
            ("outages", "; ".join(self.outages) or "-"),
            ("longest stall", f"{self.longest_stall[0]:.1f} s at {self.longest_stall[1]}"),
            (
                "latest after a target",
                f"{self.longest_after_target[0]:.1f} s at {self.longest_after_target[1]}",
            ),
            (
                "interactions",
                f"{self.interactions} ({self.excused} to a dead process; ack p99"
                f" {self.ack_p99 * 1000:.0f} ms; {self.stale_clicks} stale clicks)",
            ),
            ("picks and Submits shown", self.shown()),
            (
                "DMs behind the DM-open limit",
                f"{len(self.dm_open_waits)} (due from the bucket's reopening, up to"
                f" {max(self.dm_open_waits, default=0.0):.1f} s later)",
            ),
            ("bot log ERROR lines", str(self.log_errors)),
            ("violations", str(len(self.violations))),
        ]
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)


class Records:
    """The database's rows the checks need, from either backend."""

    def __init__(self) -> None:
        self.matches: list[dict[str, Any]] = []
        self.rounds: list[dict[str, Any]] = []
        self.hands: list[dict[str, Any]] = []
        self.scores: list[dict[str, Any]] = []
        self.seats: list[dict[str, Any]] = []

    QUERIES = {
        "matches": "SELECT id, channel_id, status, created_at, started_at, finished_at,"
        " lobby_message_id, standings_message_id, rounds_total, seats_count FROM matches",
        "rounds": "SELECT id, match_id, number, status, deadline, created_at, scored_at,"
        " showdown_message_id FROM rounds",
        "hands": "SELECT round_id, seat, back, middle, front, declare, fouled, auto,"
        " submitted_at, points, dm_message_id FROM hands",
        "scores": "SELECT round_id, seat, match_id, points FROM round_scores",
        "seats": "SELECT match_id, seat, user_id, name FROM match_seats",
    }

    @classmethod
    def from_sqlite(cls, path: Path) -> Records:
        out = cls()
        conn = sqlite3.connect(path)
        conn.row_factory = sqlite3.Row
        try:
            for name, sql in cls.QUERIES.items():
                setattr(out, name, [dict(r) for r in conn.execute(sql)])
        finally:
            conn.close()
        return out

    @classmethod
    async def from_postgres(cls, url: str) -> Records:
        out = cls()
        conn = await asyncpg.connect(url)
        try:
            for name, sql in cls.QUERIES.items():
                rows = [dict(r) for r in await conn.fetch(sql)]
                for row in rows:
                    for key, value in row.items():
                        if hasattr(value, "timestamp"):
                            row[key] = value.timestamp()
                setattr(out, name, rows)
        finally:
            await conn.close()
        return out


def seat_names(records: Records) -> dict[tuple[int, int], str]:
    return {(s["match_id"], s["seat"]): s["name"] for s in records.seats}


def check(
    fake: FakeDiscord,
    records: Records,
    cluster: Cluster,
    channel_guild: dict[int, int],
    shard_count: int,
    offset: float,
    args: argparse.Namespace,
    report: Report,
) -> None:
    bad = report.violations.append

    def at(when: float) -> str:
        """A moment of the run, and the disruptions around it."""
        near = [
            f"{e.kind} at +{e.start - report.began:.1f} s"
            for e in cluster.disruptions
            if e.start - 15 <= when <= e.target + 15
        ]
        return f"+{when - report.began:.1f} s" + (f" ({', '.join(near)})" if near else "")

    rounds_of: defaultdict[int, list[dict[str, Any]]] = defaultdict(list)
    for rnd in records.rounds:
        rounds_of[rnd["match_id"]].append(rnd)
    hands_of: defaultdict[int, list[dict[str, Any]]] = defaultdict(list)
    for hand in records.hands:
        hands_of[hand["round_id"]].append(hand)
    scores_of: defaultdict[int, list[dict[str, Any]]] = defaultdict(list)
    for score in records.scores:
        scores_of[score["round_id"]].append(score)
    humans = {(s["match_id"], s["seat"]): s["user_id"] for s in records.seats if s["user_id"]}
    names = seat_names(records)
    opened_late = dm_open_waits(fake)
    steps: list[Step] = []

    # the fake's messages of each match: between its lobby and the next match's lobby
    by_channel: defaultdict[int, list[dict[str, Any]]] = defaultdict(list)
    for match in records.matches:
        by_channel[match["channel_id"]].append(match)
    span: dict[int, tuple[int, int]] = {}

    def lobby(match: dict[str, Any]) -> int:
        """Its lobby message; one whose id was not stored (the process died between the
        post and the store): the channel's first message from the match's creation on."""
        if match["lobby_message_id"]:
            return int(match["lobby_message_id"])
        after = [
            m.id
            for m in fake.channels[match["channel_id"]].history
            if m.created_at >= match["created_at"] - 0.5 and is_lobby(m)
        ]  # (a lobby: the match before's standings may come a moment after its creation)
        return min(after, default=1 << 62)

    for matches in by_channel.values():
        matches.sort(key=lambda m: m["id"])
        for i, match in enumerate(matches):
            high = lobby(matches[i + 1]) if i + 1 < len(matches) else 1 << 62
            span[match["id"]] = (lobby(match), high)

    for match in records.matches:
        mid, status = match["id"], match["status"]
        report.matches[status] += 1
        where = f"match {mid} (#{fake.channels[match['channel_id']].name})"
        low, high = span[mid]
        chan = fake.channels[match["channel_id"]]
        posted = [m for m in chan.history if low < m.id < high and not m.ephemeral]
        rounds = sorted(rounds_of[mid], key=lambda r: r["number"])
        cut = match["finished_at"] if status == "cancelled" else None
        if status in ("lobby", "playing", "finished"):
            bad(f"{where}: still {status} at the end")
        if status == "ended" and len(rounds) != match["rounds_total"]:
            bad(f"{where}: ended with {len(rounds)} of {match['rounds_total']} rounds")
        if status == "ended":
            standings = [m for m in posted if is_standings(m)]
            if len(standings) != 1:
                times = ", ".join(at(m.created_at) for m in standings)
                bad(f"{where}: the final standings posted {len(standings)} times: {times}")
        if rounds and match["started_at"]:
            steps.append(
                Step(f"{where} deal round 1", match["started_at"], rounds[0]["created_at"])
            )
        elif match["started_at"]:
            steps.append(Step(f"{where} deal round 1", match["started_at"], None, cut))
        for i, rnd in enumerate(rounds):
            here = f"{where} round {rnd['number']}"
            hands = hands_of[rnd["id"]]
            scored = rnd["status"] in ("scored", "shown")
            if scored:
                report.rounds += 1
                ledger = scores_of[rnd["id"]]
                if len(ledger) != match["seats_count"]:
                    bad(f"{here}: {len(ledger)} ledger rows for {match['seats_count']} seats")
                if abs(sum(s["points"] for s in ledger)) > 1e-6:
                    bad(f"{here}: the ledger sums to {sum(s['points'] for s in ledger)}")
                if abs(sum(h["points"] or 0 for h in hands)) > 1e-6:
                    bad(f"{here}: the hands' points sum to {sum(h['points'] for h in hands)}")
            elif status == "ended" or (status == "cancelled" and i + 1 < len(rounds)):
                bad(f"{here}: never scored (status {rnd['status']}, match {status})")
            # DMs: each person's builder for this round, once
            for hand in hands:
                user_id = humans.get((mid, hand["seat"]))
                if user_id is None:
                    continue
                set_by = "auto" if hand["auto"] else "submitted" if hand["submitted_at"] else "open"
                report.people_hands[set_by] += 1
                dms = fake.dm_channels.get(user_id)
                tag = f"round {rnd['number']}/{ROUNDS}"
                sent = [
                    m
                    for m in (dms.history if dms else [])
                    if low < m.id < high and tag in m.text() and m.author is fake.bot_user
                    and (m.id == hand["dm_message_id"] or "Submit" in m.button_labels()
                         or "Locked in" in m.text())
                ]  # fmt: skip
                if len(sent) > 1:
                    times = ", ".join(at(m.created_at) for m in sent)
                    bad(f"{here}: {len(sent)} DMs dealt to seat {hand['seat']}: {times}")
                # the DM's step: dealt when the round was, came when Discord has it (a
                # DM that never came is a step never done, however the round ended)
                dm_step = f"{here} DM seat {hand['seat']}"
                if hand["dm_message_id"] is None:
                    if hand["submitted_at"] and not hand["auto"]:
                        continue  # played without it (the channel's builder)
                    if status != "cancelled" and rnd["status"] != "dealing":
                        bad(f"{dm_step}: never came (round {rnd['status']}, match {status})")
                    steps.append(Step(dm_step, rnd["created_at"], None, cut))
                elif hand["dm_message_id"] not in fake.messages:
                    bad(f"{dm_step}: stored as message {hand['dm_message_id']}, not Discord's")
                else:
                    came = fake.messages[hand["dm_message_id"]].created_at
                    due = rnd["created_at"]
                    spent = opened_late.get(user_id)
                    if spent is not None and spent[0] - 1.0 <= due < spent[1] <= came:
                        report.dm_open_waits.append(spent[1] - due)
                        due = spent[1]
                    steps.append(Step(dm_step, due, came))
            # the close: at the deadline, or once the last hand is in
            submitted = [h["submitted_at"] for h in hands if not h["auto"]]
            if (
                hands
                and all(h["submitted_at"] for h in hands)
                and not any(h["auto"] for h in hands)
            ):
                close_due = min(rnd["deadline"], max(submitted))
            else:
                close_due = rnd["deadline"]
            steps.append(Step(f"{here} close", close_due, rnd["scored_at"], cut))
            # the showdown, once; its numbers the engine's
            title = showdown_title(rnd["number"])
            shown = [m for m in posted if title in m.text()]
            if scored and status != "cancelled" or rnd["status"] == "shown":
                if len(shown) != 1:
                    times = ", ".join(at(m.created_at) for m in shown)
                    bad(f"{here}: the showdown posted {len(shown)} times: {times}")
            if scored:
                steps.append(
                    Step(
                        f"{here} showdown",
                        rnd["scored_at"],
                        shown[0].created_at if shown else None,
                        cut,
                    )
                )
            if shown:
                showdown = shown[0]
                try:
                    assert_showdown_is_engines(showdown, engine_result(showdown, PRESET))
                except AssertionError as exc:
                    bad(f"{here}: the showdown is not the engine's for its rows: {exc}")
                stored = stored_result(hands, mid, names)
                points = field_points(showdown, "Round points")
                if stored is not None and points != stored:
                    bad(f"{here}: the showdown says {points}, the stored hands score {stored}")
            # the next deal: after the pause, or at Next
            more = i + 1 < len(rounds) or (cut is not None and rnd["number"] < ROUNDS)
            if shown and rnd["scored_at"] and more:
                due = rnd["scored_at"] + NEXT_ROUND_SECONDS
                for ix in fake.interactions_by_message.get(shown[0].id, []):
                    # a Next on this showdown that took (its answer not a private refusal
                    # or "try again"; not the Next of the round before, whose token the
                    # showdown was posted through)
                    on_it = ix.source is not None and ix.source.id == shown[0].id
                    if ix.name == "click Next round" and on_it and ix.answered and not ix.ephemeral:
                        due = min(due, ix.created_at + offset)
                due = max(due, shown[0].created_at)
                dealt = rounds[i + 1]["created_at"] if i + 1 < len(rounds) else None
                steps.append(Step(f"{here} next deal", due, dealt, cut))
            elif shown and status == "ended" and rnd["number"] == match["rounds_total"]:
                standings = [m for m in posted if is_standings(m)]
                steps.append(
                    Step(
                        f"{where} standings",
                        shown[0].created_at,
                        standings[0].created_at if standings else None,
                    )
                )
    judge_steps(steps, cluster, args, report)
    judge_interactions(fake, cluster, channel_guild, shard_count, offset, report)


def stored_result(
    hands: list[dict[str, Any]], match_id: int, names: dict[tuple[int, int], str]
) -> dict[str, float] | None:
    """Each seat's round points, scored by the engine from the stored hands."""
    seats = []
    for hand in sorted(hands, key=lambda h: h["seat"]):
        if not (hand["back"] and hand["middle"] and hand["front"]):
            return None
        rows = [tuple(parse_cards(hand[row].split())) for row in ("back", "middle", "front")]
        seats.append(
            Seat(
                names[(match_id, hand["seat"])],
                rows[0],
                rows[1],
                rows[2],
                declare=hand["declare"],
                foul=bool(hand["fouled"]),
            )
        )
    result = score_round(seats, PRESET)
    return {p.name: p.total for p in result.players}


def judge_steps(
    steps: list[Step], cluster: Cluster, args: argparse.Namespace, report: Report
) -> None:
    """Every step within ``--normal`` s of being due, or within a disruption's target: a
    disruption excuses a step that was still pending, and not late yet (its allowance and
    ``--margin`` not run out), when it began (the step's allowance then runs to the
    disruption's target, and a disruption beginning before that extends it again); one
    beginning after the step was already late excuses nothing (a step stuck in a live
    process is late, even if a kill later frees it). A step of a cancelled match not done
    by then is judged at the cancellation."""
    end = time.time()
    events = sorted(cluster.disruptions, key=lambda e: e.start)
    for step in steps:
        if step.done is not None:
            done = step.done
        elif step.cut is not None:
            done = step.cut
        else:
            done = end
        if done < step.due and step.done is None:
            continue  # cancelled before it was due
        allowed = step.due + args.normal
        excusing: list[Disruption] = []
        grown = True
        while grown:
            grown = False
            for event in events:
                if event.start > min(allowed + args.margin, done) or any(
                    event is e for e in excusing
                ):
                    continue
                if event.target >= step.due:
                    excusing.append(event)
                    if event.target > allowed:
                        allowed = event.target
                        grown = True
        if step.done is not None:
            for event in excusing:
                if event.start >= step.due - 1:
                    event.took_over += 1
        stall = done - step.due
        if stall > report.longest_stall[0]:
            report.longest_stall = (stall, step.where)
        late = done - allowed
        if late > report.longest_after_target[0] - args.normal:
            report.longest_after_target = (late + args.normal, step.where)
        if step.done is None and step.cut is None:
            report.violations.append(f"{step.where}: never done (due {stall:.0f} s before the end)")
        elif late > args.margin:
            near = [
                f"{e.kind} at +{e.start - report.began:.1f} s"
                for e in cluster.disruptions
                if step.due - 15 <= e.start <= done
            ]
            how = "done" if step.done is not None else "not done when its match was cancelled"
            report.violations.append(
                f"{step.where}: due at +{step.due - report.began:.1f} s, {how} {stall:.1f} s"
                f" later, {late:.1f} s after its target ({', '.join(near) or 'no disruption'})"
            )
    report.takeovers = sum(e.took_over for e in cluster.disruptions)


def dm_open_waits(fake: FakeDiscord) -> dict[int, tuple[float, float]]:
    """Each person whose DM channel the bot opened after waiting for the DM-open bucket
    (``POST /users/@me/channels``, one bucket for the whole bot in the fake's limits,
    tests/fakediscord/limits.py), or was opened in the window that spent it (discord.py
    then waits for the reset in one of that window's calls before it returns): (when the
    bucket was spent, when it had room again). A DM that needed that channel could not come
    before the bucket let its open through, so a step due while the bucket was spent is due
    from its reopening (Discord's limit, not a stall of the bot's)."""
    waits: dict[int, tuple[float, float]] = {}
    # the latest (spent since, room again at): a bucket spent again within a second of its
    # reopening (a queue longer than one window) is one wait, from its first spending
    shut: tuple[float, float] | None = None
    window: list[int] = []  # those opened in the bucket's current window
    window_ends = 0.0
    for req in fake.requests:
        if req.method != "POST" or req.path != "/users/@me/channels":
            continue
        recipient = int((req.json or {}).get("recipient_id", 0))
        if req.at >= window_ends:
            window = []
        if req.status == 200:
            window.append(recipient)
            if shut is not None and shut[1] - 0.05 <= req.at <= shut[1] + 1:
                waits.setdefault(recipient, shut)  # opened as the bucket reopened: it waited
        if req.headers.get("X-RateLimit-Remaining") == "0":
            until = req.at + float(req.headers["X-RateLimit-Reset-After"])
        elif req.status == 429 and isinstance(req.response, dict):
            until = req.at + float(req.response.get("retry_after", 0.0))
        else:
            if "X-RateLimit-Reset-After" in req.headers:
                window_ends = req.at + float(req.headers["X-RateLimit-Reset-After"])
            continue
        chained = shut is not None and req.at <= shut[1] + 1
        shut = (shut[0] if shut is not None and chained else req.at, until)
        if req.status == 200:
            # the bucket spent: discord.py sleeps until the reset inside one call of that
            # window's before it returns (Ratelimit.__aexit__: the one that finds no token
            # left, not always the one whose answer said 0, its answers being read in any
            # order), so any person opened in the window may have waited as long
            for person in window:
                waits[person] = shut
            window = []
            window_ends = until
    return waits


def acknowledged(fake: FakeDiscord) -> dict[int, float]:
    """When each interaction was first answered (its callback reached the fake)."""
    acked: dict[int, float] = {}
    for req in fake.requests:
        parts = req.path.split("/")
        if len(parts) == 5 and parts[1] == "interactions" and parts[4] == "callback":
            acked.setdefault(int(parts[2]), req.at)
    return acked


def judge_interactions(
    fake: FakeDiscord,
    cluster: Cluster,
    channel_guild: dict[int, int],
    shard_count: int,
    offset: float,
    report: Report,
) -> None:
    """Every interaction acknowledged within 3 s unless its process was dead meanwhile; no
    answer is the bot's "something went wrong"."""
    acked = acknowledged(fake)
    delays = []
    for ix in fake.interactions.values():
        report.interactions += 1
        created = ix.created_at + offset
        guild = channel_guild.get(ix.channel.id)
        shard = ((guild or 0) >> 22) % shard_count if guild else 0
        slot = cluster.slots[shard if len(cluster.slots) > 1 else 0]
        at = acked.get(ix.id)
        delay = (at - created) if at is not None and ix.answered else None
        if delay is not None:
            delays.append(delay)
        if delay is None or delay > ACK_SECONDS:
            if slot.dead_within(created, created + ACK_SECONDS):
                report.excused += 1
                continue
            what = "never" if delay is None else f"after {delay:.2f} s"
            report.violations.append(
                f"interaction {ix.name!r} by {ix.user.name} in #{ix.channel.name}: acknowledged"
                f" {what} (process {slot.index} alive)"
            )
        text = ix.text()
        if ERROR_TEXT in text or "Traceback" in text:
            report.violations.append(
                f"interaction {ix.name!r} by {ix.user.name}: answered {text[:120]!r}"
            )
    delays.sort()
    if delays:
        report.ack_p99 = delays[min(len(delays) - 1, int(0.99 * len(delays)))]


# --- one run --------------------------------------------------------------------------------


async def run(args: argparse.Namespace, processes: int, postgres: bool) -> Report:
    label = f"{'postgres' if postgres else 'sqlite'} x {processes}"
    report = Report(label, args.minutes)
    workdir = Path(tempfile.mkdtemp(prefix="capsa-chaos-"))
    disk: DiskFull | None = None
    admin_url = pg_name = pg_url = None
    private = False
    own_dir: str | None = None
    try:
        if postgres:
            if args.pg_restart:
                if args.pg_dir is None:  # its own, so that runs at once never share one
                    own_dir = tempfile.mkdtemp(prefix="capsa-chaos-pg-")
                    os.chmod(own_dir, 0o755)  # (the cluster runs as the postgres user)
                    args = argparse.Namespace(**{**vars(args), "pg_dir": own_dir})  # this run's
                admin_url = await asyncio.to_thread(private_postgres, args.pg_dir)
                private = True
            else:
                admin_url = pg_admin_url()
            problem = await pg_check(admin_url)
            if problem:
                raise RuntimeError(problem)
            pg_name, pg_url = await pg_create(admin_url)
        dbdir = workdir
        if not postgres and args.disk_full:
            disk = DiskFull(workdir / "db", args.disk_mb)
            if disk.mount():
                dbdir = disk.where
            else:
                report.outages.append(f"disk full skipped: {disk.why_not}")
        db = dbdir / "chaos.sqlite3"
        await play(args, processes, pg_url, db, disk, report, workdir)
    finally:
        if disk is not None:
            if args.keep and disk.mounted:
                for f in disk.where.glob("chaos.sqlite3*"):
                    shutil.copy(f, workdir / f.name)
            disk.unmount()
        if pg_name is not None and admin_url is not None:
            with contextlib.suppress(Exception):
                await pg_drop(admin_url, pg_name)
        if private:
            env = os.environ | {"CAPSA_PG_DIR": args.pg_dir}
            subprocess.run(
                ["bash", str(ROOT / "scripts/postgres"), "stop"], env=env, capture_output=True
            )
        if own_dir is not None and not args.keep:
            shutil.rmtree(own_dir, ignore_errors=True)
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"kept {workdir}", file=sys.stderr)
    return report


async def play(
    args: argparse.Namespace,
    processes: int,
    pg_url: str | None,
    db: Path,
    disk: DiskFull | None,
    report: Report,
    workdir: Path,
) -> None:
    rng = random.Random(args.seed)
    notes = Notes()
    with only_localhost():
        async with FakeDiscord() as fake:
            fake.settle_deferred_updates = False
            n = processes
            if n == 1:
                guilds = [fake.add_guild("Chaos")]
            else:
                guilds = [fake.add_guild(f"Chaos {i}", shard=(i, n)) for i in range(n)]
            tables = []
            channel_guild: dict[int, int] = {}
            for i in range(args.tables):
                guild = guilds[i % n]
                chan = guild.add_text_channel(f"chaos-{i:02d}")
                channel_guild[chan.id] = guild.id
                host = fake.add_user(f"host{i:02d}", guild=guild)
                guest = fake.add_user(f"guest{i:02d}", guild=guild)
                styles = tuple(args.styles)
                tables.append(
                    Table(i, fake, chan, host, guest, notes, random.Random(rng.random()), styles)
                )
            base = {"COACH": "off", "SOLVER_WORKERS": "1", "LOG_LEVEL": args.log_level}
            if pg_url is not None:
                base["DATABASE_URL"] = pg_url
            slots = [
                Slot(
                    i,
                    base if n == 1 else base | {"SHARD_COUNT": str(n), "SHARD_IDS": str(i)},
                    workdir / f"bot-{i}.log",
                )
                for i in range(n)
            ]
            cluster = Cluster(fake, slots, db, pg_url is not None)
            offset = time.time() - time.monotonic()
            try:
                for slot in slots:
                    await cluster.start(slot)
                await asyncio.sleep(1.0)
                began = report.began = time.time()
                dm_slot = slots[0]  # DMs come to shard 0's process
                for table in tables:
                    table.began = began
                    table.dm_alive = lambda a, b: not dm_slot.dead_within(a, b)
                until = began + args.minutes * 60
                players = [asyncio.create_task(t.run(until, args.drain)) for t in tables]
                chaos = [asyncio.create_task(kill_loop(cluster, args, until))]
                if args.outage > 0:
                    chaos.append(asyncio.create_task(outage(cluster, disk, pg_url, args, until)))
                await asyncio.gather(*chaos)
                _done, pending = await asyncio.wait(players, timeout=args.drain)
                for task in pending:
                    task.cancel()
                await asyncio.gather(*players, return_exceptions=True)
                for table in tables:  # what the drain left is cancelled
                    if pending:
                        await table.cancel()
                await asyncio.sleep(2)
            finally:
                await cluster.stop_all()
            report.kills = cluster.kills
            report.terms = cluster.terms
            report.stale_clicks = notes.stale_clicks
            report.shown_after = notes.shown_after
            logs = [s.log.read_text(errors="replace") if s.log.exists() else "" for s in slots]
            for event in cluster.disruptions:
                if event.kind.startswith("SIG"):
                    continue
                how = ""
                if event.kind == "disk full" and disk is not None:
                    met = sum(  # a write refused; a start refused (it exits, is started again)
                        text.count("database or disk is full") + text.count("(disk I/O error)")
                        for text in logs
                    )
                    wal = "its log emptied" if disk.wal_emptied else "its log busy, not emptied"
                    how = (
                        f" (a {disk.size_mb} MB tmpfs, {disk.left} bytes left, {wal};"
                        f" the bot met the full disk {met} times)"
                    )
                report.outages.append(
                    f"{event.kind} {event.end - event.start:.1f} s"
                    f" at +{event.start - began:.0f} s{how}"
                )
            records = await Records.from_postgres(pg_url) if pg_url else Records.from_sqlite(db)
            check(fake, records, cluster, channel_guild, n, offset, args, report)
            report.violations[:0] = notes.problems
            report.log_errors += sum(text.count(" ERROR ") for text in logs)
            if args.keep:
                print(f"logs: {', '.join(str(s.log) for s in slots)}", file=sys.stderr)
                transcript(fake, cluster, began, offset, workdir / "transcript.txt")


def transcript(
    fake: FakeDiscord, cluster: Cluster, began: float, offset: float, path: Path
) -> None:
    """What happened, in order (``--keep``): the disruptions, every message posted (its
    channel, first line, buttons, edits) and every interaction (who, what, when
    acknowledged, the answer), times from the kills' start."""
    lines: list[tuple[float, str]] = []
    for e in cluster.disruptions:
        back = f"back +{e.end - began:.1f}, target +{e.target - began:.1f}"
        lines.append((e.start, f"*** {e.kind} ({back})"))
    acked = acknowledged(fake)
    for chan in [*fake.channels.values(), *fake.dm_channels.values()]:
        name = getattr(chan, "name", None) or f"dm{chan.id}"
        for m in chan.history:
            first = m.text().split("\n")[0][:70]
            lines.append(
                (m.created_at, f"msg {m.id} #{name} {first!r} {m.button_labels()} edits={m.edits}")
            )
    for ix in fake.interactions.values():
        at = acked.get(ix.id)
        ack = f"ack +{at - began:.1f}" if at is not None else "no ack"
        source = ix.source.id if ix.source is not None else "-"
        lines.append(
            (
                ix.created_at + offset,
                f"ix {ix.name!r} by {ix.user.name} on {source}: {ack}; {ix.text()[:60]!r}",
            )
        )
    lines.sort(key=lambda x: x[0])
    path.write_text("\n".join(f"+{at - began:8.2f} {text}" for at, text in lines) + "\n")


async def outage(
    cluster: Cluster,
    disk: DiskFull | None,
    pg_url: str | None,
    args: argparse.Namespace,
    until: float,
) -> None:
    """Once, halfway through: the PostgreSQL server down, or the SQLite disk full."""
    await asyncio.sleep(max(0.0, (until - time.time()) / 2))
    if pg_url is not None and args.pg_restart:
        await pg_outage(cluster, args.pg_dir, args.outage)
    elif pg_url is None and disk is not None and disk.mounted:
        await disk.outage(cluster, args.outage)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=20.0, help="how long the kills go on")
    parser.add_argument("--database", nargs="+", default=["sqlite"], choices=["sqlite", "postgres"])
    parser.add_argument(
        "--processes", type=int, nargs="+", default=None, help="PostgreSQL: 2 3 (SQLite: 1)"
    )
    parser.add_argument("--tables", type=int, default=6, help="channels playing at once")
    parser.add_argument(
        "--kill-every", type=float, nargs=2, default=(4.0, 14.0), metavar=("LOW", "HIGH")
    )
    parser.add_argument("--term-share", type=float, default=0.2, help="kills that are SIGTERM")
    parser.add_argument("--outage", type=float, default=8.0, help="s of the outage (0: none)")
    parser.add_argument(
        "--no-pg-restart",
        dest="pg_restart",
        action="store_false",
        help="PostgreSQL: use CAPSA_TEST_DATABASE_URL's server and never restart it",
    )
    parser.add_argument(
        "--no-disk-full", dest="disk_full", action="store_false", help="SQLite: no full disk"
    )
    parser.add_argument(
        "--pg-dir",
        default=None,
        help="the private PostgreSQL cluster's directory (default: a new one under /tmp for"
        " each run, removed after it unless --keep)",
    )
    parser.add_argument("--disk-mb", type=int, default=256, help="the SQLite tmpfs's size")
    parser.add_argument("--styles", nargs="+", default=list(STYLES), choices=STYLES)
    parser.add_argument("--drain", type=float, default=300.0, help="s for the last matches")
    parser.add_argument("--normal", type=float, default=5.0, help="s a due step may take")
    parser.add_argument("--margin", type=float, default=3.0, help="s on top of every target")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--keep", action="store_true", help="keep the logs and the database")
    parser.add_argument("--log-level", default="WARNING", help="the bots' LOG_LEVEL")
    return parser.parse_args(argv)


async def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    runs: list[tuple[int, bool]] = []
    for database in args.database:
        postgres = database == "postgres"
        for n in args.processes or ([2, 3] if postgres else [1]):
            if n > 1 and not postgres:
                print(f"sqlite x {n} skipped: a SQLite file serves one process", file=sys.stderr)
                continue
            runs.append((n, postgres))
    failed = False
    for n, postgres in runs:
        started = time.monotonic()
        report = await run(args, n, postgres)
        print(report.table())
        print(f"{'':22}(the run took {(time.monotonic() - started) / 60:.1f} min in all)")
        for line in report.violations[:50]:
            print(f"  VIOLATION {line}")
        if len(report.violations) > 50:
            print(f"  ... and {len(report.violations) - 50} more")
        print(flush=True)
        failed = failed or bool(report.violations)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
