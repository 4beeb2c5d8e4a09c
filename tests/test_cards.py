"""Cards (RULES §1): parsing, formatting, errors that name the offender, the seeded deal."""

from __future__ import annotations

import pytest

from capsa.cards import (
    DECK,
    CapsaError,
    Card,
    card_from_index,
    check_setting,
    deal,
    format_cards,
    parse_card,
    parse_cards,
    sort_hand,
)


@pytest.mark.parametrize(
    ("token", "rank", "suit"),
    [
        ("AS", 14, 3),
        ("as", 14, 3),
        ("aS", 14, 3),
        ("Td", 10, 0),
        ("tD", 10, 0),
        ("10h", 10, 2),
        ("10H", 10, 2),
        ("9♣", 9, 1),
        ("K♦", 13, 0),
        ("k♦", 13, 0),
        ("2c", 2, 1),
        ("Jh", 11, 2),
        ("q♠", 12, 3),
        ("10♥", 10, 2),
        (" 7s ", 7, 3),
        # emoji presentation (variation selector 16), as phones paste it
        ("9♣\ufe0f", 9, 1),
        ("A♠️", 14, 3),
    ],
)
def test_parse_card(token: str, rank: int, suit: int) -> None:
    assert parse_card(token) == Card(rank, suit)


def test_suit_order_is_diamonds_clubs_hearts_spades() -> None:
    d, c, h, s = (parse_card(t) for t in ("AD", "AC", "AH", "AS"))
    assert d < c < h < s
    assert parse_card("2S") < parse_card("3D")  # rank first


@pytest.mark.parametrize(
    "token",
    ["", "A", "S", "1S", "11S", "AX", "ZZ", "A S", "10", "AS!", "ASS", "0S", "KK", "♠A", "1♠"],
)
def test_bad_token_names_the_token(token: str) -> None:
    with pytest.raises(CapsaError) as info:
        parse_card(token)
    assert f"'{token}'" in str(info.value)


def test_parse_cards_bad_token_in_a_list_names_it() -> None:
    with pytest.raises(CapsaError, match="'XQ'"):
        parse_cards(["AS", "KS", "XQ"])
    with pytest.raises(CapsaError, match="'1h'"):
        parse_cards("AS 1h KS")


def test_parse_cards_string_and_list() -> None:
    expected = [Card(14, 3), Card(10, 0), Card(10, 2)]
    assert parse_cards("AS Td 10h") == expected
    assert parse_cards("AS,Td, 10h") == expected
    assert parse_cards(["as", "TD", "10H"]) == expected


def test_parse_cards_refuses_a_duplicate_naming_it() -> None:
    with pytest.raises(CapsaError) as info:
        parse_cards(["AS", "KH", "as"])
    assert "'as'" in str(info.value)
    # the same card spelt two ways is still a duplicate
    with pytest.raises(CapsaError, match="10h"):
        parse_cards(["TH", "10h"])


def test_parse_cards_refuses_non_text() -> None:
    with pytest.raises(CapsaError, match="14"):
        parse_cards(["AS", 14])  # type: ignore[list-item]


def test_formatting_both_ways() -> None:
    cards = parse_cards("AS Td 10h 9♣ K♦ 2c")
    assert format_cards(cards) == "AS TD TH 9C KD 2C"
    assert format_cards(cards, symbols=True) == "A♠ 10♦ 10♥ 9♣ K♦ 2♣"
    assert [c.code for c in cards] == ["AS", "TD", "TH", "9C", "KD", "2C"]
    assert str(cards[0]) == "AS"
    assert cards[0].symbol == "A♠"


def test_every_card_round_trips_through_both_notations() -> None:
    assert len(DECK) == 52 and len(set(DECK)) == 52
    for i, card in enumerate(DECK):
        assert card_from_index(i) == card and card.index == i
        assert parse_card(card.code) == card
        assert parse_card(card.symbol) == card
        assert parse_card(card.code.lower()) == card


def test_sort_hand_highest_first() -> None:
    assert format_cards(sort_hand(parse_cards("2D AS AH KC 2S"))) == "AS AH KC 2S 2D"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_is_seeded_and_fair(players: int) -> None:
    hands = deal(players, seed=1234)
    assert hands == deal(players, seed=1234)
    assert len(hands) == players
    cards = [c for hand in hands for c in hand]
    assert all(len(hand) == 13 for hand in hands)
    assert len(set(cards)) == 13 * players
    assert set(cards) <= set(DECK)
    assert all(hand == sort_hand(hand) for hand in hands)


def test_deal_depends_on_the_seed() -> None:
    assert deal(4, seed=1) != deal(4, seed=2)
    # four players use the whole deck
    assert sorted(c for hand in deal(4, seed=7) for c in hand) == sorted(DECK)


@pytest.mark.parametrize("players", [0, 1, 5])
def test_deal_refuses_a_bad_table(players: int) -> None:
    with pytest.raises(CapsaError, match=str(players)):
        deal(players, seed=1)


HAND = parse_cards("AS KS QS JS TS 9H 8H 7H 6H 5H 4C 3C 2C")


def _rows(back: str, middle: str, front: str):
    return parse_cards(back), parse_cards(middle), parse_cards(front)


def test_check_setting_accepts_a_good_setting() -> None:
    check_setting(HAND, *_rows("AS KS QS JS TS", "9H 8H 7H 6H 5H", "4C 3C 2C"))
    check_setting(None, *_rows("AS KS QS JS TS", "9H 8H 7H 6H 5H", "4C 3C 2C"))


@pytest.mark.parametrize(
    ("rows", "row_name"),
    [
        (("AS KS QS JS", "9H 8H 7H 6H 5H TS", "4C 3C 2C"), "back"),
        (("AS KS QS JS TS", "9H 8H 7H 6H", "5H 4C 3C 2C"), "middle"),
        (("AS KS QS JS TS", "9H 8H 7H 6H 5H", "4C 3C"), "front"),
    ],
)
def test_check_setting_wrong_row_size_names_the_row(rows, row_name: str) -> None:
    with pytest.raises(CapsaError, match=row_name):
        check_setting(HAND, *_rows(*rows))


def test_check_setting_card_used_twice_names_it() -> None:
    back = parse_cards("AS KS QS JS TS")
    with pytest.raises(CapsaError, match="KS"):
        check_setting(None, back, parse_cards("KS 8H 7H 6H 5H"), parse_cards("4C 3C 2C"))


def test_check_setting_card_not_in_hand_names_it() -> None:
    with pytest.raises(CapsaError, match="AD"):
        check_setting(HAND, *_rows("AD KS QS JS TS", "9H 8H 7H 6H 5H", "4C 3C 2C"))
