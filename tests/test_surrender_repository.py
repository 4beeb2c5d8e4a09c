"""``submit_hand`` with a surrender on every backend of tests/test_repository.py (SQLite as
the bot opens it, SQLite's SQL alone, PostgreSQL): stored without rows and read back, once,
only where the table's preset and options allow surrender (migration 0013)."""

from __future__ import annotations

import pytest

from data.repository import Repository
from tests import test_repository as contract
from tests.test_repository import T0, split, the_deal

db_path = contract.db_path
db = contract.db
repo = contract.repo


async def _round(repo: Repository, options: dict, channel: int):
    m = await repo.create_match(
        1, channel, 100, "chinese-poker", options, 5, 120, "normal", "auto", 2, "auto",
        T0 + 600, "user100", now=T0,
    )  # fmt: skip
    await repo.add_seat(m.id, None, "Bot 1", "normal")
    assert await repo.start_match(m.id, now=T0)
    return await repo.start_round(m.id, 1, 5, T0 + 120, the_deal(2, 5), now=T0)


async def test_a_surrender_is_stored_without_rows_once(repo: Repository) -> None:
    rnd = await _round(repo, {"surrender": True}, 10)
    assert await repo.submit_hand(
        rnd.id, 0, None, None, None, None, fouled=False, surrendered=True, now=T0 + 1
    )
    hand = (await repo.get_round(rnd.id)).hands[0]
    assert hand.submitted and hand.surrendered
    assert (hand.back, hand.middle, hand.front, hand.declare, hand.fouled) == (
        None, None, None, None, False,
    )  # fmt: skip
    other = (await repo.get_round(rnd.id)).hands[1]
    assert not other.surrendered and not other.submitted
    # once: neither a second surrender nor rows afterwards
    assert not await repo.submit_hand(rnd.id, 0, None, None, None, None, False, surrendered=True)
    assert not await repo.submit_hand(rnd.id, 0, *split(hand.cards), None, False)
    assert (await repo.get_round(rnd.id)).hands[0].surrendered


async def test_a_surrender_is_refused_where_the_table_does_not_allow_it(repo: Repository) -> None:
    rnd = await _round(repo, {}, 11)
    with pytest.raises(ValueError, match="allows no surrender"):
        await repo.submit_hand(rnd.id, 0, None, None, None, None, False, surrendered=True)
    hand = (await repo.get_round(rnd.id)).hands[0]
    assert not hand.submitted and not hand.surrendered


async def test_a_surrender_comes_without_rows_special_or_foul(repo: Repository) -> None:
    rnd = await _round(repo, {"surrender": True}, 12)
    cards = (await repo.get_round(rnd.id)).hands[0].cards
    for rows, declare, fouled in (
        (split(cards), None, False),
        ((None, None, None), "dragon", False),
        ((None, None, None), None, True),
    ):
        with pytest.raises(ValueError, match="without rows"):
            await repo.submit_hand(rnd.id, 0, *rows, declare, fouled, surrendered=True)
    assert not (await repo.get_round(rnd.id)).hands[0].submitted
