"""English and Indonesian text: every key in both languages."""

from __future__ import annotations

import importlib
import pkgutil
import string

import pytest

import capsa
from capsa import i18n
from capsa.i18n import LANGS, catalog, has, keys, lang_from_locale, rank_word, register, t

# words that players really say differently (RULES §7): these must not be left in English
MUST_DIFFER = [
    "pos.back",
    "pos.middle",
    "pos.front",
    "special.dragon",
    "special.six_pairs",
    "special.three_straights",
    "special.three_flushes",
    "word.foul",
    "word.sweep",
    "word.table_sweep",
    "cat.high_card",
    "cat.pair",
    "cat.two_pair",
    "cat.three_of_a_kind",
    "cat.four_of_a_kind",
]


# every module of the package registers its own strings when imported: load them all
for _module in pkgutil.iter_modules(capsa.__path__):
    if _module.name != "__main__":
        importlib.import_module(f"capsa.{_module.name}")


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_key_in_both_languages() -> None:
    assert LANGS == ("en", "id")
    en, id_ = catalog("en"), catalog("id")
    assert set(en) == set(id_)
    assert len(en) >= 30
    for key in keys():
        assert en[key].strip() and id_[key].strip(), key
        # the same placeholders, so a translation cannot break formatting
        assert _fields(en[key]) == _fields(id_[key]), key


@pytest.mark.parametrize("key", MUST_DIFFER)
def test_words_that_should_differ(key: str) -> None:
    assert has(key)
    assert t(key, "en") != t(key, "id")


def test_rules_words() -> None:
    assert t("pos.back", "id") == "Bawah"
    assert t("pos.middle", "id") == "Tengah"
    assert t("pos.front", "id") == "Atas"
    assert t("word.foul", "id") == "Salah susun"
    assert t("word.sweep", "id") == "Sapu"
    assert t("word.table_sweep", "id") == "Sapu bersih"
    assert t("special.dragon", "id") == "Naga"
    assert t("special.six_pairs", "id") == "Enam pasang"


def test_lookup_and_fallbacks() -> None:
    assert t("row.pair", "en", a="aces") == "Pair of aces"
    assert t("row.pair", "id", a="As") == "Sepasang As"
    assert t("pos.back", "fr") == "Back"  # unknown language: English
    with pytest.raises(KeyError):
        t("no.such.key")
    assert lang_from_locale("id") == "id"
    assert lang_from_locale("ID-id") == "id"
    assert lang_from_locale("en-US") == "en"
    assert lang_from_locale(None) == "en"


def test_rank_words() -> None:
    assert rank_word(14, "en") == "ace" and rank_word(14, "en", True) == "aces"
    assert rank_word(6, "en", True) == "sixes"
    assert rank_word(14, "id") == "As" and rank_word(10, "id") == "10"
    for rank in range(2, 15):
        assert rank_word(rank, "en") and rank_word(rank, "en", True) and rank_word(rank, "id")


def test_register_needs_both_languages(monkeypatch) -> None:
    monkeypatch.setattr(i18n, "_CATALOG", {"en": {}, "id": {}})
    register({"x.hello": ("Hello", "Halo")})
    assert t("x.hello", "id") == "Halo" and keys() == {"x.hello"}
    with pytest.raises(ValueError):
        register({"x.bad": ("only English",)})  # type: ignore[dict-item]
