"""The table options a player or a server can choose, in one place.

Everything that offers a choice (the slash commands, the repository's checks, the terminal
game, the command line) reads its values from here.
"""

from __future__ import annotations

from enum import StrEnum

from capsa.match import MATCH_LENGTHS


class Level(StrEnum):
    """How well a computer player (or Auto-arrange) sets its rows."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


class TimeoutAction(StrEnum):
    """What happens to a person whose countdown runs out."""

    AUTO = "auto"  # the solver sets their rows
    FOUL = "foul"  # they count as fouled


LEVELS: tuple[str, ...] = tuple(Level)
TIMEOUT_ACTIONS: tuple[str, ...] = tuple(TimeoutAction)
ROUND_CHOICES: tuple[int, ...] = MATCH_LENGTHS
SEAT_RANGE = (2, 4)  # seats at a table, both ends included
COUNTDOWN_RANGE = (30, 300)  # seconds to set the rows, both ends included
AUTO_LANGUAGE = "auto"  # a server setting: follow each user's Discord language
