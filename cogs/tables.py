"""Tables in channels: lobby, deal, hand builders, countdown, showdown, next round, resume.

The TableManager is the only place that runs a table. Its state lives in the repository
(and in components' custom_ids), so a restarted bot picks every table up where it was.
Each part of a table's life is its own module; this class puts them together.
"""

from __future__ import annotations

from cogs.hand_builder import BuilderFlow
from cogs.lobby import LobbyFlow
from cogs.rounds import RoundFlow
from cogs.table_base import preset_of, round_result, round_scores, seat_names

__all__ = ["TableManager", "preset_of", "round_result", "round_scores", "seat_names"]


class TableManager(LobbyFlow, BuilderFlow, RoundFlow):
    """Runs every table of the bot."""
