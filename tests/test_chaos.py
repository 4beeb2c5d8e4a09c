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
the server restart is the full run's, on a private cluster)."""

from __future__ import annotations

import pytest

from bench.chaos import parse_args, run

pytestmark = pytest.mark.chaos

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


async def test_chaos_sqlite() -> None:
    assert_clean(await run(parse_args(SHORT), 1, postgres=False))


@pytest.mark.usefixtures("pg_server")
async def test_chaos_postgres_two_processes() -> None:
    assert_clean(await run(parse_args([*SHORT, "--no-pg-restart"]), 2, postgres=True))
