"""The bot's text in every language: one TOML catalogue per language, one lookup function.

Each language in :data:`LANGS` has a file ``capsa/locales/<code>.toml`` of flat quoted keys
(``"cmd.new" = "new"``) whose values are :meth:`str.format` templates, and may have a folder
``capsa/locales/<code>/`` of more such files, one a feature (``ratings.toml``): together they
are the language's catalogue, and a key written in two of them is an error. All of them are read
when this module is imported, so no other module has to be imported first. English is the
reference: a key missing in another language falls back to English (tests/test_i18n.py
makes sure none is missing). Adding a language is one new file and its code in
:data:`LANGS`; nothing else in the code names a language.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

LANGS: tuple[str, ...] = ("en", "id", "zh-CN", "vi")
DEFAULT_LANG = "en"  # the reference catalogue and the fallback for everything
LOCALES_DIR = Path(__file__).parent / "locales"


class CatalogueError(ValueError):
    """A catalogue file that cannot be read: bad TOML, a duplicate key, a non-text value."""


def load_catalogue(path: Path) -> dict[str, str]:
    """Read one catalogue file; a duplicate key or a value that is not text is an error."""
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:  # duplicate keys land here too
        raise CatalogueError(f"{path}: {exc}") from exc
    for key, value in data.items():
        if not isinstance(value, str):
            raise CatalogueError(
                f"{path}: {key!r} is not a text value (write every key quoted, "
                f'"{key}.x" = "...", never as a table)'
            )
    return data


def catalogue_files(lang: str) -> list[Path]:
    """The files of one language's catalogue: ``<lang>.toml``, then its folder's, by name."""
    return [LOCALES_DIR / f"{lang}.toml", *sorted((LOCALES_DIR / lang).glob("*.toml"))]


def load_language(lang: str) -> dict[str, str]:
    """One language's whole catalogue, from all of its files."""
    merged: dict[str, str] = {}
    for path in catalogue_files(lang):
        part = load_catalogue(path)
        twice = sorted(set(part) & set(merged))
        if twice:
            raise CatalogueError(f"{path}: {', '.join(twice)} already written in another file")
        merged.update(part)
    return merged


def _load_all() -> Mapping[str, Mapping[str, str]]:
    return MappingProxyType({lang: MappingProxyType(load_language(lang)) for lang in LANGS})


_CATALOGUES = _load_all()
_DEFAULT = _CATALOGUES[DEFAULT_LANG]


def t(key: str, lang: str = DEFAULT_LANG, **values: object) -> str:
    """The text of ``key`` in ``lang`` (English if either is unknown there), formatted."""
    text = _CATALOGUES.get(lang, _DEFAULT).get(key)
    if text is None:
        text = _DEFAULT[key]  # KeyError for a key that exists nowhere
    return text.format(**values) if values else text


def has(key: str) -> bool:
    return key in _DEFAULT


def keys() -> set[str]:
    return set(_DEFAULT)


def catalog(lang: str) -> dict[str, str]:
    """A copy of one language's catalogue as read from its file (no English fallback)."""
    return dict(_CATALOGUES[lang])


def lang_from_locale(locale: str | None) -> str:
    """The language in :data:`LANGS` that serves a Discord locale (``id``, ``en-US``, ``zh-TW``).

    An exact match first (``zh-CN``), then a catalogue named after the locale's language
    (``en`` for ``en-GB``), then any catalogue of that language (``zh-CN`` for ``zh-TW``);
    otherwise English.
    """
    if not locale:
        return DEFAULT_LANG
    wanted = str(locale).lower().replace("_", "-")
    language = wanted.split("-")[0]
    by_code = {lang.lower(): lang for lang in LANGS}
    if wanted in by_code:
        return by_code[wanted]
    if language in by_code:
        return by_code[language]
    for lang in LANGS:
        if lang.lower().split("-")[0] == language:
            return lang
    return DEFAULT_LANG


def rank_word(rank: int, lang: str, plural: bool = False) -> str:
    """A rank (2 to 14) as row names use it: "ace"/"aces" in English, "As" in Indonesian."""
    return t(f"rank.{rank}.plural" if plural else f"rank.{rank}", lang)


def number(
    value: float, lang: str, digits: int = 1, sign: bool = False, fixed: bool = False
) -> str:
    """``value`` as ``lang`` writes numbers: at most ``digits`` decimals (none for a whole
    number; exactly ``digits`` with ``fixed``: "12.0"), its own decimal mark ("-0,8" in
    Indonesian and Vietnamese), a plus sign on a positive value with ``sign``."""
    rounded = round(value, digits)
    text = f"{rounded:.{digits}f}"
    if digits and not fixed:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    text = text.replace(".", t("num.decimal", lang))
    return f"+{text}" if sign and rounded > 0 else text


def count_of(forms: tuple[str, str], count: int, lang: str) -> str:
    """The first key of ``forms`` for 1, else the second: "1 round", "2 rounds" (the same
    text twice where the language has one form)."""
    return t(forms[0] if count == 1 else forms[1], lang, count=count)
