"""The `hard` setter: Monte Carlo re-scoring of the best `normal` candidates.

Opponents are dealt from the 39 unseen cards (card removal counts) and set by `normal`
(declaring a special when its expected points beat the rows', as ``normal`` does). Every
candidate, and declaring a special, is scored against the same deals with a vectorised
equivalent of capsa.scoring.score_round for the seat being solved: row showdowns with the
preset's suit tie-break, bonus values, sweeps, the sweep of the table (opponents' sweeps of
each other included) and declared specials.

The numbers come from capsa.scoring (row values, multipliers, the units extra, a pair's
points) and capsa.specials (which special outranks which); what is copied here, vectorised,
is who wins a row (``showdown_key``), who sweeps whom and who sweeps the table. tests/
test_solver.py checks ``score_seat`` against ``score_round`` for every preset and option.

The budget goes where the choice is close: setting the opponents is most of a solve's time,
so every solve first sets HARD_OPPONENT_HANDS of them, and only where the best option may
then still lose more than a stage's risk in points to another (``choice_risk``, from the
spread of their differences over the same deals) does it set that stage's hands more,
stage after stage (HARD_STAGES). On 60 and 100 hands at four players (standard), 23 to
34% got the first extra deals, 12 to 26% the second and 2 to 13% the third: the median
solve is the first deals'; tests/test_solver_hard.py; bench/arrange.py measures the regret
and the speed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from capsa.cards import DECK
from capsa.hands import Row
from capsa.presets import SPECIALS, Preset
from capsa.scoring import pair_multiplier, pair_points, table_sweep_applies
from capsa.solver.evaluator import (
    C3,
    C5,
    CATEGORY,
    LEAD,
    LEVEL,
    SPLIT_A,
    SPLIT_B,
    SPLIT_F,
    STRENGTHS,
    HandTables,
    early_order,
    find_specials,
    may_hold_special,
)
from capsa.solver.model import (
    best_special,
    declare_value,
    model_for,
    models_for,
    normal_best,
    normal_splits,
    ordinary_value,
    should_declare,
    should_surrender,
    special_edge,
    special_odds,
    strata_of,
    value_table,
)
from capsa.specials import compare_specials, special_order

HARD_OPPONENT_HANDS = 240  # opponent hands set first in a hard solve (deals = this // opponents)
HARD_CANDIDATES = 16  # strength triples scored (each with its suit variants that win ties)
HARD_SUITS = True
# of those, how many go to the best split of each shape (the rows' categories: a flush,
# two pair and a pair...) not among the best by normal's estimate
HARD_SHAPES = 4
PRIOR_WEIGHT = 30.0  # the normal estimate counts as this many deals
# where the deals so far leave the choice at risk (choice_risk: what it may lose, over a
# stage's risk in points), a stage's opponent hands more are set, stage after stage (a
# first risk of 0.03 was tried and not kept: it sent 35 to 50% of hands at four players
# to the extra deals, and the median solve to the edge of the first stage's;
# docs/SOLVER.md)
HARD_STAGES: tuple[tuple[int, float], ...] = ((480, 0.1), (1440, 0.03), (1440, 0.03))
# opponents set at once (set_hands): a few hundred at once take tens of megabytes; in
# chunks of this many they take a few, and a hard solve is about 12% faster (the same
# settings). The solve after a Monte Carlo still finds the caches colder (15-25% slower).
SET_CHUNK = 48
Seed = int | tuple[int, ...]  # of a solve's deals (numpy.random.default_rng's seed)


# --- showdown keys ------------------------------------------------------------------------


def showdown_key(strength, level, lead, key_suit, flush_suit, tiebreak: str):
    """An integer per row such that rows compare like capsa.hands.compare (works on numpy
    arrays and on ints). ``flush_suit`` is -1 for a row that is not a flush."""
    if tiebreak == "none":
        return strength * 4
    if tiebreak == "key_card":
        return strength * 4 + key_suit
    return (early_order(strength, level, lead, flush_suit) << 2) | key_suit


def row_key(row: Row, tiebreak: str) -> int:
    """showdown_key of an evaluated Row (for tests and Card-level callers)."""
    s = row.strength
    flush = -1 if row.flush_suit is None else row.flush_suit
    key = showdown_key(
        np.int64(s),
        np.int64(s >> 20),
        np.int64((s >> 16) & 0xF),
        row.key_card.suit,
        flush,
        tiebreak,
    )
    return int(key)


def row_keys(ranks: np.ndarray, suits: np.ndarray, cls: np.ndarray, tiebreak: str) -> np.ndarray:
    """Showdown keys of rows given their cards' ranks and suits (R, 5 or 3) and classes."""
    lead = LEAD[cls].astype(np.int64)
    key_suit = np.where(ranks == lead[:, None], suits, -1).max(axis=1)
    level = LEVEL[cls].astype(np.int64)
    flush_suit = (
        np.where(level == 5, suits[:, 0], -1) if ranks.shape[1] == 5 else np.full(len(cls), -1)
    )
    return showdown_key(STRENGTHS[cls], level, lead, key_suit, flush_suit, tiebreak)


def subset_keys(
    tables: HandTables, tiebreak: str, five=None, three=None
) -> tuple[np.ndarray, np.ndarray]:
    """Showdown keys of a hand's five-card and three-card subsets (all 1,287 and 286, or
    only those indexed by ``five`` and ``three``)."""
    pick5 = slice(None) if five is None else five
    pick3 = slice(None) if three is None else three
    return (
        row_keys(tables.ranks[C5[pick5]], tables.suits[C5[pick5]], tables.cls5[pick5], tiebreak),
        row_keys(tables.ranks[C3[pick3]], tables.suits[C3[pick3]], tables.cls3[pick3], tiebreak),
    )


def split_keys(tables: HandTables, keys, splits: np.ndarray) -> np.ndarray:
    """Showdown keys (N, 3: back, middle, front) of valid splits, from the hand's
    subset_keys."""
    keys5, keys3 = keys
    return np.stack(
        [
            keys5[tables.back_subset(splits)],
            keys5[tables.middle_subset(splits)],
            keys3[tables.front_subset(splits)],
        ],
        axis=1,
    )


# --- exact pairwise scoring, vectorised ----------------------------------------------------


def score_seat(
    preset: Preset,
    my_keys: np.ndarray,  # (K, 3) showdown keys (ignored where my_special >= 0)
    my_vals: np.ndarray,  # (K, 3) values of my rows when they win
    my_special: np.ndarray,  # (K,) index into SPECIALS, or -1
    opp_keys: np.ndarray,  # (S, k, 3)
    opp_vals: np.ndarray,  # (S, k, 3)
    opp_special: np.ndarray,  # (S, k) index into SPECIALS, or -1
    special_sign=None,  # f(c, s, j) -> +1/0/-1 for two declared specials (compare presets)
    opp_surrender=None,  # (S, k) bool: the opponent surrendered (None: nobody did)
) -> np.ndarray:
    """Points of the solved seat for each candidate and deal: (K, S). Nobody is fouled; a
    surrendered opponent pays the surrender's price whatever the solved seat plays, and
    neither sweeps nor is swept."""
    k = opp_keys.shape[1]
    if opp_surrender is None:
        opp_surrender = np.zeros(opp_special.shape, dtype=bool)
    mk = my_keys[:, None, None, :]
    ok = opp_keys[None, :, :, :]
    win = mk > ok  # (K, S, k, 3)
    lose = mk < ok
    net = (win * my_vals[:, None, None, :]).sum(-1) - (lose * opp_vals[None]).sum(-1)
    swept_them = win.all(-1)
    swept_me = lose.all(-1)
    i_special = (my_special >= 0)[:, None, None]
    o_special = ((opp_special >= 0) | opp_surrender)[None, :, :]
    ordinary = ~i_special & ~o_special
    swept_them &= ordinary
    swept_me &= ordinary

    mult = np.ones(net.shape)
    mult[swept_them | swept_me] = pair_multiplier(preset, table_sweep=False, foul=False)
    if table_sweep_applies(preset, k + 1):
        t = pair_multiplier(preset, table_sweep=True, foul=False)
        me_table = swept_them.all(-1, keepdims=True)  # (K, S, 1)
        mult[np.broadcast_to(me_table, mult.shape) & swept_them] = t
        opp_table = swept_me & _opp_sweeps_others(opp_keys, opp_special, opp_surrender)[None]
        mult[opp_table] = t
    points = pair_points(preset, net, win.sum(-1), lose.sum(-1), mult)
    points = np.where(ordinary, points, 0.0)

    # declared specials
    values = np.array([preset.specials.get(s, 0) for s in SPECIALS], dtype=np.float64)
    mine = np.broadcast_to(my_special[:, None, None], points.shape)
    theirs = np.broadcast_to(opp_special[None], points.shape)
    only_me = (mine >= 0) & (theirs < 0)
    only_them = (mine < 0) & (theirs >= 0)
    points = np.where(only_me, values[np.maximum(mine, 0)], points)
    points = np.where(only_them, -values[np.maximum(theirs, 0)], points)
    both = np.argwhere((mine >= 0) & (theirs >= 0))
    for c, s, j in both:
        a, b = int(mine[c, s, j]), int(theirs[c, s, j])
        sign = special_order(SPECIALS[a], SPECIALS[b])
        if sign == 0 and preset.same_special == "compare" and special_sign is not None:
            sign = special_sign(c, s, j)
        paid = a if sign > 0 else b
        points[c, s, j] = sign * values[paid]
    points = np.where(opp_surrender[None], float(preset.surrender_cost), points)
    return points.sum(-1)


def surrender_points(preset: Preset, opp_surrender: np.ndarray) -> np.ndarray:
    """Points of a surrendering seat on each deal (S,): the surrender's price to each
    opponent who did not surrender too (capsa.scoring settles two surrenders at 0)."""
    return -float(preset.surrender_cost) * (~opp_surrender).sum(-1)


def after_fee(preset: Preset, points: np.ndarray) -> np.ndarray:
    """A seat's round total after the room fee (the rate of a positive total, to the cent,
    as capsa.scoring.score_round takes it); the points themselves without a fee."""
    if not preset.room_fee:
        return points
    return points - np.where(points > 0, np.round(points * preset.room_fee_rate, 2), 0.0)


def _opp_sweeps_others(
    opp_keys: np.ndarray, opp_special: np.ndarray, opp_surrender: np.ndarray
) -> np.ndarray:
    """(S, k): opponent j is ordinary (no special, no surrender) and sweeps every other
    opponent."""
    k = opp_keys.shape[1]
    ordinary = (opp_special < 0) & ~opp_surrender
    out = ordinary.copy()
    for j in range(k):
        for i in range(k):
            if i != j:
                sweeps = (opp_keys[:, j] > opp_keys[:, i]).all(-1) & ordinary[:, i]
                out[:, j] &= sweeps
    return out


# --- the hard level -----------------------------------------------------------------------


def top_candidates(
    tables: HandTables,
    preset: Preset,
    ev: np.ndarray,
    count: int,
    keys=None,
    pool: int = 96,
    shapes: int = 0,
) -> np.ndarray:
    """The best ``count`` Pareto-undominated splits by ``ev`` (indices into valid splits),
    one per triple of showdown classes, in order of ``ev``; with ``shapes``, the last
    ``shapes`` of them are instead the best of each shape (triple of the rows' categories)
    not among the others, while there are such shapes.

    Domination is by the preset's own showdown order (capsa.solver.evaluator's showdown
    classes: suit first for sayapoker's flushes, pairs by their rank alone): the ``pool``
    best by ``ev`` are checked against every valid split, so an undominated split is never
    dropped in favour of a dominated one. With ``keys`` (the hand's subset_keys), each
    triple brings every split of that triple whose showdown keys no other split of it beats
    in every row: the suits that win ties.
    """
    n = len(ev)
    pool = min(pool, n)
    top = np.argpartition(-ev, pool - 1)[:pool] if pool < n else np.arange(n)
    top = top[np.argsort(-ev[top], kind="stable")]
    b, m, f = tables.showdown(preset.suit_tiebreak)[2:]
    tb, tm, tf = b[top][:, None], m[top][:, None], f[top][:, None]
    ge = (b >= tb) & (m >= tm) & (f >= tf)
    gt = (b > tb) | (m > tm) | (f > tf)
    dominated = (ge & gt).any(axis=1)
    keep = top[~dominated]
    # one split per strength triple
    triple = (b.astype(np.int64) << 28) | (m.astype(np.int64) << 14) | f
    _, first = np.unique(triple[keep], return_index=True)
    keep = keep[np.sort(first)]
    if shapes:
        keep = _with_shapes(tables, ev, keep, count, shapes, (b, m, f))
    keep = keep[:count]
    if keys is None:
        return keep
    # the suit variants of those triples, less those beaten in every row by another
    variants = np.flatnonzero(np.isin(triple, triple[keep]))
    k = split_keys(tables, keys, variants)
    same = triple[variants][:, None] == triple[variants][None, :]
    beaten = (
        same & (k[None, :, :] >= k[:, None, :]).all(-1) & (k[None, :, :] > k[:, None, :]).any(-1)
    ).any(axis=1)
    variants = variants[~beaten]
    rank = {int(t): i for i, t in enumerate(triple[keep])}
    order = np.argsort([rank[int(t)] for t in triple[variants]], kind="stable")
    return variants[order]


def _with_shapes(tables: HandTables, ev, keep, count: int, shapes: int, showdown) -> np.ndarray:
    """``keep`` (splits by ``ev``, best first) cut to ``count``, of which the last
    ``shapes`` are the best split by ``ev`` of each shape (the rows' categories) none of
    the first ``count - shapes`` has, best first, where those are undominated (of the
    ``2 * shapes`` best such shapes)."""
    splits = np.arange(len(ev))
    shape = (
        CATEGORY[tables.cls5[tables.back_subset(splits)]].astype(np.int64) * 100
        + CATEGORY[tables.cls5[tables.middle_subset(splits)]] * 10
        + CATEGORY[tables.cls3[tables.front_subset(splits)]]
    )
    head = keep[: count - shapes]
    order = np.lexsort((-ev, shape))
    firsts = order[np.flatnonzero(np.diff(shape[order], prepend=-1))]  # best of each shape
    firsts = firsts[~np.isin(shape[firsts], shape[head])]
    firsts = firsts[np.argsort(-ev[firsts], kind="stable")][: 2 * shapes]
    b, m, f = showdown
    tb, tm, tf = b[firsts][:, None], m[firsts][:, None], f[firsts][:, None]
    dominated = ((b >= tb) & (m >= tm) & (f >= tf) & ((b > tb) | (m > tm) | (f > tf))).any(axis=1)
    extra = firsts[~dominated][:shapes]
    rest = keep[count - shapes :]
    fill = rest[~np.isin(rest, extra)][: shapes - len(extra)]  # the next by ``ev``, once each
    return np.concatenate([head, extra, fill])


class Seated:
    """A normal-set hand as the MC needs it."""

    __slots__ = ("keys", "vals", "special", "setting", "surrender")

    def __init__(self, keys, vals, special, setting, surrender=False):
        self.keys, self.vals, self.special, self.setting = keys, vals, special, setting
        self.surrender = surrender


def set_opponent(indices: np.ndarray, preset: Preset, opponents: int, values: np.ndarray) -> Seated:
    """``values`` is value_table(preset), built once per solve."""
    tables = HandTables(indices)
    best, best_value = normal_best(tables, preset, opponents, by_hand=False)
    found = find_specials(tables, preset)
    special = best_special(found, preset)
    if special is not None:
        odds = special_odds(tables.indices, preset)
        edge = special_edge(tables.indices, preset, special)
        if should_declare(
            declare_value(preset, odds, special, edge),
            ordinary_value(preset, odds, best_value),
        ):
            rows = found[special]
            setting = _card_setting(tables, rows if rows is not None else tables.rows(best))
            return Seated(
                np.zeros(3, dtype=np.int64), np.zeros(3), SPECIALS.index(special), setting
            )
    k = np.array([best])
    b, m, f = tables.back_subset(k)[0], tables.middle_subset(k)[0], tables.front_subset(k)[0]
    keys5, keys3 = subset_keys(tables, preset.suit_tiebreak, np.array([b, m]), np.array([f]))
    keys = np.array([keys5[0], keys5[1], keys3[0]], dtype=np.int64)
    cats = CATEGORY[[tables.cls5[b], tables.cls5[m], tables.cls3[f]]]
    vals = values[np.arange(3), cats]
    return Seated(keys, vals, -1, None, bool(should_surrender(preset, best_value)))


def _card_setting(tables: HandTables, rows):
    return tuple(tuple(DECK[int(tables.indices[p])] for p in row) for row in rows)


class SetHands:
    """Many normal-set hands: showdown keys (N, 3) and winning values (N, 3) of their rows,
    the special each declared (N,: index into SPECIALS, or -1) and, for those, the setting
    (hand number -> card rows, for comparing two specials), and whether each surrendered
    (N,)."""

    __slots__ = ("keys", "vals", "special", "settings", "surrender")

    def __init__(self, keys, vals, special, settings, surrender):
        self.keys, self.vals, self.special, self.settings = keys, vals, special, settings
        self.surrender = surrender


def set_hands(hands: np.ndarray, preset: Preset, opponents: int, values: np.ndarray) -> SetHands:
    """``set_opponent`` for many hands (card indices, (N, 13)) at once, with the same result:
    normal_splits finds the splits; a hand holding a special goes through set_opponent."""
    n = len(hands)
    keys = np.zeros((n, 3), dtype=np.int64)
    vals = np.zeros((n, 3))
    special = np.full(n, -1)
    surrender = np.zeros(n, dtype=bool)
    settings = {}
    slow = may_hold_special(hands, preset)
    for i in np.flatnonzero(slow).tolist():
        seat = set_opponent(hands[i], preset, opponents, values)
        keys[i], vals[i], special[i] = seat.keys, seat.vals, seat.special
        surrender[i] = seat.surrender
        if seat.setting is not None:
            settings[i] = seat.setting
    fast = np.flatnonzero(~slow)
    if len(fast):
        cards = np.sort(hands[fast], axis=1)
        choice, best, cls5, cls3 = normal_splits(cards, preset, opponents)
        surrender[fast] = should_surrender(preset, best)
        at = np.arange(len(fast))
        a, b = SPLIT_A[choice], SPLIT_B[choice]
        a_back = cls5[at, a] >= cls5[at, b]
        subsets = (np.where(a_back, a, b), np.where(a_back, b, a))
        for pos, subset in enumerate(subsets):
            row = np.take_along_axis(cards, C5[subset], axis=1)
            cls = cls5[at, subset]
            keys[fast, pos] = row_keys(row // 4 + 2, row % 4, cls, preset.suit_tiebreak)
            vals[fast, pos] = values[pos, CATEGORY[cls]]
        front = SPLIT_F[choice]
        row = np.take_along_axis(cards, C3[front], axis=1)
        cls = cls3[at, front]
        keys[fast, 2] = row_keys(row // 4 + 2, row % 4, cls, preset.suit_tiebreak)
        vals[fast, 2] = values[2, CATEGORY[cls]]
    return SetHands(keys, vals, special, settings, surrender)


def candidate_rows(
    tables: HandTables, preset: Preset, cands: np.ndarray, special, values: np.ndarray, keys=None
):
    """(keys (K,3), values (K,3), special (K,)) of candidate splits, plus the special;
    ``values`` is value_table(preset), ``keys`` the hand's subset_keys if known."""
    keys5, keys3 = keys if keys is not None else subset_keys(tables, preset.suit_tiebreak)
    b, m, f = tables.back_subset(cands), tables.middle_subset(cands), tables.front_subset(cands)
    my_keys = np.stack([keys5[b], keys5[m], keys3[f]], axis=1)
    cats = np.stack(
        [CATEGORY[tables.cls5[b]], CATEGORY[tables.cls5[m]], CATEGORY[tables.cls3[f]]], 1
    )
    my_vals = values[np.arange(3)[None, :], cats]
    my_special = np.full(len(cands), -1)
    if special is not None:
        my_keys = np.vstack([my_keys, np.zeros((1, 3), dtype=np.int64)])
        my_vals = np.vstack([my_vals, np.zeros((1, 3))])
        my_special = np.append(my_special, SPECIALS.index(special))
    return my_keys, my_vals, my_special


def deal_opponents(
    tables: HandTables, preset: Preset, opponents: int, n_deals: int, seed: Seed, values
) -> SetHands:
    """``n_deals`` deals of the hand's 39 unseen cards to ``opponents`` normal-set opponents
    (the same deals for the same hand and seed)."""
    unseen = np.setdiff1d(np.arange(52), tables.indices)
    rng = np.random.default_rng(seed)
    hands = np.empty((n_deals, opponents, 13), dtype=np.intp)
    for d in range(n_deals):
        hands[d] = rng.permutation(unseen)[: opponents * 13].reshape(opponents, 13)
    flat = hands.reshape(-1, 13)
    if len(flat) <= SET_CHUNK:
        return set_hands(flat, preset, opponents, values)
    # set in chunks of hands of one card-removal stratum (normal_splits sets each
    # stratum's hands at once), put back in the deals' order
    order = np.argsort(strata_of(flat, models_for(preset, opponents)), kind="stable")
    parts = [
        set_hands(flat[order[at : at + SET_CHUNK]], preset, opponents, values)
        for at in range(0, len(flat), SET_CHUNK)
    ]
    settings = {
        int(order[at + i]): setting
        for at, part in zip(range(0, len(flat), SET_CHUNK), parts, strict=True)
        for i, setting in part.settings.items()
    }

    def unsorted(column: list[np.ndarray]) -> np.ndarray:
        out = np.empty_like(column[0], shape=(len(flat), *column[0].shape[1:]))
        out[order] = np.concatenate(column)
        return out

    return SetHands(
        unsorted([part.keys for part in parts]),
        unsorted([part.vals for part in parts]),
        unsorted([part.special for part in parts]),
        settings,
        unsorted([part.surrender for part in parts]),
    )


@dataclass(frozen=True, slots=True)
class PlayedRows:
    """A setting someone played, scored beside hard's candidates on the same deals
    (capsa.coach): its rows as subset indices of the hand's sorted positions (into C5, C5
    and C3), and whether they foul."""

    back: int
    middle: int
    front: int
    fouled: bool


def mc_points(
    tables: HandTables,
    preset: Preset,
    opponents: int,
    cands: np.ndarray,
    special: str | None,
    special_rows,
    n_deals: int,
    seed: Seed,
    keys=None,
    played: PlayedRows | None = None,
) -> np.ndarray:
    """A seat's round total (after any room fee) for each candidate, then ``played`` (if
    given), then declaring the special (if any), then surrendering (where the table allows
    it), on ``n_deals`` deals of the unseen cards to ``opponents`` normal-set opponents:
    (K [+1] [+1] [+1], n_deals)."""
    values = value_table(preset)
    if keys is None:
        keys = subset_keys(tables, preset.suit_tiebreak)
    my_keys, my_vals, my_special = candidate_rows(tables, preset, cands, special, values, keys)
    seated = deal_opponents(tables, preset, opponents, n_deals, seed, values)
    points = score_with(
        preset, my_keys, my_vals, my_special, seated, opponents, tables, special_rows, special
    )
    surrender = seated.surrender.reshape(-1, opponents)
    rows = [points[: len(cands)]]
    if played is not None and played.fouled:
        rows.append(
            foul_points(
                preset,
                seated.vals.reshape(-1, opponents, 3),
                seated.keys.reshape(-1, opponents, 3),
                seated.special.reshape(-1, opponents),
                surrender,
            )[None]
        )
    elif played is not None:
        keys5, keys3 = keys
        subsets = (played.back, played.middle)
        row_keys_ = np.array([[keys5[played.back], keys5[played.middle], keys3[played.front]]])
        cats = [CATEGORY[tables.cls5[s]] for s in subsets] + [CATEGORY[tables.cls3[played.front]]]
        row_vals = values[np.arange(3), cats][None]
        rows.append(
            score_with(
                preset, row_keys_, row_vals, np.array([-1]), seated, opponents, tables, None, None
            )
        )
    rows.append(points[len(cands) :])
    if preset.surrender:
        rows.append(surrender_points(preset, surrender)[None])
    return after_fee(preset, np.concatenate(rows))


def foul_points(
    preset: Preset,
    opp_vals: np.ndarray,
    opp_keys: np.ndarray,
    opp_special: np.ndarray,
    opp_surrender: np.ndarray | None = None,
) -> np.ndarray:
    """Points of a fouled seat on each deal (S,) against opponents who did not foul
    (``opp_*`` as in score_seat): each ordinary opponent takes all three rows at the foul
    multiplier (its table sweep's where it sweeps the table, the fouled seat counting as
    swept), each declared special is paid in full, each surrendered opponent pays its
    price."""
    k = opp_keys.shape[1]
    if opp_surrender is None:
        opp_surrender = np.zeros(opp_special.shape, dtype=bool)
    sweeper = np.zeros(opp_special.shape, dtype=bool)
    if table_sweep_applies(preset, k + 1):
        sweeper = _opp_sweeps_others(opp_keys, opp_special, opp_surrender)
    mult = np.where(
        sweeper,
        pair_multiplier(preset, table_sweep=True, foul=True),
        pair_multiplier(preset, table_sweep=False, foul=True),
    )
    rows = pair_points(preset, -opp_vals.sum(-1), 0, 3, mult)
    values = np.array([preset.specials.get(s, 0) for s in SPECIALS], dtype=np.float64)
    paid = np.where(opp_special >= 0, -values[np.maximum(opp_special, 0)], rows)
    return np.where(opp_surrender, float(preset.surrender_cost), paid).sum(-1)


@dataclass(frozen=True, slots=True)
class HardValues:
    """What ``hard_choice`` found: the chosen valid split and the expected points (all
    opponents) of it, of declaring the special, of the played setting and of surrendering
    (None where there is no such option)."""

    split: int
    rows: float
    special: float | None
    played: float | None
    surrender: float | None


def hard_choice(
    tables: HandTables,
    preset: Preset,
    opponents: int,
    ev: np.ndarray,
    seed: int,
    odds: dict[str, float],
    special: str | None,
    special_rows,
    special_prior: float | None,
    played: PlayedRows | None = None,
) -> HardValues:
    """The best split of hard's candidates and the values of every option.

    Every candidate, declaring the special, surrendering and the played rows are scored on
    the same deals: HARD_OPPONENT_HANDS opponent hands, then each stage's of HARD_STAGES
    more while the choice between the options (the played rows are none) is at risk
    (``choice_risk`` over the stage's risk). Each mean is shrunk towards its analytic value
    (``normal``'s estimate, ``special_prior``, the surrender's price to every opponent),
    weighted as PRIOR_WEIGHT deals. Fouled rows have no such estimate: theirs is the plain
    mean of the same deals. The played rows never change the choice."""
    keys = subset_keys(tables, preset.suit_tiebreak)
    cands = top_candidates(
        tables, preset, ev, HARD_CANDIDATES, keys if HARD_SUITS else None, shapes=HARD_SHAPES
    )
    n = len(cands)
    prior = [ordinary_value(preset, odds, ev[cands]) * opponents]
    if played is not None:
        if played.fouled:
            prior.append(np.array([np.nan]))  # the plain mean of the deals: below
        else:
            sd5, sd3 = tables.showdown(preset.suit_tiebreak)[:2]
            rows_ev = model_for(tables.indices, preset, opponents, tables=tables).split_ev(
                sd5[[played.back]], sd5[[played.middle]], sd3[[played.front]]
            )
            prior.append(ordinary_value(preset, odds, rows_ev) * opponents)
    if special is not None and special_prior is not None:
        prior.append(np.array([special_prior]))
    if preset.surrender:
        prior.append(np.array([-float(preset.surrender_cost) * opponents]))
    prior_values = np.concatenate(prior)
    # the options the seat chooses from: the candidates, the special, surrendering
    options = np.ones(len(prior_values), dtype=bool)
    if played is not None:
        options[n] = False

    def scored(points: np.ndarray) -> np.ndarray:
        deals = points.shape[1]
        mc = points.mean(axis=1)
        known = np.where(np.isnan(prior_values), mc, prior_values)
        return (deals * mc + PRIOR_WEIGHT * known) / (deals + PRIOR_WEIGHT)

    n_deals = max(4, HARD_OPPONENT_HANDS // opponents)
    points = mc_points(
        tables, preset, opponents, cands, special, special_rows, n_deals, seed, keys, played
    )
    score = scored(points)
    for stage, (hands, risk) in enumerate(HARD_STAGES, start=1):
        more = hands // opponents
        if not more or choice_risk(points, score, options) <= risk:
            break
        extra = mc_points(
            tables,
            preset,
            opponents,
            cands,
            special,
            special_rows,
            more,
            (seed, stage),
            keys,
            played,
        )
        points = np.concatenate([points, extra], axis=1)
        score = scored(points)
    best = int(np.argmax(score[:n]))
    at = n + (played is not None)
    return HardValues(
        split=int(cands[best]),
        rows=float(score[best]),
        special=float(score[at]) if special is not None else None,
        played=float(score[n]) if played is not None else None,
        surrender=float(score[-1]) if preset.surrender else None,
    )


def choice_risk(points: np.ndarray, score: np.ndarray, options: np.ndarray) -> float:
    """What choosing the best of the ``options`` by ``score`` may lose, in points: over the
    other options, the expected amount by which each beats it, E[max(0, X)] for X normal
    with the mean of its difference over the deals (``points``: options x deals) less the
    score gap and that mean's standard error."""
    at = np.flatnonzero(options)
    best = at[np.argmax(score[at])]
    rivals = at[at != best]
    if not len(rivals):
        return 0.0
    error = (points[best][None, :] - points[rivals]).std(axis=1) / np.sqrt(points.shape[1])
    gap = score[best] - score[rivals]
    z = gap / np.maximum(error, 1e-12)
    tail = 0.5 * np.vectorize(math.erfc)(z / math.sqrt(2.0))
    density = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    return float(np.sum(np.where(error > 0, error * density - gap * tail, 0.0)))


def score_with(
    preset, my_keys, my_vals, my_special, seated: SetHands, opponents, tables, special_rows, special
):
    shape = (-1, opponents)

    def special_sign(c, s, j) -> int:
        rows = special_rows if special_rows is not None else tables.rows(0)
        mine = _card_setting(tables, rows)
        other = s * opponents + j
        theirs = SPECIALS[seated.special[other]]
        return compare_specials(special, mine, theirs, seated.settings[other], preset)

    return score_seat(
        preset,
        my_keys,
        my_vals,
        my_special,
        seated.keys.reshape(*shape, 3),
        seated.vals.reshape(*shape, 3),
        seated.special.reshape(shape),
        special_sign,
        seated.surrender.reshape(shape),
    )
