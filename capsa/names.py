"""Human names for rows, categories, bonuses and specials, in every catalogue language."""

from __future__ import annotations

from capsa.hands import Row
from capsa.i18n import rank_word, t

# "1 opponent", "3 opponents" (capsa.i18n.count_of)
OPPONENTS_WORDS = ("count.opponents.one", "count.opponents.other")

# Which ranks each category names: pair -> its pair, full house -> set over pair, ...
_PLURAL = {"pair", "two_pair", "three_of_a_kind", "full_house", "four_of_a_kind"}


def category_name(category: str, lang: str = "en") -> str:
    return t(f"cat.{category}", lang)


def row_name(row: Row, lang: str = "en") -> str:
    """For example "Full house, kings over fives" / "Full house, King dengan 5"."""
    plural = row.category in _PLURAL
    a = rank_word(row.lead_rank, lang, plural)
    b = ""
    if row.category in ("two_pair", "full_house"):
        b = rank_word((row.strength >> 12) & 0xF, lang, True)
    return t(f"row.{row.category}", lang, a=a, b=b)


def position_name(position: str, lang: str = "en") -> str:
    return t(f"pos.{position}", lang)


def special_name(special: str, lang: str = "en") -> str:
    return t(f"special.{special}", lang)
