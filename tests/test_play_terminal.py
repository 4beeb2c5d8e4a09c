"""The terminal game in a real terminal (a pseudo-terminal of a set size): every line fits
its width in every language, and after each showdown the game waits for Enter (or the
review letter) before the next round scrolls it away. ``capsa rules`` wraps there too,
while its Markdown stays as written."""

from __future__ import annotations

import fcntl
import io
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from capsa.cli import main
from capsa.i18n import LANGS, catalog, count_of, number, t
from capsa.play import ROUNDS_WORDS
from capsa.terminal import display_width, wrap, wrap_line

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    """``python -m capsa ARGS`` on a pseudo-terminal of ``columns`` x ``rows``."""

    def __init__(self, *args: str, columns: int, rows: int = 24) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "capsa", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            env=env | {"PYTHONPATH": str(ROOT)},
            start_new_session=True,
        )
        os.close(slave)
        self.master = master
        self.seen = ""

    def read_until(self, text: str, timeout: float = 120, since: int = 0) -> str:
        """Everything shown so far, once ``text`` is on the screen (after ``since``)."""
        deadline = time.monotonic() + timeout
        raw = b""
        while text not in self.seen[since:]:
            assert time.monotonic() < deadline, f"{text!r} never came:\n{self.seen}"
            ready, _, _ = select.select([self.master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the program ended
                    chunk = b""
                if not chunk:
                    assert text in self.seen, f"ended without {text!r}:\n{self.seen}"
                raw += chunk
                self.seen += raw.decode("utf-8", errors="ignore")
                raw = b""
        return self.seen

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\r")

    def quiet_for(self, seconds: float) -> str:
        """What the program shows in ``seconds`` of waiting (nothing, if it waits for us)."""
        shown = b""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the program ended
                    break
                if not chunk:
                    break
                shown += chunk
        self.seen += shown.decode("utf-8", errors="ignore")
        return shown.decode("utf-8", errors="ignore")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)
        os.close(self.master)


def screen_lines(text: str) -> list[str]:
    """The lines as the terminal shows them (the echo of typed lines included)."""
    return [ANSI.sub("", line) for line in text.replace("\r", "").split("\n")]


@pytest.mark.parametrize("lang", LANGS)
def test_the_game_fits_the_terminal_and_waits_after_each_showdown(lang):
    term = Terminal(
        "play", "--players", "4", "--rounds", "5", "--seed", "3", "--lang", lang, columns=60
    )
    try:
        term.read_until(t("play.ask_back", lang, auto="a").strip()[-6:])
        term.type("a")
        term.read_until(t("play.lock", lang).strip()[-4:])
        term.type("y")
        pause = t("play.next", lang, letter="r").strip()
        shown = term.read_until(pause)
        showdown = shown.split(t("play.showdown", lang))[1]
        round_2 = t("play.round", lang, k=2, n=5)
        assert round_2 not in shown
        assert term.quiet_for(1.5) == "", "the game goes on only after Enter"
        # r: the coach's review, and the same question again
        asked = len(term.seen)
        term.type("r")
        after_review = term.read_until(pause, since=asked + 2)
        assert after_review.count(pause) == 2
        assert len(after_review[asked:].splitlines()) > 5, "the review came between"
        assert t("play.review_hint", lang, letter="r") not in after_review
        term.type("")
        term.read_until(round_2)
    finally:
        term.close()
    lines = screen_lines(term.seen)
    too_wide = [line for line in lines if display_width(line) > 60]
    assert too_wide == [], "\n".join(too_wide)
    assert any(display_width(line) > 45 for line in lines), "long lines fill the width"
    assert t("play.you", lang) in showdown


def test_the_pause_after_the_last_round_leads_to_the_standings():
    term = Terminal("play", "--players", "2", "--rounds", "5", "--seed", "1", columns=80)
    try:
        for number in range(1, 6):
            start = len(term.seen)
            term.read_until(f"Round {number} of 5", since=start)
            term.read_until("Enter = help):", since=start)
            term.type("a")
            term.read_until("?", since=start)  # lock it in, or (a special) play the rows
            term.type("y")
            if number < 5:
                term.read_until("Enter: next round, r: review", since=start)
                term.type("")
        term.read_until("Enter: the standings, r: review", since=start)
        assert "Final standings" not in term.seen
        term.type("")
        shown = term.read_until("=== Final standings after 5 rounds ===", since=start)
    finally:
        term.close()
    assert "(s)" not in shown


def test_rules_wrap_in_a_terminal_and_markdown_does_not():
    term = Terminal("rules", "scoring", "--lang", "vi", columns=50)
    try:
        text = term.read_until("\n", timeout=60)
        term.proc.wait(60)
        text += term.quiet_for(0.5)
    finally:
        term.close()
    lines = [line for line in screen_lines(text) if line]
    assert lines and all(display_width(line) <= 50 for line in lines)
    assert any(display_width(line) > 40 for line in lines)
    md = Terminal("rules", "scoring", "--lang", "vi", "--markdown", columns=50)
    try:
        md.read_until("\n", timeout=60)
        md.proc.wait(60)
        shown = md.seen + md.quiet_for(0.5)
    finally:
        md.close()
    assert any(display_width(line) > 50 for line in screen_lines(shown)), "Markdown unwrapped"


def test_wrapping_breaks_chinese_between_characters_and_never_before_punctuation():
    text = "每人发 13 张牌，分成三道：尾道 5 张、中道 5 张、头道 3 张。尾道要最大，头道最小。"
    lines = wrap_line(text, 20)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert all(display_width(line) <= 20 for line in lines)
    assert not any(line[0] in "，。、：" for line in lines)


def test_wrapping_keeps_the_indent_and_a_list_items_hang():
    assert wrap("  1. one two three four five six seven", 20).split("\n") == [
        "  1. one two three",
        "     four five six",
        "     seven",
    ]
    assert wrap("short\n\nlines stay", 20) == "short\n\nlines stay"
    assert wrap("x" * 45, 20).split("\n") == ["x" * 20, "x" * 20, "x" * 5]
    assert wrap("anything at all", None) == "anything at all"


@pytest.mark.parametrize(
    ("lang", "expected"),
    [("en", "-0.8"), ("id", "-0,8"), ("zh-CN", "-0.8"), ("vi", "-0,8")],
)
def test_numbers_in_each_languages_style(lang, expected):
    assert number(-0.8, lang, sign=True) == expected
    assert number(2.0, lang, sign=True) == "+2"
    assert number(1.04, lang) == "1"


def test_one_round_and_two_rounds():
    assert count_of(ROUNDS_WORDS, 1, "en") == "1 round"
    assert count_of(ROUNDS_WORDS, 2, "en") == "2 rounds"
    for lang in LANGS:
        assert "(s)" not in t("play.final", lang, rounds=count_of(ROUNDS_WORDS, 1, lang))


def test_chinese_text_of_the_terminal_uses_full_width_punctuation():
    chinese = catalog("zh-CN")
    mixed = re.compile(r"[\u4e00-\u9fff][()',;?!:]|[()',;?!:][\u4e00-\u9fff]")
    terminal = [k for k in chinese if k.startswith("play.") or k.endswith(".terminal")]
    assert len(terminal) > 40
    assert [k for k in terminal if mixed.search(chinese[k])] == []
    assert "（y/n）" in chinese["play.lock"]


def test_the_numbers_shown_are_explained_once_a_match():
    out, err = io.StringIO(), io.StringIO()
    args = ["play", "--players", "2", "--rounds", "5", "--seed", "1", "--lang", "id"]
    assert main(args, io.StringIO("a\ny\na\ny\n"), out, err) == 0
    text = out.getvalue()
    assert text.count(t("play.numbers_note", "id")) == 1
    auto = re.search(r"sekitar (-?\d+(?:,\d)?) poin", text)
    assert auto is not None and "." not in auto.group(1), "Indonesian writes -0,5"


@pytest.mark.parametrize("lang", LANGS)
def test_the_setting_and_the_showdown_list_the_rows_in_one_order(lang):
    out = io.StringIO()
    args = ["play", "--players", "2", "--rounds", "5", "--seed", "1", "--lang", lang]
    main(args, io.StringIO("a\ny\n"), out, io.StringIO())
    text = out.getvalue()
    names = [t(f"pos.{p}", lang) for p in ("front", "middle", "back")]

    def order(block: str) -> list[str]:
        found = [(block.find(name), name) for name in names]
        assert all(at >= 0 for at, _ in found), block
        return [name for _, name in sorted(found)]

    setting = text.split(t("play.setting", lang).strip())[1].split(t("play.showdown", lang))[0]
    yours = text.split(t("play.showdown", lang))[1].split("==", 3)[2]
    assert order(setting) == order(yours) == names  # front on top, as laid on the table
