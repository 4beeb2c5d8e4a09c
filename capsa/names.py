"""Human names for rows, categories, bonuses and specials, in English and Indonesian."""

from __future__ import annotations

from capsa.hands import Row
from capsa.i18n import rank_word, register, t

register(
    {
        # categories
        "cat.high_card": ("High card", "Kartu tinggi"),
        "cat.pair": ("Pair", "Sepasang"),
        "cat.two_pair": ("Two pair", "Dua pasang"),
        "cat.three_of_a_kind": ("Three of a kind", "Tiga kembar"),
        "cat.straight": ("Straight", "Straight"),
        "cat.flush": ("Flush", "Flush"),
        "cat.full_house": ("Full house", "Full house"),
        "cat.four_of_a_kind": ("Four of a kind", "Empat kembar"),
        "cat.straight_flush": ("Straight flush", "Straight flush"),
        "cat.royal_flush": ("Royal flush", "Royal flush"),
        # row names
        "row.high_card": ("High card, {a}", "Kartu tinggi {a}"),
        "row.pair": ("Pair of {a}", "Sepasang {a}"),
        "row.two_pair": ("Two pair, {a} and {b}", "Dua pasang, {a} dan {b}"),
        "row.three_of_a_kind": ("Three of a kind, {a}", "Tiga kembar {a}"),
        "row.straight": ("Straight, {a} high", "Straight, puncak {a}"),
        "row.flush": ("Flush, {a} high", "Flush, puncak {a}"),
        "row.full_house": ("Full house, {a} over {b}", "Full house, {a} dengan {b}"),
        "row.four_of_a_kind": ("Four of a kind, {a}", "Empat kembar {a}"),
        "row.straight_flush": ("Straight flush, {a} high", "Straight flush, puncak {a}"),
        "row.royal_flush": ("Royal flush", "Royal flush"),
        # rows
        "pos.back": ("Back", "Bawah"),
        "pos.middle": ("Middle", "Tengah"),
        "pos.front": ("Front", "Atas"),
        # specials
        "special.dragon": ("Dragon", "Naga"),
        "special.six_pairs": ("Six pairs", "Enam pasang"),
        "special.three_straights": ("Three straights", "Tiga straight"),
        "special.three_flushes": ("Three flushes", "Tiga flush"),
        # scoring words
        "word.foul": ("Fouled", "Salah susun"),
        "word.sweep": ("Sweep", "Sapu"),
        "word.table_sweep": ("Sweep of the table", "Sapu bersih"),
        "word.push": ("Push", "Seri"),
        "word.surrender": ("Surrendered", "Menyerah"),
        # seats
        "seat.computer": ("Computer {n}", "Komputer {n}"),
    }
)

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
