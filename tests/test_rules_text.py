"""The in-bot rules reference: limits, numbers taken from the preset, both languages."""

from __future__ import annotations

import re
from dataclasses import replace
from types import MappingProxyType

import pytest

from capsa.cards import CapsaError, parse_cards
from capsa.hands import ALL_CATEGORIES
from capsa.i18n import LANGS, catalog
from capsa.names import category_name, position_name, special_name
from capsa.presets import PRESETS, SPECIALS, get_preset
from capsa.rules_text import (
    COMMAND_GROUP,
    MAX_BODY,
    MAX_HEADING,
    MAX_INTRO,
    MAX_SECTIONS,
    MAX_TITLE,
    TOPICS,
    RulesPage,
    rules_command,
    rules_page,
    sweep_example,
)
from capsa.scoring import Seat, score_round
from capsa.settings import ROUNDS, SEATS
from cogs.capsa import Capsa

# The languages whose wording the tests below check; the limits are checked for all LANGS.
WORDED = ("en", "id")

# Every preset as shipped, plus the table options switched the other way.
VARIANTS = {
    **PRESETS,
    "sayapoker+fee": get_preset("sayapoker", {"room_fee": True}),
    "chinese-poker 2-4+surrender": get_preset(
        "chinese-poker", {"method": "2-4", "surrender": True}
    ),
}


def text_of(page: RulesPage) -> str:
    parts = [page.title, page.intro]
    for heading, body in page.sections:
        parts += [heading, body]
    return "\n".join(parts)


def section(page: RulesPage, heading: str) -> str:
    for h, body in page.sections:
        if h == heading:
            return body
    raise AssertionError(f"no section {heading!r} in {[h for h, _ in page.sections]}")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("topic", TOPICS)
def test_every_page_fits_discord(topic, variant, lang):
    page = rules_page(topic, VARIANTS[variant], lang)
    assert 0 < len(page.title) <= MAX_TITLE
    assert 0 < len(page.intro) <= MAX_INTRO == 1500
    assert 1 <= len(page.sections) <= MAX_SECTIONS == 10
    for heading, body in page.sections:
        assert 0 < len(heading) <= MAX_HEADING == 256
        assert 0 < len(body.strip()) <= MAX_BODY == 1024
    # A Discord embed holds at most 6000 characters in all.
    assert len(text_of(page)) <= 6000
    # No placeholder left unformatted.
    assert not re.search(r"\{\w*\}", text_of(page))


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("topic", TOPICS)
def test_english_and_indonesian_differ(topic, variant):
    en = rules_page(topic, VARIANTS[variant], "en")
    id_ = rules_page(topic, VARIANTS[variant], "id")
    assert en.title != id_.title
    assert en.intro != id_.intro
    assert en != id_
    assert len(en.sections) == len(id_.sections)


def test_pages_are_frozen():
    page = rules_page("overview", PRESETS["standard"])
    with pytest.raises(AttributeError):
        page.title = "x"  # type: ignore[misc]
    assert isinstance(page.sections, tuple)


@pytest.mark.parametrize("lang", LANGS)
def test_unknown_topic_names_it_and_the_valid_ones(lang):
    with pytest.raises(CapsaError) as err:
        rules_page("royalties", PRESETS["standard"], lang)
    message = str(err.value)
    assert "royalties" in message
    for topic in TOPICS:
        assert topic in message


def test_topic_is_forgiving_about_case_and_blanks():
    preset = PRESETS["standard"]
    assert rules_page(" Scoring ", preset) == rules_page("scoring", preset)
    assert rules_page(None, preset) == rules_page("overview", preset)
    assert rules_page("", preset) == rules_page("overview", preset)


# --- bonuses: the numbers come from row_values -------------------------------------------


@pytest.mark.parametrize("lang", WORDED)
@pytest.mark.parametrize("name", list(PRESETS))
def test_bonus_table_matches_the_preset(name, lang):
    preset = PRESETS[name]
    page = rules_page("bonuses", preset, lang)
    sign = "+" if preset.scoring == "units" else ""
    listed = 0
    for position in ("front", "middle", "back"):
        heading = [
            h for h, _ in page.sections if position_name(position, lang).lower() in h.lower()
        ]
        assert len(heading) == 1, heading
        body = section(page, heading[0])
        lines = body.splitlines()
        for category in ALL_CATEGORIES:
            line = f"**{category_name(category, lang)}**: {sign}"
            if (position, category) in preset.row_values:
                expected = f"{line}{preset.row_value(position, category)}"
                assert expected in lines, (expected, body)
                listed += 1
            else:
                assert not any(x.startswith(line) for x in lines)
    assert listed == len(preset.row_values)


def test_bonus_row_headings_are_each_languages_own_words():
    def headings(lang: str) -> list[str]:
        return [h for h, _ in rules_page("bonuses", PRESETS["standard"], lang).sections[:3]]

    assert headings("en") == ["Front row", "Middle row", "Back row"]
    assert headings("id") == ["Baris atas", "Baris tengah", "Baris bawah"]


def test_bonus_examples_from_the_brief():
    def middle(name: str, lang: str = "en") -> str:
        page = rules_page("bonuses", PRESETS[name], lang)
        return section(page, "Middle row" if lang == "en" else "Baris tengah")

    assert "**Full house**: 3" in middle("standard").splitlines()
    assert "**Full house**: 4" in middle("indocapsa").splitlines()
    assert "**Full house**: +2" in middle("chinese-poker").splitlines()
    assert "**Full house**: 3" in middle("sayapoker", "id").splitlines()
    cp = rules_page("bonuses", PRESETS["chinese-poker"])
    assert "royalt" in cp.intro.lower()
    assert "royalti" in rules_page("bonuses", PRESETS["chinese-poker"], "id").intro.lower()
    # The losing-bonus example uses the preset's back values.
    std = text_of(rules_page("bonuses", PRESETS["standard"]))
    assert "(worth 7)" in std and "pays the winner 9" in std
    assert "1 + 5 = 6" in text_of(cp)


def test_numbers_follow_the_object_not_a_copy():
    """A changed preset object changes the text: nothing is hard-coded."""
    base = PRESETS["standard"]
    values = dict(base.row_values)
    values[("middle", "full_house")] = 37
    values[("front", "three_of_a_kind")] = 29
    odd = replace(
        base,
        row_values=MappingProxyType(values),
        sweep_multiplier=5,
        table_sweep_multiplier=11,
        table_sweep_min_opponents=3,
        foul_multiplier=7,
        specials=MappingProxyType({"dragon": 99, "six_pairs": 41}),
    )
    bonuses = text_of(rules_page("bonuses", odd))
    assert "**Full house**: 37" in bonuses and "**Three of a kind**: 29" in bonuses
    assert "×5" in bonuses and "×11" in bonuses
    scoring = text_of(rules_page("scoring", odd))
    assert "29 + 1 + 1 = 31, ×5 for the sweep = **155**" in scoring
    assert "at least 3 opponents" in scoring and "×11 instead of ×5" in scoring
    assert "×7 (×11 to a player with a sweep of the table)" in scoring
    assert "Dragon 99, Six pairs 41" in scoring
    specials = rules_page("specials", odd)
    headings = [h for h, _ in specials.sections]
    assert "Dragon: 99 points" in headings and "Six pairs: 41 points" in headings
    assert "Three straights, Three flushes" in text_of(specials)
    presets = text_of(rules_page("presets", odd))
    assert "Full house 37" in presets and "×7" in presets


# --- scoring -------------------------------------------------------------------------------

# Winner: front trips, middle straight, back flush. Loser: weaker in every row, not fouled.
WINNER = Seat(
    "A",
    back=tuple(parse_cards("KH JH 9H 6H 3H")),
    middle=tuple(parse_cards("9S 8D 7C 6S 5D")),
    front=tuple(parse_cards("4S 4D 4C")),
)
LOSER = Seat(
    "B",
    back=tuple(parse_cards("QS QD 8S 8H 2D")),
    middle=tuple(parse_cards("TS TD AD KC 3C")),
    front=tuple(parse_cards("JC 7D 2C")),
)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_sweep_example_agrees_with_the_engine(variant):
    preset = VARIANTS[variant]
    result = score_round([WINNER, LOSER], preset)
    example = sweep_example(preset)
    assert result.players[0].points == example["total"]
    for lang in LANGS:
        sweep = rules_page("scoring", preset, lang).sections[1][1]
        assert f"**{example['total']}**" in sweep


def test_sweep_examples_match_rules_md():
    assert sweep_example(PRESETS["standard"])["total"] == 14  # RULES §5.1: 7 x 2
    assert sweep_example(PRESETS["sayapoker"])["total"] == 10  # 6 + 4


STANDARD_SCORING_EN = [
    "5 + 1 + 1 = 7, ×2 for the sweep = **14**",
    "at least 2 opponents",
    "×4 instead of ×2",
    "×2 (×4 to a player with a sweep of the table)",
    "Dragon 13, Six pairs 3, Three straights 3, Three flushes 3",
    "A sweep multiplies the whole total between the two players",
]


def test_scoring_standard():
    text = text_of(rules_page("scoring", PRESETS["standard"]))
    for piece in STANDARD_SCORING_EN:
        assert piece in text
    assert "Room fee" not in text and "Surrender" not in text
    idn = text_of(rules_page("scoring", PRESETS["standard"], "id"))
    for piece in ("sapu", "Sapu bersih", "Salah susun", "×4, bukan ×2", "Naga 13", "**14**"):
        assert piece in idn


def test_scoring_sayapoker_base_mode_fee_and_foul():
    text = text_of(rules_page("scoring", PRESETS["sayapoker"]))
    assert "only the base 1 per row" in text
    assert "3 × 2 = 6, plus 5 − 1 = 4 for the trips: **10**" in text
    assert "at least 3 opponents (so only at a full table of 4)" in text
    assert "multiplied ×4," in text  # the foul, at any table
    assert "Dragon 208" in text and "Six pairs" not in text
    assert "3% is taken" in text and "At this table: **off**" in text
    on = text_of(rules_page("scoring", VARIANTS["sayapoker+fee"]))
    assert "At this table: **on**" in on and "except for the room fee" in on


def test_scoring_indocapsa_foul_multiplier():
    text = text_of(rules_page("scoring", PRESETS["indocapsa"]))
    assert "×3 (×4 to a player with a sweep of the table)" in text
    assert "6 + 1 + 1 = 8, ×2 for the sweep = **16**" in text
    assert "Dragon 78, Six pairs 18" in text


def test_scoring_chinese_poker_units_and_methods():
    text = text_of(rules_page("scoring", PRESETS["chinese-poker"]))
    assert "Nothing is ever multiplied" in text
    assert "method 1-6" in text and "a sweep is worth 6" in text
    assert "3 + 3 + 3 = **9**" in text
    assert "pays nothing extra for a sweep of the table" in text
    assert "6 units each" in text
    assert "push" in text
    assert "pay 3 units to each player still in" in text and "**off**" in text
    other = text_of(rules_page("scoring", VARIANTS["chinese-poker 2-4+surrender"]))
    assert "2-1 pays 2 and a sweep pays 4" in other
    assert "3 + 3 + 1 = **7**" in other
    assert "4 units each" in other
    assert "This table uses **2-4**" in other and "At this table: **on**" in other


# --- hands, setting, specials, presets, overview ---------------------------------------------


@pytest.mark.parametrize("lang", WORDED)
def test_hands_strongest_first_and_front_rows(lang):
    page = rules_page("hands", PRESETS["standard"], lang)
    five = page.sections[0][1]
    positions = [five.index(f"**{category_name(c, lang)}**") for c in reversed(ALL_CATEGORIES)]
    assert positions == sorted(positions)
    assert "A-2-3-4-5" in five
    front = page.sections[1][1]
    names = [category_name(c, lang) for c in ("three_of_a_kind", "pair", "high_card")]
    assert [front.index(f"**{n}**") for n in names] == sorted(
        front.index(f"**{n}**") for n in names
    )
    assert "**Straight**" not in front and "**Flush**" not in front


def test_hands_tiebreak_follows_the_preset():
    ties = {name: rules_page("hands", p).sections[2][1] for name, p in PRESETS.items()}
    assert ties["standard"] == ties["indocapsa"]
    assert "key card" in ties["standard"] and "never tie" in ties["standard"]
    assert "early" in ties["sayapoker"]
    assert "push" in ties["chinese-poker"]
    assert len({ties["standard"], ties["sayapoker"], ties["chinese-poker"]}) == 3


@pytest.mark.parametrize("lang", WORDED)
def test_setting_explains_order_foul_and_builder(lang):
    page = rules_page("setting", PRESETS["indocapsa"], lang, turn_seconds=90)
    text = text_of(page)
    assert "8♣ 8♦ A♠" in text
    assert "×3" in text  # the preset's foul multiplier
    if lang == "en":
        words = ("**Back**", "**Middle**", "**Auto-arrange**", "**Submit**", "**Declare**")
        for word in (*words, "90 seconds", "**Show my hand**"):
            assert word in text
    else:
        words = ("**Bawah**", "**Tengah**", "**Susun otomatis**", "**Kirim**", "**Nyatakan**")
        for word in (*words, "90 detik", "**Lihat kartuku**"):
            assert word in text
        assert "salah susun" in text and "baris atas" in text
    assert "90" not in text_of(rules_page("setting", PRESETS["indocapsa"], lang))


@pytest.mark.parametrize("lang", WORDED)
@pytest.mark.parametrize("name", list(PRESETS))
def test_specials_list_the_preset_values(name, lang):
    preset = PRESETS[name]
    page = rules_page("specials", preset, lang)
    headings = [h for h, _ in page.sections]
    shown = [
        s for s in SPECIALS if any(h.startswith(special_name(s, lang) + ":") for h in headings)
    ]
    assert shown == [s for s in SPECIALS if s in preset.specials]
    for special, value in preset.specials.items():
        assert any(
            h.startswith(special_name(special, lang) + ":") and str(value) in h for h in headings
        )
    if lang == "id" and "dragon" in preset.specials:
        assert any(h.startswith("Naga:") for h in headings)


def test_specials_same_special_rule():
    assert "Nobody pays" in text_of(rules_page("specials", PRESETS["standard"]))
    assert "better one wins" in text_of(rules_page("specials", PRESETS["indocapsa"]))
    saya = text_of(rules_page("specials", PRESETS["sayapoker"]))
    assert "208" in saya and "Six pairs, Three straights, Three flushes" in saya


@pytest.mark.parametrize("lang", WORDED)
def test_presets_compares_all_four(lang):
    page = rules_page("presets", PRESETS["indocapsa"], lang)
    assert len(page.sections) == len(PRESETS)
    for (heading, body), (name, preset) in zip(page.sections, PRESETS.items(), strict=True):
        assert heading.startswith(name)
        assert (name == "indocapsa") == (heading != name)  # only the server's preset is marked
        fh = preset.row_value("middle", "full_house")
        sign = "+" if preset.scoring == "units" else ""
        assert f"Full house {sign}{fh}" in body
        for special, value in preset.specials.items():
            assert f"{special_name(special, lang)} {value}" in body
        if preset.table_sweep_multiplier:
            assert f"×{preset.table_sweep_multiplier}" in body
            assert str(preset.table_sweep_min_opponents) in body
    text = text_of(page)
    assert "3%" in text  # sayapoker room fee rate
    assert "1-6" in text and "2-4" in text


def test_overview_names_the_preset_and_topics():
    for lang in LANGS:
        page = rules_page("overview", PRESETS["sayapoker"], lang)
        assert "**sayapoker**" in page.intro
        more = page.sections[-1][1]
        for topic in TOPICS[1:]:
            assert f"`{rules_command(lang, topic)}`" in more
    idn = text_of(rules_page("overview", PRESETS["standard"], "id"))
    for word in ("baris bawah", "baris tengah", "baris atas", "sekop", "wajik", "ronde"):
        assert word in idn


def test_every_rules_string_is_translated():
    en, idn = catalog("en"), catalog("id")
    keys = [k for k in en if k.startswith("rules.")]
    assert len(keys) >= 150
    # Pure formatting strings may be the same in both languages; prose never is.
    same_ok = {
        "rules.list_sep",
        "rules.overview.more.line",
        "rules.hands.line",
        "rules.hands.front.line",
        "rules.bonuses.line.value",
        "rules.bonuses.line.units",
        "rules.presets.bonus_row",
        "rules.presets.sweep",
        # numbers and names that are the same in both languages
        "rules.method.name.1-6",
        "rules.method.name.2-4",
        "rules.word.fee",  # the fee's name as RULES §5.1 gives it (sayapoker: room fee)
        "rules.word.fee.h",
    }
    for key in keys:
        assert idn[key].strip(), key
        assert set(re.findall(r"\{(\w+)\}", en[key])) == set(re.findall(r"\{(\w+)\}", idn[key])), (
            key
        )
        if key not in same_ok:
            assert en[key] != idn[key], key


def test_setting_names_the_servers_timeout_action():
    preset = PRESETS["standard"]

    def timer(lang: str, **kw) -> str:
        page = rules_page("setting", preset, lang, **kw)
        return section(page, "The countdown" if lang == "en" else "Hitung mundur")

    assert "auto-arranges" in timer("en", timeout_action="auto")
    assert "fouled" not in timer("en", timeout_action="auto")
    assert "counts as fouled" in timer("en", timeout_action="foul")
    either = timer("en")
    assert "auto-arranged" in either and "fouled" in either
    assert "disusun otomatis" in timer("id", timeout_action="auto")
    assert "dianggap salah susun" in timer("id", timeout_action="foul")
    assert "120 detik" in timer("id", turn_seconds=120, timeout_action="auto")
    with pytest.raises(CapsaError):
        rules_page("setting", preset, "en", timeout_action="pass")


# --- every name through the catalogue, and each house's own words ---------------------------

# What the code calls things (Preset fields and options): a reader never sees these names.
INTERNAL_NAMES = (
    "multiply",
    "base",
    "units",
    "key_card",
    "early",
    "compare",
    "room_fee",
    "surrender",
    "method",
)


def pages(preset, lang: str, topics=TOPICS) -> str:
    return "\n".join(text_of(rules_page(topic, preset, lang)) for topic in topics)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_no_internal_name_in_the_indonesian_pages(variant):
    """ "Mode hitungan: **multiply**" and "room fee 3% (mati)" were the code's own names."""
    text = pages(VARIANTS[variant], "id")
    for name in INTERNAL_NAMES:
        assert not re.search(rf"\b{name}\b", text, re.IGNORECASE), name


@pytest.mark.parametrize("lang", WORDED)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_scoring_mode_is_described_not_named(variant, lang):
    preset = VARIANTS[variant]
    intro = rules_page("scoring", preset, lang).intro
    assert preset.scoring not in intro.split("**")[1::2]  # never shown as a bold name
    assert f"{preset.scoring} (" not in intro
    assert not re.search(r"\bmultiply\b", pages(preset, lang))


def test_option_states_are_words_of_the_language():
    fee_off = get_preset("sayapoker")
    idn = section(rules_page("presets", fee_off, "id"), "sayapoker (server ini)")
    assert "room fee 3% (sekarang tidak aktif)" in idn
    on = section(rules_page("presets", VARIANTS["sayapoker+fee"], "id"), "sayapoker (server ini)")
    assert "room fee 3% (sekarang aktif)" in on
    en = section(rules_page("presets", fee_off, "en"), "sayapoker (this server)")
    assert "a room fee of 3% (now off)" in en
    cp = section(rules_page("presets", fee_off, "id"), "chinese-poker")
    assert "metode 1-6 atau 2-4 (sekarang 1-6)" in cp and "(sekarang tidak aktif)" in cp


# RULES §7, "words players use": sayapoker's own words for a sweep, a sweep of the table and
# a fouled hand. RULES names its fee "room fee" (§5.1) and gives no other word for it.
SAYAPOKER_WORDS = ("tembus", "super", "tembus keliling", "PAO", "room fee")
COMMON_WORDS = ("sapu", "sapu bersih", "salah susun")


def test_sayapoker_pages_use_the_houses_own_words():
    saya = get_preset("sayapoker")
    own = [topic for topic in TOPICS if topic != "presets"]  # that page shows every house
    idn = (
        pages(saya, "id", own)
        + "\n"
        + section(rules_page("presets", saya, "id"), "sayapoker (server ini)")
    )
    for word in SAYAPOKER_WORDS:
        assert re.search(rf"\b{word}\b", idn, re.IGNORECASE), word
    for word in COMMON_WORDS:
        assert not re.search(rf"\b{word}\b", idn, re.IGNORECASE), word
    scoring = rules_page("scoring", saya, "id")
    headings = [h for h, _ in scoring.sections]
    assert {"Tembus", "Super (tembus keliling)", "PAO"} <= set(headings)
    assert "itu namanya tembus" in section(scoring, "Tembus")
    assert "itu namanya super" in section(scoring, "Super (tembus keliling)")
    assert "Kalau urutannya salah, kartumu PAO." in text_of(rules_page("setting", saya, "id"))
    # English readers get English, with the house's word beside the heading.
    en = [h for h, _ in rules_page("scoring", saya, "en").sections]
    assert {"Sweep (tembus)", "Sweep of the table (super, tembus keliling)"} <= set(en)
    assert "Fouled hand (PAO)" in en
    # On the presets page each house is described in its own words.
    summary = rules_page("presets", get_preset("standard"), "id")
    assert "Tembus: ×2" in section(summary, "sayapoker")
    assert "PAO bayar: ×4" in section(summary, "sayapoker")
    assert "Sapu: ×2" in section(summary, "standard (server ini)")


@pytest.mark.parametrize("name", [n for n in PRESETS if n != "sayapoker"])
def test_other_presets_keep_the_common_words(name):
    idn = pages(PRESETS[name], "id", [t for t in TOPICS if t != "presets"])
    for word in ("tembus", "super", "PAO"):
        assert not re.search(rf"\b{word}\b", idn), word
    assert "salah susun" in idn and "sapu" in idn


def test_commands_are_named_as_the_readers_client_shows_them():
    """A command on a page has the names the command tree is translated to (cmd.*, opt.*
    and the topic choices' rules.topic.*), so a zh-CN reader sees /capsa 规则; the table
    options are chosen with /capsa new's and /capsa settings' options, named so too."""
    assert rules_command("en") == "/capsa rules"
    assert rules_command("en", "bonuses") == "/capsa rules topic:Bonus hands"
    assert rules_command("zh-CN", "bonuses") == "/capsa 规则 主题:加分牌型"
    assert rules_command("vi", "specials") == "/capsa luật chủ_đề:Tới trắng"
    for lang in LANGS:
        cat = catalog(lang)
        shown = f"/capsa {cat['cmd.rules']} {cat['opt.topic']}:"
        options = tuple(
            f"/capsa {cat[c]} {cat['opt.options']}:" for c in ("cmd.new", "cmd.settings")
        )
        for preset in PRESETS.values():
            text = pages(preset, lang)
            named = re.findall(r"`(/capsa [^`]*)`", text)
            assert named and all(n.startswith((shown, *options)) for n in named), (lang, named)
            assert all(o in named for o in options), (lang, named)  # the presets page
            if lang != "en":
                assert "/capsa rules" not in text, lang
        # what the scoring page points to is the bonuses topic, by its shown name
        scoring = text_of(rules_page("scoring", PRESETS["standard"], lang))
        assert f"`{shown}{cat['rules.topic.bonuses']}`" in scoring


def test_the_overview_reads_seats_and_rounds_from_the_settings_table():
    low, high = SEATS.bounds
    page = rules_page("overview", PRESETS["standard"])
    assert f"for {low} to {high} players" in page.intro
    match = section(page, "Winning a match")
    assert f"({ROUNDS.default} by default, {min(ROUNDS.choices)} for a short one)" in match


def test_rules_command_reads_the_keys_the_command_tree_is_translated_from():
    """One home for a command's localized name: the /capsa rules command, its topic option
    and the topic choices carry the catalogue keys rules_command names them by."""
    assert Capsa.__cog_group_name__ == COMMAND_GROUP
    command = next(c for c in Capsa.__cog_app_commands__ if c.name == "rules")
    option = command._params["topic"]
    for lang in LANGS:
        cat = catalog(lang)
        assert rules_command(lang) == f"/{COMMAND_GROUP} {cat[command._locale_name.extras['key']]}"
        for choice in option.choices:
            topic_name = cat[choice._locale_name.extras["key"]]
            option_name = cat[option._rename.extras["key"]]
            assert rules_command(lang, choice.value).endswith(f" {option_name}:{topic_name}")
