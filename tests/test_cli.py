"""The command line contract: ``python -m capsa score`` / ``rank``, run as subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

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
    lines = [json.dumps(EX1), "", json.dumps(EX4), json.dumps(DRAGON)]
    proc = run("score", "--batch", stdin="\n".join(lines) + "\n")
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [[p["total"] for p in a["players"]] for a in answers] == [
        [-7, 7],
        [-18, -6, 24],
        [78, -78],
    ]


def test_score_batch_with_bad_lines() -> None:
    bad_token = json.loads(json.dumps(EX1))
    bad_token["players"][0]["front"][2] = "3X"
    lines = [json.dumps(EX1), "{not json", json.dumps(bad_token), json.dumps(EX4)]
    proc = run("score", "--batch", stdin="\n".join(lines) + "\n")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(out) == 4  # one answer per line, errors in place
    assert [p["total"] for p in out[0]["players"]] == [-7, 7]
    assert "JSON" in out[1]["error"]
    assert "3X" in out[2]["error"]
    assert [p["total"] for p in out[3]["players"]] == [-18, -6, 24]
    err = proc.stderr.splitlines()
    assert len(err) == 2
    assert err[0].startswith("line 2: ") and "JSON" in err[0]
    assert err[1].startswith("line 3: ") and "3X" in err[1]


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
