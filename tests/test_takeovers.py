"""Takeovers between processes (issue 19, PostgreSQL's findings of the chaos run): an outage
is not a death; a deal or a post whose work another process took over stops; a process that
stops lets a post in flight land and be stored as posted; Next pressed survives the process
that took it. Each of these failed before its fix."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path
from unittest.mock import AsyncMock

import asyncpg
import pytest

import cogs.scheduler
import data.sql
from bench.chaos import pg_ctl, private_postgres
from capsa.presets import get_preset
from capsa.solver import arrange
from cogs.flow import Driver
from cogs.life import Clock, Step
from cogs.scheduler import Scheduler, TimerKind
from data import open_repository
from tests.cog_helpers import (
    ALICE,
    ALICE_HAND,
    BOB,
    BOB_HAND,
    CHANNEL,
    cards,
    make_ix,
    playing_round,
)

ELSEWHERE = "another-host:4242"  # a process that took this one's work over


async def until(check, timeout: float = 10.0, what: str = "") -> None:
    end = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < end, f"not within {timeout} s: {what}"
        await asyncio.sleep(0.02)


async def scored_round(repo, tables):
    """Round 1 of alice and bob, both hands in and scored (its showdown not posted)."""
    match, rnd = await playing_round(repo)
    for seat, hand in ((0, ALICE_HAND), (1, BOB_HAND)):
        rows = arrange(cards(hand), get_preset("standard"), "easy", 1, seed=1).ordinary
        codes = [[c.code for c in row] for row in rows]
        assert await repo.submit_hand(rnd.id, seat, *codes, None, fouled=False)
    assert await tables.rounds.close(match, await repo.get_round(rnd.id), None, Driver.CLOCK)
    return match, await repo.get_round(rnd.id)


# --- an outage is not a death --------------------------------------------------------------


async def test_a_process_whose_contact_broke_judges_nobody_dead(repo, monkeypatch) -> None:
    """A process not seen for PROCESS_DEAD_SECONDS is dead for a caller that judges, not for
    one whose own contact with the database broke lately (``judging=False``): nobody could
    be seen then. One that stopped is dead for both."""
    monkeypatch.setattr(data.sql, "PROCESS_DEAD_SECONDS", 0.3)
    match, _rnd = await playing_round(repo)
    await repo.heartbeat("dealer", 600)  # (alive, not by start_process: SQLite's marks others)
    assert await repo.set_timer(match.id, "watchdog", 1, 600, holder="dealer", lease=600)
    await asyncio.sleep(0.5)  # not seen since
    assert await repo.claim_timers("other", lease=5, judging=False) == []
    (timer,) = await repo.claim_timers("other", lease=5, judging=True)
    assert timer.kind == "watchdog"
    assert await repo.set_timer(match.id, "watchdog", 1, 600, holder="dealer", lease=600)
    await repo.stop_process("dealer")
    (timer,) = await repo.claim_timers("other", lease=5, judging=False)  # stopped: dead


async def test_the_scheduler_judges_nobody_dead_until_back_for_a_while(monkeypatch) -> None:
    """The claim loop's calls fail (the database restarting): from then on, and for
    PROCESS_DEAD_SECONDS after they work again, it claims timers with ``judging=False``."""
    monkeypatch.setattr(cogs.scheduler, "PROCESS_DEAD_SECONDS", 0.6)
    monkeypatch.setattr(cogs.scheduler, "PROCESS_HEARTBEAT_SECONDS", 0.05)
    repo = AsyncMock()
    repo.next_timer_in.return_value = None
    repo.claim_timers.return_value = []
    scheduler = Scheduler(repo, owner="me", poll=0.05)
    down = False

    async def heartbeat(owner: str, lease: float) -> None:
        if down:
            raise OSError("connection refused")

    repo.heartbeat.side_effect = heartbeat
    scheduler.start()
    try:
        await until(lambda: _true(repo.claim_timers.await_count >= 2), what="claims")
        assert scheduler.judging  # a process that just started judges (no outage seen)
        assert repo.claim_timers.await_args.kwargs["judging"] is True
        down = True
        await until(lambda: _true(not scheduler.judging), what="the outage noticed")
        down = False
        back = time.monotonic()
        await until(lambda: _true(repo.heartbeat.await_count > 0 and not down), what="back")
        await asyncio.sleep(0.2)
        assert not scheduler.judging  # back, but not for PROCESS_DEAD_SECONDS yet
        assert repo.claim_timers.await_args.kwargs["judging"] is False
        await until(lambda: _true(scheduler.judging), timeout=5, what="judging again")
        assert time.monotonic() - back >= 0.5
    finally:
        await scheduler.stop()


async def _true(value: bool) -> bool:
    return value


@pytest.mark.usefixtures("pg_server")
async def test_postgres_a_server_restart_longer_than_the_dead_time_kills_nobody(
    monkeypatch,
) -> None:
    """A private PostgreSQL server stopped for longer than PROCESS_DEAD_SECONDS, then
    started again: the first process back does not take the other (alive, a moment later
    back too) for dead, so it never deals the other's round again; one that really died in
    the outage is taken over once the server has been up PROCESS_DEAD_SECONDS."""
    monkeypatch.setattr(data.sql, "PROCESS_DEAD_SECONDS", 1.0)
    # (not under tmp_path: the server runs as the postgres user, who may not enter it)
    where = f"{tempfile.gettempdir()}/capsa-takeovers-{secrets.token_hex(4)}"
    try:
        url = await asyncio.to_thread(private_postgres, where)
    except Exception as exc:  # (no binaries, no root to run them as postgres)
        shutil.rmtree(where, ignore_errors=True)
        pytest.skip(f"no private PostgreSQL cluster can be made here: {exc}")
    try:
        one = await open_repository(database_url=url)
        two = await open_repository(database_url=url)
        try:
            match, _rnd = await playing_round(one)
            await one.start_process("dealer", "0")
            await two.start_process("other", "1")
            assert await one.set_timer(match.id, "watchdog", 1, 600, holder="dealer", lease=600)
            port = Path(where, "port").read_text().strip()
            await asyncio.to_thread(pg_ctl, where, "-m", "fast", "-w", "stop")
            await asyncio.sleep(1.5)  # the outage: nobody can be seen
            options = f"-c listen_addresses=127.0.0.1 -p {port} -k {where}"
            await asyncio.to_thread(
                pg_ctl, where, "-l", f"{where}/server.log", "-w", "-o", options, "start"
            )
            for _ in range(50):  # the pool finds its connections broken, then new ones
                with contextlib.suppress(OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                    await two.heartbeat("other", 5)
                    break
                await asyncio.sleep(0.1)
            assert await two.claim_timers("other", lease=5) == []  # "dealer" is alive
            await asyncio.sleep(1.3)  # "dealer" died in the outage: never seen again
            (timer,) = await two.claim_timers("other", lease=5)
            assert (timer.match_id, timer.kind) == (match.id, "watchdog")
        finally:
            await one.close()
            await two.close()
    finally:
        await asyncio.to_thread(pg_ctl, where, "-m", "immediate", "stop")
        shutil.rmtree(where, ignore_errors=True)


# --- work taken over stops -----------------------------------------------------------------


async def test_a_deal_stops_once_another_process_took_it_over(fake_bot, repo) -> None:
    """The dealer was taken for dead and its watchdog claimed by another process: the deal
    sends nothing more (no status message, no DM) and says so, and the round stays for the
    other process to finish."""
    tables = fake_bot.tables
    match, _ = await playing_round(repo)
    rnd = await repo.start_round(
        match.id, 2, 777, time.time() + 60, {0: ALICE_HAND.split(), 1: BOB_HAND.split()}
    )
    await tables.scheduler.hold(match.id, TimerKind.WATCHDOG, 2, 30)  # this process deals
    assert await repo.set_timer(match.id, "watchdog", 2, 0, holder=ELSEWHERE, lease=60)
    assert not await tables.rounds.prepare_round(match, rnd)
    channel = fake_bot.get_partial_messageable(CHANNEL)
    assert channel.send.await_count == 0
    assert fake_bot.get_partial_messageable(90_000 + ALICE).send.await_count == 0
    stored = await repo.get_round(rnd.id)
    assert stored.status == "dealing" and stored.status_message_id is None
    assert [t.kind for t in await repo.timers_of(match.id)] == ["watchdog"]  # still theirs


async def test_a_showdown_whose_claim_was_taken_over_is_not_posted(fake_bot, repo) -> None:
    """This process claimed the showdown, and while it drew the picture it was taken for
    dead and the claim went to another: it posts nothing, stores nothing, and leaves the
    other's claim alone."""
    tables = fake_bot.tables
    match, rnd = await scored_round(repo, tables)
    owner = tables.scheduler.owner
    render = tables.rounds._render

    async def taken_over_meanwhile(*args):
        await repo.stop_process(owner)  # (as it looks to the others)
        assert await repo.claim_showdown(rnd.id, 60, owner=ELSEWHERE)
        return await render(*args)

    tables.rounds._render = taken_over_meanwhile
    tell = await tables.rounds.show(match, rnd, None, Driver.CLOCK)  # claimed; then posted:
    assert not await tell()
    assert fake_bot.get_partial_messageable(CHANNEL).send.await_count == 0
    assert (await repo.get_round(rnd.id)).status == "scored"
    assert not await repo.claim_showdown(rnd.id, 60, owner="a third")  # still the other's


async def test_stopping_lets_a_showdown_in_flight_land_and_be_stored(fake_bot, repo) -> None:
    """SIGTERM while the showdown's post is in flight (a timer posting it): the process
    waits for it, stores it as posted, and only then stops; the next process has nothing
    to post again."""
    tables = fake_bot.tables
    match, rnd = await scored_round(repo, tables)
    channel = fake_bot.get_partial_messageable(CHANNEL)
    let_go = asyncio.Event()
    post = channel.send.side_effect

    async def slow_send(*args, **kwargs):
        await let_go.wait()
        return post(*args, **kwargs)

    channel.send.side_effect = slow_send
    await tables.scheduler.schedule(match.id, TimerKind.WATCHDOG, 1, 0)  # due: the showdown
    await until(lambda: _true(channel.send.await_count == 1), what="the showdown's post")
    stopping = asyncio.create_task(tables.scheduler.stop())  # SIGTERM
    await asyncio.sleep(0.3)
    let_go.set()
    await asyncio.wait_for(stopping, 10)
    shown = await repo.get_round(rnd.id)
    assert shown.status == "shown" and shown.showdown_message_id is not None
    assert not await repo.claim_showdown(rnd.id, 60, owner="the next process")
    assert channel.send.await_count == 1


# --- Next pressed survives its process -----------------------------------------------------


async def _dealt(repo, match_id: int, number: int) -> bool:
    current = await repo.current_round(match_id)
    return current is not None and current.number == number


async def round_2_dealt_at_once(repo, match_id: int, *, pause: float) -> None:
    """Round 2 is dealt within 8 s of now: not when the pause after the showdown runs out."""
    pressed = time.time()
    await until(lambda: _dealt(repo, match_id, 2), timeout=8, what="round 2 dealt")
    assert time.time() - pressed < 8 < pause


async def test_next_pressed_survives_the_process_that_took_it(fake_bot, repo) -> None:
    """Next is pressed and acknowledged, and the process dies before it deals: the press
    is stored, so the next round is dealt at once, not when the 30 s pause runs out."""
    tables = fake_bot.tables
    match, rnd = await scored_round(repo, tables)
    await tables.flow.advance(match.id, Driver.CLICK)  # the showdown out, the pause's clock set
    shown = await repo.get_round(rnd.id)
    assert shown.status == "shown"
    assert (await tables.scheduler.pending(match.id)) == {
        TimerKind.CLOCK: Clock(Step.DEAL, 2).encode()
    }
    advance = tables.flow.advance

    async def dies_on_next(match_id, driver, **kwargs):
        if driver == Driver.NEXT:
            return  # killed before dealing
        await advance(match_id, driver, **kwargs)

    tables.flow.advance = dies_on_next
    await tables.rounds.next_pressed(make_ix(fake_bot, ALICE), match.id, 1)
    await round_2_dealt_at_once(repo, match.id, pause=tables.flow.pause)


async def test_next_pressed_is_stored_before_the_showdown_is_redrawn(fake_bot, repo) -> None:
    """Next is acknowledged, and the process dies while it takes the button off the
    showdown (a request that may wait on Discord): the press was stored before, so the
    next round is dealt at once, not when the 30 s pause runs out. (The chaos run: next
    deals 30 s late, each after a Next acknowledged under a second before a kill; the
    button had gone, so nobody could press it again.)"""
    tables = fake_bot.tables
    match, rnd = await scored_round(repo, tables)
    await tables.flow.advance(match.id, Driver.CLICK)  # the showdown out, the pause's clock set
    assert (await repo.get_round(rnd.id)).status == "shown"
    ix = make_ix(fake_bot, ALICE)
    ix.edit_original_response = AsyncMock(side_effect=asyncio.CancelledError)  # dies there
    with contextlib.suppress(asyncio.CancelledError):
        await tables.rounds.next_pressed(ix, match.id, 1)
    await round_2_dealt_at_once(repo, match.id, pause=tables.flow.pause)


async def test_a_run_that_ends_leaves_the_watchdog_another_run_here_took(fake_bot, repo) -> None:
    """The chaos run's DMs 58 s late: a watchdog run posted the showdown and let the
    table's watchdog go, and the database took the release (slow) only after Next, pressed
    meanwhile in the same process, had dealt the next round and set the watchdog again:
    both rows are this process's, so the release dropped the new one, the deal found its
    watchdog gone ("another process took the deal over") and sent no DM until a timer came
    for it. A run lets the watchdog go only if no other run here took it since, and never
    while another run of the table decides."""
    tables = fake_bot.tables
    match, rnd = await scored_round(repo, tables)
    releasing = asyncio.Event()
    cancel = repo.cancel_timers

    async def slow_release(match_id, kinds=None, arg=None, *, holder=None):
        if holder is not None:  # a run letting its watchdog go: the database slow to take it
            releasing.set()
            end = time.monotonic() + 1.0  # (or for a second, if the deal waits for it)
            while not await _dealt(repo, match_id, 2) and time.monotonic() < end:
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.05)  # (the deal's watchdog set by now)
        return await cancel(match_id, kinds, arg, holder=holder)

    repo.cancel_timers = slow_release
    await tables.scheduler.schedule(match.id, TimerKind.WATCHDOG, 1, 0)  # due: the showdown
    await asyncio.wait_for(releasing.wait(), 10)  # posted; the run ends, letting go
    assert (await repo.get_round(rnd.id)).status == "shown"
    channel = fake_bot.get_partial_messageable(CHANNEL)
    post = channel.send.side_effect

    async def slow_post(*args, **kwargs):  # the round's status: the release lands meanwhile
        await asyncio.sleep(0.3)
        return post(*args, **kwargs)

    channel.send.side_effect = slow_post
    await tables.rounds.next_pressed(make_ix(fake_bot, ALICE), match.id, 1)
    for user in (ALICE, BOB):
        dm = fake_bot.get_partial_messageable(90_000 + user).send
        await until(lambda dm=dm: _true(dm.await_count == 1), timeout=5, what="round 2's DM")

    async def let_go() -> bool:  # the deal done, its run lets the watchdog go
        return all(t.kind != "watchdog" for t in await repo.timers_of(match.id))

    await until(let_go, what="the deal's watchdog let go")


async def test_a_showdown_that_landed_before_its_post_failed_is_posted_once(fake_bot, repo) -> None:
    """The showdown went out, then this process's own bookkeeping failed (the chaos run:
    its interaction token's row met a full disk) and it gave its claim up. The next call
    looks for the post first and keeps it: one showdown, not two."""
    tables = fake_bot.tables
    match, rnd = await scored_round(repo, tables)
    channel = fake_bot.get_partial_messageable(CHANNEL)
    post = channel.send.side_effect
    failing = [1]

    def lands_then_fails(*args, **kwargs):
        message = post(*args, **kwargs)
        if failing:
            failing.pop()
            raise sqlite3.OperationalError("database or disk is full")
        return message

    channel.send.side_effect = lands_then_fails
    with pytest.raises(sqlite3.OperationalError):
        await tables.flow.advance(match.id, Driver.CLICK)
    assert (await repo.get_round(rnd.id)).status == "scored"  # not marked: it failed
    await tables.flow.advance(match.id, Driver.CLICK)
    shown = await repo.get_round(rnd.id)
    assert shown.status == "shown"
    assert channel.send.await_count == 1
    assert shown.showdown_message_id == fake_bot.sent[CHANNEL][0].id


# --- a process that stopped holding a claim ------------------------------------------------


async def test_a_claim_of_a_process_that_stopped_is_free_after_any_start(fake_bot, repo) -> None:
    """A process claimed a showdown and stopped (SIGTERM) before it posted it or let the
    claim go; the next process starts. The stopped process's row used to be forgotten at
    that start (it had stopped "long ago"), and its claim, then nobody known dead's, waited
    out its 60 s lease, while the watchdog that came for the showdown let go, taking the
    claim for a live process's: the chaos run's showdown never posted. Its row stays while
    it holds anything, so the claim (and a timer it held) are free at once."""
    tables = fake_bot.tables
    match, rnd = await scored_round(repo, tables)
    await repo.start_process("stopper", "")
    assert await repo.claim_showdown(rnd.id, 60, owner="stopper")
    assert await repo.set_timer(match.id, "clock", 0, 600, holder="stopper", lease=600)
    await repo.stop_process("stopper")
    await repo.start_process("next", "")
    assert await repo.claim_showdown(rnd.id, 60, owner="next")
    assert [t.kind for t in await repo.claim_timers("next", 60)] == ["clock"]


async def test_postgres_a_timer_of_a_process_that_stopped_is_free_after_any_start(
    pg_url,
) -> None:
    """The same on PostgreSQL, where the next process is not the only one: a stopped
    process's row used to go at any process's start, and what it held with it."""
    repo = await open_repository(database_url=pg_url)
    stopper, starter = (f"{who}-{secrets.token_hex(4)}" for who in ("stopper", "starter"))
    try:
        match, _ = await playing_round(repo)
        await repo.start_process(stopper, "")
        assert await repo.set_timer(match.id, "clock", 0, 600, holder=stopper, lease=600)
        await repo.stop_process(stopper)
        await repo.start_process(starter, "")
        assert [t.kind for t in await repo.claim_timers(starter, 60)] == ["clock"]
    finally:
        await repo.stop_process(starter)
        await repo.close()


# --- a timer set again while it runs -------------------------------------------------------


async def test_a_timer_set_again_while_it_runs_here_runs_after_it(repo) -> None:
    """The table's clock is set again (Next pressed) while this process still runs its
    earlier version: the new one, claimed by this process meanwhile, runs once the first
    is done, instead of staying held (its lease renewed by this live process) for ever."""
    match, _rnd = await playing_round(repo)
    scheduler = Scheduler(repo, owner="me", poll=0.05)
    let_go = asyncio.Event()
    runs: list[int] = []

    async def clock(match_id: int, arg: int) -> None:
        runs.append(arg)
        if len(runs) == 1:
            await let_go.wait()

    scheduler.handle(TimerKind.CLOCK, clock)
    scheduler.handle(TimerKind.WATCHDOG, clock)
    scheduler.start()
    try:
        await scheduler.schedule(match.id, TimerKind.CLOCK, 1, 0)
        await until(lambda: _true(runs == [1]), what="the first run")
        await scheduler.schedule(match.id, TimerKind.CLOCK, 2, 0)  # set again, due now
        await asyncio.sleep(0.5)  # claimed meanwhile by this process
        let_go.set()
        await until(lambda: _true(runs == [1, 2]), what="the second version's run")

        async def dropped() -> bool:
            return await repo.timers_of(match.id) == []

        await until(dropped, what="both versions dropped")
    finally:
        await scheduler.stop()


async def test_a_dm_is_sent_with_a_nonce_so_a_resend_makes_no_second(fake_bot, repo) -> None:
    """A process killed with a DM out but not stored leaves it to the next one, which sends
    it again: each deal's DM carries the nonce of its round and seat, and Discord (our fake
    too: tests/test_fakediscord.py) returns the first message for it."""
    tables = fake_bot.tables
    match, _ = await playing_round(repo)
    rnd = await repo.start_round(
        match.id, 2, 777, time.time() + 60, {0: ALICE_HAND.split(), 1: BOB_HAND.split()}
    )
    await tables.scheduler.hold(match.id, TimerKind.WATCHDOG, 2, 30)  # this process deals
    assert await tables.rounds.prepare_round(match, rnd)
    sent = fake_bot.get_partial_messageable(90_000 + ALICE).send
    assert sent.await_count == 1
    seat = next(s.seat for s in match.seats if s.user_id == ALICE)
    assert sent.await_args.kwargs["nonce"] == f"d{rnd.id}s{seat}"
    assert len(sent.await_args.kwargs["nonce"]) <= 25


async def test_sqlite_a_watchdog_is_due_at_once_when_the_next_process_starts(tmp_path) -> None:
    """One process has an SQLite file: the one starting finds every other dead, and so the
    work each watchdog watched; it does it now, not once the dead dealer's WATCHDOG_SECONDS
    have run out (CI saw a deal 30 s late after two kills in a row)."""
    assert data.sql.WATCHDOG_KIND == TimerKind.WATCHDOG.value
    repo = await open_repository(str(tmp_path / "capsa.sqlite3"))
    try:
        await repo.start_process("dealer", "")
        match, _ = await playing_round(repo)
        # as the resume of a deal leaves it for whoever comes first: set, nobody holding it
        watched = await repo.set_timer(match.id, "watchdog", 2, 30, if_absent=True)
        clock = await repo.set_timer(match.id, "clock", 0, 30)
        assert watched and clock
        assert not await repo.claim_timers("next", 60)  # neither is due yet
        await repo.start_process("next", "")  # the dealer was killed; this one starts
        claimed = await repo.claim_timers("next", 60)
        assert [(t.match_id, t.kind) for t in claimed] == [(match.id, "watchdog")]  # not the clock
    finally:
        await repo.close()


# --- a background job cut short by the stop ------------------------------------------------


async def test_a_background_job_cut_short_by_the_stop_is_a_warning(caplog) -> None:
    """A job still going when the process stops (a click's close of a round whose hand-on
    met the database closed): one warning, not an error with its traceback; the same
    failure while running is still an error."""
    repo = AsyncMock()
    scheduler = Scheduler(repo, owner="me", poll=0.05)

    async def fails(after: asyncio.Event) -> None:
        await after.wait()
        raise RuntimeError("the SQLite connection is closed")

    now = asyncio.Event()
    now.set()
    with caplog.at_level(logging.WARNING, logger="cogs.scheduler"):
        scheduler.spawn(fails(now))
        await scheduler.jobs_done()
        assert [r.levelno for r in caplog.records] == [logging.ERROR]
        caplog.clear()
        await scheduler.stop()
        scheduler.spawn(fails(now))  # spawned while the bot stops (a click meanwhile)
        await scheduler.jobs_done()
    levels = [r.levelno for r in caplog.records if r.name == "cogs.scheduler"]
    assert levels and set(levels) == {logging.WARNING}, caplog.records
