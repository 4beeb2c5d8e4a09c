"""The solver: auto-arrange and the computer players' rows.

Four layers, each importing only those before it: ``evaluator`` (vectorised strengths, the
36,036 splits, the specials a hand holds) -> ``model`` (the ``easy``/``normal`` setters:
expected points from ``row_tables.npz``) -> ``monte_carlo`` (the ``hard`` setter) ->
``front`` (``arrange``). ``build_tables`` rebuilds ``row_tables.npz`` (a table per
preset, scoring method and table size): ``python -m capsa.build_tables [--table
NAME]``. This package gives the front's API.
"""

from capsa.solver.front import Arrangement, Rows, arrange, arrange_async, check_hand, keep_memory

__all__ = ["Arrangement", "Rows", "arrange", "arrange_async", "check_hand", "keep_memory"]
