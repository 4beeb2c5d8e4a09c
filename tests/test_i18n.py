"""The text catalogues (capsa/locales/*.toml): complete, consistent, used, loadable anywhere."""

from __future__ import annotations

import ast
import re
import shutil
import string
import subprocess
import sys
import typing
import unicodedata
from collections.abc import Iterable
from pathlib import Path

import discord
import pytest
from discord import app_commands

from capsa import i18n
from capsa.cards import RANKS
from capsa.coach import SpecialAdvice
from capsa.hands import ALL_CATEGORIES, TieBreak
from capsa.i18n import (
    DEFAULT_LANG,
    LANGS,
    CatalogueError,
    catalog,
    has,
    keys,
    lang_from_locale,
    load_catalogue,
    rank_word,
    t,
)
from capsa.presets import POSITIONS, SPECIALS, Preset, Scoring
from capsa.rules_text import TOPICS
from capsa.settings import LEVELS, SERVER_SETTINGS, TABLE_SETTINGS, TIMEOUT_ACTIONS
from cogs import board
from cogs.components import BuilderAction, LobbyAction, RefusalCode
from cogs.translator import CapsaTranslator

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*ROOT.glob("capsa/**/*.py"), *ROOT.glob("cogs/**/*.py"), ROOT / "bot.py"])

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
    "word.table_sweep",
    "cat.high_card",
    "cat.pair",
    "cat.two_pair",
    "cat.three_of_a_kind",
    "cat.four_of_a_kind",
]


def _literal_args(annotation: object) -> tuple[str, ...]:
    """The values of a ``Literal[...]`` (or ``Literal[...] | None``) annotation."""
    if typing.get_origin(annotation) is typing.Literal:
        return typing.get_args(annotation)
    return tuple(v for arg in typing.get_args(annotation) for v in _literal_args(arg))


_PRESET_FIELDS = typing.get_type_hints(Preset)
_SCORING = typing.get_args(Scoring)
_TIEBREAKS = typing.get_args(TieBreak)
_SAME_SPECIAL = _literal_args(_PRESET_FIELDS["same_special"])
_METHODS = _literal_args(_PRESET_FIELDS["method"])
_RANK_NUMBERS = range(2, 2 + len(RANKS))

# Every key the code builds with an f-string, with the real values that fill it in. A new
# f-string key in the code fails test_dynamic_keys_are_all_enumerated until it is listed here.
_SETTING_OPTIONS = tuple(TABLE_SETTINGS[s].option_name for s in SERVER_SETTINGS)
DYNAMIC: dict[str, Iterable[str]] = {
    "cat.{}": ALL_CATEGORIES,
    "row.{}": ALL_CATEGORIES,
    "pos.{}": POSITIONS,
    "special.{}": SPECIALS,
    "rank.{}": map(str, _RANK_NUMBERS),
    "rank.{}.plural": map(str, _RANK_NUMBERS),
    # slash-command choices and the settings embed: levels, leaderboard sorts and periods,
    # timeout actions (auto shows as auto_arrange), languages (auto shows as lang_auto)
    "choice.{}": (
        *LEVELS,
        *board.SORTS,
        *board.PERIODS,
        *("auto_arrange" if a == "auto" else a for a in TIMEOUT_ACTIONS),
        *LANGS,
        "lang_auto",
    ),
    "rules.topic.{}": TOPICS,
    # the coach's word on the special (capsa.coach.SpecialAdvice, less "none")
    "rev.{}": tuple(a.value for a in SpecialAdvice if a != SpecialAdvice.NONE),
    "rules.hands.note.{}": ALL_CATEGORIES,
    "rules.hands.tie.{}": _TIEBREAKS,
    "rules.presets.tie.{}": _TIEBREAKS,
    "rules.setting.timeout.{}": (*TIMEOUT_ACTIONS, "either"),
    "rules.mode.{}": _SCORING,
    "rules.foul.{}": _SCORING,
    "rules.scoring.sweep.{}": _SCORING,
    "rules.presets.sweep.{}": _SCORING,
    "rules.foul.why.{}": _METHODS,
    "rules.method.{}": _METHODS,
    "rules.scoring.table.players.{}": ("full", "some"),
    "rules.bonuses.row.h.{}": POSITIONS,
    "rules.specials.cond.{}": SPECIALS,
    "rules.specials.same.{}": _SAME_SPECIAL,
    "rules.presets.same.{}": _SAME_SPECIAL,
    # /capsa settings: an option for each server setting, named from the table, and the
    # settings screen's field for each; the table options' words (capsa.rules_text)
    "opt.{}": _SETTING_OPTIONS,
    "opt.{}.desc": _SETTING_OPTIONS,
    "set.{}": SERVER_SETTINGS,
    "opts.room_fee.{}": ("on", "off"),
    "opts.surrender.{}": ("on", "off"),
}


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def _source_strings() -> tuple[set[str], set[str]]:
    """Every string constant in the code, and every f-string as a template ("cat.{}")."""
    constants: set[str] = set()
    templates: set[str] = set()
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                constants.add(node.value)
            elif isinstance(node, ast.JoinedStr):
                templates.add(
                    "".join(
                        str(part.value) if isinstance(part, ast.Constant) else "{}"
                        for part in node.values
                    )
                )
    return constants, templates


def _key_templates(templates: set[str]) -> set[str]:
    """The f-strings that build catalogue keys: they start with a key's namespace."""
    namespaces = {key.split(".")[0] + "." for key in keys()}
    return {
        tpl
        for tpl in templates
        if "{}" in tpl and any(tpl.startswith(ns) for ns in namespaces) and " " not in tpl
    }


# --- the shipped catalogues --------------------------------------------------------------


def test_one_file_per_language() -> None:
    assert DEFAULT_LANG in LANGS and len(set(LANGS)) == len(LANGS)
    files = {p.stem for p in i18n.LOCALES_DIR.glob("*.toml")}
    # a catalogue file that LANGS does not name would never be loaded
    assert files == set(LANGS)
    folders = {p.name for p in i18n.LOCALES_DIR.iterdir() if p.is_dir()}
    assert folders <= set(LANGS), "a folder of catalogue files is named after its language"
    for lang in folders:
        assert all(p.suffix == ".toml" for p in (i18n.LOCALES_DIR / lang).iterdir())


def test_a_language_read_from_its_file_and_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path / "xx.toml", '"a.b" = "one"\n')
    (tmp_path / "xx").mkdir()
    _write(tmp_path / "xx" / "feature.toml", '"a.c" = "two"\n')
    monkeypatch.setattr(i18n, "LOCALES_DIR", tmp_path)
    assert i18n.load_language("xx") == {"a.b": "one", "a.c": "two"}
    _write(tmp_path / "xx" / "other.toml", '"a.b" = "again"\n')
    with pytest.raises(CatalogueError, match=r"other\.toml: a\.b already written"):
        i18n.load_language("xx")


def test_every_key_in_every_language() -> None:
    reference = catalog(DEFAULT_LANG)
    assert len(reference) >= 300
    for lang in LANGS:
        table = catalog(lang)
        assert sorted(set(reference) - set(table)) == [], f"missing in {lang}"
        assert sorted(set(table) - set(reference)) == [], f"only in {lang}"
        for key, text in table.items():
            assert text.strip(), (lang, key)


def test_same_placeholders_in_every_language() -> None:
    reference = catalog(DEFAULT_LANG)
    for lang in LANGS:
        for key, text in catalog(lang).items():
            # the same fields, so a translation can neither break nor drop a value
            assert _fields(text) == _fields(reference[key]), (lang, key)


def test_every_refusal_and_control_has_its_text_in_every_language() -> None:
    """A refusal's code and a control's action name their catalogue keys: each is there,
    in every language, with the placeholders the code fills."""
    wanted = [code.value for code in RefusalCode]
    wanted += [action.key for action in (*LobbyAction, *BuilderAction)]
    for lang in LANGS:
        table = catalog(lang)
        assert [key for key in wanted if key not in table] == [], lang
    assert _fields(t(RefusalCode.BAD_RULES.value)) == {"name", "presets"}
    assert _fields(t(RefusalCode.WRONG_COUNT.value)) == {"row", "count"}


def test_no_key_is_unused() -> None:
    constants, templates = _source_strings()
    used = {key for key in keys() if key in constants}
    for tpl, values in DYNAMIC.items():
        for value in values:
            key = tpl.format(value)
            assert has(key), f"{tpl} with {value!r} builds {key!r}, which no catalogue has"
            used.add(key)
    assert sorted(keys() - used) == []


def test_dynamic_keys_are_all_enumerated() -> None:
    _, templates = _source_strings()
    found = _key_templates(templates)
    assert {"cat.{}", "choice.{}", "rank.{}"} <= found  # the scan sees f-strings at all
    assert found == set(DYNAMIC)


def test_every_literal_key_the_code_looks_up_exists() -> None:
    calls: list[tuple[str, str]] = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("t", "tr")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                calls.append((path.name, node.args[0].value))
    assert len(calls) > 100
    assert [(name, key) for name, key in calls if not has(key)] == []


def test_no_language_is_named_in_the_code() -> None:
    """Adding a language is a catalogue and a LANGS entry: no code compares against a code."""
    others = set(LANGS) - {DEFAULT_LANG}
    found = []
    for path in [p for p in SOURCES if p.name != "i18n.py"]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                if any(isinstance(o, ast.Constant) and o.value in others for o in operands):
                    found.append((path.name, node.lineno))
            elif isinstance(node, ast.Tuple | ast.List | ast.Set):
                codes = {e.value for e in node.elts if isinstance(e, ast.Constant)}
                if len(codes & set(LANGS)) >= 2:
                    found.append((path.name, node.lineno))
    assert found == []


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != DEFAULT_LANG])
@pytest.mark.parametrize("key", MUST_DIFFER)
def test_words_that_should_differ(key: str, lang: str) -> None:
    assert has(key)
    assert t(key, "en") != t(key, lang)


def test_rules_words() -> None:
    assert t("pos.back", "id") == "Bawah"
    assert t("pos.middle", "id") == "Tengah"
    assert t("pos.front", "id") == "Atas"
    assert t("word.foul", "id") == "Salah susun"
    assert t("word.table_sweep", "id") == "Sapu bersih"
    assert t("special.dragon", "id") == "Naga"
    assert t("special.six_pairs", "id") == "Enam pasang"
    # 十三水: 尾道/中道/头道, 倒水, 全垒打 (one player's 打枪 of everyone), 一条龙, 六对半
    assert [t(f"pos.{p}", "zh-CN") for p in POSITIONS] == ["尾道", "中道", "头道"]
    assert t("word.foul", "zh-CN") == "倒水" and t("word.table_sweep", "zh-CN") == "全垒打"
    assert t("rules.word.sweep", "zh-CN") == "打枪"
    assert t("special.dragon", "zh-CN") == "一条龙"
    assert t("special.six_pairs", "zh-CN") == "六对半"
    assert t("special.three_straights", "zh-CN") == "三顺子"
    assert t("special.three_flushes", "zh-CN") == "三同花"
    # Mậu binh: chi 1 is the back (5 cards), chi 3 the front (3 cards)
    assert [t(f"pos.{p}", "vi") for p in POSITIONS] == ["Chi 1", "Chi 2", "Chi 3"]
    assert t("word.foul", "vi") == "Binh lủng" and t("rules.word.sweep", "vi") == "sập hầm"
    assert t("word.table_sweep", "vi") == "Sập làng"
    assert t("special.dragon", "vi") == "Sảnh rồng"
    assert t("special.six_pairs", "vi") == "Lục phé bôn"
    assert t("special.three_straights", "vi") == "Ba sảnh"
    assert t("special.three_flushes", "vi") == "Ba thùng"


# Discord's rule for command and option names (the scripts it allows are letters here)
DISCORD_NAME = re.compile(r"[-_\w]{1,32}")


@pytest.mark.parametrize("lang", LANGS)
def test_command_and_option_names_are_valid_discord_names(lang: str) -> None:
    table = catalog(lang)
    for prefix in ("cmd.", "opt."):
        names = {
            k: v
            for k, v in table.items()
            if k.startswith(prefix) and k.count(".") == 1 and k != "cmd.capsa"  # a description
        }
        assert len(names) >= 7
        for key, name in names.items():
            assert DISCORD_NAME.fullmatch(name), (lang, key, name)
            assert name == name.lower(), (lang, key, name)
            assert unicodedata.is_normalized("NFC", name), (lang, key, name)
        if prefix == "cmd.":  # the subcommands of /capsa are siblings
            assert len(set(names.values())) == len(names), (lang, names)


def test_lookup_and_fallbacks() -> None:
    assert t("row.pair", "en", a="aces") == "Pair of aces"
    assert t("row.pair", "id", a="As") == "Sepasang As"
    assert t("pos.back", "fr") == "Back"  # unknown language: English
    with pytest.raises(KeyError):
        t("no.such.key")
    assert lang_from_locale("id") == "id"
    assert lang_from_locale("ID-id") == "id"
    assert lang_from_locale(discord.Locale.indonesian.value) == "id"
    assert lang_from_locale("en-US") == "en"
    assert lang_from_locale("pt-BR") == "en"
    assert lang_from_locale(discord.Locale.chinese.value) == "zh-CN"
    assert lang_from_locale(discord.Locale.taiwan_chinese.value) == "zh-CN"  # no zh-TW yet
    assert lang_from_locale(discord.Locale.vietnamese.value) == "vi"
    assert lang_from_locale("") == "en"
    assert lang_from_locale(None) == "en"


def test_rank_words() -> None:
    assert rank_word(14, "en") == "ace" and rank_word(14, "en", True) == "aces"
    assert rank_word(6, "en", True) == "sixes"
    assert rank_word(14, "id") == "As" and rank_word(10, "id") == "10"
    assert rank_word(13, "id", True) == "King"
    for rank in _RANK_NUMBERS:
        for lang in LANGS:
            assert rank_word(rank, lang) and rank_word(rank, lang, True)


# --- the loader ----------------------------------------------------------------------------


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_loader_reads_flat_keys(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "xx.toml",
        '# a comment\n"a.b" = "Hello {name}"\n"a.c" = """\nfirst \\\nline\nsecond ♠"""\n',
    )
    assert load_catalogue(path) == {"a.b": "Hello {name}", "a.c": "first line\nsecond ♠"}


def test_loader_refuses_a_duplicate_key(tmp_path: Path) -> None:
    path = _write(tmp_path / "xx.toml", '"a.b" = "one"\n"a.c" = "two"\n"a.b" = "three"\n')
    with pytest.raises(CatalogueError, match=r"xx\.toml.*line 3"):
        load_catalogue(path)


def test_loader_refuses_tables_and_other_values(tmp_path: Path) -> None:
    # an unquoted dotted key is a table in TOML: it could shadow a quoted key silently
    path = _write(tmp_path / "xx.toml", '"a.b" = "one"\na.b = "two"\n')
    with pytest.raises(CatalogueError, match="'a' is not a text value"):
        load_catalogue(path)
    with pytest.raises(CatalogueError, match="not a text value"):
        load_catalogue(_write(tmp_path / "yy.toml", '"a.n" = 3\n'))
    with pytest.raises(CatalogueError):
        load_catalogue(_write(tmp_path / "zz.toml", '"a.b" = "unterminated\n'))


@pytest.fixture
def with_new_language(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A new language "fr" as a contributor adds it: one file and one entry in LANGS."""
    shutil.copytree(i18n.LOCALES_DIR, tmp_path, dirs_exist_ok=True)
    _write(tmp_path / "fr.toml", '# test catalogue\n"pos.back" = "Arrière"\n')
    monkeypatch.setattr(i18n, "LOCALES_DIR", tmp_path)
    monkeypatch.setattr(i18n, "LANGS", (*LANGS, "fr"))
    catalogues = i18n._load_all()
    monkeypatch.setattr(i18n, "_CATALOGUES", catalogues)
    monkeypatch.setattr(i18n, "_DEFAULT", catalogues[DEFAULT_LANG])
    return tmp_path


def test_adding_a_language(with_new_language: Path) -> None:
    assert t("pos.back", "fr") == "Arrière"
    assert t("pos.front", "fr") == "Front"  # not translated yet: English
    assert t("row.pair", "fr", a="aces") == "Pair of aces"
    assert lang_from_locale("fr") == "fr"
    assert lang_from_locale("id") == "id" and lang_from_locale("en-GB") == "en"


async def test_translator_serves_every_catalogue_language(with_new_language: Path) -> None:
    translator = CapsaTranslator()
    context: app_commands.TranslationContextTypes = app_commands.TranslationContext(
        location=app_commands.TranslationContextLocation.other, data=None
    )

    async def translate(locale: discord.Locale, key: str | None = "pos.back") -> str | None:
        text = app_commands.locale_str("rows", key=key) if key else app_commands.locale_str("x")
        return await translator.translate(text, locale, context)

    assert await translate(discord.Locale.indonesian) == "Bawah"
    assert await translate(discord.Locale.french) == "Arrière"
    assert await translate(discord.Locale.vietnamese) == "Chi 1"
    assert await translate(discord.Locale.chinese) == "尾道"
    assert await translate(discord.Locale.taiwan_chinese) == "尾道"
    assert await translate(discord.Locale.chinese, key="cmd.new") == "开桌"
    assert await translate(discord.Locale.american_english) is None
    assert await translate(discord.Locale.british_english) is None
    assert await translate(discord.Locale.japanese) is None
    assert await translate(discord.Locale.indonesian, key=None) is None  # no key: left alone
    assert await translate(discord.Locale.indonesian, key="no.such.key") is None


def test_locale_matching_is_generic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(i18n, "LANGS", ("en", "id", "zh-CN", "vi", "pt"))
    assert lang_from_locale("zh-CN") == "zh-CN"
    assert lang_from_locale("zh-TW") == "zh-CN"  # the only Chinese catalogue
    assert lang_from_locale("vi") == "vi"
    assert lang_from_locale("pt-BR") == "pt"
    assert lang_from_locale("en-GB") == "en"
    assert lang_from_locale("ja") == "en"


# --- import order never matters ------------------------------------------------------------


@pytest.mark.parametrize(
    "module",
    ["cogs.capsa", "cogs.translator", "capsa.rules_text", "capsa.names", "capsa.showdown"],
)
def test_a_fresh_interpreter_imports_any_module(module: str) -> None:
    code = (
        f"import {module}\n"
        "from capsa.i18n import t\n"
        "assert t('choice.easy', 'id') == 'mudah'\n"
        "assert t('rules.topic.hands', 'id') == 'Urutan kombinasi'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
