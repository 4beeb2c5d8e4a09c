"""A match (RULES §5.2): rounds, running totals, standings, persistence."""

from __future__ import annotations

import json

import pytest

from capsa.cards import CapsaError, parse_cards
from capsa.match import MATCH_LENGTHS, Match, Standing, seat_from_dict, seat_to_dict, standings
from capsa.presets import get_preset
from capsa.scoring import Seat

ROWS_A = ("2♠ 2♥ 2♣ 2♦ 9♣", "K♠ K♥ K♦ 5♣ 5♦", "A♠ A♥ 3♣")  # RULES §6 example 1
ROWS_B = ("5♠ 6♠ 7♠ 8♠ 9♠", "Q♠ Q♥ Q♣ 7♦ 7♣", "A♣ A♦ 4♣")
SWEEPER = ("2H 5H 8H JH KH", "5S 6D 7C 8S 9D", "QS QD QC")  # sweeps SWEPT: 7 x2 = 14
SWEPT = ("TS TH TD 3C 4D", "9S 9H 2C 3D 4S", "7S 7D AC")


def seat(name: str, rows, declare=None) -> Seat:
    return Seat(name, *(tuple(parse_cards(r)) for r in rows), declare=declare)


def test_running_totals_and_rounds_kept() -> None:
    match = Match(get_preset("standard"), ("A", "B"), length=5)
    assert match.round_number == 1 and match.totals == {"A": 0, "B": 0}
    match.play([seat("A", ROWS_A), seat("B", ROWS_B)])  # A -7, B +7
    assert match.totals == {"A": -7, "B": 7} and match.round_number == 2
    match.play([seat("A", SWEEPER), seat("B", SWEPT)])  # A +14, B -14
    assert match.totals == {"A": 7, "B": -7}
    match.play([seat("A", ROWS_B), seat("B", ROWS_A)])  # A +7, B -7
    assert match.totals == {"A": 14, "B": -14}
    assert [r.players[0].total for r in match.results] == [-7, 14, 7]
    assert len(match.seats) == 3
    assert match.standings() == [Standing(1, "A", 14), Standing(2, "B", -14)]


def test_equal_totals_share_a_place() -> None:
    match = Match(get_preset("standard"), ("A", "B"), length=5)
    match.play([seat("A", ROWS_A), seat("B", ROWS_B)])  # -7 / +7
    match.play([seat("A", ROWS_B), seat("B", ROWS_A)])  # +7 / -7
    assert match.totals == {"A": 0, "B": 0}
    assert [s.place for s in match.standings()] == [1, 1]


@pytest.mark.parametrize(
    ("totals", "places"),
    [
        ({"A": 5, "B": 5, "C": -10}, {"A": 1, "B": 1, "C": 3}),
        ({"A": 5, "B": -2, "C": -2, "D": -1}, {"A": 1, "D": 2, "B": 3, "C": 3}),
        ({"A": 0, "B": 0, "C": 0, "D": 0}, {"A": 1, "B": 1, "C": 1, "D": 1}),
        ({"A": -3, "B": 4, "C": 2, "D": -3}, {"B": 1, "C": 2, "A": 3, "D": 3}),
        ({"A": 1.5, "B": 1.5, "C": 2, "D": -5}, {"C": 1, "A": 2, "B": 2, "D": 4}),
    ],
)
def test_standings(totals, places) -> None:
    table = standings(totals)
    assert {s.name: s.place for s in table} == places
    assert [s.total for s in table] == sorted(totals.values(), reverse=True)


@pytest.mark.parametrize("length", MATCH_LENGTHS)
def test_match_lengths_and_no_round_after_the_end(length: int) -> None:
    assert MATCH_LENGTHS == (5, 10)
    match = Match(get_preset("standard"), ("A", "B"), length=length)
    for _ in range(length):
        assert not match.finished
        match.play([seat("A", SWEEPER), seat("B", SWEPT)])
    assert match.finished
    assert match.totals == {"A": 14 * length, "B": -14 * length}
    with pytest.raises(CapsaError, match=f"{length} rounds"):
        match.play([seat("A", SWEEPER), seat("B", SWEPT)])
    assert len(match.results) == length


def test_default_length_is_ten() -> None:
    assert Match(get_preset(), ("A", "B")).length == 10


def test_bad_matches_and_seats_are_refused() -> None:
    with pytest.raises(CapsaError):
        Match(get_preset(), ("A",))
    with pytest.raises(CapsaError):
        Match(get_preset(), ("A", "B"), length=0)
    match = Match(get_preset(), ("A", "B"))
    with pytest.raises(CapsaError, match="A, B"):
        match.play([seat("B", ROWS_B), seat("A", ROWS_A)])
    with pytest.raises(CapsaError):
        match.play([seat("A", ROWS_A), seat("B", ROWS_A)])  # the same cards twice
    assert match.round_number == 1 and match.results == []  # nothing was recorded


@pytest.mark.parametrize(
    ("rules", "options"),
    [("standard", None), ("chinese-poker", {"method": "2-4"}), ("sayapoker", {"room_fee": True})],
)
def test_round_trip_through_json(rules, options) -> None:
    match = Match(get_preset(rules, options), ("A", "B"), length=5)
    match.play([seat("A", ROWS_A), seat("B", ROWS_B)])
    match.play([seat("A", SWEEPER), seat("B", SWEPT)])
    dragon = ("2S 3S 4S 5S 6S", "7H 8H 9H TH JH", "QD KD AD")
    other = ("9C TC JC QC KC", "AS AH AC 3H 3D", "2H 2D 2C")
    match.play([seat("A", other), seat("B", dragon, declare="dragon")])
    text = json.dumps(match.to_dict())
    again = Match.from_dict(json.loads(text))
    assert again.to_dict() == match.to_dict()
    assert again.totals == match.totals
    assert again.standings() == match.standings()
    assert again.length == 5 and again.round_number == 4 and again.players == ("A", "B")
    assert again.preset == match.preset
    assert [r.to_dict() for r in again.results] == [r.to_dict() for r in match.results]
    assert again.results[2].players[1].special == "dragon"
    # and it can go on
    again.play([seat("A", SWEEPER), seat("B", SWEPT)])
    assert again.round_number == 5


def test_room_fee_totals_are_rounded() -> None:
    match = Match(get_preset("sayapoker", {"room_fee": True}), ("A", "B"), length=5)
    for _ in range(3):
        match.play([seat("A", SWEEPER), seat("B", SWEPT)])  # 10 - 0.30 = 9.70 each time
    assert match.totals == {"A": 29.1, "B": -30}


def test_seat_dicts() -> None:
    s = seat("A", ROWS_A, declare=None)
    assert seat_from_dict(json.loads(json.dumps(seat_to_dict(s)))) == s
    assert seat_from_dict({"name": "A", "back": "2S 2H 2C 2D 9C", "middle": [], "front": []}).back
    with pytest.raises(CapsaError, match="name"):
        seat_from_dict({"back": []})
    with pytest.raises(CapsaError, match="back"):
        seat_from_dict({"name": "A", "back": 5})
    with pytest.raises(CapsaError, match="'QX'"):
        seat_from_dict({"name": "A", "back": ["QX"]})
    with pytest.raises(CapsaError, match="declare"):
        seat_from_dict({"name": "A", "declare": 3})
    with pytest.raises(CapsaError, match="surrender"):
        seat_from_dict({"name": "A", "surrender": "no"})
    with pytest.raises(CapsaError):
        seat_from_dict(["A"])  # type: ignore[arg-type]
