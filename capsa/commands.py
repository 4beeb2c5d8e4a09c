"""What a ``python -m capsa`` command is, shared by the modules that define commands.

A command module (capsa.solver_cli, capsa.play) builds its :class:`Command` with the
``command`` decorator; capsa.cli imports those objects and lists them. Nothing here imports
a command module, so no module that defines a command needs capsa.cli.

:func:`run_batch` is the ``--batch`` loop that ``score`` and ``arrange`` share: one output
line for every input line, a blank or bad line included.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from capsa.cards import CapsaError

EXIT_BAD_INPUT = 2  # bad input: one line on stderr, never a traceback

Run = Callable[[argparse.Namespace, TextIO, TextIO, TextIO], int]
Configure = Callable[[argparse.ArgumentParser], object]


@dataclass(frozen=True)
class Command:
    """A subcommand: its name, one line of help, what adds its arguments and what runs it."""

    name: str
    help: str
    configure: Configure
    run: Run

    def __call__(
        self, args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO
    ) -> int:
        return self.run(args, stdin, stdout, stderr)


def command(name: str, help_text: str, configure: Configure) -> Callable[[Run], Command]:
    """Decorator: the function becomes the :class:`Command` ``name``."""

    def make(run: Run) -> Command:
        return Command(name, help_text, configure, run)

    return make


class LocatedError(CapsaError):
    """Bad input whose message already starts with where it is ("line 5, column 43: ...");
    :func:`run_batch` does not put the line number in front of it again."""


def one_line(text: str) -> str:
    """``text`` on one line: a message quoting input may carry its line breaks."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def run_batch(
    stdin: TextIO,
    stdout: TextIO,
    stderr: TextIO,
    answer: Callable[[str, int], dict],
    *,
    blank: str,
    flush: bool = False,
) -> int:
    """Answer every line of ``stdin`` with exactly one JSON line on ``stdout``.

    ``answer(line, number)`` gives a line's JSON object or raises :class:`CapsaError`; a
    blank line is refused with ``blank``. A refused line gets ``{"error": "line N: ..."}``
    in its place and the same text on ``stderr``, and the status is then
    :data:`EXIT_BAD_INPUT` (after every line has been answered); otherwise 0.
    """
    status = 0
    for number, line in enumerate(stdin, 1):
        try:
            if not line.strip():
                raise CapsaError(blank)
            result = answer(line, number)
        except CapsaError as err:
            status = EXIT_BAD_INPUT
            message = one_line(
                str(err) if isinstance(err, LocatedError) else f"line {number}: {err}"
            )
            stderr.write(message + "\n")
            result = {"error": message}
        stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
        if flush:
            stdout.flush()
    return status
