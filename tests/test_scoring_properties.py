"""Properties of scoring (RULES §4-§5), with hypothesis: random valid deals, random settings
(some fouled), declared specials, and every preset with its table options."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from capsa.cards import DECK, Card
from capsa.hands import compare, evaluate
from capsa.presets import get_preset
from capsa.scoring import Seat, score_round
from capsa.specials import SPECIAL_RANK, holds

PRESET_CHOICES = [
    ("standard", {}),
    ("sayapoker", {}),
    ("sayapoker", {"room_fee": True}),
    ("indocapsa", {}),
    ("chinese-poker", {}),
    ("chinese-poker", {"method": "2-4"}),
    ("chinese-poker", {"surrender": True}),
    ("chinese-poker", {"method": "2-4", "surrender": True}),
]


def _take(pool: list[Card], rng: random.Random, predicate) -> Card | None:
    choices = [c for c in pool if predicate(c)]
    if not choices:
        return None
    card = rng.choice(choices)
    pool.remove(card)
    return card


def _take_ranks(pool, rng, ranks) -> list[Card] | None:
    out = []
    for r in ranks:
        card = _take(pool, rng, lambda c, r=r: c.rank == r)
        if card is None:
            return None
        out.append(card)
    return out


def _straight(start: int, length: int) -> list[int]:
    """Ranks of a straight starting at ``start`` (1 = the ace played low)."""
    return [14 if r == 1 else r for r in range(start, start + length)]


def _split(cards: list[Card], rng: random.Random):
    cards = list(cards)
    rng.shuffle(cards)
    return tuple(cards[:5]), tuple(cards[5:10]), tuple(cards[10:])


def build_special(special: str, deck: list[Card], rng: random.Random):
    """13 cards from ``deck`` that hold ``special``, set so that they do; None if impossible."""
    pool = list(deck)
    if special == "dragon":
        cards = _take_ranks(pool, rng, range(2, 15))
        setting = _split(cards, rng) if cards else None
    elif special == "six_pairs":
        ranks = [r for r in range(2, 15) if sum(c.rank == r for c in pool) >= 2]
        if len(ranks) < 6:
            return None
        cards = _take_ranks(pool, rng, [r for r in rng.sample(ranks, 6) for _ in range(2)])
        extra = _take(pool, rng, lambda c: True)
        setting = _split([*cards, extra], rng) if cards and extra else None
    elif special == "three_straights":
        back = _take_ranks(pool, rng, _straight(rng.randint(1, 10), 5))
        middle = _take_ranks(pool, rng, _straight(rng.randint(1, 10), 5))
        front = _take_ranks(pool, rng, _straight(rng.randint(1, 12), 3))
        if not (back and middle and front):
            return None
        if evaluate(back).strength < evaluate(middle).strength:
            back, middle = middle, back
        setting = (tuple(back), tuple(middle), tuple(front))
    else:  # three_flushes
        rows = []
        for size in (5, 5, 3):
            suit = rng.randrange(4)
            row = []
            for _ in range(size):
                card = _take(pool, rng, lambda c, s=suit: c.suit == s)
                if card is None:
                    return None
                row.append(card)
            rows.append(row)
        back, middle, front = rows
        if evaluate(back).strength < evaluate(middle).strength:
            back, middle = middle, back
        setting = (tuple(back), tuple(middle), tuple(front))
    if setting is None or not holds(special, setting):
        return None
    for card in (*setting[0], *setting[1], *setting[2]):
        deck.remove(card)
    return setting


@st.composite
def tables(draw):
    rules, options = draw(st.sampled_from(PRESET_CHOICES))
    preset = get_preset(rules, options or None)
    n = draw(st.integers(min_value=2, max_value=4))
    rng = random.Random(draw(st.integers(min_value=0, max_value=2**32 - 1)))
    deck = list(DECK)
    rng.shuffle(deck)
    seats = []
    for i in range(n):
        kind = draw(st.sampled_from(["random", "ordered", "ordered", "special", "surrender"]))
        name = f"P{i}"
        if kind == "special":
            special = draw(st.sampled_from(sorted(preset.specials)))
            setting = build_special(special, deck, rng)
            if setting is not None:
                seats.append(Seat(name, *setting, declare=special))
                continue
        if kind == "surrender" and preset.surrender:
            deck[:13] = []
            seats.append(Seat(name, surrender=True))
            continue
        back, middle, front = _split(deck[:13], rng)
        deck[:13] = []
        if kind == "ordered" and evaluate(back).strength < evaluate(middle).strength:
            back, middle = middle, back  # often (not always) a legal setting
        seats.append(Seat(name, back, middle, front))
    return preset, seats


PROPERTY_SETTINGS = settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPERTY_SETTINGS
@given(tables())
def test_zero_sum_without_fee(table) -> None:
    preset, seats = table
    result = score_round(seats, preset)
    if preset.room_fee:
        fees = 0.0
        for p in result.players:
            assert p.fee == (round(p.points * 0.03, 2) if p.points > 0 else 0)
            fees += p.fee
        assert abs(sum(p.total for p in result.players) + fees) < 1e-6
    else:
        assert sum(p.total for p in result.players) == 0
        assert all(p.fee == 0 for p in result.players)
    assert sum(p.points for p in result.players) == 0


@PROPERTY_SETTINGS
@given(tables(), st.data())
def test_swapping_two_players_swaps_their_totals(table, data) -> None:
    preset, seats = table
    i = data.draw(st.integers(0, len(seats) - 1))
    j = data.draw(st.integers(0, len(seats) - 1).filter(lambda x: x != i))
    swapped = list(seats)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    before = {p.name: p.total for p in score_round(seats, preset).players}
    after = {p.name: p.total for p in score_round(swapped, preset).players}
    assert before == after  # totals follow the player, not the seat
    a = score_round(seats, preset)
    b = score_round(swapped, preset)
    assert [p.total for p in b.players][i] == [p.total for p in a.players][j]
    assert [p.total for p in b.players][j] == [p.total for p in a.players][i]
    sweeper_a = None if a.table_sweeper is None else a.players[a.table_sweeper].name
    sweeper_b = None if b.table_sweeper is None else b.players[b.table_sweeper].name
    assert sweeper_a == sweeper_b


@PROPERTY_SETTINGS
@given(tables())
def test_a_fouled_hand_never_wins_a_row(table) -> None:
    preset, seats = table
    result = score_round(seats, preset)
    fouled = {i for i, p in enumerate(result.players) if p.fouled}
    for pair in result.pairs:
        for row in pair.rows:
            assert row.winner not in fouled
        i, j = pair.players
        if (i in fouled) != (j in fouled) and pair.kind == "foul":
            bad = i if i in fouled else j
            assert pair.points_for(bad) < 0
            assert all(row.winner is not None and row.winner != bad for row in pair.rows)
            assert len(pair.rows) == 3
        if i in fouled and j in fouled:
            assert pair.points == 0
    for i in fouled:
        assert result.players[i].special is None
        assert not result.players[i].surrendered
        assert result.table_sweeper != i


@PROPERTY_SETTINGS
@given(tables())
def test_a_declared_special_collects_from_a_player_who_declared_none(table) -> None:
    preset, seats = table
    result = score_round(seats, preset)
    for pair in result.pairs:
        for me, other in (pair.players, pair.players[::-1]):
            mine = result.players[me].special
            theirs = result.players[other].special
            if mine and not theirs:
                assert pair.points_for(me) > 0
                if not result.players[other].surrendered:
                    assert pair.kind == "special" and pair.special == mine
                    assert pair.points_for(me) == preset.specials[mine]
            if mine and theirs and SPECIAL_RANK[mine] < SPECIAL_RANK[theirs]:
                assert pair.points_for(me) == preset.specials[mine]
            if mine and theirs == mine and preset.same_special == "tie":
                assert pair.points == 0


@PROPERTY_SETTINGS
@given(tables())
def test_multipliers_never_apply_to_special_points(table) -> None:
    preset, seats = table
    result = score_round(seats, preset)
    allowed = {0, *preset.specials.values()}
    for pair in result.pairs:
        if pair.kind == "special":
            assert pair.multiplier == 1 and not pair.table_sweep and pair.sweep is None
            assert abs(pair.points) in allowed
            assert (pair.points == 0) == (pair.special is None)
            if pair.special:
                assert abs(pair.points) == preset.specials[pair.special]
    specials = {i for i, p in enumerate(result.players) if p.special}
    if specials:
        assert result.table_sweeper is None  # nobody sweeps a player who declared a special


@PROPERTY_SETTINGS
@given(tables())
def test_sweeps_and_table_sweeps_are_consistent(table) -> None:
    preset, seats = table
    result = score_round(seats, preset)
    n = len(seats)
    sweeper = result.table_sweeper
    if sweeper is not None:
        assert preset.table_sweep_multiplier is not None
        assert n - 1 >= preset.table_sweep_min_opponents
        me = result.players[sweeper]
        assert not me.fouled and me.special is None and not me.surrendered
        for pair in result.pairs_of(sweeper):
            assert pair.sweep == sweeper and pair.table_sweep
            assert pair.multiplier == preset.table_sweep_multiplier
            assert pair.points_for(sweeper) > 0
    for pair in result.pairs:
        if pair.kind in ("rows", "foul") and len(pair.rows) == 3:
            winners = {r.winner for r in pair.rows}
            assert (pair.sweep is not None) == (len(winners) == 1 and None not in winners)
        if not pair.table_sweep and pair.sweep is not None and preset.scoring != "units":
            expected = preset.foul_multiplier if pair.kind == "foul" else preset.sweep_multiplier
            assert pair.multiplier == expected


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from([3, 5]))
def test_compare_is_antisymmetric_and_a_total_order_by_strength(rng, size) -> None:
    cards = rng.sample(DECK, 2 * size)
    a, b = evaluate(cards[:size]), evaluate(cards[size:])
    for mode in ("key_card", "early", "none"):
        assert compare(a, b, mode) == -compare(b, a, mode)
        if mode != "early" and a.strength != b.strength:
            assert compare(a, b, mode) == (1 if a.strength > b.strength else -1)
        if a.level != b.level:
            assert compare(a, b, mode) == (1 if a.level > b.level else -1)
    assert compare(a, b, "key_card") != 0  # no tied rows under key_card
    assert compare(a, b, "early") != 0
