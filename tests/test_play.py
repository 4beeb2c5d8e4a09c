"""``python -m capsa play``, driven by piped input."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from capsa.cards import deal, format_cards
from capsa.cli import main
from capsa.presets import get_preset
from capsa.solver import arrange

ROOT = Path(__file__).resolve().parents[1]
RUN = "import capsa.solver_cli, sys; from capsa.cli import main; sys.exit(main())"


def play(args, text):
    out, err = io.StringIO(), io.StringIO()
    status = main(["play", *args], io.StringIO(text), out, err)
    return status, out.getvalue(), err.getvalue()


def first_hand(seed: int, players: int):
    """The human's first hand for a given --seed (the same derivation as the command)."""
    import random

    round_seed = random.Random(seed).randrange(2**32)
    return deal(players, seed=round_seed)[0]


def test_scripted_two_round_match_with_auto_arrange():
    status, out, err = play(["--players", "2", "--rounds", "5", "--seed", "1"], "a\na\n")
    assert status == 0 and err == ""
    assert "Round 1 of 5" in out and "Round 2 of 5" in out
    assert out.count("--- Showdown ---") == 2
    assert "Match totals" in out and "Final standings after 2 round(s)" in out
    assert "Input ended" in out  # EOF at round 3 ends cleanly


def test_full_short_match_finishes():
    status, out, _ = play(
        ["--players", "3", "--rounds", "5", "--seed", "2", "--level", "easy"], "a\n" * 5
    )
    assert status == 0 and "Final standings after 5 round(s)" in out
    assert "Input ended" not in out


def test_typed_rows_and_a_bad_row_reprompts():
    hand = first_hand(3, 2)
    a = arrange(hand, get_preset("standard"), "normal", 1)
    back, middle = format_cards(a.ordinary[0]), format_cards(a.ordinary[1])
    script = f"ZZ 1\n{back} {back[:2]}\n{back}\n{middle}\n"
    status, out, err = play(["--players", "2", "--seed", "3"], script)
    assert status == 0 and "Traceback" not in out + err
    assert "'ZZ' is not a card" in out and "Try again" in out
    assert out.count("Back row (5 cards)") >= 3
    assert "--- Showdown ---" in out and "You vs Computer 1" in out


def test_fouled_setting_asks_for_confirmation():
    hand = first_hand(4, 2)
    a = arrange(hand, get_preset("standard"), "normal", 1)
    # put the middle in the back and the back in the middle: fouled unless equal
    back, middle = format_cards(a.ordinary[1]), format_cards(a.ordinary[0])
    status, out, _ = play(["--players", "2", "--seed", "4"], f"{back}\n{middle}\nn\na\n")
    assert status == 0
    assert "fouled" in out and "Play it anyway?" in out
    assert "--- Showdown ---" in out


def test_eof_at_once_ends_cleanly():
    status, out, err = play(["--players", "4"], "")
    assert status == 0 and "Input ended" in out and err == ""
    assert "Final standings" not in out


def test_bad_options_exit_2():
    assert play(["--players", "5"], "")[0] == 2
    assert play(["--rounds", "7"], "")[0] == 2
    assert play(["--rules", "nope"], "")[0] == 2


def test_play_subprocess_with_piped_stdin():
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            RUN,
            "play",
            "--players",
            "2",
            "--seed",
            "5",
            "--rules",
            "indocapsa",
        ],
        input="a\na\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("--- Showdown ---") == 2 and "Final standings" in proc.stdout
