"""A person's deck style in everything they read privately, not only the pictures and the
builder: the locked hand, the coach's review and the daily hand's builder (issue 21); and
numbers in the reader's own style on the boards and in the pictures (issue 20)."""

from __future__ import annotations

import time
from datetime import date

import pytest

from capsa.builder import Draft
from capsa.cards import DECK, DeckStyle, parse_cards
from capsa.coach import review_hand, review_text
from capsa.i18n import number
from capsa.presets import get_preset
from cogs.screens.builder import locked_screen
from cogs.screens.daily import daily_builder_screen, loss_text
from tests.cog_helpers import (
    ALICE,
    ALICE_HAND,
    BOB,
    BOB_HAND,
    CHANNEL,
    GUILD,
    PAIRS,
    STRONG,
    draft_of,
)

STYLES = [DeckStyle.FOUR_COLOUR, DeckStyle.LETTERS, DeckStyle.FOUR_COLOUR_LETTERS]


def shows_in(cards, text: str, deck: DeckStyle) -> bool:
    """Every card written as ``deck`` writes it."""
    return all(c.label(deck) in text for c in cards)


@pytest.mark.parametrize("deck", STYLES)
async def test_the_locked_hand_is_written_in_the_persons_deck(repo, deck) -> None:
    match = await repo.create_match(
        GUILD, CHANNEL, ALICE, "standard", {}, 5, 120, "normal", "auto", 2, "en",
        time.time() + 600, "alice",
    )  # fmt: skip
    await repo.add_seat(match.id, BOB, "bob")
    await repo.start_match(match.id)
    match = await repo.get_match(match.id)
    deal = {0: ALICE_HAND.split(), 1: BOB_HAND.split()}
    rnd = await repo.start_round(match.id, 1, 1, time.time() + 120, deal)
    draft = draft_of(ALICE_HAND, STRONG, PAIRS)
    embed = locked_screen(match, rnd, draft, "en", deck=deck).embed
    assert shows_in(parse_cards(ALICE_HAND), embed.fields[0].value, deck)
    classic = locked_screen(match, rnd, draft, "en").embed
    assert shows_in(parse_cards(ALICE_HAND), classic.fields[0].value, DeckStyle.CLASSIC)
    assert classic.fields[0].value != embed.fields[0].value


@pytest.mark.parametrize("deck", STYLES)
def test_the_coachs_review_is_written_in_the_persons_deck(deck) -> None:
    hand = parse_cards(ALICE_HAND)
    draft = draft_of(ALICE_HAND, STRONG, PAIRS)
    review = review_hand(hand, get_preset("standard"), 3, draft.setting)
    text = review_text(review, "en", deck)
    assert shows_in(hand, text.yours, deck)
    assert review_text(review, "en").yours != text.yours


@pytest.mark.parametrize("deck", STYLES)
def test_the_daily_builder_is_written_in_the_persons_deck(deck) -> None:
    draft = Draft.start(parse_cards(ALICE_HAND))
    screen = daily_builder_screen(
        date(2026, 12, 2), draft, "en",
        ends=time.time() + 3600, special=None, deck=deck,
    )  # fmt: skip
    assert shows_in(draft.hand, screen.embed.fields[0].value, deck)
    view = screen.view
    assert view is not None
    labels = [o.label for c in view.children for o in getattr(getattr(c, "item", c), "options", [])]
    assert labels and all(label in {c.label(deck) for c in DECK} for label in labels)


@pytest.mark.parametrize(("lang", "mark"), [("en", "."), ("id", ","), ("vi", ","), ("zh-CN", ".")])
def test_losses_and_ratings_use_the_readers_decimal_mark(lang, mark) -> None:
    assert loss_text(0.5, lang) == f"0{mark}50"
    assert number(12.0, lang, 1, fixed=True) == f"12{mark}0"
    assert number(-0.25, lang, 2, sign=True) == f"-0{mark}25"
