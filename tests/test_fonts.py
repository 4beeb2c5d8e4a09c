"""The pictures' fonts cover every character the catalogues use, in every language.

capsa/render.py draws CJK characters with the Noto Sans CJK SC subsets and everything else
with DejaVu Sans (render.font_file). A character that the chosen font lacks would come out
as an empty box, so each one is looked up in that font's cmap.
"""

from __future__ import annotations

import io
import unicodedata
from functools import cache
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw

from capsa import render
from capsa.cards import parse_cards
from capsa.i18n import LANGS, catalog
from capsa.match import Standing
from capsa.presets import get_preset
from capsa.scoring import Seat, score_round

# Only in Discord text (embeds, buttons, the terminal game), never in a picture: Discord
# and the terminal draw these emoji with their own fonts.
DISCORD_ONLY = set("⏳✅🔒🤖❌✨🏳🏆\ufe0f")
# Keys whose text ends up in a picture (render.py and the names it draws)
PICTURE_PREFIXES = ("cat.", "row.", "rank.", "pos.", "special.", "word.", "seat.", "render.")
PICTURE_KEYS = {"sd.title", "sd.final_title"}
# what render.py adds of its own
RENDER_LITERALS = "⚠ ★×−+0123456789"

GENERATOR = "run `.venv/bin/python scripts/subset_cjk_font.py` (needs fonts-noto-cjk)"


@cache
def cmap(path: Path) -> frozenset[int]:
    return frozenset(TTFont(path, lazy=True).getBestCmap())


def is_picture_key(key: str) -> bool:
    return key.startswith(PICTURE_PREFIXES) or key in PICTURE_KEYS


def drawn(text: str) -> set[str]:
    return {c for c in text if not c.isspace() and unicodedata.category(c) != "Cc"}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("bold", [False, True])
def test_every_catalogue_character_has_a_glyph_in_its_font(lang: str, bold: bool) -> None:
    missing = []
    for key, text in catalog(lang).items():
        for char in drawn(text) - DISCORD_ONLY:
            if ord(char) not in cmap(render.font_file(char, bold)):
                missing.append((key, char, f"U+{ord(char):04X}"))
    assert missing == [], f"characters without a glyph ({GENERATOR} for CJK ones)"


@pytest.mark.parametrize("lang", LANGS)
def test_emoji_stay_out_of_the_pictures(lang: str) -> None:
    for key, text in catalog(lang).items():
        if is_picture_key(key):
            assert not drawn(text) & DISCORD_ONLY, (lang, key)


def test_render_literals_have_glyphs() -> None:
    for bold in (False, True):
        for char in drawn(RENDER_LITERALS):
            assert ord(char) in cmap(render.font_file(char, bold)), char


def test_the_subset_is_current() -> None:
    """Every CJK character of every catalogue is in both subsets, and nothing stale is."""
    used = {c for lang in LANGS for text in catalog(lang).values() for c in text}
    wanted = {ord(c) for c in used if render.is_cjk(c)}
    # the generator's extra full-width punctuation (scripts/subset_cjk_font.py EXTRA)
    extra = {ord(c) for c in "，。、：；！？（）《》「」『』【】〈〉～·…—０１２３４５６７８９"}
    for file in render.CJK_FONT_FILES.values():
        have = cmap(render.FONT_DIR / file)
        missing = sorted(chr(c) for c in wanted - have)
        assert missing == [], f"{file} lacks {''.join(missing)!r}: {GENERATOR}"
        stale = sorted(chr(c) for c in have - wanted - extra - {ord(c) for c in used})
        assert stale == [], f"{file} holds characters no catalogue uses: {GENERATOR}"


def test_the_font_licences_ship_with_the_fonts() -> None:
    licence = (render.FONT_DIR / "LICENSE-NotoSansCJK.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence
    for file in render.CJK_FONT_FILES.values():
        assert file in licence


def test_cjk_runs_and_widths() -> None:
    cjk = render.Face(render.FONT_DIR / render.CJK_FONT_FILES[True])
    latin = render.Face(render.FONT_DIR / "DejaVuSans-Bold.ttf")
    assert render._runs("尾道: A 高", True) == (("尾道", cjk), (": A ", latin), ("高", cjk))
    assert render._runs("Chi 1 · Thùng", True) == (("Chi 1 · Thùng", latin),)
    assert render._runs("", True) == ()
    assert render.is_cjk("，") and render.is_cjk("水") and not render.is_cjk("ủ")
    mixed = render._text_width("头道 A", 20, True)
    assert mixed == pytest.approx(
        render._font(20, True, cjk).getlength("头道") + render._font(20, True).getlength(" A")
    )


@pytest.mark.parametrize("anchor", ["la", "lm", "mm", "rm", "ls", "lt", "mb"])
def test_mixed_text_lands_where_the_anchor_says(anchor: str) -> None:
    """Run by run, a mixed line fills the same box the anchor gives for Latin text."""
    image = Image.new("RGB", (400, 120), (0, 0, 0))
    draw = ImageDraw.Draw(image)
    render._text(draw, (200, 60), "同花 Flush 最大", 24, True, fill=(255, 255, 255), anchor=anchor)
    box = image.getbbox()
    assert box is not None
    width = render._text_width("同花 Flush 最大", 24, True)
    left = {"l": 200, "m": 200 - width / 2, "r": 200 - width}[anchor[0]]
    assert abs(box[0] - left) <= 3 and abs(box[2] - (left + width)) <= 3
    assert 0 < box[1] < box[3] < 120


def _decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize("lang", LANGS)
def test_pictures_draw_in_every_language(lang: str) -> None:
    def seat(name: str, back: str, middle: str, front: str) -> Seat:
        return Seat(name, *(tuple(parse_cards(row)) for row in (back, middle, front)))

    seats = [
        seat("甲", "2S 2H 2C 2D 9C", "KS KH KD 5C 5D", "AS AH 3C"),
        seat("Bình", "5S 6S 7S 8S 9S", "QS QH QC 7D 7C", "AC AD 4C"),
        seat("Fouled", "3S 4D 6H 8C TD", "JC JD 9D 9H 3D", "KC 4S 4H"),
    ]
    result = score_round(seats, get_preset("standard"))
    assert _decode(render.render_showdown(result, lang)).width > 300
    hand = [c for s in seats[:1] for row in (s.back, s.middle, s.front) for c in row]
    rows = (seats[0].back, seats[0].middle, seats[0].front)
    assert _decode(render.render_hand(hand, rows, lang)).height > 100
    table = [Standing(1, "甲", 12), Standing(2, "Bình", -12)]
    assert _decode(render.render_standings(table, lang)).width == 640
