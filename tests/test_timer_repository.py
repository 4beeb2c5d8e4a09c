"""The repository's timers and the showdown claim on every backend of
tests/test_repository.py (SQLite as the bot opens it, SQLite's SQL alone, PostgreSQL), and
on PostgreSQL with two repositories on one database, as two bot processes have."""

from __future__ import annotations

import asyncio

from data import open_repository
from data.repository import Claimed, Repository
from tests import test_repository as contract
from tests.test_repository import T0, play_round, playing_match

db_path = contract.db_path
db = contract.db
repo = contract.repo


async def test_a_late_finish_leaves_a_timer_set_again_after_a_drop(repo: Repository) -> None:
    """A run of the table's watchdog ends after the watchdog was let go and set again by
    the same process (a deal): the new row is not the old version, and the old run's
    finish leaves it. (The chaos run's DMs 58 s late: both rows had version 1, and the
    deal found its watchdog gone.)"""
    m = await playing_match(repo)
    assert await repo.set_timer(m.id, "watchdog", 1, 0)
    (old,) = await repo.claim_timers("one", lease=60)
    await repo.cancel_timers(m.id, ("watchdog",), holder="one")  # let go
    assert await repo.set_timer(m.id, "watchdog", 2, 30, holder="one", lease=60)  # a deal's
    await repo.finish_timer(m.id, "watchdog", old.version, owner="one")  # the old run's end
    assert await repo.holds_timer(m.id, "watchdog", owner="one")


async def test_a_due_timer_is_claimed_once_until_its_lease_runs_out(repo: Repository) -> None:
    m = await playing_match(repo)
    assert await repo.set_timer(m.id, "close_round", 77, 0)
    (timer,) = await repo.claim_timers("one", lease=0.3)
    assert (timer.match_id, timer.kind, timer.arg, timer.attempts) == (m.id, "close_round", 77, 0)
    assert await repo.claim_timers("two", lease=0.3) == []  # held by "one"
    await asyncio.sleep(0.4)  # "one" died: its lease runs out
    (again,) = await repo.claim_timers("two", lease=30)
    assert again == timer
    await repo.finish_timer(m.id, "close_round", again.version, owner="two")
    await asyncio.sleep(0.01)
    assert await repo.claim_timers("three", lease=30) == [] and await repo.next_timer_in() is None


async def test_a_timer_fires_on_time_and_a_new_setting_replaces_it(repo: Repository) -> None:
    m = await playing_match(repo)
    assert await repo.set_timer(m.id, "lobby_expire", 0, 30)
    assert await repo.claim_timers("one", lease=5) == []  # not due
    wait = await repo.next_timer_in()
    assert wait is not None and 25 < wait <= 30
    assert await repo.set_timer(m.id, "lobby_expire", 0, 0)  # set again: due now
    (first,) = await repo.claim_timers("one", lease=5)
    # set again while it runs: finishing the old version keeps the new one
    assert await repo.set_timer(m.id, "lobby_expire", 1, 0)
    await repo.finish_timer(m.id, "lobby_expire", first.version, owner="one")
    (second,) = await repo.claim_timers("one", lease=5)
    assert second.arg == 1 and second.version != first.version


async def test_if_absent_keeps_a_timer_and_cancel_drops_them(repo: Repository) -> None:
    m = await playing_match(repo)
    assert await repo.set_timer(m.id, "close_round", 5, 0)
    assert not await repo.set_timer(m.id, "close_round", 6, 0, if_absent=True)
    assert await repo.set_timer(m.id, "prepare_round", 5, 0, if_absent=True)
    claimed = {t.kind: t.arg for t in await repo.claim_timers("one", lease=5)}
    assert claimed == {"close_round": 5, "prepare_round": 5}
    await repo.cancel_timers(m.id, ("prepare_round",))
    assert await repo.set_timer(m.id, "next_round", 2, 0)
    await repo.cancel_timers(m.id, ("next_round",), arg=3)  # another round's: kept
    await repo.cancel_timers(m.id, ("close_round", "prepare_round"))
    assert [t.kind for t in await repo.claim_timers("two", lease=5)] == ["next_round"]
    await repo.cancel_timers(m.id)
    assert await repo.next_timer_in() is None
    assert not await repo.set_timer(m.id + 1000, "close_round", 1, 0)  # no such table


async def test_a_failed_run_is_retried_later_with_its_count(repo: Repository) -> None:
    m = await playing_match(repo)
    assert await repo.set_timer(m.id, "close_round", 5, 0)
    (timer,) = await repo.claim_timers("one", lease=30)
    await repo.retry_timer(m.id, "close_round", timer.version, 0.2, owner="one")
    assert await repo.claim_timers("one", lease=30) == []
    await asyncio.sleep(0.3)
    (again,) = await repo.claim_timers("one", lease=30)
    assert again.attempts == 1 and again.version == timer.version
    # a retry of a version that was replaced changes nothing
    assert await repo.set_timer(m.id, "close_round", 6, 60)
    await repo.retry_timer(m.id, "close_round", timer.version, 0, owner="one")
    assert await repo.claim_timers("one", lease=30) == []


async def test_setting_a_timer_wakes_the_watchers(repo: Repository) -> None:
    m = await playing_match(repo)
    woken = asyncio.Event()
    await repo.watch_timers(woken.set)
    assert await repo.set_timer(m.id, "close_round", 1, 10)  # found by the poll in time
    await asyncio.sleep(0.2)
    assert not woken.is_set()
    assert await repo.set_timer(m.id, "close_round", 1, 0)  # due now: everyone looks
    await asyncio.wait_for(woken.wait(), 5)


async def test_the_showdown_is_claimed_by_one_while_it_is_not_posted(repo: Repository) -> None:
    m = await playing_match(repo)
    open_round = await repo.start_round(m.id, 1, 1, T0 + 120, {0: [], 1: [], 2: []}, now=T0)
    assert not await repo.claim_showdown(open_round.id, 5, owner="one")  # not scored yet
    m2 = await playing_match(repo, (200, 201), channel=11)
    round_id = await play_round(repo, m2.id, 1, {0: 1, 1: -1, 2: 0}, scored_at=T0)
    assert await repo.claim_showdown(round_id, 0.2, owner="one") == Claimed.FRESH
    assert await repo.claim_showdown(round_id, 5, owner="one") == Claimed.NO  # held
    await asyncio.sleep(0.3)
    # the holder died: another may post, after looking for what the dead one's post left
    assert await repo.claim_showdown(round_id, 5, owner="two") == Claimed.AFTER_ANOTHER
    await repo.release_showdown(round_id, owner="two")  # its post failed: it gives it up
    # (the failure may have come after the post landed: the next one looks for it too)
    assert await repo.claim_showdown(round_id, 5, owner="one") == Claimed.AFTER_ANOTHER
    await repo.set_round_messages(round_id, showdown_message_id=99)
    await asyncio.sleep(0.01)
    assert not await repo.claim_showdown(round_id, 0, owner="one")  # posted


async def test_postgres_two_processes_share_the_timers(pg_url: str) -> None:
    """Two repositories on one database: a timer set by one wakes the other (NOTIFY), and
    claims never give both of them the same timer."""
    one = await open_repository(database_url=pg_url)
    two = await open_repository(database_url=pg_url)
    try:
        woken = asyncio.Event()
        await two.watch_timers(woken.set)
        matches = [
            await playing_match(one, (300 + 2 * i, 301 + 2 * i), channel=20 + i) for i in range(6)
        ]
        for m in matches:
            assert await one.set_timer(m.id, "close_round", m.id, 0)
        await asyncio.wait_for(woken.wait(), 5)
        got = await asyncio.gather(*(r.claim_timers(n, lease=30, limit=2) for r, n in (
            (one, "a"), (two, "b"), (one, "c"), (two, "d"),
        )))  # fmt: skip
        claimed = [t.match_id for batch in got for t in batch]
        assert sorted(claimed) == sorted(m.id for m in matches)  # each once, none twice
    finally:
        await one.close()
        await two.close()


async def test_an_expiry_cancels_only_a_lobby(repo: Repository) -> None:
    started = await playing_match(repo)
    assert not await repo.cancel_match(started.id, lobby_only=True)
    assert (await repo.get_match(started.id)).status == "playing"
    lobby = await contract.new_match(repo, channel=77, host=900)
    assert await repo.cancel_match(lobby.id, lobby_only=True)
    assert (await repo.get_match(lobby.id)).status == "cancelled"


async def test_a_held_timer_waits_for_its_holder_while_it_lives(repo: Repository) -> None:
    """A watchdog set held (the dealer's): not claimed while its holder renews the lease,
    claimed by another once the holder stopped (died)."""
    m = await playing_match(repo)
    assert await repo.set_timer(m.id, "prepare_round", 5, 0, holder="dealer", lease=0.3)
    assert await repo.claim_timers("other", lease=5) == []  # due, but held
    await asyncio.sleep(0.2)
    await repo.heartbeat("dealer", 0.3)  # alive
    await asyncio.sleep(0.2)
    assert await repo.claim_timers("other", lease=5) == []  # still held thanks to it
    await asyncio.sleep(0.2)  # the dealer died: no more renewals
    await repo.heartbeat("dealer", 0.3)  # a lease that ran out stays out
    (timer,) = await repo.claim_timers("other", lease=5)
    assert (timer.kind, timer.arg) == ("prepare_round", 5)


async def test_what_a_dead_process_held_is_taken_over_at_once(repo: Repository) -> None:
    """A process that stopped, or that another one on a one-process database (SQLite) found
    dead at its start: its held watchdog (due far off), its running timer and its showdown
    claim go to the next process now, not when their leases would have run out. A live
    process keeps them, however long it takes."""
    m = await playing_match(repo)
    await repo.start_process("dealer", "0")
    assert await repo.set_timer(m.id, "watchdog", 1, 600, holder="dealer", lease=600)
    m2 = await playing_match(repo, (200, 201), channel=11)
    round_id = await play_round(repo, m2.id, 1, {0: 1, 1: -1, 2: 0}, scored_at=T0)
    assert await repo.claim_showdown(round_id, 600, owner="dealer")
    assert "dealer" in {p.owner for p in await repo.live_processes()}
    assert await repo.claim_timers("other", lease=5) == []  # held by a live process
    assert not await repo.claim_showdown(round_id, 5, owner="other")
    if repo.one_process:  # SQLite: a process starting on the file knows the others died
        await repo.start_process("other", "0")
    else:  # PostgreSQL: the dealer stops (a death is the same, PROCESS_DEAD_SECONDS later)
        await repo.start_process("other", "1")
        await repo.heartbeat("dealer", 600)
        assert await repo.claim_timers("other", lease=5) == []
        await repo.stop_process("dealer")
    live = {p.owner for p in await repo.live_processes()}
    assert "other" in live and "dealer" not in live
    (timer,) = await repo.claim_timers("other", lease=5)
    assert (timer.match_id, timer.kind) == (m.id, "watchdog")
    assert await repo.claim_showdown(round_id, 5, owner="other")
    # the dead one's late calls change nothing of what "other" now holds
    await repo.finish_timer(m.id, "watchdog", timer.version, owner="dealer")
    await repo.retry_timer(m.id, "watchdog", timer.version, 0, owner="dealer")
    (still,) = await repo.timers_of(m.id)
    assert (still.version, still.attempts) == (timer.version, 0)
    await repo.finish_timer(m.id, "watchdog", timer.version, owner="other")
    assert await repo.timers_of(m.id) == []


async def test_postgres_a_process_not_seen_for_a_while_is_dead(pg_url: str, monkeypatch) -> None:
    """Two processes on one database: one stops renewing its row (killed); once it was not
    seen for PROCESS_DEAD_SECONDS the other takes its held timer and its claim."""
    import data.sql

    monkeypatch.setattr(data.sql, "PROCESS_DEAD_SECONDS", 0.5)
    one = await open_repository(database_url=pg_url)
    two = await open_repository(database_url=pg_url)
    try:
        m = await playing_match(one, (400, 401), channel=40)
        await one.start_process("one", "0")
        await two.start_process("two", "1")
        assert await one.set_timer(m.id, "watchdog", 1, 600, holder="one", lease=600)
        assert await two.claim_timers("two", lease=5) == []
        assert {"one", "two"} <= {p.owner for p in await two.live_processes()}
        await asyncio.sleep(0.7)  # "one" was killed: no heartbeat
        await two.heartbeat("two", 5)
        live = {p.owner for p in await two.live_processes()}
        assert "two" in live and "one" not in live
        (timer,) = await two.claim_timers("two", lease=5)
        assert (timer.match_id, timer.kind) == (m.id, "watchdog")
    finally:
        await one.close()
        await two.close()
