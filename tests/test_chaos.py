"""The chaos run's short version (bench/chaos.py), part of every pytest run and so of CI:
real bot.py processes against the fake Discord, a few tables played by scripted people
(quick ones, and some clicking twice and on stale messages), a bot process killed (SIGKILL, and
SIGTERM) every few seconds and started again, and at the end every check of the run:
each round scored once with a ledger summing to zero, each showdown and standings posted
once and the engine's, no DM dealt twice, no step later than its target, every
interaction acknowledged within 3 s unless its process was dead.

SQLite: one process, and the disk filled for a few seconds where a tmpfs can be mounted
(root; skipped with a line in the table otherwise). PostgreSQL: two processes, on the
test server (CAPSA_TEST_DATABASE_URL; skipped without one, as the other PostgreSQL tests;
the server restart is the full run's, on a private cluster).

Below them, the checker's own tests: what it takes for a stall (a builder DM that came
late, or never) without running a bot."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import pytest

from bench.chaos import (
    Disruption,
    Records,
    Report,
    Step,
    check,
    dm_open_waits,
    judge_steps,
    parse_args,
    run,
)

SHORT = [
    "--minutes", "0.6",
    "--tables", "3",
    "--kill-every", "4", "8",
    "--outage", "4",
    "--styles", "quick", "double",
    "--drain", "120",
    "--seed", "5",
]  # fmt: skip


def assert_clean(report) -> None:
    print(report.table())
    assert not report.violations, "\n".join(report.violations[:30])
    assert sum(report.kills.values()) >= 3, report.kills
    assert report.rounds >= 5 and report.matches["ended"] >= 1, report.table()


@pytest.mark.chaos
async def test_chaos_sqlite() -> None:
    assert_clean(await run(parse_args(SHORT), 1, postgres=False))


@pytest.mark.chaos
@pytest.mark.usefixtures("pg_server")
async def test_chaos_postgres_two_processes() -> None:
    assert_clean(await run(parse_args([*SHORT, "--no-pg-restart"]), 2, postgres=True))


# --- the checker ------------------------------------------------------------------------------

T0 = 1_000_000.0  # a moment of a run (wall time)


def kill(start: float, ready: float) -> Disruption:
    """A SQLite kill: the restarted process ready at ``ready``, due steps done 5 s after."""
    return Disruption("SIGKILL 0", T0 + start, T0 + ready, T0 + ready + 5)


def judged(steps: list[Step], *events: Disruption) -> Report:
    report = Report("checker", 0.0, began=T0)
    judge_steps(steps, SimpleNamespace(disruptions=list(events)), parse_args([]), report)
    return report


def test_a_step_pending_at_a_kill_has_until_the_restarts_target() -> None:
    report = judged([Step("DM", T0, T0 + 7)], kill(1, 4))
    assert report.violations == []
    assert report.takeovers == 1
    # two kills in a row: the second came before the first one's target
    report = judged([Step("DM", T0, T0 + 14)], kill(1, 4), kill(8, 11))
    assert report.violations == []


def test_a_step_stalled_in_a_live_process_is_late_though_a_kill_freed_it() -> None:
    """A builder DM stuck 20 s in a live process, sent only after a kill: late. (The
    checker before took any kill between its due time and its sending as its excuse.)"""
    report = judged([Step("match 1 round 2 DM seat 0", T0, T0 + 22)], kill(20, 21))
    assert [v.split(":")[0] for v in report.violations] == ["match 1 round 2 DM seat 0"]
    assert report.longest_stall == (22.0, "match 1 round 2 DM seat 0")


def test_a_step_never_done_or_cut_off_by_a_cancel() -> None:
    never = judged([Step("DM", time.time() - 60, None)])
    assert "never done" in never.violations[0]
    # its match cancelled long after it was due: late; a moment after: not yet late
    assert "cancelled" in judged([Step("DM", T0, None, T0 + 30)]).violations[0]
    assert judged([Step("DM", T0, None, T0 + 2)]).violations == []
    assert judged([Step("close", T0, None, T0 - 5)]).violations == []  # not due yet


def fake_of(dm_at: float | None) -> Any:
    """Just what ``check`` reads of the fake Discord: a channel, and a DM if it came."""
    messages = {} if dm_at is None else {555: SimpleNamespace(created_at=dm_at)}
    return SimpleNamespace(
        channels={10: SimpleNamespace(name="chaos-00", history=[])},
        dm_channels={},
        messages=messages,
        bot_user=object(),
        interactions_by_message={},
        requests=[],
        interactions={},
    )


def records_of(dm_message_id: int | None, cancelled_at: float) -> Records:
    """A match cancelled at ``cancelled_at`` in its first round (open), dealt at T0: a
    person at seat 0, three computers."""
    records = Records()
    records.matches = [
        {
            "id": 1,
            "channel_id": 10,
            "status": "cancelled",
            "created_at": T0 - 10,
            "started_at": T0 - 1,
            "finished_at": cancelled_at,
            "lobby_message_id": None,
            "standings_message_id": None,
            "rounds_total": 5,
            "seats_count": 4,
        }
    ]
    records.rounds = [
        {
            "id": 7,
            "match_id": 1,
            "number": 1,
            "status": "open",
            "deadline": T0 + 60,
            "created_at": T0,
            "scored_at": None,
            "showdown_message_id": None,
        }
    ]
    no_rows = dict.fromkeys(("back", "middle", "front", "declare", "points"))
    records.hands = [
        no_rows
        | {
            "round_id": 7,
            "seat": seat,
            "fouled": False,
            "auto": False,
            "submitted_at": None if seat == 0 else T0,
            "dm_message_id": dm_message_id if seat == 0 else None,
        }
        for seat in range(4)
    ]
    records.seats = [
        {"match_id": 1, "seat": s, "user_id": 100 if s == 0 else None, "name": f"p{s}"}
        for s in range(4)
    ]
    return records


@pytest.mark.parametrize(
    ("dm_at", "cancelled_at", "late"),
    [
        (T0 + 2, T0 + 40, False),  # came at once
        (T0 + 25, T0 + 40, True),  # came 25 s after the deal, nothing in between
        (None, T0 + 40, True),  # never came, the match cancelled 40 s after the deal
        (None, T0 + 3, False),  # the match cancelled before it was late
    ],
)
def test_check_finds_a_builder_dm_that_came_late_or_never(
    dm_at: float | None, cancelled_at: float, late: bool
) -> None:
    report = Report("checker", 0.0, began=T0)
    fake = fake_of(dm_at)
    cluster = SimpleNamespace(disruptions=[], slots=[])
    records = records_of(None if dm_at is None else 555, cancelled_at)
    check(fake, records, cluster, {}, 1, 0.0, parse_args([]), report)
    dm = [v for v in report.violations if "DM seat 0" in v]
    assert bool(dm) == late, report.violations
    assert len(report.violations) == len(dm), report.violations  # nothing else is wrong


def _open(at: float, recipient: int, status: int = 200, **answer: Any) -> SimpleNamespace:
    """A recorded ``POST /users/@me/channels`` and the fake's answer (its headers, or a 429)."""
    headers = {}
    if "remaining" in answer:
        headers = {
            "X-RateLimit-Remaining": str(answer["remaining"]),
            "X-RateLimit-Reset-After": str(answer["reset_after"]),
        }
    response = {"retry_after": answer["retry_after"]} if status == 429 else {}
    return SimpleNamespace(
        method="POST",
        path="/users/@me/channels",
        json={"recipient_id": str(recipient)},
        at=at,
        status=status,
        headers=headers,
        response=response,
    )


def test_dm_open_waits_are_the_buckets_not_the_bots() -> None:
    """Who waited for the DM-open bucket: those opened in the window that spent it
    (discord.py sleeps to the reset in one of that window's calls before it returns), the
    ones opened as it reopened (after a 429 too); not those of an earlier window nor the
    ones opened long after it reopened."""
    fake = SimpleNamespace(
        requests=[
            _open(80.0, 7, remaining=1, reset_after=10.0),  # an earlier window, not spent
            _open(100.0, 1, remaining=1, reset_after=10.0),
            _open(100.5, 2, remaining=0, reset_after=9.5),  # spends it
            _open(101.0, 3, status=429, retry_after=9.0),  # another process, refused
            _open(110.0, 3, remaining=1, reset_after=10.0),  # as it reopened
            _open(110.02, 4, remaining=0, reset_after=9.98),  # spends it again: chained
            _open(120.0, 5, remaining=1, reset_after=10.0),  # as it reopened again
            _open(150.0, 6, remaining=1, reset_after=10.0),  # long after: no wait
        ]
    )
    waits = dm_open_waits(fake)  # type: ignore[arg-type]
    assert set(waits) == {1, 2, 3, 4, 5}
    assert waits[1] == waits[2] == (100.5, 110.0)
    assert waits[3] == waits[4] == waits[5] == (100.5, 120.0)  # 3: in the window 4 spent
