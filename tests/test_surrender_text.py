"""What a person reads about surrender and numbers (issues 20-22): the coach's surrender
notes, its values and "opponents" in each language's own style, the showdown's room fee
with the language's decimal mark, and the builder's confirmation and filled menus."""

from __future__ import annotations

from dataclasses import replace

import pytest

from capsa.builder import Draft
from capsa.cards import parse_cards
from capsa.coach import review_hand, review_text
from capsa.i18n import LANGS, number, t
from capsa.presets import get_preset
from capsa.scoring import Seat, score_round
from capsa.showdown import player_lines, signed
from capsa.solver import arrange
from cogs import views
from cogs.screens.builder import confirm_surrender_screen
from cogs.screens.showdown import showdown_embeds
from tests.test_coach import HOPELESS

PRESET = get_preset("chinese-poker", {"surrender": True})
HAND = parse_cards(HOPELESS)


@pytest.fixture(scope="module")
def reviews():
    """The hopeless hand at four players, surrendered and played as rows (hard's rows)."""
    a = arrange(HAND, PRESET, "hard", 3)
    assert a.surrender  # hard gives it up
    return (
        review_hand(HAND, PRESET, 3, None, surrendered=True),
        review_hand(HAND, PRESET, 3, a.ordinary),
    )


@pytest.mark.parametrize("lang", LANGS)
def test_the_coach_says_whether_surrendering_was_right(reviews, lang) -> None:
    surrendered, played = reviews
    text = review_text(surrendered, lang)
    assert surrendered.is_best
    points = signed(surrendered.surrender_value, lang)
    assert t("rev.surrender_best", lang, surrender_points=points) in text.notes
    # rows where surrendering was best: the note says what the surrender was worth
    text = review_text(played, lang)
    assert not played.is_best
    assert (
        t(
            "rev.should_surrender",
            lang,
            surrender_points=signed(played.surrender_value, lang),
            played_points=signed(played.played_value, lang),
        )
        in text.notes
    )
    assert text.verdict == t("rev.cost", lang, loss=number(played.loss, lang, digits=2))
    # a surrender that was not the best choice says what it cost
    costly = replace(
        surrendered, best_value=surrendered.surrender_value + 1.25, best_surrender=False
    )
    note = t(
        "rev.surrender_cost",
        lang,
        loss=number(1.25, lang, digits=2),
        best_points=signed(costly.best_value, lang),
        surrender_points=signed(costly.surrender_value, lang),
    )
    assert note in review_text(costly, lang).notes


def test_no_surrender_note_where_the_table_does_not_allow_it() -> None:
    plain = get_preset("chinese-poker")
    review = review_hand(HAND, plain, 3, arrange(HAND, plain, "hard", 3).ordinary)
    assert review.surrender_value is None
    assert not any("urrender" in note for note in review_text(review, "en").notes)


@pytest.mark.parametrize(("opponents", "words"), [(1, "1 opponent "), (3, "3 opponents ")])
def test_the_coach_counts_opponents_without_s_in_brackets(opponents, words) -> None:
    review = review_hand(HAND, PRESET, opponents, None, surrendered=True)
    how = review_text(review, "en").how
    assert words in how and "(s)" not in how
    # and says why its numbers are not Auto-arrange's
    assert how.endswith(t("rev.models", "en"))
    for lang in LANGS:
        assert "(s)" not in review_text(review, lang).how


@pytest.mark.parametrize("lang", ["id", "vi"])
def test_the_coach_writes_numbers_with_a_decimal_comma(reviews, lang) -> None:
    _, played = reviews
    text = review_text(played, lang)
    assert f"{played.loss:.2f}".rstrip("0").replace(".", ",") in text.verdict
    assert "." not in text.yours_title.split("·")[-1]


@pytest.mark.parametrize("lang", LANGS)
def test_the_room_fee_in_the_showdown_is_written_as_the_language_writes_numbers(lang) -> None:
    rows = {
        "A": ("9S 9H 9D 9C 2C", "KS KH KD 5C 5D", "AS AH AD"),
        "B": ("2H 4H 6H 8H TH", "3C 4D 5S 6D 7C", "QS JD 3H"),
    }
    seats = [Seat(n, *(tuple(parse_cards(r)) for r in rs)) for n, rs in rows.items()]
    result = score_round(seats, get_preset("sayapoker", {"room_fee": True}))
    winner = result.players[0]
    assert winner.fee and winner.fee != int(winner.fee)  # a fee with decimals
    mark = t("num.decimal", lang)
    fee = f"{winner.fee:g}".replace(".", mark)
    total = "+" + f"{winner.total:g}".replace(".", mark)
    lines = player_lines(result, 0, lang)
    assert lines[-1] == t("sd.points", lang, points=total) + " " + t("sd.fee", lang, fee=fee)
    rows_embed, h2h = showdown_embeds(result, {"A": winner.total, "B": -4}, 1, 5, lang)
    assert rows_embed.fields[0].name == f"A ({total})"
    assert f"A: **{total}**" in h2h.fields[0].value and f"A: **{total}**" in h2h.fields[1].value


@pytest.mark.parametrize("lang", LANGS)
def test_the_surrender_confirmation_shows_its_cost(lang) -> None:
    draft = Draft.start(HAND)
    screen = confirm_surrender_screen(7, 0, draft, lang, 3, 2)
    players = t("count.opponents.other", lang, count=2)
    assert screen.content == t("hand.confirm_surrender", lang, cost="3", total="6", players=players)
    (button,) = screen.view.children
    assert button.item.label == t("btn.surrender_confirm", lang)


@pytest.mark.parametrize("lang", LANGS)
def test_a_filled_menu_keeps_its_rows_name(lang) -> None:
    """Once a row is chosen Discord shows the chosen options, not the placeholder: the
    first of them names the row."""
    a = arrange(HAND, PRESET, "normal", 3)
    draft = Draft.start(HAND).with_setting(a.ordinary[0], a.ordinary[1])
    back, middle = (c.item for c in views.builder_view(7, 0, draft, lang, None).children[:2])
    for select, position in ((back, "back"), (middle, "middle")):
        chosen = [o for o in select.options if o.default]
        assert len(chosen) == 5
        row = t(f"pos.{position}", lang)
        symbols = [parse_cards([o.value])[0].symbol for o in chosen]
        assert chosen[0].label == t("hand.filled", lang, row=row, card=symbols[0])
        assert [o.label for o in chosen[1:]] == symbols[1:]
    empty = views.builder_view(7, 0, Draft.start(HAND), lang, None).children[0].item
    assert [o.label for o in empty.options] == [c.symbol for c in Draft.start(HAND).hand]
