"""What a hand can make, vectorised for the solver: row strengths (lookup tables), the
36,036 split structure, and the specials it can form.

Every rank-only strength of capsa.hands (five-card rows and three-card fronts, one scale)
gets a dense *class id*: ``STRENGTHS[cls]`` is the strength and class ids are ordered like
strengths, so class ids compare exactly like ``Row.strength`` (foul check included).

A hand's 13 cards are sorted by rank, so every subset taken in combination order has its
ranks ascending; packing them base 16 gives a key into ``PLAIN5``/``FLUSH5``/``TAB3``.

The 72,072 ordered splits (1,287 backs x 56 middles) are stored as 36,036 *unordered*
ones: a front plus a pair {A, B} of five-card subsets. The stronger of A and B is the
back (the other orientation is fouled, or equal and interchangeable), so nothing is lost.
"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement

import numpy as np

from capsa.hands import strength3, strength5
from capsa.presets import SPECIALS, Preset

# --- the strength scale -------------------------------------------------------------------

_W5 = np.array([16**4, 16**3, 16**2, 16, 1], dtype=np.int64)
_W3 = np.array([16**2, 16, 1], dtype=np.int64)


def _build_scale():
    plain5: dict[int, int] = {}
    flush5: dict[int, int] = {}
    for combo in combinations_with_replacement(range(2, 15), 5):
        if combo[0] == combo[4]:
            continue
        key = sum(r * w for r, w in zip(combo, (16**4, 16**3, 16**2, 16, 1), strict=True))
        plain5[key] = strength5(combo, False)
        if len(set(combo)) == 5:
            flush5[key] = strength5(combo, True)
    tab3: dict[int, int] = {}
    for trio in combinations_with_replacement(range(2, 15), 3):
        tab3[trio[0] * 256 + trio[1] * 16 + trio[2]] = strength3(trio)
    strengths = np.array(
        sorted(set(plain5.values()) | set(flush5.values()) | set(tab3.values())), dtype=np.int64
    )
    index = {int(s): i for i, s in enumerate(strengths)}
    p5 = np.full(16**5, -1, dtype=np.int16)
    f5 = np.full(16**5, -1, dtype=np.int16)
    t3 = np.full(16**3, -1, dtype=np.int16)
    for key, s in plain5.items():
        p5[key] = index[s]
    for key, s in flush5.items():
        f5[key] = index[s]
    for key, s in tab3.items():
        t3[key] = index[s]
    return strengths, p5, f5, t3


STRENGTHS, PLAIN5, FLUSH5, TAB3 = _build_scale()
N_CLASSES = len(STRENGTHS)
LEVEL = (STRENGTHS >> 20).astype(np.int8)
LEAD = ((STRENGTHS >> 16) & 0xF).astype(np.int8)
# category index as in capsa.hands.ALL_CATEGORIES: 0..8 by level, 9 = royal flush
CATEGORY = np.where((LEVEL == 8) & (LEAD == 14), 9, LEVEL).astype(np.int8)


def class_of(strength: int) -> int:
    """The class id of a rank-only strength of capsa.hands."""
    i = int(np.searchsorted(STRENGTHS, strength))
    if i >= N_CLASSES or STRENGTHS[i] != strength:
        raise KeyError(strength)
    return i


# --- subsets and splits -------------------------------------------------------------------

C5 = np.array(list(combinations(range(13), 5)), dtype=np.intp)  # (1287, 5)
C3 = np.array(list(combinations(range(13), 3)), dtype=np.intp)  # (286, 3)
_BITS = 1 << np.arange(13)
MASK5 = (_BITS[C5]).sum(axis=1)
MASK3 = (_BITS[C3]).sum(axis=1)


def _build_splits():
    idx5 = np.full(1 << 13, -1, dtype=np.int32)
    idx5[MASK5] = np.arange(len(C5))
    full = (1 << 13) - 1
    a_list, b_list, f_list = [], [], []
    for f, fmask in enumerate(MASK3.tolist()):
        rest = [i for i in range(13) if not fmask >> i & 1]
        first, others = rest[0], rest[1:]
        for combo in combinations(others, 4):
            amask = (1 << first) | sum(1 << i for i in combo)
            bmask = full ^ fmask ^ amask
            a_list.append(idx5[amask])
            b_list.append(idx5[bmask])
            f_list.append(f)
    return (
        np.array(a_list, dtype=np.intp),
        np.array(b_list, dtype=np.intp),
        np.array(f_list, dtype=np.intp),
    )


SPLIT_A, SPLIT_B, SPLIT_F = _build_splits()  # 36,036 unordered splits
N_SPLITS_ORDERED = len(C5) * 56  # 72,072
SplitRows = tuple[np.ndarray, np.ndarray, np.ndarray]  # sorted positions: back, middle, front


class HandTables:
    """One hand's subset classes and split strengths (computed once, all vectorised).

    ``indices`` are the hand's card indices sorted ascending (sorted position -> card).
    """

    __slots__ = (
        "indices",
        "ranks",
        "suits",
        "cls5",
        "cls3",
        "flush5",
        "back",
        "middle",
        "front",
        "a_is_back",
        "valid",
    )

    def __init__(self, indices: np.ndarray):
        idx = np.asarray(indices, dtype=np.intp)
        if idx.shape != (13,):
            raise ValueError("a hand has 13 cards")
        self.indices = sidx = np.sort(idx)
        self.ranks = sidx // 4 + 2
        self.suits = sidx % 4
        r5 = self.ranks[C5]
        s5 = self.suits[C5]
        self.flush5 = (s5 == s5[:, :1]).all(axis=1)
        keys = r5 @ _W5
        self.cls5 = np.where(self.flush5, FLUSH5[keys], PLAIN5[keys]).astype(np.intp)
        self.cls3 = TAB3[self.ranks[C3] @ _W3].astype(np.intp)
        ca = self.cls5.take(SPLIT_A)
        cb = self.cls5.take(SPLIT_B)
        self.a_is_back = ca >= cb
        back = np.maximum(ca, cb)
        middle = np.minimum(ca, cb)
        front = self.cls3.take(SPLIT_F)
        self.valid = np.flatnonzero(front <= middle)
        self.back = back.take(self.valid)
        self.middle = middle.take(self.valid)
        self.front = front.take(self.valid)

    def rows(self, k: int) -> SplitRows:
        """Sorted positions (back, middle, front) of the k-th valid split."""
        s = self.valid[k]
        a, b = C5[SPLIT_A[s]], C5[SPLIT_B[s]]
        if not self.a_is_back[s]:
            a, b = b, a
        return a, b, C3[SPLIT_F[s]]

    def back_subset(self, k: np.ndarray) -> np.ndarray:
        s = self.valid[k]
        return np.where(self.a_is_back[s], SPLIT_A[s], SPLIT_B[s])

    def middle_subset(self, k: np.ndarray) -> np.ndarray:
        s = self.valid[k]
        return np.where(self.a_is_back[s], SPLIT_B[s], SPLIT_A[s])

    def front_subset(self, k: np.ndarray) -> np.ndarray:
        return SPLIT_F[self.valid[k]]


# --- specials -----------------------------------------------------------------------------
# The vectorised twin of capsa.specials (which the hand builder uses on Card objects);
# tests/test_solver.py checks that the two find the same specials.


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


def find_specials(tables: HandTables, preset: Preset) -> dict[str, SplitRows | None]:
    """The specials the hand holds that the preset pays: name -> rows (sorted positions)
    for three straights/flushes, None for dragon/six pairs (they use any rows)."""
    found: dict[str, SplitRows | None] = {}
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


def _best_special_rows(tables: HandTables, splits: np.ndarray) -> SplitRows:
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
