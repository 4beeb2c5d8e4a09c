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

from itertools import combinations, combinations_with_replacement, permutations

import numpy as np

from capsa.hands import TieBreak, strength3, strength5
from capsa.presets import SPECIALS, Preset

# --- the strength scale -------------------------------------------------------------------


def _build_scale():
    plain5: dict[int, int] = {}
    flush5: dict[int, int] = {}
    ranks: dict[int, tuple[int, ...]] = {}  # strength -> its rows' ranks
    for combo in combinations_with_replacement(range(2, 15), 5):
        if combo[0] == combo[4]:
            continue
        key = sum(r * w for r, w in zip(combo, (16**4, 16**3, 16**2, 16, 1), strict=True))
        plain5[key] = strength5(combo, False)
        ranks[plain5[key]] = combo
        if len(set(combo)) == 5:
            flush5[key] = strength5(combo, True)
            ranks[flush5[key]] = combo
    tab3: dict[int, int] = {}
    for trio in combinations_with_replacement(range(2, 15), 3):
        key = trio[0] * 256 + trio[1] * 16 + trio[2]
        tab3[key] = strength3(trio)
        ranks[tab3[key]] = trio
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
    held = np.zeros((len(strengths), 13), dtype=np.int8)
    for strength, cards in ranks.items():
        for r in cards:
            held[index[strength], r - 2] += 1
    return strengths, p5, f5, t3, held


# CLASS_RANKS[cls]: how many cards of each rank (2 .. A) a row of the class holds (every row
# of a class holds the same ranks)
STRENGTHS, PLAIN5, FLUSH5, TAB3, CLASS_RANKS = _build_scale()
N_CLASSES = len(STRENGTHS)
LEVEL = (STRENGTHS >> 20).astype(np.int8)
LEAD = ((STRENGTHS >> 16) & 0xF).astype(np.int8)
# category index as in capsa.hands.ALL_CATEGORIES: 0..8 by level, 9 = royal flush
CATEGORY = np.where((LEVEL == 8) & (LEAD == 14), 9, LEVEL).astype(np.int8)
# classes ascend by strength, so the flushes (not straight) are one run of them: the first
# and the last
FLUSH_RUN = tuple(int(c) for c in np.flatnonzero(LEVEL == 5)[[0, -1]])


def early_order(strength, level, lead, flush_suit):
    """The order of rows under ``suit_tiebreak: early`` before the key card's suit (ints or
    numpy arrays): flushes by suit, then ranks; pair and two pair by the (highest) pair's
    rank only; everything else by rank (RULES §2.1). ``flush_suit`` is -1 for no flush."""
    ranks = strength & 0xFFFFF
    is_flush = level == 5
    paired = (level == 1) | (level == 2)
    sub = np.where(is_flush, (flush_suit << 20) | ranks, np.where(paired, lead << 16, ranks))
    return (np.asarray(level, dtype=np.int64) << 28) | np.asarray(sub, dtype=np.int64)


class ShowdownClasses:
    """Rows ordered as a preset's showdown orders them, less the key card's suit: the index
    the row model's tables use (capsa.solver.model). Under ``key_card`` and ``none`` these
    are the strength classes themselves; under ``early`` (sayapoker) a flush's class
    depends on its suit too (``flush[cls, suit]``) and pairs and two pairs of one (highest)
    pair rank share a class whatever their other cards. Like strength classes, showdown
    classes compare rows: a higher class wins, an equal class is decided by the key card
    (or pushed)."""

    def __init__(self, tiebreak: TieBreak):
        self.tiebreak = tiebreak
        self.identity = tiebreak != "early"
        classes = np.arange(N_CLASSES)
        if self.identity:
            self.count = N_CLASSES
            self.plain = classes
            self.flush = np.repeat(classes[:, None], 4, axis=1)
            return
        level, lead = LEVEL.astype(np.int64), LEAD.astype(np.int64)
        plain = early_order(STRENGTHS, level, lead, np.full(N_CLASSES, -1))
        suited = np.stack(
            [early_order(STRENGTHS, level, lead, np.full(N_CLASSES, s)) for s in range(4)], 1
        )
        values, inverse = np.unique(np.concatenate([plain, suited.ravel()]), return_inverse=True)
        self.count = len(values)
        self.plain = inverse[:N_CLASSES]
        self.flush = inverse[N_CLASSES:].reshape(N_CLASSES, 4)
        # a class that is not a plain flush has no suit
        not_flush = LEVEL != 5
        self.flush[not_flush] = self.plain[not_flush, None]

    def of_rows(self, cls: np.ndarray, flush_suit: np.ndarray) -> np.ndarray:
        """Showdown classes of rows given their strength classes and flush suits (-1: none)."""
        if self.identity:
            return cls
        return np.where(
            flush_suit >= 0, self.flush[cls, np.maximum(flush_suit, 0)], self.plain[cls]
        )

    def rank_bound(self, column: np.ndarray) -> np.ndarray:
        """For a feature indexed by showdown class: its largest value over the showdown
        classes of each strength class (equal to ``column`` when they are the same)."""
        if self.identity:
            return column
        return np.maximum(column[self.plain], column[self.flush].max(axis=1))


_SHOWDOWN: dict[str, ShowdownClasses] = {}


def showdown_classes(tiebreak: TieBreak) -> ShowdownClasses:
    """The (cached) ShowdownClasses of a suit tie-break."""
    found = _SHOWDOWN.get(tiebreak)
    if found is None:
        found = _SHOWDOWN[tiebreak] = ShowdownClasses(tiebreak)
    return found


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


def _build_by_back():
    """The 72,072 ordered splits grouped by back: for back subset b, its 56 middles, the
    fronts they leave and the unordered split (index into SPLIT_A) each one is."""
    positions = np.arange(13)
    rest = np.array([positions[(MASK5[b] >> positions) & 1 == 0] for b in range(len(C5))])
    pick = np.array(list(combinations(range(8), 5)), dtype=np.intp)  # (56, 5)
    middle_masks = (_BITS[rest[:, pick]]).sum(axis=2)  # (1287, 56)
    front_masks = ((1 << 13) - 1) ^ MASK5[:, None] ^ middle_masks
    idx5 = np.full(1 << 13, -1, dtype=np.intp)
    idx5[MASK5] = np.arange(len(C5))
    idx3 = np.full(1 << 13, -1, dtype=np.intp)
    idx3[MASK3] = np.arange(len(C3))
    middles, fronts = idx5[middle_masks], idx3[front_masks]
    # an unordered split is known by its front and the one of its fives that holds the
    # lowest position outside the front (SPLIT_A)
    split_key = SPLIT_F * (1 << 13) + MASK5[SPLIT_A]
    order = np.argsort(split_key)
    lowest = np.minimum(MASK5[:, None] & -MASK5[:, None], middle_masks & -middle_masks)
    holder = np.where((MASK5[:, None] & lowest) != 0, MASK5[:, None], middle_masks)
    key = fronts * (1 << 13) + holder
    splits = order[np.searchsorted(split_key, key, sorter=order)]
    return middles, fronts, splits


BY_BACK_MIDDLE, BY_BACK_FRONT, BY_BACK_SPLIT = _build_by_back()  # (1287, 56) each
# the back is the unordered split's A: where A and B are of one strength class, HandTables
# (and so normal_choice) puts A in the back, and normal_splits does the same
BY_BACK_IS_A = SPLIT_A[BY_BACK_SPLIT] == np.arange(len(C5))[:, None]


def _rank_weights(subsets: np.ndarray) -> np.ndarray:
    """(13, subsets): what each sorted position adds to each subset's rank key (its ranks,
    ascending, in base 16)."""
    weights = np.zeros((13, len(subsets)))
    for k in range(subsets.shape[1]):
        weights[subsets[:, k], np.arange(len(subsets))] = 16.0 ** (subsets.shape[1] - 1 - k)
    return weights


# Subsets' rank keys and suit sums as products of the 13 cards with these weights (einsum:
# numpy's own loop, exact in float64 as the keys stay under 2 ** 20; a BLAS product would
# start threads that spin on the other core)
_RANK_KEY5, _RANK_KEY3 = _rank_weights(C5), _rank_weights(C3)
_IN5 = (_RANK_KEY5 > 0).astype(np.float64)
# a five's suit sum (8 ** suit a card) -> its suit where all five are of one suit, else -1
_FLUSH_SUIT = np.full(5 * 8**3 + 1, -1, dtype=np.intp)
_FLUSH_SUIT[[5 * 8**suit for suit in range(4)]] = np.arange(4)


def _by_subset(cards: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return np.einsum("...i,ij->...j", cards.astype(np.float64), weights).astype(np.intp)


def subset_classes(
    indices: np.ndarray, flush_suits: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Class ids of every five-card and three-card subset of hands given as card indices
    sorted ascending, shape (..., 13): (..., 1287) and (..., 286). ``flush_suits``: the
    hands' subset_flush_suits, if already known."""
    ranks = np.asarray(indices) // 4 + 2
    keys = _by_subset(ranks, _RANK_KEY5)
    cls5 = PLAIN5.take(keys).astype(np.intp)
    if flush_suits is None:
        flush_suits = subset_flush_suits(indices)
    flushes = np.flatnonzero(flush_suits >= 0)
    if len(flushes):
        np.put(cls5, flushes, FLUSH5.take(keys.ravel().take(flushes)))
    return cls5, TAB3.take(_by_subset(ranks, _RANK_KEY3)).astype(np.intp)


def subset_flush_suits(indices: np.ndarray) -> np.ndarray:
    """The suit of every five-card subset that is one suit's, else -1, of hands given as
    card indices sorted ascending, shape (..., 13): (..., 1287)."""
    return _FLUSH_SUIT.take(_by_subset(8 ** (np.asarray(indices) % 4), _IN5))


def subset_showdown(
    indices: np.ndarray, cls5: np.ndarray, cls3: np.ndarray, tiebreak: TieBreak
) -> tuple[np.ndarray, np.ndarray]:
    """Showdown classes (ShowdownClasses) of every five- and three-card subset of hands
    given as sorted card indices (..., 13) with their strength classes (subset_classes)."""
    order = showdown_classes(tiebreak)
    if order.identity:
        return cls5, cls3
    return order.of_rows(cls5, subset_flush_suits(indices)), order.plain[cls3]


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
        "flush_suit5",
        "flush5",
        "back",
        "middle",
        "front",
        "a_is_back",
        "valid",
        "_showdown",
    )

    def __init__(self, indices: np.ndarray):
        idx = np.asarray(indices, dtype=np.intp)
        if idx.shape != (13,):
            raise ValueError("a hand has 13 cards")
        self.indices = sidx = np.sort(idx)
        self.ranks = sidx // 4 + 2
        self.suits = sidx % 4
        # each five-card subset's suit where it is a flush (straight or not), else -1
        self.flush_suit5 = subset_flush_suits(sidx)
        self.cls5, self.cls3 = subset_classes(sidx, self.flush_suit5)
        self.flush5 = self.flush_suit5 >= 0
        # the splits' classes as int16 (class ids are under 2 ** 15): half the memory to
        # pass over, and every solve builds its hand's tables
        c16 = self.cls5.astype(np.int16)
        ca = c16.take(SPLIT_A)
        cb = c16.take(SPLIT_B)
        self.a_is_back = ca >= cb
        back = np.maximum(ca, cb)
        middle = np.minimum(ca, cb)
        front = self.cls3.astype(np.int16).take(SPLIT_F)
        self.valid = np.flatnonzero(front <= middle)
        self.back = back.take(self.valid)
        self.middle = middle.take(self.valid)
        self.front = front.take(self.valid)
        self._showdown: dict[str, tuple[np.ndarray, ...]] = {}

    def showdown(self, tiebreak: TieBreak) -> tuple[np.ndarray, ...]:
        """(sd5 (1287,), sd3 (286,), back, middle, front): the showdown classes
        (ShowdownClasses) of the hand's subsets and of its valid splits' rows."""
        found = self._showdown.get(tiebreak)
        if found is None:
            order = showdown_classes(tiebreak)
            if order.identity:
                found = (self.cls5, self.cls3, self.back, self.middle, self.front)
            else:
                sd5 = order.of_rows(self.cls5, self.flush_suit5)
                sd3 = order.plain[self.cls3]
                # a row's showdown class follows from its strength class but for a flush
                # (its suit): the flush rows are read from their own subsets
                back, middle = order.plain.take(self.back), order.plain.take(self.middle)
                if self.flush5.any():
                    for rows, classes, subset in (
                        (back, self.back, self.back_subset),
                        (middle, self.middle, self.middle_subset),
                    ):
                        first, last = FLUSH_RUN
                        flushes = np.flatnonzero((classes >= first) & (classes <= last))
                        rows[flushes] = sd5.take(subset(flushes))
                found = (sd5, sd3, back, middle, order.plain.take(self.front))
            self._showdown[tiebreak] = found
        return found

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


def _three_straight_ranks() -> np.ndarray:
    """Rank counts (2..A) of every rank multiset of 13 cards that makes three straights."""
    fives = [[12, 0, 1, 2, 3]] + [list(range(low, low + 5)) for low in range(9)]
    threes = [[12, 0, 1]] + [list(range(low, low + 3)) for low in range(11)]
    found = set()
    for i, a in enumerate(fives):
        for b in fives[i:]:
            for c in threes:
                found.add(tuple(np.bincount(a + b + c, minlength=13).tolist()))
    return np.array(sorted(found), dtype=np.intp)


THREE_STRAIGHT_RANKS = _three_straight_ranks()
# suit counts (D, C, H, S) that split into two flushes of five and one of three
FLUSH_SUITS = np.array(
    sorted(
        {
            perm
            for shape in ((13, 0, 0, 0), (10, 3, 0, 0), (8, 5, 0, 0), (5, 5, 3, 0))
            for perm in permutations(shape)
        }
    ),
    dtype=np.intp,
)
_BASE5 = 5 ** np.arange(13)
_STRAIGHT_CODES = np.sort(THREE_STRAIGHT_RANKS @ _BASE5)
_FLUSH_BASE = 14 ** np.arange(4)
_FLUSH_CODES = np.sort(FLUSH_SUITS @ _FLUSH_BASE)


def rank_counts(indices: np.ndarray) -> np.ndarray:
    """How many cards of each rank (2 .. A) hands given as card indices (..., 13) hold:
    (..., 13)."""
    return (np.asarray(indices)[..., None] // 4 == np.arange(13)).sum(axis=-2)


def may_hold_special(indices: np.ndarray, preset: Preset) -> np.ndarray:
    """For hands given as card indices (N, 13): does the hand hold a special the preset
    pays? Exactly find_specials' answer, by rank and suit counts (the shapes above)."""
    counts = rank_counts(indices)
    suits = (indices[..., None] % 4 == np.arange(4)).sum(axis=-2)
    out = np.zeros(indices.shape[:-1], dtype=bool)
    if preset.pays("dragon"):
        out |= (counts == 1).all(axis=-1)
    if preset.pays("six_pairs"):
        out |= (counts // 2).sum(axis=-1) >= 6
    if preset.pays("three_straights"):
        out |= np.isin(counts @ _BASE5, _STRAIGHT_CODES)
    if preset.pays("three_flushes"):
        out |= np.isin(suits @ _FLUSH_BASE, _FLUSH_CODES)
    return out


_STRAIGHT_SET = frozenset(_STRAIGHT_CODES.tolist())
_FLUSH_SET = frozenset(_FLUSH_CODES.tolist())


def _may_hold_one(indices: np.ndarray, preset: Preset) -> bool:
    """may_hold_special for one hand, without its arrays' cost."""
    counts = np.bincount(indices // 4, minlength=13)
    if preset.pays("dragon") and counts.max() == 1:
        return True
    if preset.pays("six_pairs") and (counts // 2).sum() >= 6:
        return True
    if preset.pays("three_straights") and int(counts @ _BASE5) in _STRAIGHT_SET:
        return True
    suits = np.bincount(indices % 4, minlength=4)
    return preset.pays("three_flushes") and int(suits @ _FLUSH_BASE) in _FLUSH_SET


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
    if not _may_hold_one(tables.indices, preset):
        return found  # most hands: their rank and suit counts hold none
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
