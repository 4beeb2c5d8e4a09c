"""Cards: parsing, formatting, the deck and a seeded deal (RULES §1)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

RANKS = "23456789TJQKA"
SUITS = "DCHS"  # low -> high: diamonds < clubs < hearts < spades
SUIT_SYMBOLS = {"D": "♦", "C": "♣", "H": "♥", "S": "♠"}
_SYMBOL_TO_SUIT = {v: k for k, v in SUIT_SYMBOLS.items()}
# Text-presentation variants people paste from phones, and the four-colour deck's emoji.
_SYMBOL_TO_SUIT.update({"♢": "D", "♧": "C", "♡": "H", "♤": "S", "🔷": "D", "☘": "C"})


class DeckStyle(StrEnum):
    """How a person sees the suits, in pictures and in text (their ``/capsa me`` choice).

    ``classic``: ♦ ♥ red, ♣ ♠ black, as printed decks are. ``four_colour``: ♠ black,
    ♥ red, ♦ blue, ♣ green, so that no two suits share a colour. ``letters``: classic
    colours with the suit's letter (the one typed cards use: S H D C) beside each symbol.
    ``four_colour_letters``: both.
    """

    CLASSIC = "classic"
    FOUR_COLOUR = "four_colour"
    LETTERS = "letters"
    FOUR_COLOUR_LETTERS = "four_colour_letters"

    @property
    def four_colour(self) -> bool:
        return self in (DeckStyle.FOUR_COLOUR, DeckStyle.FOUR_COLOUR_LETTERS)

    @property
    def letters(self) -> bool:
        return self in (DeckStyle.LETTERS, DeckStyle.FOUR_COLOUR_LETTERS)


# The four-colour deck in Discord text, where a plain suit symbol takes the text's colour:
# emoji that Discord draws in the suit's colour. ♥️ is Discord's red heart suit; no blue
# diamond or green club suit exists, so ♦ is the blue diamond 🔷 (same shape) and ♣ the
# green shamrock ☘️ (three leaves on a stem, like a club). ♠ stays the plain symbol, in
# the text's colour (black on the light theme, white on the dark one): Discord's black ♠️
# emoji all but vanishes on the dark theme.
FOUR_COLOUR_EMOJI = {"D": "🔷", "C": "☘\ufe0f", "H": "♥\ufe0f", "S": "♠"}


def rank_text(rank: int) -> str:
    """How a rank is written for a person to read: 2-9, 10, J, Q, K, A. The ten is "10",
    as printed on the cards, in text and pictures alike; "T" is only the typed notation
    (``Card.code``, "TS"), which parse_card reads together with "10S"."""
    return "10" if rank == 10 else RANKS[rank - 2]


class CapsaError(ValueError):
    """Invalid input: a bad card token, a duplicate, a wrong row size, a card not held.

    The message always names the offending token or row, so it can be shown as is; it is
    English. An error a person can cause by typing cards also carries ``code``, the
    catalogue key of the same message (capsa/locales), and ``values``, its placeholders,
    so a caller that speaks another language can show it there: ``t(err.code, lang,
    **err.values)``. Errors without a translation have ``code`` None.
    """

    def __init__(self, message: str, code: str | None = None, **values: object) -> None:
        super().__init__(message)
        self.code = code
        self.values = values


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One card. ``rank`` is 2..14 (ace high), ``suit`` is 0..3 (♦ ♣ ♥ ♠)."""

    rank: int
    suit: int

    @property
    def code(self) -> str:
        """Plain notation, e.g. ``AS``."""
        return RANKS[self.rank - 2] + SUITS[self.suit]

    @property
    def symbol(self) -> str:
        """The card as a person reads it, with a suit symbol: ``A♠``, ``10♦``."""
        return self.label(DeckStyle.CLASSIC)

    def label(self, deck: DeckStyle = DeckStyle.CLASSIC) -> str:
        """The card in Discord text for a person with this deck style: ``10♦`` (classic),
        ``10🔷`` (four colours), ``10♦d`` (letters), ``10🔷d`` (both)."""
        suit = SUITS[self.suit]
        text = rank_text(self.rank)
        text += FOUR_COLOUR_EMOJI[suit] if deck.four_colour else SUIT_SYMBOLS[suit]
        return text + suit.lower() if deck.letters else text

    @property
    def index(self) -> int:
        """0..51, rank-major: 2♦ = 0 ... A♠ = 51."""
        return (self.rank - 2) * 4 + self.suit

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"


DECK: tuple[Card, ...] = tuple(Card(r, s) for r in range(2, 15) for s in range(4))


def card_from_index(index: int) -> Card:
    return DECK[index]


def _not_a_card(token: str) -> CapsaError:
    return CapsaError(
        f"'{token}' is not a card: write rank then suit, e.g. AS, Td, 10h, 9♣",
        "card.not_a_card",
        token=token,
    )


def parse_card(token: str) -> Card:
    """Parse one card, case-insensitive: ``AS``, ``Td``, ``10h``, ``9♣``, ``K♦``."""
    raw = token
    # Phones send suit symbols in emoji presentation (U+FE0F) or text presentation (U+FE0E).
    text = token.replace("\ufe0f", "").replace("\ufe0e", "").strip().upper()
    if len(text) < 2:
        raise _not_a_card(raw)
    rank_text, suit_text = text[:-1], text[-1]
    suit_letter = _SYMBOL_TO_SUIT.get(suit_text, suit_text)
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANKS or suit_letter not in SUITS:
        raise _not_a_card(raw)
    return Card(RANKS.index(rank_text) + 2, SUITS.index(suit_letter))


def parse_cards(tokens: Iterable[str] | str) -> list[Card]:
    """Parse several cards (a list of tokens, or one string split on spaces/commas).

    Duplicates are refused, naming the repeated card.
    """
    if isinstance(tokens, str):
        tokens = tokens.replace(",", " ").split()
    cards: list[Card] = []
    seen: set[Card] = set()
    for token in tokens:
        if not isinstance(token, str):
            raise CapsaError(f"{token!r} is not a card: cards are written as text, e.g. 'AS'")
        card = parse_card(token)
        if card in seen:
            raise CapsaError(
                f"'{token}' appears twice: each card can be used only once",
                "card.twice",
                token=token,
            )
        seen.add(card)
        cards.append(card)
    return cards


def format_cards(
    cards: Iterable[Card], symbols: bool = False, deck: DeckStyle = DeckStyle.CLASSIC
) -> str:
    """Cards as typed (``AS TD``), or with ``symbols`` as a person reads them in ``deck``'s
    style (:meth:`Card.label`: ``A♠ 10♦``, four colours ``A♠️ 10🔷``)."""
    return " ".join(c.label(deck) if symbols else c.code for c in cards)


def sort_hand(cards: Iterable[Card]) -> list[Card]:
    """Highest first, by rank then suit: how a hand is shown to its holder."""
    return sorted(cards, reverse=True)


def deal(players: int, seed: int | None = None) -> list[list[Card]]:
    """A shuffled deal of 13 cards to each of 2-4 players; the same seed, the same deal."""
    if not 2 <= players <= 4:
        raise CapsaError(f"a table has 2 to 4 players, not {players}")
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    return [sort_hand(deck[i * 13 : (i + 1) * 13]) for i in range(players)]


def check_setting(
    hand: Sequence[Card] | None,
    back: Sequence[Card],
    middle: Sequence[Card],
    front: Sequence[Card],
) -> None:
    """Refuse a setting with a wrong row size, a card used twice or a card not held."""
    for name, row, size in (("back", back, 5), ("middle", middle, 5), ("front", front, 3)):
        if len(row) != size:
            raise CapsaError(f"the {name} row needs {size} cards, not {len(row)}")
    seen: set[Card] = set()
    for card in (*back, *middle, *front):
        if card in seen:
            raise CapsaError(f"'{card.code}' is used twice: each card can be used only once")
        seen.add(card)
    if hand is not None:
        held = set(hand)
        for card in (*back, *middle, *front):
            if card not in held:
                raise CapsaError(f"'{card.code}' is not in your hand")
