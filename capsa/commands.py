"""What a ``python -m capsa`` command is, shared by the modules that define commands.

A command module (capsa.solver_cli, capsa.play) builds its :class:`Command` with the
``command`` decorator; capsa.cli imports those objects and lists them. Nothing here imports
a command module, so no module that defines a command needs capsa.cli.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

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
