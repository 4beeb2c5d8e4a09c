"""The deck styles (issue 21, "a deck anyone can read"): the suits' inks in the pictures,
their contrast against the card (WCAG AA), and the cards in Discord text."""

from __future__ import annotations

import numpy as np
import pytest

from capsa import render
from capsa.cards import (
    DECK,
    FOUR_COLOUR_EMOJI,
    Card,
    DeckStyle,
    format_cards,
    parse_card,
    parse_cards,
)

SUITS = range(4)  # ♦ ♣ ♥ ♠


def luminance(rgb: tuple[int, int, int] | np.ndarray) -> float:
    """WCAG 2.x relative luminance of an sRGB colour."""
    channels = np.asarray(rgb, dtype=float) / 255
    linear = np.where(channels <= 0.04045, channels / 12.92, ((channels + 0.055) / 1.055) ** 2.4)
    return float(linear @ np.array([0.2126, 0.7152, 0.0722]))


def contrast(a: tuple[int, int, int] | np.ndarray, b: tuple[int, int, int] | np.ndarray) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def ink_of(sprite, box: tuple[int, int, int, int]) -> np.ndarray:
    """The ink in ``box`` of a card sprite, as drawn: the median colour of the pixels at
    least 80% as far from the card's face as the farthest one (the strokes' inside, not
    their anti-aliased edges)."""
    pixels = np.asarray(sprite.convert("RGB").crop(box), dtype=float).reshape(-1, 3)
    distance = np.abs(pixels - np.array(render.CARD_FACE)).sum(axis=1)
    strokes = pixels[distance >= 0.8 * distance.max()]
    assert len(strokes) >= 20  # there is text here
    return np.median(strokes, axis=0)


def test_wcag_formula_on_known_pairs():
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21)
    assert contrast((118, 118, 118), (255, 255, 255)) == pytest.approx(4.54, abs=0.01)


@pytest.mark.parametrize("deck", list(DeckStyle))
@pytest.mark.parametrize("suit", SUITS)
def test_card_text_meets_wcag_aa_on_every_card(deck: DeckStyle, suit: int):
    """The rank, pip and letter of every suit, as drawn (anti-aliased, scaled down), on the
    hand's fanned cards and on the showdown's index cards: 4.5:1 against the card face."""
    w, h, index_w = render.CARD_L
    fanned = render._card_sprite(12, suit, render.CARD_L, False, deck)
    index_box = (2, 2, index_w + 4, round(h * 0.62))  # rank, pip and letter: the corner
    shown = render._index_card_sprite(12, suit, False, deck)
    iw, ih = render.CARD_INDEX
    for sprite, box in ((fanned, index_box), (shown, (3, 3, iw - 3, ih - 3))):
        ink = ink_of(sprite, box)
        assert contrast(ink, render.CARD_FACE) >= 4.5, (deck, suit, ink)
        # what was measured is the suit's ink, not an edge or a shadow
        assert np.abs(ink - np.array(render.suit_ink(suit, deck))).max() <= 32
    assert contrast(render.suit_ink(suit, deck), render.CARD_FACE) >= 4.5


def test_four_colour_deck_gives_each_suit_its_own_colour():
    four = [render.suit_ink(s, DeckStyle.FOUR_COLOUR) for s in SUITS]
    classic = [render.suit_ink(s, DeckStyle.CLASSIC) for s in SUITS]
    assert four[3] == render.SUIT_BLACK and four[2] == render.SUIT_RED  # ♠ black, ♥ red
    diamonds, clubs = four[0], four[1]
    assert diamonds[2] > diamonds[0] + 150 and diamonds[2] > diamonds[1]  # ♦ blue
    assert clubs[1] > clubs[0] + 100 and clubs[1] > clubs[2] + 50  # ♣ green
    assert len(set(four)) == 4
    assert classic == [render.SUIT_RED, render.SUIT_BLACK, render.SUIT_RED, render.SUIT_BLACK]
    # letters keep the colours of their deck
    assert [render.suit_ink(s, DeckStyle.LETTERS) for s in SUITS] == classic
    assert [render.suit_ink(s, DeckStyle.FOUR_COLOUR_LETTERS) for s in SUITS] == four


def test_letters_are_drawn_on_the_cards():
    for sprite in (
        lambda deck: render._card_sprite(9, 3, render.CARD_L, False, deck),
        lambda deck: render._index_card_sprite(9, 3, False, deck),
    ):
        plain = np.asarray(sprite(DeckStyle.CLASSIC).convert("L"), dtype=int)
        lettered = np.asarray(sprite(DeckStyle.LETTERS).convert("L"), dtype=int)
        assert (np.abs(plain - lettered) > 100).sum() > 30


def test_card_labels_in_text_for_each_deck():
    ten, ace = parse_card("TD"), parse_card("AS")
    assert ten.label() == ten.symbol == "10♦"
    assert ten.label(DeckStyle.FOUR_COLOUR) == "10🔷"
    assert ten.label(DeckStyle.LETTERS) == "10♦d"
    assert ten.label(DeckStyle.FOUR_COLOUR_LETTERS) == "10🔷d"
    assert ace.label(DeckStyle.FOUR_COLOUR) == "A♠"  # the text's colour: seen on both themes
    assert parse_card("QC").label(DeckStyle.FOUR_COLOUR) == "Q☘\ufe0f"
    assert parse_card("2H").label(DeckStyle.FOUR_COLOUR) == "2♥\ufe0f"
    cards = parse_cards("AS TD")
    assert format_cards(cards, symbols=True, deck=DeckStyle.FOUR_COLOUR) == "A♠ 10🔷"
    assert format_cards(cards, deck=DeckStyle.FOUR_COLOUR) == "AS TD"  # typed notation


def test_four_colour_labels_are_four_different_emoji_that_parse_back():
    assert len(set(FOUR_COLOUR_EMOJI.values())) == 4
    for card in DECK:
        assert parse_card(card.label(DeckStyle.FOUR_COLOUR)) == card
        assert parse_card(card.label()) == card


def test_the_ten_is_10_wherever_a_person_reads_it():
    assert [c.symbol for c in parse_cards("TS TH")] == ["10♠", "10♥"]
    assert Card(10, 0).code == "TD"  # typed and stored notation stays one letter
    assert parse_card("10♦") == parse_card("Td") == Card(10, 0)
