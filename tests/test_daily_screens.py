"""The daily hand's and the ratings' messages in every language: each is written in the
reader's language (no English text left in another language's), with its numbers."""

from __future__ import annotations

from datetime import date

import pytest

from capsa.builder import Draft
from capsa.coach import review_hand
from capsa.daily import DAILY_OPPONENTS, Streak, daily_cards
from capsa.i18n import LANGS, t
from capsa.presets import get_preset
from capsa.rating import Rating
from capsa.showdown import signed
from cogs.screens.board import leaderboard_screen, stats_screen
from cogs.screens.daily import (
    daily_board_screen,
    daily_builder_screen,
    daily_result_screen,
)
from data.repository import DailyPlay, LeaderRow, PlayerStats

DAY = date(2026, 12, 2)
CARDS = Draft.start(daily_cards(1, DAY)).hand
ROWS = (CARDS[:5], CARDS[5:10], CARDS[10:])
REVIEW = review_hand(CARDS, get_preset("standard"), DAILY_OPPONENTS, ROWS)


def play(user_id: int) -> DailyPlay:
    back, middle, front = ([c.code for c in row] for row in ROWS)
    return DailyPlay(
        1, DAY, user_id, tuple(back), tuple(middle), tuple(front), None, REVIEW.fouled,
        REVIEW.played_value, REVIEW.best_value, REVIEW.loss, REVIEW.to_dict(), 0.0,
    )  # fmt: skip


def text_of(screen) -> str:
    parts = [screen.content or ""]
    for embed in screen.embeds:
        parts += [embed.title or "", embed.description or "", embed.footer.text or ""]
        parts += [f"{f.name}\n{f.value}" for f in embed.fields]
    return "\n".join(parts)


@pytest.mark.parametrize("lang", LANGS)
def test_daily_screens_in_every_language(lang: str) -> None:
    builder = daily_builder_screen(DAY, Draft.start(CARDS), lang, ends=0.0, special=None)
    assert t("daily.title", lang, day="2026-12-02") in text_of(builder)
    result = text_of(daily_result_screen(play(5), 2, 3, 0.0, lang))
    assert signed(REVIEW.played_value, lang) in result and signed(REVIEW.best_value, lang) in result
    today = text_of(daily_board_screen(DAY, [play(5)], [1], lang, ends=0.0, over=False))
    assert t("daily.hidden", lang) in today and CARDS[0].symbol not in today
    cards = [c.code for c in CARDS]
    over = text_of(daily_board_screen(DAY, [play(5)], [1], lang, ends=0.0, over=True, cards=cards))
    assert t("daily.best", lang, value=signed(REVIEW.best_value, lang)) in over
    assert all(c.symbol in over for c in CARDS)
    if lang != "en":
        for screen in (builder, result, today, over):
            text = screen if isinstance(screen, str) else text_of(screen)
            for key in ("daily.intro", "daily.board_title", "daily.best", "daily.hidden"):
                assert t(key, "en").split("{")[0][:12] not in text, (lang, key)


@pytest.mark.parametrize("lang", LANGS)
def test_rating_screens_in_every_language(lang: str) -> None:
    rating = Rating(mu=27.5, sigma=6.0, matches=3)
    row = LeaderRow(7, "x", 0.0, 1, 3, 0, 30, rating=rating)
    board = text_of(
        leaderboard_screen([row], sort="rating", period="all", page=0, pages=1, page_size=10,
                           lang=lang)
    )  # fmt: skip
    mark = "," if lang in ("id", "vi") else "."  # each language's decimal mark
    assert f"{rating.conservative:.1f}".replace(".", mark) in board and f"±6{mark}0" in board
    assert t("lb.provisional_mark", lang) in board
    stats = PlayerStats(7, 3, 1, 4.0, 30, 0.13, 0, 0, 0, 0, rating=rating, rating_change=-1.25)
    shown = text_of(stats_screen(stats, "x", lang, Streak(2, 5)))
    assert t("st.rating", lang) in shown and "-1.2" in shown
    assert t("st.rating_provisional", lang, matches=3, min=10) in shown
    assert t("st.streak_value", lang, current=2, best=5) in shown
