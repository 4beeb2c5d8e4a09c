"""Any player name is drawn (issue 21): a character the shipped fonts lack is taken from a
system font that has it, and one no font has is replaced, never drawn as an empty box."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from capsa import render

# not in any catalogue, so not in the shipped CJK subset
RARE_HAN = "鑫"
SYSTEM_CJK = render.SYSTEM_FONT_DIRS[0] / render.SYSTEM_CJK[True]
needs_system_cjk = pytest.mark.skipif(
    not SYSTEM_CJK.is_file(), reason="no system Noto Sans CJK (apt-get install fonts-noto-cjk)"
)


def clear_caches() -> None:
    for cached in (render._system_faces, render._face_for, render._runs, render._text_width):
        cached.cache_clear()


@pytest.fixture
def no_system_fonts(monkeypatch: pytest.MonkeyPatch):
    clear_caches()
    monkeypatch.setattr(render, "SYSTEM_FONT_DIRS", (render.FONT_DIR / "none", render.FONT_DIR))
    yield
    clear_caches()


def ink(text: str, face: render.Face | None = None) -> bytes:
    image = Image.new("RGB", (200, 60), (0, 0, 0))
    draw = ImageDraw.Draw(image)
    if face is None:
        render._text(draw, (10, 30), text, 30, fill=(255, 255, 255), anchor="lm")
    else:
        font = render._font(30, True, face)
        draw.text((10, 30), text, font=font, fill=(255, 255, 255), anchor="lm")
    return image.tobytes()


def test_the_rare_character_is_not_in_the_shipped_subset():
    shipped = render.Face(render.FONT_DIR / render.CJK_FONT_FILES[True])
    assert not render._has_glyph(shipped, RARE_HAN)
    assert render._has_glyph(shipped, "水")  # a catalogue character is


def test_without_a_font_a_letter_becomes_a_question_mark_and_emoji_go(no_system_fonts):
    assert render._system_faces(True) == ()
    replaced = (render.UNDRAWABLE, render._face_for("?", True))
    assert render._runs(f"王{RARE_HAN}", True)[-1] == replaced
    assert "".join(run for run, _ in render._runs("Budi 🔥", True)) == "Budi "
    assert ink(f"A{RARE_HAN}") == ink("A?")


@needs_system_cjk
def test_a_name_outside_the_subset_is_drawn_with_the_system_font():
    clear_caches()
    face = render._face_for(RARE_HAN, True)
    assert face is not None and face.path == SYSTEM_CJK
    assert render._font(12, True, face).getname()[0] == render.SYSTEM_CJK_FACE
    missing_box = ink("\U0010ffff", face)
    assert ink(RARE_HAN) != missing_box and ink(RARE_HAN) != ink("?")
    # Hangul, which is neither DejaVu's nor in the subset, comes from the same font
    assert render._face_for("민", True) == face


@pytest.mark.skipif(
    not (render.SYSTEM_FONT_DIRS[1] / "NotoSansThai-Regular.ttf").is_file(),
    reason="no system Noto Sans Thai (apt-get install fonts-noto-core)",
)
def test_other_scripts_come_from_the_system_noto_fonts():
    clear_caches()
    face = render._face_for("ส", False)
    assert face is not None and face.path.name.startswith("NotoSans")
    assert "?" not in "".join(run for run, _ in render._runs("สมชาย", False))


def test_every_shipped_character_keeps_its_font():
    """Latin and Vietnamese from DejaVu, catalogue Chinese from the subset, as before."""
    latin = render.Face(render.FONT_DIR / "DejaVuSans.ttf")
    assert {render._face_for(c, False) for c in "Nguyễn Thị ♠♥♦♣"} == {latin}
    assert render._face_for("水", False) == render.Face(
        render.FONT_DIR / render.CJK_FONT_FILES[False]
    )
