"""The repository's history methods (``finished_matches``, ``finished_matches_count``) on
every backend of tests/test_repository.py: SQLite as the bot opens it, SQLite's SQL alone,
and PostgreSQL."""

from __future__ import annotations

from data.repository import MatchStatus, Repository
from tests import test_repository as contract
from tests.test_repository import (
    DAY,
    GUILD,
    OTHER_GUILD,
    T0,
    build_history,
    play_round,
    playing_match,
)

# The backends and their repositories, as the repository's own tests get them.
db_path = contract.db_path
db = contract.db
repo = contract.repo


async def test_finished_matches_newest_first_with_totals_and_places(repo: Repository) -> None:
    await build_history(repo)
    found = await repo.finished_matches(GUILD)
    # Match B (3 days ago) before match A (40 days ago); the cancelled match C is not
    # history, nor is the other guild's match.
    assert [s.match.finished_at for s in found] == [T0 - 3 * DAY + 100, T0 - 40 * DAY + 100]
    b, a = found
    assert all(s.match.status == MatchStatus.FINISHED for s in found)
    assert a.totals == {0: -4.0, 1: 10.0, 2: -6.0}
    assert b.totals == {0: 4.0, 1: -1.0, 2: -3.0}
    assert {s.user_id: s.place for s in a.match.seats} == {100: 2, 101: 1, None: 3}
    assert [s.name for s in b.match.seats] == ["user100", "user102", "Bot 1"]
    assert await repo.finished_matches_count(GUILD) == 2
    other = await repo.finished_matches(OTHER_GUILD)
    assert [s.totals for s in other] == [{0: 50.0, 1: -50.0}]
    assert await repo.finished_matches(3) == [] and await repo.finished_matches_count(3) == 0


async def test_finished_matches_of_one_member_and_pages(repo: Repository) -> None:
    await build_history(repo)
    assert [s.totals[0] for s in await repo.finished_matches(GUILD, 101)] == [-4.0]
    assert await repo.finished_matches_count(GUILD, 101) == 1
    assert await repo.finished_matches_count(GUILD, 100) == 2
    # 102 only finished match B here (match C was cancelled)
    assert [s.match.seat_of(102).seat for s in await repo.finished_matches(GUILD, 102)] == [1]
    assert await repo.finished_matches(GUILD, 12345) == []
    assert await repo.finished_matches_count(GUILD, 12345) == 0

    first = await repo.finished_matches(GUILD, limit=1)
    second = await repo.finished_matches(GUILD, limit=1, offset=1)
    assert [s.match.id for s in first + second] == [
        s.match.id for s in await repo.finished_matches(GUILD)
    ]
    assert await repo.finished_matches(GUILD, limit=1, offset=2) == []


async def test_same_finish_time_is_ordered_by_id_and_a_seat_without_rounds_counts_zero(
    repo: Repository,
) -> None:
    ids = []
    for channel in (20, 21, 22):
        m = await playing_match(repo, (200, 201), 0, channel=channel, now=T0)
        if channel != 22:  # the last one finishes without a scored round
            await play_round(repo, m.id, 1, {0: 2, 1: -2}, scored_at=T0)
        assert await repo.finish_match(m.id, {0: 1, 1: 2}, now=T0 + 10)
        ids.append(m.id)
    found = await repo.finished_matches(GUILD)
    assert [s.match.id for s in found] == ids[::-1]
    assert found[0].totals == {0: 0.0, 1: 0.0}
    assert found[1].totals == {0: 2.0, 1: -2.0}
    pages = [await repo.finished_matches(GUILD, 201, limit=2, offset=o) for o in (0, 2)]
    assert [s.match.id for page in pages for s in page] == ids[::-1]
