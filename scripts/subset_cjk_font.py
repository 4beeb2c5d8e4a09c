"""Writes the CJK font subsets the pictures use: capsa/fonts/NotoSansCJKsc-*-subset.otf.

DejaVu Sans (capsa/fonts) has no Chinese characters, and the full Noto Sans CJK fonts are
about 20 MB each. The pictures only ever draw catalogue text and player names, so the bot
ships Noto Sans CJK SC (Regular and Bold) cut down to the characters that capsa/render.py
draws with the CJK font (capsa.render.is_cjk) and that some catalogue in capsa.i18n.LANGS
uses, plus the common full-width punctuation. Run it again after changing a catalogue;
tests/test_fonts.py fails while a character is missing.

    .venv/bin/python scripts/subset_cjk_font.py [--source-dir /usr/share/fonts/opentype/noto]

The source fonts come from Debian's fonts-noto-cjk package (apt-get install fonts-noto-cjk:
NotoSansCJK-Regular.ttc, NotoSansCJK-Bold.ttc); the face "Noto Sans CJK SC" is taken from
each collection. Licence: SIL Open Font License 1.1 (capsa/fonts/LICENSE-NotoSansCJK.txt).
The output is reproducible: the same catalogues and source fonts give the same bytes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from capsa.i18n import LANGS, catalog  # noqa: E402
from capsa.render import CJK_FONT_FILES, FONT_DIR, is_cjk  # noqa: E402

SOURCE_DIR = Path("/usr/share/fonts/opentype/noto")
SOURCES = {False: "NotoSansCJK-Regular.ttc", True: "NotoSansCJK-Bold.ttc"}
FACE = "Noto Sans CJK SC"
# full-width punctuation and digits a translator may reach for, whether used yet or not
EXTRA = "，。、：；！？（）《》「」『』【】〈〉～·…—０１２３４５６７８９"


def catalogue_characters(langs: Iterable[str] = LANGS) -> set[str]:
    """Every character of every value of every catalogue."""
    return {char for lang in langs for text in catalog(lang).values() for char in text}


def wanted_characters() -> set[str]:
    """The characters the subsets must hold: those the CJK font draws."""
    return {char for char in catalogue_characters() | set(EXTRA) if is_cjk(char)}


def _face(collection: Path) -> TTFont:
    fonts = TTCollection(collection, recalcTimestamp=False).fonts
    for font in fonts:
        name = font["name"].getDebugName(1) or ""
        if name.startswith(FACE):
            return font
    raise SystemExit(f"{collection}: no face named {FACE!r}")


def write_subset(source: Path, target: Path, chars: set[str]) -> int:
    font = _face(source)
    missing = sorted(c for c in chars if ord(c) not in font.getBestCmap())
    if missing:
        raise SystemExit(f"{source} has no glyph for {''.join(missing)!r}")
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.recalc_timestamp = False
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(ord(c) for c in chars))
    subsetter.subset(font)
    font.save(str(target))
    return target.stat().st_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source-dir", type=Path, default=SOURCE_DIR)
    args = parser.parse_args(argv)
    chars = wanted_characters()
    for bold, name in SOURCES.items():
        target = FONT_DIR / CJK_FONT_FILES[bold]
        size = write_subset(args.source_dir / name, target, chars)
        print(f"{target.relative_to(ROOT)}: {len(chars)} characters, {size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
