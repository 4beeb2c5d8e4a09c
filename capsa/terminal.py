"""Text for a terminal: wrapped to its width, in every language.

A line is broken between words, and between any two Chinese characters (Chinese has no
spaces), never before closing punctuation; a character that takes two columns (Chinese,
full-width punctuation) counts two. Continuation lines keep the line's indent, and a list
item's ("1. ", "• ", "- ") continuation lines start under its text.
"""

from __future__ import annotations

import re
import shutil
import unicodedata
from typing import TextIO

MIN_WIDTH = 20  # narrower than this, lines are left as they are

_WIDE = r"\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uff60\uffe0-\uffe6\u3000-\u303f"
_NO_BREAK_BEFORE = "，。、；：！？）」』】》〉…,.;:!?)]"
_TOKEN = re.compile(
    rf"\s+|[{_WIDE}][{re.escape(_NO_BREAK_BEFORE)}]*|[^\s{_WIDE}]+[{re.escape(_NO_BREAK_BEFORE)}]*",
)
_ITEM = re.compile(r"^(\s*)((?:\d+\.|•|-|\*)\s+)?")


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal."""
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return width


def output_width(stream: TextIO) -> int | None:
    """The width to wrap ``stream``'s text to: the terminal's (``shutil.get_terminal_size``,
    which ``COLUMNS`` overrides) when it is one; None (no wrapping) for a pipe or a file, so
    that what a program reads stays one line a message."""
    try:
        is_terminal = stream.isatty()
    except (AttributeError, ValueError):
        is_terminal = False
    return shutil.get_terminal_size().columns if is_terminal else None


def wrap_line(line: str, width: int | None) -> list[str]:
    """One line as lines of at most ``width`` columns (a word longer than that is cut)."""
    if width is None or width < MIN_WIDTH or display_width(line) <= width:
        return [line]
    head = _ITEM.match(line)
    assert head is not None  # the pattern matches every string
    first = head.group(0)
    hang = " " * display_width(first)
    out: list[str] = []
    current, used, empty = first, display_width(first), True
    space = False
    for token in _TOKEN.findall(line[len(first) :]):
        if token.isspace():
            space = True
            continue
        size = display_width(token)
        sep = " " if space and not empty else ""
        if used + len(sep) + size > width and not empty:
            out.append(current)
            current, used, empty, sep = hang, len(hang), True, ""
        while used + size > width:  # a word longer than a whole line: cut it
            cut, taken = 0, 0
            while cut < len(token) and taken + display_width(token[cut]) <= width - used:
                taken += display_width(token[cut])
                cut += 1
            if cut == 0:
                break
            out.append(current + sep + token[:cut])
            token, size = token[cut:], size - taken
            current, used, empty, sep = hang, len(hang), True, ""
        current += sep + token
        used += len(sep) + size
        empty, space = False, False
    out.append(current)
    return out


def wrap(text: str, width: int | None) -> str:
    """Every line of ``text`` wrapped (its line breaks kept)."""
    if width is None:
        return text
    return "\n".join(part for line in text.split("\n") for part in wrap_line(line, width))
