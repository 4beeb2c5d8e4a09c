"""Auto-arrange ("susun otomatis") and computer players: the solver's front (the top layer).

``arrange(cards, preset, level, opponents, seed)`` enumerates every split of the 13 cards
(capsa.solver.evaluator: 36,036 unordered = 72,072 ordered splits, vectorised), drops fouled
ones and picks a setting:

- ``easy``: the split whose rows win most often on their own (no bonuses, no sweeps),
  chosen with a little seeded noise among the best few: natural-looking, beatable
  (capsa.solver.model);
- ``normal``: the split with the most expected points under the preset, from per-row
  win-probability tables (capsa.solver.model);
- ``hard``: the best Pareto-undominated ``normal`` candidates re-scored by Monte Carlo
  against opponents dealt from the 39 unseen cards and set by ``normal``, with the exact
  preset scoring (capsa.solver.monte_carlo).

A special the preset pays (found by capsa.solver.evaluator) is declared when declaring it is worth
more expected points than the rows, at every level (capsa.solver.model: its value against
the chance that an opponent declares a higher, a lower or the same special; ``hard`` weighs
both options on its Monte Carlo deals). The Arrangement always carries both options.

Where the table allows surrender (chinese-poker's option), giving the hand up is a choice at
every level: ``easy`` and ``normal`` surrender when their rows' value against an opponent
is below the surrender's price (capsa.solver.model.should_surrender, the rule every
normal-set opponent of ``hard`` follows too); ``hard`` values the surrender on its deals
(the price to each opponent who stays in) beside its candidates and the special, and takes
the best. ``Arrangement.surrender`` says so; its rows are then the ones it would have played.

The layers import only downwards: evaluator -> model -> monte_carlo -> front.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import ctypes
import ctypes.util
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from capsa.cards import DECK, CapsaError, Card
from capsa.presets import Preset
from capsa.settings import LEVELS
from capsa.solver.evaluator import HandTables, SplitRows, find_specials
from capsa.solver.model import (
    best_special,
    declare_value,
    easy_choice,
    normal_best,
    normal_choice,
    normal_value,
    ordinary_value,
    should_declare,
    should_surrender,
    special_edge,
    special_odds,
)
from capsa.solver.monte_carlo import PlayedRows, hard_choice

Rows = tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]


@dataclass(frozen=True)
class Arrangement:
    back: tuple[Card, ...]
    middle: tuple[Card, ...]
    front: tuple[Card, ...]
    declare: str | None  # the special to declare, or None
    expected: float  # expected points of the recommendation (sum over opponents)
    ordinary: Rows  # best ordinary (non-declared) setting
    ordinary_expected: float
    special: str | None  # best special the hand holds that the preset pays
    special_value: float | None  # expected points of declaring it
    # give the hand up (where the table allows it): then back/middle/front are the ordinary
    # rows, declare is None and expected is surrender_value
    surrender: bool = False
    surrender_value: float | None = None  # expected points of surrendering, where allowed

    def to_dict(self) -> dict:
        out = {
            "back": [c.code for c in self.back],
            "middle": [c.code for c in self.middle],
            "front": [c.code for c in self.front],
            "declare": self.declare,
            "expected": round(float(self.expected), 4),
        }
        if self.surrender_value is not None:
            out["surrender"] = self.surrender
        return out


# --- input --------------------------------------------------------------------------------


def check_hand(cards: Sequence[Card]) -> np.ndarray:
    """Card indices of a valid 13-card hand, or CapsaError."""
    cards = list(cards)
    if len(cards) != 13:
        raise CapsaError(f"a hand has 13 cards, not {len(cards)}")
    seen: set[Card] = set()
    for c in cards:
        if not isinstance(c, Card):
            raise CapsaError(f"{c!r} is not a card")
        if c in seen:
            raise CapsaError(f"'{c.code}' appears twice: each card can be used only once")
        seen.add(c)
    return np.array([c.index for c in cards], dtype=np.intp)


def default_seed(indices: np.ndarray) -> int:
    """A seed derived from the hand, so an unseeded call is deterministic too."""
    return int(np.bitwise_or.reduce(np.int64(1) << np.sort(indices).astype(np.int64)))


# --- the levels ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Solved:
    """Internal result: sorted-position rows and values (no Card objects)."""

    rows: SplitRows
    expected: float
    declare: str | None
    special: str | None
    special_value: float | None
    ordinary: SplitRows
    ordinary_expected: float
    surrender: bool = False
    surrender_value: float | None = None  # where the table allows surrender
    played_expected: float | None = None  # hard only: the value of ``played`` (capsa.coach)


def solve_indices(
    indices: np.ndarray,
    preset: Preset,
    level: str,
    opponents: int,
    seed: int,
    played: PlayedRows | None = None,
    tables: HandTables | None = None,
) -> Solved:
    """Solve a hand at ``level``; with ``played`` (hard only), value those rows too, on the
    same deals as hard's own candidates. ``tables``: the hand's HandTables, if built."""
    if played is not None and level != "hard":
        raise ValueError("only the hard level values a played setting")
    tables = tables if tables is not None else HandTables(indices)
    if len(tables.valid) == 0:  # cannot happen: some split is always unfouled
        raise CapsaError("no legal setting found")
    found = find_specials(tables, preset)
    special = best_special(found, preset)
    odds = special_odds(tables.indices, preset)
    special_value = None
    played_expected = None
    if special is not None:
        edge = special_edge(tables.indices, preset, special)
        special_value = declare_value(preset, odds, special, edge) * opponents
    special_rows = found.get(special) if special else None

    surrender_value = -float(preset.surrender_cost) * opponents if preset.surrender else None
    if level == "easy":
        choice = easy_choice(tables, preset, opponents, seed)
        choice_value = normal_value(tables, preset, opponents, choice)
        expected = ordinary_value(preset, odds, choice_value) * opponents
    elif level == "normal":
        choice, choice_value = normal_best(tables, preset, opponents)
        expected = ordinary_value(preset, odds, choice_value) * opponents
    elif level == "hard":
        # hard values every split by normal's estimate: its candidates are the best few
        _, ev = normal_choice(tables, preset, opponents)
        found_values = hard_choice(
            tables, preset, opponents, ev, seed, odds, special, special_rows, special_value, played
        )
        choice, expected = found_values.split, found_values.rows
        special_value = found_values.special
        played_expected = found_values.played
        surrender_value = found_values.surrender
    else:
        raise CapsaError(f"unknown level '{level}': choose one of {', '.join(LEVELS)}")
    rows = tables.rows(choice)
    declare = None
    if special is not None and special_value is not None:
        if should_declare(special_value, expected):
            declare = special
    best_value = special_value if declare and special_value is not None else expected
    if surrender_value is None:
        surrender = False
    elif level == "hard":  # by the values of the options on the same deals
        surrender = surrender_value > best_value
    else:  # normal's rule, as its opponents in hard's Monte Carlo follow it
        surrender = declare is None and bool(should_surrender(preset, choice_value))
    return Solved(
        rows=special_rows if declare and special_rows is not None else rows,
        expected=surrender_value if surrender and surrender_value is not None else best_value,
        declare=None if surrender else declare,
        special=special,
        special_value=special_value,
        ordinary=rows,
        ordinary_expected=expected,
        surrender=surrender,
        surrender_value=surrender_value,
        played_expected=played_expected,
    )


# --- the API ------------------------------------------------------------------------------

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters


def keep_memory(size: int = 64 << 20) -> bool:
    """Let this process keep freed memory (up to ``size`` bytes a block, twice that at the
    top of the heap) for its next solve instead of returning it to the system at once.

    A solve makes many large temporary arrays; by default glibc maps and unmaps them, and
    the page faults of fresh memory cost more than the solve (``hard``: 7,000 faults a
    hand). Call it once in a process that solves many hands (the bot's workers do, in
    capsa.workers). False where the C library has no ``mallopt`` (not glibc)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, size)) and bool(mallopt(_M_TRIM_THRESHOLD, 2 * size))


def arrange(
    cards: Sequence[Card],
    preset: Preset,
    level: str = "normal",
    opponents: int = 3,
    seed: int | None = None,
) -> Arrangement:
    """The recommended setting of 13 cards (and whether to declare a special)."""
    indices = check_hand(cards)
    if level not in LEVELS:
        raise CapsaError(f"unknown level '{level}': choose one of {', '.join(LEVELS)}")
    if not 1 <= opponents <= 3:
        raise CapsaError(f"a table has 1 to 3 opponents, not {opponents}")
    if seed is None:
        seed = default_seed(indices)
    solved = solve_indices(indices, preset, level, opponents, seed)
    order = np.argsort(indices, kind="stable")
    sorted_cards = [cards[i] for i in order]

    def to_cards(positions) -> tuple[Card, ...]:
        return tuple(sorted((sorted_cards[p] for p in positions), reverse=True))

    def setting(rows) -> Rows:
        return to_cards(rows[0]), to_cards(rows[1]), to_cards(rows[2])

    back, middle, front = setting(solved.rows)
    return Arrangement(
        back=back,
        middle=middle,
        front=front,
        declare=solved.declare,
        expected=float(solved.expected),
        ordinary=setting(solved.ordinary),
        ordinary_expected=float(solved.ordinary_expected),
        special=solved.special,
        special_value=solved.special_value,
        surrender=solved.surrender,
        surrender_value=solved.surrender_value,
    )


def arrange_indices(
    indices: Sequence[int],
    preset: Preset,
    level: str = "normal",
    opponents: int = 3,
    seed: int | None = None,
) -> Arrangement:
    """``arrange`` for card indices 0..51 (plain ints: cheap to send to a process pool)."""
    return arrange([DECK[i] for i in indices], preset, level, opponents, seed)


async def arrange_async(
    cards: Sequence[Card],
    preset: Preset,
    level: str = "normal",
    opponents: int = 3,
    seed: int | None = None,
    executor: concurrent.futures.Executor | None = None,
) -> Arrangement:
    """``arrange`` off the event loop, in ``executor`` (the loop's default if None).

    Only a module-level function and picklable arguments (card indices, the Preset)
    cross the boundary, so a ProcessPoolExecutor works as well as a thread pool.
    """
    loop = asyncio.get_running_loop()
    indices = check_hand(cards).tolist()
    return await loop.run_in_executor(
        executor, arrange_indices, indices, preset, level, opponents, seed
    )
