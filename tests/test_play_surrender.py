"""``python -m capsa play``: the computers give a hand up when their solver says so, where
the table allows surrender (issue 22), and never where it does not."""

from __future__ import annotations

from capsa.i18n import t
from tests.test_play import first_round, play, shown

# --seed 14 at a 4-player table: the third computer's first hand is one its solver
# surrenders at chinese-poker with surrender (tests/test_play.py derives the deals so).
SEED = "14"


def _computer_block(round_1: str, n: int) -> str:
    """Computer ``n``'s lines of the showdown (the last block ends at the blank line)."""
    return round_1.split(f"== {t('seat.computer', 'en', n=n)} ==")[1].split("\n\n")[0]


def test_a_computer_surrenders_a_hopeless_hand_where_the_table_allows_it() -> None:
    args = ["--players", "4", "--seed", SEED, "--rules", "chinese-poker"]
    status, out, _ = play([*args, "--option", "surrender=true"], "a\ny\n")
    assert status == 0
    block = _computer_block(first_round(out), 3)
    assert shown("sd.surrender") in block
    assert shown("sd.points", points="-9") in block  # 3 to each of the three others
    assert "Front:" not in block  # its cards are never shown

    status, out, _ = play(args, "a\ny\n")  # the same deal without surrender: rows
    block = _computer_block(first_round(out), 3)
    assert shown("sd.surrender") not in block and "Front:" in block
