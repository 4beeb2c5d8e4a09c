"""The command line contract: ``python -m capsa score`` / ``rank``, run as subprocesses."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from capsa.cli import PLAYER_KEYS, json_reason, main
from capsa.i18n import DEFAULT_LANG, LANGS
from capsa.match import seat_from_dict, seat_to_dict
from capsa.presets import PRESETS, get_preset
from capsa.rules_text import TOPICS, rules_page
from capsa.terminal import display_width

ROOT = Path(__file__).resolve().parents[1]

EX1 = {
    "players": [
        {
            "name": "A",
            "back": ["2S", "2H", "2C", "2D", "9C"],
            "middle": ["KS", "KH", "KD", "5C", "5D"],
            "front": ["AS", "AH", "3C"],
        },
        {
            "name": "B",
            "back": ["5♠", "6♠", "7♠", "8♠", "9♠"],
            "middle": ["Q♠", "Q♥", "Q♣", "7♦", "7♣"],
            "front": ["a♣", "a♦", "4c"],
        },
    ]
}

# RULES §6 example 4: A fouled, C sweeps the table
EX4 = {
    "rules": "standard",
    "players": [
        {"name": "A", "back": "5D 5H 3S 6S 7S", "middle": "KS KH 9C 9D 2C", "front": "AH AD 3H"},
        {"name": "B", "back": "TS TH 4S 4H 2S", "middle": "8C 8D 2H 3D 4D", "front": "7C 7D AS"},
        {"name": "C", "back": "2D 6D TD JD KD", "middle": "5C 6C 7H 8S 9H", "front": "QS QH 3C"},
    ],
}

DRAGON = {
    "rules": "indocapsa",
    "players": [
        {
            "name": "D",
            "back": ["2S", "3S", "4S", "5S", "6S"],
            "middle": ["7H", "8H", "9H", "TH", "JH"],
            "front": ["QD", "KD", "AD"],
            "declare": "dragon",
        },
        {"name": "P", "back": "9C TC JC QC KC", "middle": "AS AH AC 3H 3D", "front": "2H 2D 2C"},
    ],
}


def run(
    *args: str, stdin: str | bytes = "", env: dict | None = None
) -> subprocess.CompletedProcess:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-m", "capsa", *args],
        input=data,
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        env={**os.environ, **env} if env else None,
    )
    proc.stdout = proc.stdout.decode()  # type: ignore[assignment]
    proc.stderr = proc.stderr.decode()  # type: ignore[assignment]
    return proc


def assert_bad_input(proc, *needles: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


# --- score ------------------------------------------------------------------------------------


def test_score_example_1() -> None:
    proc = run("score", stdin=json.dumps(EX1))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    answer = json.loads(proc.stdout)
    assert proc.stdout.count("\n") == 1
    assert answer["rules"] == "standard"  # the default
    a, b = answer["players"]
    assert (a["name"], a["total"], a["fouled"], a["special"]) == ("A", -7, False, None)
    assert (b["name"], b["total"]) == ("B", 7)
    assert [a[row]["category"] for row in ("back", "middle", "front")] == [
        "four_of_a_kind",
        "full_house",
        "pair",
    ]
    assert b["back"]["category"] == "straight_flush"
    (pair,) = answer["pairs"]
    assert pair["points"] == {"A": -7, "B": 7}
    assert pair["rows"]["back"] == {"winner": "B", "value": 9, "bonus": "straight_flush"}
    assert pair["rows"]["middle"] == {"winner": "A", "value": 3, "bonus": "full_house"}
    assert pair["rows"]["front"]["winner"] == "B"
    assert pair["sweep"] is None and pair["multiplier"] == 1
    assert answer["table_sweep"] is None


def test_score_table_sweep_and_foul() -> None:
    proc = run("score", stdin=json.dumps(EX4))
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert [p["name"] for p in answer["players"]] == ["A", "B", "C"]  # input order
    assert [p["total"] for p in answer["players"]] == [-18, -6, 24]
    assert [p["fouled"] for p in answer["players"]] == [True, False, False]
    assert answer["table_sweep"] == "C"
    cb = next(p for p in answer["pairs"] if set(p["players"]) == {"B", "C"})
    assert (cb["sweep"], cb["multiplier"], cb["points"]["C"]) == ("C", 4, 12)


def test_score_declare_and_options() -> None:
    proc = run("score", stdin=json.dumps(DRAGON))
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert [p["total"] for p in answer["players"]] == [78, -78]
    assert answer["players"][0]["special"] == "dragon"
    # chinese-poker 2-4 on example 1: B wins the back (1 + straight-flush royalty 5 = 6) and
    # the front (1); A wins the middle (1 + full-house royalty 2 = 3). B has the majority
    # of rows: +1. B: 6 + 1 + 1 - 3 = +5.
    payload = {"rules": "chinese-poker", "options": {"method": "2-4"}, **EX1}
    answer = json.loads(run("score", stdin=json.dumps(payload)).stdout)
    assert [p["total"] for p in answer["players"]] == [-5, 5]
    assert answer["options"] == {"method": "2-4", "surrender": False}


def test_score_batch() -> None:
    lines = [json.dumps(EX1), json.dumps(EX4), json.dumps(DRAGON)]
    proc = run("score", "--batch", stdin="\n".join(lines) + "\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [[p["total"] for p in a["players"]] for a in answers] == [
        [-7, 7],
        [-18, -6, 24],
        [78, -78],
    ]


def test_score_batch_with_bad_lines() -> None:
    bad_token = json.loads(json.dumps(EX1))
    bad_token["players"][0]["front"][2] = "3X"
    lines = [json.dumps(EX1), "{not json", json.dumps(bad_token), "", "  \t", json.dumps(EX4)]
    proc = run("score", "--batch", stdin="\n".join(lines) + "\n")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(out) == 6  # one answer per line, errors and blank lines in place
    assert [p["total"] for p in out[0]["players"]] == [-7, 7]
    assert [p["total"] for p in out[5]["players"]] == [-18, -6, 24]
    err = proc.stderr.splitlines()
    assert [e.split(":")[0] for e in err] == ["line 2, column 2", "line 3", "line 4", "line 5"]
    assert "JSON" in err[0] and "3X" in err[1]
    assert "blank" in err[2] and "blank" in err[3]
    # the error line says the same as stderr
    assert [o["error"] for o in out[1:5]] == err


def test_score_batch_answers_every_line_even_the_last_without_a_newline() -> None:
    stdin = "\n\n" + json.dumps(EX1)  # two blank lines, then a good one with no newline
    proc = run("score", "--batch", stdin=stdin)
    out = proc.stdout.splitlines()
    assert len(out) == 3 and proc.returncode == 2
    assert json.loads(out[2])["players"][0]["total"] == -7
    assert proc.stderr.splitlines() == [json.loads(out[0])["error"], json.loads(out[1])["error"]]
    assert proc.stderr.startswith("line 1: ")


def test_arrange_batch_answers_every_line() -> None:
    hand = "AS KS QS JS TS 9H 9D 9C 2H 2D 5C 6C 7C"
    proc = run("arrange", "--batch", stdin=f"{hand}\n\n{hand}\nAS KS\n")
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(out) == 4 and proc.returncode == 2
    assert out[0]["back"] == out[2]["back"] == ["AS", "KS", "QS", "JS", "TS"]
    assert out[1]["error"].startswith("line 2: ") and "blank" in out[1]["error"]
    assert out[3]["error"].startswith("line 4: ") and "13" in out[3]["error"]
    assert proc.stderr.splitlines() == [out[1]["error"], out[3]["error"]]


def _in_process(*args: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(args), io.StringIO(stdin), out, err)
    return status, out.getvalue(), err.getvalue()


def test_arrange_takes_table_options_as_score_does() -> None:
    """--option KEY=VALUE, as score and play take them: the method changes the values, an
    option the preset does not allow or a bad value is refused with status 2."""
    hand = "AS KS QS JS TS 9H 9D 9C 2H 2D 5C 6C 7C".split()
    status, out, _ = _in_process("arrange", "--rules", "chinese-poker", *hand)
    one_six = json.loads(out)
    status, out, _ = _in_process(
        "arrange", "--rules", "chinese-poker", "--option", "method=2-4", *hand
    )
    two_four = json.loads(out)
    assert status == 0 and one_six["expected"] != two_four["expected"]
    assert "surrender" not in two_four
    status, out, _ = _in_process(
        "arrange", "--rules", "chinese-poker", "--option", "surrender=true", *hand
    )
    assert status == 0 and json.loads(out)["surrender"] is False
    status, _, err = _in_process("arrange", "--option", "method=2-4", *hand)
    assert status == 2 and "method" in err and "standard" in err
    status, _, err = _in_process("arrange", "--rules", "chinese-poker", "--option", "method=3")
    assert status == 2 and "'1-6' or '2-4'" in err


def test_arrange_batch_with_options() -> None:
    hands = ["AS KH QS JD 9S 8H 7C 6S 5D 4C 3H 2S 2C", "AS KS QS JS TS 9H 9D 9C 2H 2D 5C 6C 7C"]
    args = ("arrange", "--rules", "sayapoker", "--option", "room_fee=true", "--batch")
    status, out, _ = _in_process(*args, stdin="\n".join(hands) + "\n")
    lines = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(lines) == 2
    for hand, line in zip(hands, lines, strict=True):
        single = _in_process(
            "arrange", "--rules", "sayapoker", "--option", "room_fee", *hand.split()
        )
        assert json.loads(single[1]) == line


def test_review_takes_options_and_batch() -> None:
    """review --option as arrange; --batch answers one line a hand (rows, then optionally a
    special or a surrender), a refused line in its place and status 2."""
    rows = "AS KS QS JS TS / 9H 9D 9C 2H 2D / 5C 6C 7C"
    flags = ("--rules", "chinese-poker", "--option", "surrender=true", "--opponents", "2")
    back, middle, front = (part.strip() for part in rows.split("/"))
    status, out, _ = _in_process(
        "review", *flags, "--back", back, "--middle", middle, "--front", front
    )
    single = json.loads(out)
    assert status == 0 and single["best_surrender"] is False and single["best_choice"]
    stdin = f"{rows}\n{rows} / surrender\n{rows} / dragon\n\n"
    status, out, err = _in_process("review", *flags, "--batch", stdin=stdin)
    lines = [json.loads(line) for line in out.splitlines()]
    assert status == 2 and len(lines) == 4
    assert lines[0] == single
    assert lines[1]["surrendered"] and lines[1]["played_value"] == lines[1]["surrender_value"]
    assert lines[1]["loss"] > 0
    assert lines[2]["error"].startswith("line 3: ") and "dragon" in lines[2]["error"]
    assert lines[3]["error"].startswith("line 4: ") and "blank" in lines[3]["error"]
    status, _, err = _in_process(
        "review", "--back", back, "--middle", middle, "--front", front, "--surrender"
    )
    assert status == 2 and "surrender" in err


def _ex1_with(path: tuple, value) -> str:
    payload = json.loads(json.dumps(EX1))
    target = payload
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return json.dumps(payload)


@pytest.mark.parametrize(
    ("stdin", "needles"),
    [
        # a bad token
        (_ex1_with(("players", 0, "front", 2), "1C"), ("'1C'", "A")),
        (_ex1_with(("players", 1, "back", 0), "5Z"), ("'5Z'",)),
        # a duplicate card: inside one row, inside one hand, across two hands
        (_ex1_with(("players", 0, "front", 2), "AS"), ("AS",)),
        (_ex1_with(("players", 0, "front", 2), "KS"), ("KS",)),
        (_ex1_with(("players", 0, "front", 2), "4C"), ("4C", "A", "B")),
        # a wrong row size
        (_ex1_with(("players", 0, "front"), ["AS", "AH"]), ("front", "3")),
        (_ex1_with(("players", 1, "middle"), ["QS", "QH", "QC", "7D"]), ("middle", "5")),
        # a false declaration
        (_ex1_with(("players", 0, "declare"), "dragon"), ("dragon", "A")),
        (_ex1_with(("players", 0, "declare"), "six_pairs"), ("six_pairs",)),
        (_ex1_with(("players", 0, "declare"), "royal"), ("royal",)),
        # an unknown preset, bad options
        (_ex1_with(("rules",), "texas"), ("'texas'",)),
        (_ex1_with(("rules",), 3), ("rules",)),
        (_ex1_with(("options",), {"method": "2-4"}), ("method", "standard")),
        (_ex1_with(("options",), "2-4"), ("options",)),
        # invalid JSON and wrong shapes
        ('{"players": [', ("JSON",)),
        ("", ("JSON",)),
        ("[1, 2]", ("object",)),
        ('{"players": {}}', ("players",)),
        ('{"players": [1, 2]}', ("player",)),
        ('{"rules": ' + "1" * 5000 + "}", ("JSON",)),
        ("[" * 100_000 + "]" * 100_000, ("JSON",)),
        (b'{"players": "\xff\xfe"}', ()),
        # a table of one, two players with one name, a card that is not text
        ('{"players": [{"name": "A", "back": [], "middle": [], "front": []}]}', ("2 to 4",)),
        (_ex1_with(("players", 1, "name"), "A"), ("same name",)),
        (_ex1_with(("players", 0, "back", 0), 14), ("14",)),
        (_ex1_with(("players", 0, "name"), ""), ("name",)),
    ],
)
def test_score_bad_input(stdin, needles) -> None:
    proc = run("score", stdin=stdin)
    assert proc.stdout == ""
    assert_bad_input(proc, *needles)


# --- keys that score does not know ------------------------------------------------------------

CHINESE = {"rules": "chinese-poker", "options": {"surrender": True}, **EX1}


def _with(payload: dict, path: tuple, value) -> str:
    payload = json.loads(json.dumps(payload))
    target = payload
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return json.dumps(payload)


def _player(payload: dict, index: int, **keys) -> str:
    payload = json.loads(json.dumps(payload))
    payload["players"][index].update(keys)
    return json.dumps(payload)


@pytest.mark.parametrize(
    ("stdin", "needles"),
    [
        # a key of the request, of a player, of the options: each names the key and the
        # keys allowed there
        (
            _with(EX1, ("option",), {"method": "2-4"}),
            ("'option'", "allowed: rules, options, players", "did you mean 'options'"),
        ),
        (
            _player(EX1, 0, declared="dragon"),
            ("A: ", "'declared'", "declare, surrender, foul", "did you mean 'declare'"),
        ),
        (
            _player(CHINESE, 1, surender=True),
            ("B: ", "'surender'", "allowed: name, back, middle", "did you mean 'surrender'"),
        ),
        (_player(EX1, 1, colour="red"), ("'colour'", "allowed: name")),
        (
            _with(CHINESE, ("options", "surender"), True),
            ("'surender'", "chinese-poker", "allowed: method, surrender"),
        ),
        (_with(EX1, ("options",), {"room_fee": True}), ("'room_fee'", "allowed: none")),
        # a player without a name is named by position
        ('{"players": [{"nom": "A"}, {"name": "B"}]}', ("player 1: ", "'nom'")),
        # surrender and declare together
        (
            _player(CHINESE, 0, surrender=True, declare="dragon"),
            ("A: ", "surrender", "declare", "not both"),
        ),
    ],
)
def test_score_refuses_unknown_keys(stdin, needles) -> None:
    proc = run("score", stdin=stdin)
    assert proc.stdout == ""
    assert_bad_input(proc, *needles)


def test_the_player_keys_are_the_keys_a_seat_is_written_with() -> None:
    seat = seat_from_dict(EX1["players"][0])
    assert set(PLAYER_KEYS) == set(seat_to_dict(seat))


def test_surrender_alone_and_a_null_declare_are_accepted() -> None:
    proc = run("score", stdin=_player(CHINESE, 0, surrender=True, declare=None))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["players"][0]["surrendered"] is True


# --- JSON errors --------------------------------------------------------------------------------

BAD_JSON = [
    ('{"players": [\n  {"name": "A" "back": []}]}', "line 2, column 16: expected ','"),
    ('{"players" []}', "line 1, column 12: expected ':'"),
    ("{'players': []}", "line 1, column 2: expected a key in double quotes"),
    ('{"players": [1,]}', "line 1, column 16: expected a value"),
    ('{"players": "abc', "line 1, column 13: a string starts here and never ends"),
    ('{"players": "a\tb"}', "line 1, column 15: a control character"),
    ('{"players": "a\\qb"}', "line 1, column 15: an invalid backslash escape"),
    ('{"players": "\\u12"}', "line 1, column 15: an invalid \\uXXXX escape"),
    ("{}\n{}", "line 2, column 1: more data after the JSON object"),
    ("\n\n   ", "no input"),
]


def _doubled(text: str) -> list[str]:
    return re.findall(r"\b(\w+)\W+\1\b", text)


@pytest.mark.parametrize(("stdin", "expected"), BAD_JSON)
def test_json_errors_say_where(stdin, expected) -> None:
    proc = run("score", stdin=stdin)
    assert_bad_input(proc, expected, "JSON")
    assert _doubled(proc.stderr) == [], proc.stderr
    assert "Expecting" not in proc.stderr and " at " not in proc.stderr


def test_json_errors_without_batch_suggest_it_for_several_objects() -> None:
    assert_bad_input(run("score", stdin="{}\n{}\n"), "--batch")


def test_json_errors_in_a_batch_give_the_input_line() -> None:
    lines = [json.dumps(EX1), '{"players": [1,]}', "[", '{"players" []}']
    proc = run("score", "--batch", stdin="\n".join(lines))
    assert proc.returncode == 2
    err = proc.stderr.splitlines()
    assert err == [
        "line 2, column 16: expected a value (invalid JSON)",
        "line 3, column 2: expected a value (invalid JSON)",
        "line 4, column 12: expected ':' (invalid JSON)",
    ]
    assert [json.loads(line).get("error") for line in proc.stdout.splitlines()] == [None, *err]


@pytest.mark.parametrize("msg", ["Expecting something new at", "Odd thing"])
def test_json_reasons_read_plainly_even_for_messages_not_listed(msg) -> None:
    reason = json_reason(msg)
    assert reason[0].islower() and not reason.endswith(" at") and "Expecting" not in reason


@pytest.mark.parametrize("batch", [(), ("--batch",)])
def test_score_input_that_is_not_utf8(batch) -> None:
    # where stdin decoding is strict (e.g. a UTF-8 locale), bytes that are not UTF-8
    proc = run(
        "score",
        *batch,
        stdin=b'{"players": "\xff\xfe"}\n',
        env={"PYTHONIOENCODING": "utf-8:strict"},
    )
    assert_bad_input(proc, "UTF-8")


@pytest.mark.parametrize("args", [("score", "--nope"), ("deal",), ()])
def test_bad_arguments(args) -> None:
    assert_bad_input(run(*args))


# --- rank ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "lang", "expected"),
    [
        (("AS", "KS", "QS", "JS", "TS"), "en", "royal_flush\tRoyal flush"),
        (("10h", "10d", "10s", "5c", "5d"), "en", "full_house\tFull house, tens over fives"),
        (("10h", "10d", "10s", "5c", "5d"), "id", "full_house\tFull house, 10 dengan 5"),
        (("A♠", "2♥", "3♦", "4♣", "5♠"), "en", "straight\tStraight, five high"),
        (("qs", "kh", "ad"), "en", "high_card\tHigh card, ace"),
        (("7S", "7H", "2D"), "id", "pair\tSepasang 7"),
    ],
)
def test_rank(cards, lang, expected) -> None:
    proc = run("rank", *cards, "--lang", lang)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected + "\n"
    assert proc.stderr == ""


@pytest.mark.parametrize(
    ("cards", "needles"),
    [
        (("AS", "KS", "QS", "JS", "XS"), ("'XS'",)),
        (("AS", "KS", "QS", "JS", "as"), ("'as'",)),
        (("AS", "KS"), ("3 or 5",)),
        (("AS", "KS", "QS", "JS"), ("3 or 5",)),
        ((), ("cards",)),
        (("AS", "KS", "QS", "--lang", "fr"), ("fr",)),
    ],
)
def test_rank_bad_input(cards, needles) -> None:
    proc = run("rank", *cards)
    assert proc.stdout == ""
    assert_bad_input(proc, *needles)


# --- rules -----------------------------------------------------------------------------------


def run_in_process(*args: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    status = main(list(args), io.StringIO(), stdout, stderr)
    return status, stdout.getvalue(), stderr.getvalue()


TERMINAL_RULES = "python -m capsa rules"  # how the tests start the program


def _plain(text: str) -> str:
    return text.replace("*", "")  # Discord's bold and italics


def test_rules_without_a_topic_is_the_overview_as_the_bot_shows_it() -> None:
    proc = run("rules")
    assert proc.returncode == 0 and proc.stderr == ""
    page = rules_page(None, get_preset(None), DEFAULT_LANG, terminal=TERMINAL_RULES)
    lines = proc.stdout.splitlines()
    assert lines[0] == page.title and set(lines[1]) == {"="}
    assert _plain(page.intro) in proc.stdout
    for heading, body in page.sections:
        assert f"\n\n{heading}\n{'-' * display_width(heading)}\n{_plain(body)}\n" in proc.stdout
    assert "**" not in proc.stdout  # Discord's bold is for Discord


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("topic", TOPICS)
def test_rules_every_page(topic, preset, lang) -> None:
    status, out, err = run_in_process("rules", topic, "--rules", preset, "--lang", lang)
    assert (status, err) == (0, "")
    # the terminal's wording (the table, this program's commands); Markdown is Discord's
    terminal = rules_page(topic, PRESETS[preset], lang, terminal=TERMINAL_RULES)
    assert out.startswith(terminal.title + "\n") and "*" not in out
    for heading, body in terminal.sections:
        assert f"\n{heading}\n{'-' * display_width(heading)}\n{_plain(body)}\n" in out
    page = rules_page(topic, PRESETS[preset], lang)
    status, md, err = run_in_process(
        "rules", topic, "--rules", preset, "--lang", lang, "--markdown"
    )
    assert (status, err) == (0, "")
    assert md.startswith(f"# {page.title}\n\n")
    assert [line[3:] for line in md.splitlines() if line.startswith("## ")] == [
        h for h, _ in page.sections
    ]


def test_rules_markdown_keeps_lists_and_line_breaks() -> None:
    _, md, _ = run_in_process("rules", "presets", "--markdown")
    assert "\n- Ties: " in md and "•" not in md  # bullets become a Markdown list
    _, md, _ = run_in_process("rules", "hands", "--markdown")
    assert "\n1. **Royal flush**" in md and "\n2. **Straight flush**" in md  # one list
    _, md, _ = run_in_process("rules", "overview", "--markdown")
    # lines that are not a list are paragraphs: a line break in the bot is one here too
    assert "no jokers. With 2 or 3 players the leftover cards sit out.\n\nRanks" in md


def test_rules_all_topics_in_order() -> None:
    status, out, _ = run_in_process("rules", "all", "--rules", "indocapsa")
    assert status == 0
    titles = [rules_page(topic, PRESETS["indocapsa"], "en").title for topic in TOPICS]
    positions = [out.index(f"{title}\n") for title in titles]
    assert positions == sorted(positions) and positions[0] == 0


@pytest.mark.parametrize("lang", LANGS)
def test_rules_document_of_every_preset(lang) -> None:
    status, md, _ = run_in_process("rules", "all", "--rules", "all", "--markdown", "--lang", lang)
    assert status == 0
    lines = md.splitlines()
    assert lines[0].startswith("# ") and lines.count(lines[0]) == 1
    assert "`python -m capsa rules all --rules all" in md  # says how it was made
    preset_headings = [line for line in lines if line.startswith("## ")]
    assert len(preset_headings) == len(PRESETS)
    for heading, name in zip(preset_headings, PRESETS, strict=True):
        assert heading.endswith(f": {name}")
        slug = re.sub(r"[^\w\- ]", "", heading[3:].lower()).replace(" ", "-")
        assert f"[{name}](#{slug})" in md  # the contents link to the heading
    pages = [line for line in lines if line.startswith("### ")]
    assert len(pages) == len(PRESETS) * len(TOPICS)


@pytest.mark.parametrize("lang", LANGS)
def test_the_rules_documents_are_current(lang) -> None:
    name = "rules.md" if lang == DEFAULT_LANG else f"rules.{lang}.md"
    path = ROOT / "docs" / name
    args = ["rules", "all", "--rules", "all"]
    args += ["--markdown"] if lang == DEFAULT_LANG else ["--lang", lang, "--markdown"]
    command = f".venv/bin/python -m capsa {' '.join(args)} > docs/{name}"
    assert path.is_file(), f"docs/{name} is missing: make it with `{command}`"
    _, expected, _ = run_in_process(*args)
    assert f"`python -m capsa {' '.join(args)}`" in expected  # the document names it too
    assert path.read_text(encoding="utf-8") == expected, (
        f"docs/{name} is out of date: regenerate it with `{command}`"
    )


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("rules", "royalties"), ("'royalties'", "overview", "presets, all")),
        (("rules", "royalties", "--lang", "id"), ("'royalties'", "Pilih", "all")),
        (("rules", "--rules", "texas"), ("texas",)),
        (("rules", "--lang", "fr"), ("fr",)),
    ],
)
def test_rules_bad_input(args, needles) -> None:
    proc = run(*args)
    assert proc.stdout == ""
    assert_bad_input(proc, *needles)
