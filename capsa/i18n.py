"""English and Indonesian text: one catalogue, one lookup function.

Modules register their own strings with :func:`register`; everything user-facing goes
through :func:`t`. Every key must exist in both languages (a test checks it).
"""

from __future__ import annotations

LANGS = ("en", "id")
_CATALOG: dict[str, dict[str, str]] = {"en": {}, "id": {}}


def register(entries: dict[str, tuple[str, str]]) -> None:
    """Add strings as ``key: (english, indonesian)``."""
    for key, (en, id_) in entries.items():
        _CATALOG["en"][key] = en
        _CATALOG["id"][key] = id_


def t(key: str, lang: str = "en", **values: object) -> str:
    table = _CATALOG.get(lang, _CATALOG["en"])
    text = table.get(key)
    if text is None:
        text = _CATALOG["en"][key]
    return text.format(**values) if values else text


def has(key: str) -> bool:
    return key in _CATALOG["en"]


def keys() -> set[str]:
    return set(_CATALOG["en"])


def catalog(lang: str) -> dict[str, str]:
    return dict(_CATALOG[lang])


def lang_from_locale(locale: str | None) -> str:
    """Discord locales: ``id`` is Indonesian; everything else falls back to English."""
    return "id" if locale and str(locale).lower().startswith("id") else "en"


_RANK_WORDS = {
    # rank: (en singular, en plural, id)
    2: ("two", "twos", "2"),
    3: ("three", "threes", "3"),
    4: ("four", "fours", "4"),
    5: ("five", "fives", "5"),
    6: ("six", "sixes", "6"),
    7: ("seven", "sevens", "7"),
    8: ("eight", "eights", "8"),
    9: ("nine", "nines", "9"),
    10: ("ten", "tens", "10"),
    11: ("jack", "jacks", "Jack"),
    12: ("queen", "queens", "Queen"),
    13: ("king", "kings", "King"),
    14: ("ace", "aces", "As"),
}


def rank_word(rank: int, lang: str, plural: bool = False) -> str:
    en, en_plural, id_ = _RANK_WORDS[rank]
    if lang == "id":
        return id_
    return en_plural if plural else en
