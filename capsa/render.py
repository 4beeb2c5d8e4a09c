"""Pictures of hands, showdowns and standings, drawn with Pillow.

Everything here is pure Python + Pillow and never imports Discord: each public function
returns image bytes (JPEG for the hand and the showdown, PNG for the standings) that the bot
attaches to a message. Cards are drawn by this module
(rank text and suit pips from the DejaVu Sans font shipped in ``capsa/fonts``, see
``LICENSE-DejaVu.txt``); no card art is downloaded. Card sprites, chips and fonts are
cached, so a redraw only pastes sprites, draws a little text and encodes the image.

Text goes through :func:`_text` and :func:`_text_width`: DejaVu Sans draws Latin (with
Vietnamese), the suit symbols and the signs; a run of CJK characters is drawn with Noto Sans
CJK SC, shipped as a subset to the characters the catalogues use
(``capsa/fonts/NotoSansCJKsc-*-subset.otf``, made by ``scripts/subset_cjk_font.py``, see
``LICENSE-NotoSansCJK.txt``).

Colours: a mid-tone table green with white card faces reads well on both Discord's dark
and light themes; red suits are red, black suits black, or with the four-colour deck
(:class:`capsa.cards.DeckStyle`, a person's choice) ♦ blue and ♣ green; every suit's ink
has at least 4.5:1 contrast against the card (WCAG AA, tests/test_deck.py).

A character neither shipped font has (a name in another script) is drawn from a system
font when one has it, else replaced (:func:`_face_for`, :func:`_drawable`).
"""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from capsa.cards import SUITS, Card, DeckStyle, rank_text, sort_hand
from capsa.coach import Review, review_text
from capsa.hands import Row, evaluate, foul_positions
from capsa.i18n import number, t
from capsa.match import Standing
from capsa.names import position_name, row_name, special_name
from capsa.scoring import PairResult, PlayerResult, RoundResult

__all__ = ["render_hand", "render_showdown", "render_standings"]


FONT_DIR = Path(__file__).parent / "fonts"
_FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}
# CJK characters (Chinese text, full-width punctuation) come from this font instead
CJK_FONT_FILES = {
    False: "NotoSansCJKsc-Regular-subset.otf",
    True: "NotoSansCJKsc-Bold-subset.otf",
}
# the Unicode blocks drawn with the CJK font: everything else is DejaVu's
CJK_RANGES = (
    (0x2E80, 0x2FDF),  # CJK radicals, Kangxi radicals
    (0x3000, 0x303F),  # CJK symbols and punctuation (、。《》「」)
    (0x3040, 0x30FF),  # hiragana, katakana
    (0x3100, 0x312F),  # bopomofo
    (0x3190, 0x31FF),  # kanbun, CJK strokes, katakana extensions
    (0x3200, 0x33FF),  # enclosed CJK letters, CJK compatibility
    (0x3400, 0x4DBF),  # CJK unified ideographs extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFE30, 0xFE4F),  # CJK compatibility forms
    (0xFF00, 0xFFEF),  # half-width and full-width forms (，：（）！？)
    (0x20000, 0x2FFFF),  # CJK extensions B and later
)

# --- palette --------------------------------------------------------------------------------

BG = (38, 104, 72)  # table green, mid-tone: fine on dark and light themes
PANEL = (29, 84, 57)
PANEL_EDGE = (22, 68, 46)
TEXT = (255, 255, 255)
TEXT_DIM = (196, 222, 206)
GOLD = (255, 213, 79)
GOLD_DARK = (120, 90, 0)
LOSS = (255, 138, 128)
FOUL_RED = (204, 40, 40)
GREY = (158, 170, 164)
CARD_FACE = (255, 255, 255)
CARD_EDGE = (120, 120, 120)
SUIT_RED = (208, 24, 32)
SUIT_BLACK = (20, 20, 20)
SUIT_BLUE = (0, 86, 214)
SUIT_GREEN = (0, 128, 48)
SUIT_GLYPHS = "♦♣♥♠"  # by Card.suit 0..3
# the ink of each suit (by Card.suit: ♦ ♣ ♥ ♠) in each deck style; every one has a contrast
# of at least 4.5:1 (WCAG AA) against CARD_FACE (tests/test_deck.py measures the sprites)
CLASSIC_INKS = (SUIT_RED, SUIT_BLACK, SUIT_RED, SUIT_BLACK)
FOUR_COLOUR_INKS = (SUIT_BLUE, SUIT_GREEN, SUIT_RED, SUIT_BLACK)


def suit_ink(suit: int, deck: DeckStyle) -> tuple[int, int, int]:
    """The colour a suit is printed in, in ``deck``'s style."""
    return (FOUR_COLOUR_INKS if deck.four_colour else CLASSIC_INKS)[suit]


MINUS = "\u2212"

SS = 3  # supersampling factor for cached sprites (anti-aliased edges)
MARGIN = 16


# --- fonts and text -------------------------------------------------------------------------


# Where a character neither shipped font has (a Thai, Arabic or Korean name; a Chinese name
# with characters outside the catalogues' subset) is looked for: these font files, when the
# system has them (Debian: fonts-noto-cjk, fonts-noto-core), in this order. A file that is a
# collection names the face to take from it. A character no font here draws is replaced,
# never drawn as an empty box: see :func:`_drawable`.
SYSTEM_FONT_DIRS = (Path("/usr/share/fonts/opentype/noto"), Path("/usr/share/fonts/truetype/noto"))
SYSTEM_CJK = {False: "NotoSansCJK-Regular.ttc", True: "NotoSansCJK-Bold.ttc"}
SYSTEM_CJK_FACE = "Noto Sans CJK SC"
# after Noto Sans CJK SC (Chinese, Japanese, Korean): Noto Sans (Latin, Greek, Cyrillic
# beyond DejaVu's), then one Noto Sans a script, as NotoSans<Script>-<Weight>.ttf. Drawn
# without shaping (the BASIC layout), so joined scripts (Arabic) come out unjoined.
SYSTEM_SCRIPTS = (
    "",
    "Thai",
    "Arabic",
    "Hebrew",
    "Devanagari",
    "Bengali",
    "Tamil",
    "Telugu",
    "Kannada",
    "Malayalam",
    "Gujarati",
    "Gurmukhi",
    "Sinhala",
    "Khmer",
    "Lao",
    "Myanmar",
    "Georgian",
    "Armenian",
    "Ethiopic",
)
# instead of a character no font draws: symbols (emoji, mostly) are left out, anything else
# (a letter of a script no font here has) becomes a question mark
UNDRAWABLE = "?"


@dataclass(frozen=True, slots=True)
class Face:
    """A font file, and the face's index in it (a .ttc collection holds several)."""

    path: Path
    index: int = 0


@lru_cache(maxsize=128)
def _font(size: int, bold: bool = True, face: Face | None = None) -> ImageFont.FreeTypeFont:
    # BASIC layout: the same pixels with or without libraqm, so golden images are stable.
    face = face or Face(FONT_DIR / _FONT_FILES[bold])
    return ImageFont.truetype(
        str(face.path), size, index=face.index, layout_engine=ImageFont.Layout.BASIC
    )


def is_cjk(char: str) -> bool:
    """Whether ``char`` is drawn with the CJK font (see :data:`CJK_RANGES`)."""
    code = ord(char)
    return any(low <= code <= high for low, high in CJK_RANGES)


def font_file(char: str, bold: bool) -> Path:
    """The shipped font file that draws ``char`` (its first choice, see :func:`_face_for`)."""
    return FONT_DIR / (CJK_FONT_FILES if is_cjk(char) else _FONT_FILES)[bold]


@lru_cache(maxsize=32)
def _probe(face: Face) -> tuple[ImageFont.FreeTypeFont, tuple[tuple[int, int], bytes]]:
    """``face`` at a small size for looking glyphs up (apart from :func:`_font`'s cache of
    the fonts that draw), and its missing-glyph box (U+10FFFF, a noncharacter, is never in
    a font)."""
    font = ImageFont.truetype(
        str(face.path), 12, index=face.index, layout_engine=ImageFont.Layout.BASIC
    )
    notdef = font.getmask("\U0010ffff")
    return font, (notdef.size, bytes(notdef))


@lru_cache(maxsize=4096)
def _has_glyph(face: Face, char: str) -> bool:
    """Whether ``face`` draws ``char``: its drawing differs from the missing-glyph box."""
    font, notdef = _probe(face)
    mask = font.getmask(char)
    return (mask.size, bytes(mask)) != notdef


@lru_cache(maxsize=4)
def _system_faces(bold: bool) -> tuple[Face, ...]:
    """The system's fallback faces that are installed (:data:`SYSTEM_FONT_DIRS`): Noto Sans
    CJK SC, then :data:`SYSTEM_SCRIPTS`' Noto Sans fonts, of that weight."""
    faces: list[Face] = []
    cjk = SYSTEM_FONT_DIRS[0] / SYSTEM_CJK[bold]
    if cjk.is_file():
        for index in range(16):
            try:
                name = ImageFont.truetype(str(cjk), 12, index=index).getname()[0]
            except OSError:
                break
            if name == SYSTEM_CJK_FACE:
                faces.append(Face(cjk, index))
                break
    weight = "Bold" if bold else "Regular"
    for script in SYSTEM_SCRIPTS:
        for folder in SYSTEM_FONT_DIRS[1:]:
            path = folder / f"NotoSans{script}-{weight}.ttf"
            if path.is_file():
                faces.append(Face(path))
    return tuple(faces)


@lru_cache(maxsize=4096)
def _face_for(char: str, bold: bool) -> Face | None:
    """The face that draws ``char``: the shipped one (DejaVu Sans, or the CJK subset for
    CJK characters), else the first system face that has it; None when no face does."""
    shipped = Face(font_file(char, bold))
    if char.isspace() or _has_glyph(shipped, char):
        return shipped
    for face in (Face(FONT_DIR / CJK_FONT_FILES[bold]), *_system_faces(bold)):
        if face != shipped and _has_glyph(face, char):
            return face
    return None


def _drawable(char: str, bold: bool) -> str:
    """``char``, or what is drawn instead when no face has it (:data:`UNDRAWABLE`)."""
    if _face_for(char, bold) is not None:
        return char
    category = unicodedata.category(char)
    if category[0] in "SMC" or category == "Zs":  # emoji, their joiners and selectors
        return ""
    return UNDRAWABLE


@lru_cache(maxsize=4096)
def _runs(text: str, bold: bool) -> tuple[tuple[str, Face], ...]:
    """``text`` cut into runs of one face, characters no face draws replaced."""
    runs: list[tuple[str, Face]] = []
    for char in text:
        char = _drawable(char, bold)
        if not char:
            continue
        face = _face_for(char, bold) or Face(FONT_DIR / _FONT_FILES[bold])
        if runs and runs[-1][1] == face:
            runs[-1] = (runs[-1][0] + char, face)
        else:
            runs.append((char, face))
    return tuple(runs)


@lru_cache(maxsize=4096)
def _text_width(text: str, size: int, bold: bool) -> float:
    return sum(_font(size, bold, face).getlength(run) for run, face in _runs(text, bold))


def _text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    size: int,
    bold: bool = True,
    fill: tuple[int, int, int] = (255, 255, 255),
    anchor: str = "la",
) -> None:
    """Every piece of text in the pictures is drawn here, like ``draw.text`` with ``anchor``.

    Text in one font is one ``draw.text`` call. Text that mixes scripts ("头道: A 高") is
    drawn run by run on one baseline, placed by DejaVu's metrics as the anchor asks.
    """
    runs = _runs(text, bold)
    if len(runs) <= 1:
        run, face = runs[0] if runs else ("", None)
        draw.text(xy, run, font=_font(size, bold, face), fill=fill, anchor=anchor)
        return
    x, y = xy
    horizontal, vertical = anchor[0], anchor[1]
    width = _text_width(text, size, bold)
    x -= {"l": 0.0, "m": width / 2, "r": width}[horizontal]
    latin = _font(size, bold)
    ascent, descent = latin.getmetrics()
    if vertical in "tb":
        boxes = [_font(size, bold, face).getbbox(run, anchor="ls") for run, face in runs]
        baseline = y - min(b[1] for b in boxes) if vertical == "t" else y - max(b[3] for b in boxes)
    else:
        baseline = y + {"a": ascent, "m": (ascent - descent) / 2, "s": 0, "d": -descent}[vertical]
    for run, face in runs:
        font = _font(size, bold, face)
        draw.text((x, baseline), run, font=font, fill=fill, anchor="ls")
        x += font.getlength(run)


def _fit(text: str, size: int, bold: bool, width: float) -> str:
    """``text`` shortened with an ellipsis so that it fits in ``width`` pixels."""
    if _text_width(text, size, bold) <= width:
        return text
    while text and _text_width(text + "…", size, bold) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _wrap(text: str, size: int, bold: bool, width: float, lines: int = 2) -> list[str]:
    """Greedy word wrap into at most ``lines`` lines; the last one is ellipsised."""
    words = text.split()
    out: list[str] = []
    current = ""
    for i, word in enumerate(words):
        trial = f"{current} {word}".strip()
        if _text_width(trial, size, bold) <= width or not current:
            current = trial
            continue
        out.append(current)
        current = word
        if len(out) == lines - 1:
            current = " ".join(words[i:])
            break
    if current:
        out.append(current)
    return [_fit(line, size, bold, width) for line in out[:lines]]


def _signed(value: float, lang: str) -> str:
    """+14, −7, 0, +9.7 ("+9,7" in Indonesian): as ``lang`` writes numbers, with a real
    minus sign; decimals only when there are any."""
    return number(value, lang, 2, sign=True).replace("-", MINUS)


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=3)
    return buffer.getvalue()


def _jpeg(image: Image.Image) -> bytes:
    """For the pictures drawn all the time (the hand on every click, the showdown every
    round): JPEG encodes 4-5x faster than PNG here (showdown: 1.7 ms against 9 ms);
    quality 90 without chroma subsampling keeps pips and text crisp."""
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=90, subsampling=0)
    return buffer.getvalue()


# --- sprites --------------------------------------------------------------------------------

# (width, height, widest corner index) for the two card sizes
CARD_L = (80, 112, 34)


@lru_cache(maxsize=1024)
def _card_sprite(
    rank: int, suit: int, size: tuple[int, int, int], dim: bool, deck: DeckStyle
) -> Image.Image:
    """One card face, RGBA, drawn at SS x and scaled down once: the corner index (rank,
    and under it the pip, and under that the suit's letter when ``deck`` has letters) in
    the part a fanned row leaves visible, a big pip in the free lower right part."""
    w, h, index_w = size
    big = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    radius = round(w * 0.1 * SS)
    draw.rounded_rectangle(
        (0, 0, w * SS - 1, h * SS - 1), radius, fill=CARD_FACE, outline=CARD_EDGE, width=2 * SS
    )
    colour = suit_ink(suit, deck)
    glyph = SUIT_GLYPHS[suit]
    # corner index: rank, and a small pip under it, centred on one column
    pad = round(w * 0.06 * SS)
    rank_size = round(h * (0.26 if w >= 80 else 0.29) * SS)
    rank_img = _glyph_image(rank_text(rank), rank_size, colour, -round(rank_size * 0.08))
    max_w = index_w * SS
    if rank_img.width > max_w:  # "10" on the small card: squeeze it horizontally
        rank_img = rank_img.resize((max_w, rank_img.height), Image.Resampling.LANCZOS)
    column = pad + max(rank_img.width, round(h * 0.2 * SS)) // 2
    column = min(column, pad + max_w // 2)
    top = round(h * 0.05 * SS)
    big.alpha_composite(rank_img, (column - rank_img.width // 2, top))
    pip_size = round(h * 0.2 * SS)
    pip_top = top + rank_img.height + round(h * 0.03 * SS)
    _text(draw, (column, pip_top), glyph, pip_size, fill=colour, anchor="mt")
    big_pip = (round(w * 0.62 * SS), round(h * 0.64 * SS), round(h * 0.46 * SS))
    if deck.letters:
        letter_top = pip_top + pip_size + round(h * 0.02 * SS)
        letter_size = round(h * 0.17 * SS)
        _text(draw, (column, letter_top), SUITS[suit], letter_size, fill=colour, anchor="mt")
        big_pip = (round(w * 0.68 * SS), round(h * 0.7 * SS), round(h * 0.36 * SS))
    # a big pip in the free lower right part (seen on the last card of a row)
    x, y, pip = big_pip
    _text(draw, (x, y), glyph, pip, fill=colour, anchor="mm")
    return _finish_sprite(big, w, h, dim)


# (width, height) of the showdown's cards: side by side, not fanned, only the index drawn,
# as large as the card allows, so that a phone showing the picture small still reads them
CARD_INDEX = (46, 66)
INDEX_RANK = 0.48  # the rank's font size on such a card, as a fraction of its height


@lru_cache(maxsize=512)
def _index_card_sprite(rank: int, suit: int, dim: bool, deck: DeckStyle) -> Image.Image:
    """A small card that is all index: the rank on top, the pip under it (with the suit's
    letter beside it when ``deck`` has letters), both centred."""
    w, h = CARD_INDEX
    big = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.rounded_rectangle(
        (0, 0, w * SS - 1, h * SS - 1),
        round(w * 0.12 * SS),
        fill=CARD_FACE,
        outline=CARD_EDGE,
        width=2 * SS,
    )
    colour = suit_ink(suit, deck)
    rank_size = round(h * INDEX_RANK * SS)
    rank_img = _glyph_image(rank_text(rank), rank_size, colour, -round(rank_size * 0.1))
    max_w = round(w * 0.86 * SS)
    if rank_img.width > max_w:  # "10": squeeze it horizontally
        rank_img = rank_img.resize((max_w, rank_img.height), Image.Resampling.LANCZOS)
    big.alpha_composite(rank_img, ((w * SS - rank_img.width) // 2, round(h * 0.08 * SS)))
    pip = SUIT_GLYPHS[suit]
    pip_size = round(h * 0.4 * SS)
    centre = (w * SS // 2, round(h * 0.72 * SS))
    if deck.letters:
        letter_size = round(h * 0.3 * SS)
        _text(draw, (w * SS * 0.32, centre[1]), pip, pip_size, fill=colour, anchor="mm")
        _text(draw, (w * SS * 0.74, centre[1]), SUITS[suit], letter_size, fill=colour, anchor="mm")
    else:
        _text(draw, centre, pip, pip_size, fill=colour, anchor="mm")
    return _finish_sprite(big, w, h, dim)


def _finish_sprite(big: Image.Image, w: int, h: int, dim: bool) -> Image.Image:
    """A sprite drawn at SS x, scaled down to ``w`` x ``h``; greyed when ``dim``."""
    sprite = big.resize((w, h), Image.Resampling.LANCZOS)
    if dim:
        grey = Image.new("RGBA", (w, h), (150, 150, 150, 255))
        faded = Image.blend(sprite, grey, 0.55)
        faded.putalpha(sprite.getchannel("A"))
        sprite = faded
    return sprite


def _glyph_image(text: str, size: int, colour: tuple[int, int, int], spacing: int) -> Image.Image:
    """Text cropped to its ink, letters drawn one by one with extra ``spacing`` (kerning)."""
    font = _font(size)
    widths = [font.getlength(ch) for ch in text]
    total = int(sum(widths) + spacing * (len(text) - 1)) + 2
    ascent, descent = font.getmetrics()
    img = Image.new("RGBA", (total, ascent + descent), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    x = 0.0
    for ch, width in zip(text, widths, strict=True):
        draw.text((x, 0), ch, font=font, fill=colour)
        x += width + spacing
    return img.crop(img.getbbox())


@lru_cache(maxsize=8)
def _slot_sprite(size: tuple[int, int, int]) -> Image.Image:
    """An empty place for a card not chosen yet."""
    w, h, _ = size
    big = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    ImageDraw.Draw(big).rounded_rectangle(
        (SS, SS, w * SS - SS - 1, h * SS - SS - 1),
        round(w * 0.1 * SS),
        fill=(255, 255, 255, 28),
        outline=(255, 255, 255, 110),
        width=2 * SS,
    )
    return big.resize((w, h), Image.Resampling.LANCZOS)


@lru_cache(maxsize=8)
def _back_sprite(size: tuple[int, int, int]) -> Image.Image:
    """The back of a card (a surrendered hand that was never shown)."""
    w, h, _ = size
    big = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    radius = round(w * 0.1 * SS)
    draw.rounded_rectangle(
        (0, 0, w * SS - 1, h * SS - 1), radius, fill=CARD_FACE, outline=CARD_EDGE, width=2 * SS
    )
    inset = round(w * 0.08 * SS)
    draw.rounded_rectangle(
        (inset, inset, w * SS - inset, h * SS - inset), radius // 2, fill=(150, 40, 52)
    )
    step = round(w * 0.12 * SS)
    for k in range(-h * SS, w * SS, step):
        draw.line((k, 0, k + h * SS, h * SS), fill=(185, 70, 82), width=SS)
        draw.line((k + h * SS, 0, k, h * SS), fill=(185, 70, 82), width=SS)
    draw.rounded_rectangle((0, 0, w * SS - 1, h * SS - 1), radius, outline=CARD_EDGE, width=2 * SS)
    # clear what the diagonal lines drew outside the inner panel
    mask = Image.new("L", big.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle(
        (inset, inset, w * SS - inset, h * SS - inset), radius // 2, fill=255
    )
    face = Image.new("RGBA", big.size, (0, 0, 0, 0))
    ImageDraw.Draw(face).rounded_rectangle(
        (0, 0, w * SS - 1, h * SS - 1), radius, fill=CARD_FACE, outline=CARD_EDGE, width=2 * SS
    )
    face.paste(big, (0, 0), mask)
    return face.resize((w, h), Image.Resampling.LANCZOS)


CHIP = 18


@lru_cache(maxsize=64)
def _chip_sprite(label: str, state: str, size: int = CHIP) -> Image.Image:
    """A round badge with a player number, ``size`` pixels across: ``won`` (gold),
    ``lost`` (red ring), ``push``, ``player`` (white, for names)."""
    d = size * SS
    big = Image.new("RGBA", (d, d), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    box = (SS, SS, d - SS - 1, d - SS - 1)
    if state == "won":
        draw.ellipse(box, fill=GOLD, outline=GOLD_DARK, width=SS)
        ink = (40, 30, 0)
    elif state == "lost":
        draw.ellipse(box, fill=PANEL_EDGE, outline=LOSS, width=2 * SS)
        ink = LOSS
    elif state == "player":
        draw.ellipse(box, fill=TEXT, outline=PANEL_EDGE, width=SS)
        ink = (20, 50, 35)
    else:
        draw.ellipse(box, fill=PANEL_EDGE, outline=GREY, width=2 * SS)
        ink = GREY
    _text(draw, (d / 2, d / 2 + SS * 0.5), label, round(size * 2 / 3 * SS), fill=ink, anchor="mm")
    return big.resize((size, size), Image.Resampling.LANCZOS)


@lru_cache(maxsize=16)
def _medal_sprite(place: int) -> Image.Image:
    colours = {1: (255, 205, 60), 2: (205, 212, 220), 3: (214, 140, 80)}
    fill = colours.get(place, (120, 150, 135))
    d = 30 * SS
    big = Image.new("RGBA", (d, d), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.ellipse((SS, SS, d - SS - 1, d - SS - 1), fill=fill, outline=PANEL_EDGE, width=2 * SS)
    _text(draw, (d / 2, d / 2 + SS), str(place), 17 * SS, fill=(30, 30, 30), anchor="mm")
    return big.resize((30, 30), Image.Resampling.LANCZOS)


def _paste(canvas: Image.Image, sprite: Image.Image, x: float, y: float) -> None:
    canvas.paste(sprite, (round(x), round(y)), sprite)


def _draw_cards(
    canvas: Image.Image,
    cards: Sequence[Card | None],
    x: float,
    y: float,
    size: tuple[int, int, int],
    step: float,
    deck: DeckStyle,
    dim: bool = False,
) -> None:
    """Cards left to right, each overlapping the one before by ``width - step``."""
    for i, card in enumerate(cards):
        sprite = (
            _slot_sprite(size)
            if card is None
            else _card_sprite(card.rank, card.suit, size, dim, deck)
        )
        _paste(canvas, sprite, x + i * step, y)


# --- the hand -------------------------------------------------------------------------------

HAND_STEP = 44  # 13 cards in a row
ROW_STEP = 52  # cards inside a row of the arranged hand
ROW_SIZES = {"back": 5, "middle": 5, "front": 3}


def _titled_canvas(
    width: int, height: int, title_h: int, heading: str
) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A blank table-green picture with its heading centred in the top band."""
    canvas = Image.new("RGB", (width, height), BG)
    draw = ImageDraw.Draw(canvas)
    _text(
        draw,
        (width / 2, MARGIN + title_h / 2 - 4),
        _fit(heading, 26, True, width - 2 * MARGIN),
        26,
        fill=TEXT,
        anchor="mm",
    )
    return canvas, draw


def render_hand(
    cards: Sequence[Card],
    rows: tuple[Sequence[Card], Sequence[Card], Sequence[Card]] | None = None,
    lang: str = "en",
    deck: DeckStyle = DeckStyle.CLASSIC,
) -> bytes:
    """The player's hand as JPEG bytes (``hand.jpg``).

    Without ``rows``: the cards in one row, sorted high to low. With ``rows`` (back,
    middle, front, as in :class:`capsa.scoring.Seat`): the three rows stacked, front on
    top, each with its position and hand name, and a foul warning when the order is
    broken. Rows still being built may be short (empty places are drawn), and cards of
    ``cards`` not in any row are shown underneath as not placed yet. ``deck``: the
    person's deck style (colours, letters).
    """
    if rows is None:
        return _jpeg(_hand_strip(cards, deck))
    return _jpeg(_hand_rows(cards, rows, lang, deck))


def _hand_strip(cards: Sequence[Card], deck: DeckStyle) -> Image.Image:
    w, h, _ = CARD_L
    ordered = sort_hand(cards)
    n = max(len(ordered), 1)
    width = max(2 * MARGIN + (n - 1) * HAND_STEP + w, 240)
    canvas = Image.new("RGB", (width, 2 * MARGIN + h), BG)
    _draw_cards(canvas, ordered, MARGIN, MARGIN, CARD_L, HAND_STEP, deck)
    return canvas


def _hand_rows(
    cards: Sequence[Card],
    rows: tuple[Sequence[Card], Sequence[Card], Sequence[Card]],
    lang: str,
    deck: DeckStyle,
) -> Image.Image:
    cw, ch, _ = CARD_L
    width = 640
    pad = 8
    panel_h = ch + 2 * pad
    gap = 8
    by_position = dict(zip(("back", "middle", "front"), rows, strict=True))
    complete = all(len(by_position[p]) == ROW_SIZES[p] for p in ROW_SIZES)
    evaluated: dict[str, Row] = {}
    for position, row_cards in by_position.items():
        if len(row_cards) == ROW_SIZES[position]:
            evaluated[position] = evaluate(row_cards)
    bad = (
        foul_positions(evaluated["back"], evaluated["middle"], evaluated["front"])
        if complete
        else frozenset()
    )
    fouled = bool(bad)
    placed = {c for row in rows for c in row}
    unplaced = [c for c in sort_hand(cards) if c not in placed]

    height = MARGIN + 3 * panel_h + 2 * gap + MARGIN
    banner_h = 40
    if fouled:
        height += gap + banner_h
    if unplaced:
        height += gap + 28 + ch + pad
    canvas = Image.new("RGB", (width, height), BG)
    draw = ImageDraw.Draw(canvas)

    cards_w = (ROW_SIZES["back"] - 1) * ROW_STEP + cw
    text_x = MARGIN + pad + cards_w + 20
    text_w = width - MARGIN - pad - text_x
    y = MARGIN
    for position in ("front", "middle", "back"):
        outline = FOUL_RED if position in bad else PANEL_EDGE
        draw.rounded_rectangle(
            (MARGIN, y, width - MARGIN - 1, y + panel_h - 1),
            10,
            fill=PANEL,
            outline=outline,
            width=3 if position in bad else 1,
        )
        size = ROW_SIZES[position]
        row_cards = list(by_position[position])
        # an evaluated row is shown in its display order (groups first, wheel 5-high)
        shown: list[Card | None] = list(
            evaluated[position].cards if position in evaluated else row_cards[:size]
        )
        shown += [None] * (size - len(shown))
        row_w = (size - 1) * ROW_STEP + cw
        cards_x = MARGIN + pad + (cards_w - row_w) / 2
        _draw_cards(canvas, shown, cards_x, y + pad, CARD_L, ROW_STEP, deck)
        _text(draw, (text_x, y + pad + 14), position_name(position, lang), 24, fill=TEXT)
        if position in evaluated:
            colour = LOSS if position in bad else TEXT_DIM
            for k, line in enumerate(_wrap(row_name(evaluated[position], lang), 20, False, text_w)):
                _text(draw, (text_x, y + pad + 52 + k * 26), line, 20, False, fill=colour)
        y += panel_h + gap
    y -= gap
    if fouled:
        y += gap
        draw.rounded_rectangle((MARGIN, y, width - MARGIN - 1, y + banner_h - 1), 10, fill=FOUL_RED)
        text = _fit("⚠ " + t("render.foul_warning", lang), 20, True, width - 2 * MARGIN - 20)
        _text(draw, (width / 2, y + banner_h / 2), text, 20, fill=TEXT, anchor="mm")
        y += banner_h
    if unplaced:
        y += gap
        _text(draw, (MARGIN, y + 2), t("render.unplaced", lang), 18, fill=TEXT_DIM)
        y += 28
        avail = width - 2 * MARGIN
        step: float = HAND_STEP
        if len(unplaced) > 1:
            step = min(HAND_STEP, (avail - cw) / (len(unplaced) - 1))
        _draw_cards(canvas, unplaced, MARGIN, y, CARD_L, step, deck)
    return canvas


# --- the showdown ---------------------------------------------------------------------------

# The showdown is drawn for the size Discord shows it: an embed's picture is fitted into
# 400 x 300 on a desktop and into the embed's width on a phone (about 292 px of a 400 px
# screen). So the players sit two to a row (a 3- or 4-player table is a 2 x 2 grid, close
# to square, which both fits best), each in a panel of its three rows, and the cards are
# all index (CARD_INDEX) side by side. What the picture leaves out, each row's hand name
# and the points between each pair, the showdown's embed text says.
SD_PAD = 8
SD_CARD_GAP = 3
SD_CARDS_W = 5 * CARD_INDEX[0] + 4 * SD_CARD_GAP
SD_CHIP = 21  # three chips beside a row of CARD_INDEX cards
SD_PANEL_W = SD_PAD + SD_CARDS_W + 6 + SD_CHIP + SD_PAD
SD_HEAD_H = 40
SD_ROW_GAP = 5
SD_ROWS_H = 3 * CARD_INDEX[1] + 2 * SD_ROW_GAP
SD_STRIP_H = 28
SD_GAP = 12
SD_TITLE_H = 40
SD_LEGEND_H = 30
# what the embed is fitted into on a desktop, and a phone's embed width (discord-look's)
DESKTOP_BOX = (400, 300)
PHONE_WIDTH = 292


def shown_scale(size: tuple[int, int], phone: bool) -> float:
    """How much Discord shrinks a picture of ``size`` in an embed: fitted into
    :data:`DESKTOP_BOX`, and on a phone into :data:`PHONE_WIDTH` too; never enlarged."""
    width, height = size
    box_w, box_h = DESKTOP_BOX
    if phone:
        box_w = min(box_w, PHONE_WIDTH)
    return min(1.0, box_w / width, box_h / height)


def showdown_grid(players: int) -> tuple[int, int]:
    """(columns, rows) of the showdown's panels: two to a row."""
    columns = min(players, 2)
    return columns, -(-players // columns)


def render_showdown(
    result: RoundResult,
    lang: str = "en",
    title: str | None = None,
    deck: DeckStyle = DeckStyle.CLASSIC,
) -> bytes:
    """Every player in a panel, two panels to a row: number, name and round score on top,
    then the rows (front on top).

    Beside each row, one chip per opponent (numbered like the players): gold when that row
    beat the opponent, a red ring when it lost, grey for a push or when rows were not
    compared (special, surrender, two fouled hands). A row that beat every opponent is
    outlined in gold. Fouled hands are greyed out under a red band; a declared special is
    named in a gold band, a surrender in a grey one; a table sweep and the room fee are
    named under the rows.
    """
    players = result.players
    columns, grid_rows = showdown_grid(len(players))
    has_strip = result.table_sweeper is not None or any(p.fee for p in players)
    panel_h = SD_HEAD_H + SD_ROWS_H + SD_PAD + (SD_STRIP_H if has_strip else 0)
    width = 2 * MARGIN + columns * SD_PANEL_W + (columns - 1) * SD_GAP
    height = (
        MARGIN + SD_TITLE_H + grid_rows * panel_h + (grid_rows - 1) * SD_GAP + SD_LEGEND_H + MARGIN
    )
    canvas, draw = _titled_canvas(width, height, SD_TITLE_H, title or t("render.showdown", lang))
    pair_of = {}
    for pair in result.pairs:
        i, j = pair.players
        pair_of[i, j] = pair_of[j, i] = pair
    for p, player in enumerate(players):
        x = MARGIN + (p % columns) * (SD_PANEL_W + SD_GAP)
        y = MARGIN + SD_TITLE_H + (p // columns) * (panel_h + SD_GAP)
        _showdown_panel(canvas, draw, _Panel(result, pair_of, p, player, x, y, panel_h, lang, deck))
    # legend
    _showdown_legend(canvas, draw, height - MARGIN - SD_LEGEND_H + 6, lang)
    return _jpeg(canvas)


def _showdown_legend(canvas: Image.Image, draw: ImageDraw.ImageDraw, y: int, lang: str) -> None:
    """What the chips say: gold, that row won against that player; a red ring, lost."""
    x: float = MARGIN
    _paste(canvas, _chip_sprite("2", "won", SD_CHIP), x, y)
    x += SD_CHIP + 6
    won = t("render.row_won", lang) + " 2"
    _text(draw, (x, y + SD_CHIP / 2), won, 17, False, fill=TEXT_DIM, anchor="lm")
    x += _text_width(won, 17, False) + 18
    _paste(canvas, _chip_sprite("2", "lost", SD_CHIP), x, y)
    x += SD_CHIP + 6
    lost = t("render.row_lost", lang)
    _text(draw, (x, y + SD_CHIP / 2), lost, 17, False, fill=TEXT_DIM, anchor="lm")


ROW_ORDER = ("front", "middle", "back")  # top to bottom, as every picture shows the rows
SURRENDER_GREY = (90, 100, 96)
SPECIAL_INK = (40, 30, 0)


@dataclass(frozen=True)
class _Band:
    """A band across a hand's rows, saying what became of it; ``dim``: its cards were not
    played (greyed under it)."""

    label: str
    fill: tuple[int, int, int]
    ink: tuple[int, int, int]
    dim: bool


def _band(lang: str, *, surrendered: bool, fouled: bool, special: str | None) -> _Band | None:
    """Surrendered (grey), fouled (red) or a declared special (gold); None: rows played."""
    if surrendered:
        return _Band(t("word.surrender", lang), SURRENDER_GREY, TEXT, dim=True)
    if fouled:
        return _Band(t("word.foul", lang), FOUL_RED, TEXT, dim=True)
    if special:
        return _Band(special_name(special, lang), GOLD, SPECIAL_INK, dim=False)
    return None


def _draw_band(draw: ImageDraw.ImageDraw, band: _Band, left: int, right: int, mid: float) -> None:
    draw.rectangle((left, mid - 19, right - 1, mid + 19), fill=band.fill)
    text = _fit(band.label, 24, True, right - left - 12)
    _text(draw, ((left + right) / 2, mid), text, 24, fill=band.ink, anchor="mm")


def _outline_row(draw: ImageDraw.ImageDraw, cx: float, row_y: float, row_w: float) -> None:
    """A gold outline around a row of index cards (it won every pair; it is set otherwise)."""
    draw.rounded_rectangle(
        (cx - 4, row_y - 3, cx + row_w + 3, row_y + CARD_INDEX[1] + 2), 8, outline=GOLD, width=3
    )


def _row_chip_state(pair: PairResult | None, position: str, me: int) -> str:
    if pair is None:
        return "push"
    for outcome in pair.rows:
        if outcome.position == position:
            if outcome.winner is None:
                return "push"
            return "won" if outcome.winner == me else "lost"
    return "push"


@dataclass(frozen=True)
class _Panel:
    """One player's panel of the showdown: what it shows and where."""

    result: RoundResult
    pair_of: dict[tuple[int, int], PairResult]
    seat: int
    player: PlayerResult
    x: int
    y: int
    height: int
    lang: str
    deck: DeckStyle


def _showdown_panel(canvas: Image.Image, draw: ImageDraw.ImageDraw, panel: _Panel) -> None:
    result, p, player, lang = panel.result, panel.seat, panel.player, panel.lang
    x, y = panel.x, panel.y
    right = x + SD_PANEL_W
    cw, ch = CARD_INDEX
    opponents = [q for q in range(len(result.players)) if q != p]
    draw.rounded_rectangle(
        (x, y, right - 1, y + panel.height - 1), 10, fill=PANEL, outline=PANEL_EDGE
    )
    # header: a numbered badge, the name, the round score
    mid = y + SD_HEAD_H / 2
    badge = SD_CHIP + 3
    _paste(canvas, _chip_sprite(str(p + 1), "player", badge), x + SD_PAD, mid - badge / 2)
    total = _signed(player.total, lang)
    score_colour = GOLD if player.total > 0 else LOSS if player.total < 0 else TEXT
    _text(draw, (right - SD_PAD, mid), total, 28, fill=score_colour, anchor="rm")
    name_x = x + SD_PAD + badge + 8
    name_w = right - SD_PAD - _text_width(total, 28, True) - 10 - name_x
    _text(draw, (name_x, mid), _fit(player.name, 22, True, name_w), 22, fill=TEXT, anchor="lm")
    # the rows, front on top, each with its chips against every opponent beside it
    rows_top = y + SD_HEAD_H
    row_by_position = dict(zip(("back", "middle", "front"), player.rows or (), strict=False))
    band = _band(lang, surrendered=player.surrendered, fouled=player.fouled, special=player.special)
    dim = band is not None and band.dim
    row_y = rows_top
    for position in ROW_ORDER:
        states = [_row_chip_state(panel.pair_of.get((p, q)), position, p) for q in opponents]
        size = ROW_SIZES[position]
        row_w = size * cw + (size - 1) * SD_CARD_GAP
        cx = x + SD_PAD + (SD_CARDS_W - row_w) / 2
        if states and all(s == "won" for s in states):
            _outline_row(draw, cx, row_y, row_w)
        row = row_by_position.get(position)
        for k in range(size):
            sprite = (
                _index_card_sprite(row.cards[k].rank, row.cards[k].suit, dim, panel.deck)
                if row is not None
                else _back_sprite((cw, ch, 0))
            )
            _paste(canvas, sprite, cx + k * (cw + SD_CARD_GAP), row_y)
        step = (ch - SD_CHIP) / 2 if len(opponents) == 3 else SD_CHIP + 3
        chips_h = (len(opponents) - 1) * step + SD_CHIP
        for k, (q, state) in enumerate(zip(opponents, states, strict=True)):
            chip_y = row_y + (ch - chips_h) / 2 + k * step
            chip = _chip_sprite(str(q + 1), state, SD_CHIP)
            _paste(canvas, chip, right - SD_PAD - SD_CHIP, chip_y)
        row_y += ch + SD_ROW_GAP
    rows_bottom = row_y - SD_ROW_GAP
    if band is not None:
        _draw_band(draw, band, x, right, (rows_top + rows_bottom) / 2)
    if player.special:
        draw.rounded_rectangle(
            (x, rows_top - 4, right - 1, rows_bottom + 3), 9, outline=GOLD, width=3
        )
    # under the rows: the table sweep and the room fee
    notes = []
    if result.table_sweeper == p:
        notes.append(t("word.table_sweep", lang))
    if player.fee:
        notes.append(t("render.fee", lang, fee=_signed(-player.fee, lang)))
    if notes:
        strip_mid = rows_bottom + SD_PAD + SD_STRIP_H / 2
        colour = GOLD if result.table_sweeper == p else TEXT_DIM
        text = _fit(" · ".join(notes), 18, True, SD_PANEL_W - 2 * SD_PAD)
        _text(draw, (x + SD_PAD, strip_mid), text, 18, fill=colour, anchor="lm")


# --- the coach's review -----------------------------------------------------------------


REV_PANEL_W = SD_PAD + SD_CARDS_W + SD_PAD
REV_HEAD_H = 52  # room for a title on two lines


def render_review(review: Review, lang: str = "en", deck: DeckStyle = DeckStyle.CLASSIC) -> bytes:
    """The coach's review as JPEG bytes (``review.jpg``): the person's setting and the best
    setting side by side, each under its title and value (capsa.coach.review_text), in the
    showdown's index cards so that a phone reads it; each row of the best setting that
    differs from the person's outlined in gold; a declared special, a surrender or a foul
    named in a band across its rows. The row names are the embed's text."""
    text = review_text(review, lang)
    played = review.played
    differs = {
        position
        for k, position in enumerate(("back", "middle", "front"))
        if played is not None and set(played[k]) != set(review.best[k])
    }
    legend_h = SD_LEGEND_H if differs else 0
    width = 2 * MARGIN + 2 * REV_PANEL_W + SD_GAP
    panel_h = REV_HEAD_H + SD_ROWS_H + SD_PAD
    height = MARGIN + panel_h + legend_h + MARGIN
    canvas = Image.new("RGB", (width, height), BG)
    draw = ImageDraw.Draw(canvas)
    yours_band = _band(
        lang, surrendered=review.surrendered, fouled=review.fouled, special=review.declared
    )
    best_band = _band(
        lang, surrendered=review.best_surrender, fouled=False, special=review.best_declare
    )
    panels = (
        (text.yours_title, played, yours_band, frozenset[str]()),
        (text.best_title, review.best, best_band, frozenset(differs)),
    )
    for k, (title, rows, band, outlined) in enumerate(panels):
        x = MARGIN + k * (REV_PANEL_W + SD_GAP)
        _review_panel(canvas, draw, review.cards, rows, (x, MARGIN, panel_h), title, band, deck)
        for position in outlined:
            row_y = MARGIN + REV_HEAD_H + ROW_ORDER.index(position) * (CARD_INDEX[1] + SD_ROW_GAP)
            row_w = ROW_SIZES[position] * CARD_INDEX[0] + (ROW_SIZES[position] - 1) * SD_CARD_GAP
            _outline_row(draw, x + SD_PAD + (SD_CARDS_W - row_w) / 2, row_y, row_w)
    if differs:
        y = MARGIN + panel_h + 10
        draw.rounded_rectangle((MARGIN, y, MARGIN + 30, y + 20), 6, outline=GOLD, width=3)
        _text(
            draw,
            (MARGIN + 40, y + 10),
            _fit(t("render.row_differs", lang), 17, False, width - 2 * MARGIN - 40),
            17,
            False,
            fill=TEXT_DIM,
            anchor="lm",
        )
    return _jpeg(canvas)


def _review_panel(
    canvas: Image.Image,
    draw: ImageDraw.ImageDraw,
    cards: Sequence[Card],
    rows: tuple[Sequence[Card], Sequence[Card], Sequence[Card]] | None,
    box: tuple[int, int, int],
    title: str,
    band: _Band | None,
    deck: DeckStyle,
) -> None:
    """One setting of the review in a panel: its title, then its rows (front on top) in
    index cards; without rows (a surrender), the cards as dealt, high to low, 3-5-5."""
    x, y, panel_h = box
    right = x + REV_PANEL_W
    draw.rounded_rectangle((x, y, right - 1, y + panel_h - 1), 10, fill=PANEL, outline=PANEL_EDGE)
    room = REV_PANEL_W - 2 * SD_PAD
    if _text_width(title, 22, True) <= room:
        lines, size = [title], 22
    else:  # "Cách xếp tốt nhất · −1,36": the value goes on a line of its own
        lines, size = _wrap(title, 19, True, room), 19
    for k, line in enumerate(lines):
        mid = y + REV_HEAD_H / 2 + (k - (len(lines) - 1) / 2) * (size + 3)
        _text(draw, (x + REV_PANEL_W / 2, mid), line, size, fill=GOLD, anchor="mm")
    if rows is not None:
        by_position = dict(zip(("back", "middle", "front"), rows, strict=True))
        shown = [list(evaluate(by_position[p]).cards) for p in ROW_ORDER]
    else:
        ordered = sort_hand(cards)
        shown = [ordered[:3], ordered[3:8], ordered[8:]]
    cw, ch = CARD_INDEX
    dim = band is not None and band.dim
    rows_top = y + REV_HEAD_H
    row_y = rows_top
    for row in shown:
        row_w = len(row) * cw + (len(row) - 1) * SD_CARD_GAP
        cx = x + SD_PAD + (SD_CARDS_W - row_w) / 2
        for k, card in enumerate(row):
            sprite = _index_card_sprite(card.rank, card.suit, dim, deck)
            _paste(canvas, sprite, cx + k * (cw + SD_CARD_GAP), row_y)
        row_y += ch + SD_ROW_GAP
    if band is not None:
        _draw_band(draw, band, x, right, (rows_top + row_y - SD_ROW_GAP) / 2)


# --- standings ------------------------------------------------------------------------------


def render_standings(
    standings: Sequence[Standing], lang: str = "en", title: str | None = None
) -> bytes:
    """Match totals as a bar chart: medal with the place, name, bar from zero, total."""
    width = 640
    title_h = 48
    line_h = 46
    n = max(len(standings), 1)
    height = MARGIN + title_h + n * line_h + MARGIN
    canvas, draw = _titled_canvas(width, height, title_h, title or t("render.standings", lang))
    name_x = MARGIN + 40
    name_w = 170
    bar_left = name_x + name_w + 12
    value_w = 84
    bar_right = width - MARGIN - value_w - 8
    totals = [s.total for s in standings] or [0]
    low, high = min(0.0, *totals), max(0.0, *totals)
    span = (high - low) or 1.0
    zero_x = bar_left + (0 - low) / span * (bar_right - bar_left)
    y = MARGIN + title_h
    for k, standing in enumerate(standings):
        draw.rounded_rectangle(
            (MARGIN, y + 3, width - MARGIN - 1, y + line_h - 4),
            8,
            fill=PANEL if k % 2 == 0 else BG,
        )
        mid = y + line_h / 2
        _paste(canvas, _medal_sprite(standing.place), MARGIN + 4, mid - 15)
        _text(
            draw,
            (name_x, mid),
            _fit(standing.name, 20, True, name_w),
            20,
            fill=TEXT,
            anchor="lm",
        )
        end_x = bar_left + (standing.total - low) / span * (bar_right - bar_left)
        x0, x1 = sorted((zero_x, end_x))
        if x1 - x0 >= 1:
            fill = GOLD if standing.total > 0 else LOSS
            draw.rounded_rectangle((x0, mid - 11, x1, mid + 11), 4, fill=fill)
        colour = GOLD if standing.total > 0 else LOSS if standing.total < 0 else TEXT
        _text(
            draw,
            (width - MARGIN - 8, mid),
            _signed(standing.total, lang),
            22,
            fill=colour,
            anchor="rm",
        )
        y += line_h
    # the zero line across all bars
    draw.line((zero_x, MARGIN + title_h + 2, zero_x, y - 2), fill=(230, 240, 234), width=2)
    return _png(canvas)
