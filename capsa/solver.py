"""Auto-arrange ("susun otomatis") and computer players.

``arrange(cards, preset, level, opponents, seed)`` enumerates every split of the 13 cards
(capsa.evaluator: 36,036 unordered = 72,072 ordered splits, vectorised), drops fouled
ones and picks a setting:

- ``easy``: the split whose rows win most often on their own (no bonuses, no sweeps),
  chosen with a little seeded noise among the best few: natural-looking, beatable;
- ``normal``: the split with the most expected points under the preset, from per-row
  win-probability tables (capsa.solver_model);
- ``hard``: the best Pareto-undominated ``normal`` candidates re-scored by Monte Carlo
  against opponents dealt from the 39 unseen cards and set by ``normal``, with the exact
  preset scoring (capsa.solver_mc).

Specials the preset pays are declared when their value beats the best ordinary setting's
expected points; the Arrangement always carries both options.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from capsa.cards import DECK, CapsaError, Card
from capsa.evaluator import C3, C5, LEVEL, SPLIT_A, SPLIT_B, SPLIT_F, HandTables
from capsa.presets import SPECIALS, Preset
from capsa.settings import LEVELS
from capsa.solver_model import model_for

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

    def to_dict(self) -> dict:
        return {
            "back": [c.code for c in self.back],
            "middle": [c.code for c in self.middle],
            "front": [c.code for c in self.front],
            "declare": self.declare,
            "expected": round(float(self.expected), 4),
        }


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


# --- specials -----------------------------------------------------------------------------


def _straight3(ranks: np.ndarray) -> np.ndarray:
    r = ranks[C3]  # ascending
    run = (r[:, 1] == r[:, 0] + 1) & (r[:, 2] == r[:, 1] + 1)
    wheel = (r[:, 0] == 2) & (r[:, 1] == 3) & (r[:, 2] == 14)
    return run | wheel


def special_splits(tables: HandTables, special: str) -> np.ndarray:
    """Indices (into the 36,036 unordered splits) that form three straights/flushes."""
    if special == "three_flushes":
        counts = np.bincount(tables.suits, minlength=4)
        if not np.isin(counts, (0, 3, 5, 8, 10, 13)).all():
            return np.zeros(0, dtype=np.intp)
        five = tables.flush5
        s3 = tables.suits[C3]
        three = (s3 == s3[:, :1]).all(axis=1)
    else:
        five = np.isin(LEVEL[tables.cls5], (4, 8))
        if five.sum() < 2:
            return np.zeros(0, dtype=np.intp)
        three = _straight3(tables.ranks)
    return np.flatnonzero(five[SPLIT_A] & five[SPLIT_B] & three[SPLIT_F])


def find_specials(tables: HandTables, preset: Preset) -> dict[str, tuple | None]:
    """The specials the hand holds that the preset pays: name -> rows (sorted positions)
    for three straights/flushes, None for dragon/six pairs (they use any rows)."""
    found: dict[str, tuple | None] = {}
    ranks = tables.ranks
    for special in SPECIALS:
        if not preset.pays(special):
            continue
        if special == "dragon":
            if len(set(ranks.tolist())) == 13:
                found[special] = None
        elif special == "six_pairs":
            if (np.bincount(ranks, minlength=15) // 2).sum() >= 6:
                found[special] = None
        else:
            splits = special_splits(tables, special)
            if len(splits):
                found[special] = _best_special_rows(tables, splits)
    return found


def _best_special_rows(tables: HandTables, splits: np.ndarray) -> tuple:
    """The special-forming split with the strongest back, then middle, then front."""
    ca, cb = tables.cls5[SPLIT_A[splits]], tables.cls5[SPLIT_B[splits]]
    back, middle = np.maximum(ca, cb), np.minimum(ca, cb)
    front = tables.cls3[SPLIT_F[splits]]
    best = np.lexsort((front, middle, back))[-1]
    s = splits[best]
    a, b = C5[SPLIT_A[s]], C5[SPLIT_B[s]]
    if ca[best] < cb[best]:
        a, b = b, a
    return a, b, C3[SPLIT_F[s]]


def should_declare(special: str, special_value: float, ordinary_expected: float) -> bool:
    """The expected-value rule; a dragon is always declared (its points are certain,
    nothing outranks it, and the issue asks for it)."""
    return special == "dragon" or special_value > ordinary_expected


def best_special(found: dict[str, tuple | None], preset: Preset) -> str | None:
    if not found:
        return None
    return max(found, key=lambda s: (preset.specials[s], -SPECIALS.index(s)))


# --- the levels ---------------------------------------------------------------------------


class Solved:
    """Internal result: sorted-position rows and values (no Card objects)."""

    __slots__ = (
        "rows",
        "expected",
        "declare",
        "special",
        "special_value",
        "ordinary",
        "ordinary_expected",
    )

    def __init__(
        self,
        rows,
        expected,
        declare,
        special,
        special_value,
        ordinary,
        ordinary_expected,
    ):
        self.rows = rows
        self.expected = expected
        self.declare = declare
        self.special = special
        self.special_value = special_value
        self.ordinary = ordinary
        self.ordinary_expected = ordinary_expected


def normal_choice(tables: HandTables, preset: Preset, opponents: int) -> tuple[int, np.ndarray]:
    """(index of the best valid split, expected points per opponent of every valid split)."""
    model = model_for(preset, opponents)
    ev = model.split_ev(tables.back, tables.middle, tables.front)
    return int(np.argmax(ev)), ev


def top_candidates(tables: HandTables, ev: np.ndarray, count: int, pool: int = 96) -> np.ndarray:
    """The best ``count`` Pareto-undominated splits by ``ev`` (indices into valid splits).

    The ``pool`` best by ``ev`` are checked against every valid split for domination,
    so an undominated split is never dropped in favour of a dominated one.
    """
    n = len(ev)
    pool = min(pool, n)
    top = np.argpartition(-ev, pool - 1)[:pool] if pool < n else np.arange(n)
    top = top[np.argsort(-ev[top], kind="stable")]
    b, m, f = tables.back, tables.middle, tables.front
    tb, tm, tf = b[top][:, None], m[top][:, None], f[top][:, None]
    ge = (b >= tb) & (m >= tm) & (f >= tf)
    gt = (b > tb) | (m > tm) | (f > tf)
    dominated = (ge & gt).any(axis=1)
    keep = top[~dominated]
    # one split per strength triple
    key = (b[keep].astype(np.int64) << 28) | (m[keep].astype(np.int64) << 14) | f[keep]
    _, first = np.unique(key, return_index=True)
    keep = keep[np.sort(first)]
    return keep[:count]


def solve_indices(
    indices: np.ndarray, preset: Preset, level: str, opponents: int, seed: int
) -> Solved:
    tables = HandTables(indices)
    if len(tables.valid) == 0:  # cannot happen: some split is always unfouled
        raise CapsaError("no legal setting found")
    best, ev = normal_choice(tables, preset, opponents)
    found = find_specials(tables, preset)
    special = best_special(found, preset)
    special_value = None if special is None else float(preset.specials[special] * opponents)
    special_rows = found.get(special) if special else None

    if level == "easy":
        choice = _easy_choice(tables, preset, opponents, seed)
        expected = float(ev[choice] * opponents)
    elif level == "normal":
        choice, expected = best, float(ev[best] * opponents)
    elif level == "hard":
        from capsa.solver_mc import hard_choice

        choice, expected, special_value = hard_choice(
            tables, preset, opponents, ev, seed, special, special_rows
        )
    else:
        raise CapsaError(f"unknown level '{level}': choose one of {', '.join(LEVELS)}")
    rows = tables.rows(choice)
    declare = None
    if special is not None and special_value is not None:
        if should_declare(special, special_value, expected):
            declare = special
    return Solved(
        rows=special_rows if declare and special_rows is not None else rows,
        expected=special_value if declare else expected,
        declare=declare,
        special=special,
        special_value=special_value,
        ordinary=rows,
        ordinary_expected=expected,
    )


def _easy_choice(tables, preset, opponents, seed) -> int:
    model = model_for(preset, opponents)
    score = model.row_win(tables.back, tables.middle, tables.front)
    n = min(12, len(score))
    top = np.argpartition(-score, n - 1)[:n] if n < len(score) else np.arange(len(score))
    top = top[np.argsort(-score[top], kind="stable")]
    noise = np.random.default_rng(seed).normal(0.0, 0.06, len(top))
    return int(top[np.argmax(score[top] + noise)])


# --- the API ------------------------------------------------------------------------------


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
