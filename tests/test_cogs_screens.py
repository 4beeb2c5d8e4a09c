"""What a person reads on the screens, found by looking at them (scripts/look.py renders
them as Discord shows them): each test is a defect seen there."""

from __future__ import annotations

import pytest

from capsa.i18n import LANGS, t
from capsa.match import standings
from capsa.presets import get_preset
from capsa.rules_text import rules_command, rules_page
from cogs.screens.board import leaderboard_screen, rules_screen
from cogs.screens.showdown import standings_screen
from data.repository import LeaderRow
from tests.cog_helpers import embed_text


@pytest.mark.parametrize("lang", LANGS)
def test_the_final_standings_show_one_trophy(lang: str) -> None:
    """The winner's sentence has its trophy; it was also the name of the field above it,
    so a person saw 🏆 on a line of its own, then 🏆 again."""
    embed = standings_screen(standings({"bob": 40, "alice": -15}), 1, lang, None).embed
    text = embed_text(embed)
    assert text.count("🏆") == 1, text
    assert t("sd.winner", lang, names="bob") in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_rules_footer_names_the_command_as_the_readers_client_does(lang: str) -> None:
    """The pages name ``/capsa 规则 主题:…`` in Chinese; the footer said ``/capsa rules
    topic:…`` in every language."""
    page = rules_page("overview", get_preset("standard"), lang)
    footer = rules_screen(page, "standard", lang).embed.footer.text or ""
    assert f"{rules_command(lang)} {t('opt.topic', lang)}:" in footer
    if lang != "en":
        assert "rules topic:" not in footer, footer


def test_a_leaderboard_row_reads_well_with_one_win_and_one_match() -> None:
    """In English, "1 wins · 1 matches · 1 sweeps" read wrong."""
    row = LeaderRow(user_id=7, name="bob", points=40, wins=1, matches=1, sweeps=1, rounds=5)
    screen = leaderboard_screen(
        [row], sort="points", period="all", page=0, pages=1, page_size=10, lang="en"
    )
    line = screen.embed.description or ""
    for wrong in ("1 wins", "1 matches", "1 sweeps"):
        assert wrong not in line, line
    assert "<@7>" in line and "+40" in line
