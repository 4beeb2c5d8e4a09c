"""The command line's rough edges a newcomer hit: --help shows every option with its
default, a bad choice lists the choices as typed, the installed command calls itself
``capsa``, and errors name what is wrong."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from capsa.cli import COMMANDS, build_parser, main, program_name
from capsa.i18n import LANGS, t
from capsa.match import seat_from_dict
from capsa.presets import get_preset
from capsa.scoring import score_round
from capsa.settings import ROUNDS
from capsa.showdown import pair_line
from data.repository import GuildSettings

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(args), io.StringIO(stdin), out, err)
    return status, out.getvalue(), err.getvalue()


def help_text(command: str, prog: str = "capsa") -> str:
    parser = build_parser(prog)
    sub = parser._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
    return " ".join(sub.format_help().split())


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_has_a_line_for_every_option_and_its_default(command):
    parser = build_parser("capsa")
    sub = parser._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
    text = help_text(command)
    for action in sub._actions:
        if action.option_strings and action.help != "==SUPPRESS==":
            assert action.help, f"{command} {action.option_strings[0]} has no help line"
            default = action.default
            if default not in (None, False, []) and action.option_strings != ["-h", "--help"]:
                assert f"default: {default}" in text or f"default {default}" in text, (
                    f"{command} {action.option_strings[0]}: the default {default} is not shown"
                )


def test_play_help_shows_the_level_and_the_defaults():
    text = help_text("play")
    assert "--level {easy,normal,hard} computer players and auto-arrange (default: normal)" in text
    assert "--rounds {5,10}" in text and "(default: 10)" in text
    assert "Level." not in text


@pytest.mark.parametrize("command", ["play", "arrange"])
def test_a_bad_level_lists_the_levels_as_typed(command):
    status, _, err = run(command, "--level", "expert")
    assert status == 2
    assert "invalid choice: 'expert' (choose from easy, normal, hard)" in err
    assert "<Level" not in err


def test_the_program_names_itself_as_it_was_started():
    assert program_name("/usr/local/bin/capsa") == "capsa"
    assert program_name("/repo/capsa/__main__.py") == "python -m capsa"
    assert program_name("/usr/bin/pytest") == "python -m capsa"  # anything else: -m
    status, _, err = run("play", "--players", "9")
    assert "see 'python -m capsa play --help'" in err


def test_python_m_capsa_keeps_its_own_name():
    done = subprocess.run(
        [sys.executable, "-m", "capsa", "play", "--level", "x"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "(see 'python -m capsa play --help')" in done.stderr


def test_an_installed_capsa_calls_itself_capsa(tmp_path):
    script = tmp_path / "capsa"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nfrom capsa.cli import main\nsys.exit(main())\n"
    )
    script.chmod(0o755)
    done = subprocess.run(
        [str(script), "--help"],
        env={"PYTHONPATH": str(ROOT), "COLUMNS": "100"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.startswith("usage: capsa [-h]")
    done = subprocess.run(
        [str(script), "arrange", "--level", "x"],
        env={"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "(see 'capsa arrange --help')" in done.stderr


ROWS = ["--back", "AS KS QS JS TS", "--middle", "9H 8H 7H 6H 5H", "--front", "4D 3D 2D"]


def test_a_row_of_the_wrong_size_is_named():
    short = ["--back", "AS KS QS JS TS", "--middle", "9H 8H 7H 6H", "--front", "4D 3D 2D"]
    status, _, err = run("review", *short)
    assert (status, err) == (2, "error: the middle row needs 5 cards, not 4\n")


def test_declaring_an_unknown_special_lists_the_ones_the_preset_pays():
    status, _, err = run("review", *ROWS, "--declare", "foo")
    assert status == 2
    assert err == (
        "error: --declare foo: not a special standard pays"
        " (dragon, six_pairs, three_straights, three_flushes)\n"
    )
    status, _, err = run("review", "--rules", "sayapoker", *ROWS, "--declare", "foo")
    assert err == "error: --declare foo: not a special sayapoker pays (dragon)\n"


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"players": [\n', "line 1, column 14"),
        ('{"players": [', "line 1, column 14"),
        ('{"players": [}\n', "line 1, column 14"),
        ('{"players":\n [\n', "line 2, column 3"),
    ],
)
def test_a_json_error_in_one_line_of_input_says_line_1(text, where):
    status, _, err = run("score", stdin=text)
    assert status == 2
    assert err.startswith(f"error: {where}: ")


def test_review_rounds_its_values_as_arrange_does():
    cards = "AS KS QS JS TS 9H 9D 9C 2H 2D 5C 6C 7C".split()
    rows = ["--back", " ".join(cards[:5]), "--middle", " ".join(cards[5:10])]
    status, out, _ = run("review", *rows, "--front", " ".join(cards[10:]))
    review = json.loads(out)
    status, out, _ = run("arrange", "--level", "hard", *cards)
    arranged = json.loads(out)
    for key in ("played_value", "best_value", "rows_value", "loss"):
        assert review[key] == round(review[key], 4), key
    # the coach values settings as arrange --level hard does: the same number, shown alike
    assert review["best_value"] == arranged["expected"]


def test_method_2_4s_point_for_most_rows_says_whose_it_is():
    players = [
        {"name": "Ana", "back": "2S 2H 2C 2D 9C", "middle": "KS KH KD 5C 5D", "front": "AS AH 3C"},
        {"name": "Budi", "back": "5S 6S 7S 8S 9S", "middle": "QS QH QC 7D 7C", "front": "AC AD 4C"},
    ]
    result = score_round(
        [seat_from_dict(p) for p in players],
        get_preset("chinese-poker", {"method": "2-4"}),
    )
    line = pair_line(result, result.pairs[0], "en")
    assert "+1 to Budi for most rows" in line  # Budi won the front and the back
    for lang in LANGS:
        assert "Budi" in t("sd.extra_majority", lang, units=1, name="Budi")


TERMINAL_WORDS = {
    "en": ("server", "bot", "/capsa", "DM"),
    "id": ("server", "bot", "/capsa", "DM"),
    "zh-CN": ("服务器", "机器人", "/capsa", "私信"),
    "vi": ("server", "bot", "/capsa", "nhắn riêng"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_the_rules_in_a_terminal_speak_of_the_table(lang):
    status, out, _ = run("rules", "all", "--rules", "all", "--lang", lang)
    assert status == 0
    lowered = out.lower()
    for word in TERMINAL_WORDS[lang]:
        assert re.search(rf"(?<!\w){re.escape(word.lower())}(?!\w)", lowered) is None, word
    assert "python -m capsa rules scoring" in out  # the topics as this program takes them
    # the Markdown reference stays the bot's, word for word
    status, md, _ = run("rules", "overview", "--lang", lang, "--markdown")
    assert "/capsa" in md


def test_the_default_number_of_rounds_is_the_same_everywhere():
    rounds = ROUNDS.default
    assert build_parser("capsa").parse_args(["play"]).rounds == rounds
    status, out, _ = run("rules", "overview")
    assert f"({rounds} by default" in out
    assert GuildSettings(guild_id=1).get(ROUNDS) == rounds  # before /capsa settings
