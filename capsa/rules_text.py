"""The in-bot rules reference (``/capsa rules [topic]``), in every catalogue language.

Every page is built for one preset: the bonus table, special values, multipliers, the
table-sweep minimum, the foul multiplier, the scoring mode and method, the room fee rate and
the surrender cost are read from the :class:`~capsa.presets.Preset` object, so the text
cannot drift from the engine. All prose goes through :mod:`capsa.i18n`.

Every name a reader sees comes from the catalogue in the reader's language: the scoring mode
and method are described, never named by their internal value, and a house with words of its
own for a sweep, a sweep of the table and a fouled hand (``sayapoker``: tembus, super, PAO;
RULES §7) has its pages written with them. A command is named as the reader's Discord client
shows it (:func:`rules_command`: the same catalogue keys the command tree is translated
from), and the table settings the pages mention (seats, rounds) come from capsa.settings.

A page fits a Discord embed: ``title``, an ``intro`` (the description) and at most
:data:`MAX_SECTIONS` ``(heading, body)`` fields, within the limits below.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from capsa.cards import CapsaError
from capsa.hands import ALL_CATEGORIES
from capsa.i18n import t
from capsa.names import category_name, position_name, special_name
from capsa.presets import (
    DEFAULT_PRESET,
    METHOD_EXTRA,
    OPTION_CHOICES,
    PRESETS,
    SPECIALS,
    OptionSet,
    Preset,
    PresetOption,
    get_preset,
    option_sets,
)
from capsa.scoring import pair_multiplier, pair_points, row_win_value, units_extra
from capsa.settings import ROUNDS, SEATS, TIMEOUT_ACTIONS

TOPICS = ("overview", "hands", "setting", "scoring", "bonuses", "specials", "presets")

MAX_TITLE = 256
MAX_INTRO = 1500
MAX_HEADING = 256
MAX_BODY = 1024
MAX_SECTIONS = 10

# Rows shown in the bonus table, in the order a player reads the table.
_BONUS_POSITIONS = ("front", "middle", "back")
_STRONGEST_FIRST = tuple(reversed(ALL_CATEGORIES))  # royal flush ... high card
_FRONT_CATEGORIES = ("three_of_a_kind", "pair", "high_card")


@dataclass(frozen=True)
class RulesPage:
    title: str
    intro: str  # <= 1500 chars
    sections: tuple[tuple[str, str], ...]  # (heading <= 256, body <= 1024), at most 10


# --- helpers -----------------------------------------------------------------------------

# The words every page uses for a sweep, a sweep of the table, a fouled hand and the room
# fee (``sweep``, ``table``, ``foul``, ``fee`` in running text; ``..._h`` as a heading).
_WORDS: Mapping[str, str] = {
    "sweep": "rules.word.sweep",
    "sweep_h": "rules.word.sweep.h",
    "table": "rules.word.table",
    "table_h": "rules.word.table.h",
    "foul": "rules.word.foul",
    "foul_h": "rules.word.foul.h",
    "fee": "rules.word.fee",
    "fee_h": "rules.word.fee.h",
}
# A house that says it in its own words (RULES §7): its words replace the common ones on
# the pages of its preset. RULES gives sayapoker no word of its own for the fee.
_HOUSE_WORDS: Mapping[str, Mapping[str, str]] = {
    "sayapoker": {
        "sweep": "rules.word.sayapoker.sweep",
        "sweep_h": "rules.word.sayapoker.sweep.h",
        "table": "rules.word.sayapoker.table",
        "table_h": "rules.word.sayapoker.table.h",
        "foul": "rules.word.sayapoker.foul",
        "foul_h": "rules.word.sayapoker.foul.h",
    },
}
# The scoring methods of a ``units`` preset, as a reader sees them.
_METHOD_NAMES: Mapping[str, str] = {"1-6": "rules.method.name.1-6", "2-4": "rules.method.name.2-4"}

# The slash-command group, the same in every language; the names under it are translated
# from these catalogue keys (cogs/translator.py reads the same ones).
COMMAND_GROUP = "capsa"
_RULES_COMMAND = "cmd.rules"
_TOPIC_OPTION = "opt.topic"
_OPTIONS_OPTION = "opt.options"  # /capsa new's and /capsa settings' table options


def rules_command(lang: str, topic: str | None = None) -> str:
    """``/capsa rules``, or with a topic ``/capsa rules topic:Bonus hands``, as a Discord
    client in ``lang`` shows it: the command, option and choice names in that language."""
    command = f"/{COMMAND_GROUP} {t(_RULES_COMMAND, lang)}"
    if topic is None:
        return command
    return f"{command} {t(_TOPIC_OPTION, lang)}:{t(f'rules.topic.{topic}', lang)}"


def commands(lang: str, terminal: str | None = None) -> dict[str, str]:
    """The commands a page may name: ``cmd_rules`` and ``cmd_<topic>`` for every topic;
    with ``terminal`` (the command line's "capsa rules"), as typed there."""
    if terminal is not None:
        return {"cmd_rules": terminal} | {f"cmd_{topic}": f"{terminal} {topic}" for topic in TOPICS}
    return {
        "cmd_rules": rules_command(lang),
        "cmd_new_options": options_command("cmd.new", lang),
        "cmd_settings_options": options_command("cmd.settings", lang),
    } | {f"cmd_{topic}": rules_command(lang, topic) for topic in TOPICS}


def options_command(command: str, lang: str) -> str:
    """``/capsa new options:`` (``command``: the catalogue key of the command), as a client
    in ``lang`` shows it."""
    return f"/{COMMAND_GROUP} {t(command, lang)} {t(_OPTIONS_OPTION, lang)}:"


# The pages printed in a terminal speak of the table, not of the server or the bot: these
# texts have a terminal wording (the rest is the same in both places).
TERMINAL_WORDING = {
    "rules.overview.intro": "rules.overview.intro.terminal",
    "rules.overview.round.b": "rules.overview.round.b.terminal",
    "rules.setting.builder.h": "rules.setting.builder.h.terminal",
    "rules.setting.builder.b": "rules.setting.builder.b.terminal",
    "rules.setting.timer.b": "rules.setting.timer.b.terminal",
    "rules.setting.timeout.auto": "rules.setting.timeout.auto.terminal",
    "rules.setting.timeout.either": "rules.setting.timeout.either.terminal",
    "rules.setting.special.b": "rules.setting.special.b.terminal",
    "rules.setting.invalid.h": "rules.setting.invalid.h.terminal",
    "rules.setting.invalid.b": "rules.setting.invalid.b.terminal",
    "rules.presets.intro": "rules.presets.intro.terminal",
    "rules.presets.h.current": "rules.presets.h.current.terminal",
    "rules.options.how": "rules.options.how.terminal",
}


def _worded(key: str, terminal: str | None) -> str:
    return TERMINAL_WORDING.get(key, key) if terminal is not None else key


def words(preset: Preset, lang: str) -> dict[str, str]:
    """The words ``preset``'s pages use in ``lang`` (see :data:`_WORDS`)."""
    keys = {**_WORDS, **_HOUSE_WORDS.get(preset.name, {})}
    return {name: t(key, lang) for name, key in keys.items()}


class _Text:
    """``t`` for one preset's pages: every template may name the preset's words and the
    commands (:func:`commands`)."""

    def __init__(self, preset: Preset, lang: str, terminal: str | None = None) -> None:
        self.lang, self.terminal = lang, terminal
        self.words = words(preset, lang) | commands(lang, terminal)

    def __call__(self, key: str, **values: object) -> str:
        return t(_worded(key, self.terminal), self.lang, **{**self.words, **values})


def _state(flag: bool, tx: _Text) -> str:
    return tx("rules.on" if flag else "rules.off")


def _percent(rate: float) -> str:
    return f"{rate * 100:g}"


def _join(items: list[str], lang: str) -> str:
    return t("rules.list_sep", lang).join(items)


def options_text(preset: Preset, lang: str) -> str:
    """The table options ``preset`` plays with, in a few words: "method 2-4 · no
    surrender"; empty for a preset that has none."""
    tx = _Text(preset, lang)
    on = {True: "on", False: "off"}
    parts = []
    if PresetOption.METHOD in preset.allowed_options:
        parts.append(tx("opts.method", method=_method_name(preset, lang)))
    if PresetOption.ROOM_FEE in preset.allowed_options:
        parts.append(
            tx(f"opts.room_fee.{on[preset.room_fee]}", rate=_percent(preset.room_fee_rate))
        )
    if PresetOption.SURRENDER in preset.allowed_options:
        parts.append(tx(f"opts.surrender.{on[preset.surrender]}", cost=preset.surrender_cost))
    return " · ".join(parts)


def preset_label(preset: Preset, lang: str) -> str:
    """A table's rules with its options, as the lobby, the status message, the history and
    the slash commands' choices name them: "chinese-poker · method 2-4 · no surrender",
    "standard"."""
    options = options_text(preset, lang)
    return f"{preset.name} · {options}" if options else preset.name


def option_set_label(option_set: OptionSet, lang: str) -> str:
    """A set of table options as the slash commands offer it (see :func:`preset_label`)."""
    return preset_label(get_preset(option_set.preset, option_set.options), lang)


def allowed_options_text(preset: Preset, lang: str) -> str:
    """Every set of table options ``preset`` allows, as the slash commands offer them."""
    return "; ".join(option_set_label(s, lang) for s in option_sets(preset))


def _other_options(preset: Preset) -> dict[str, object]:
    """The preset's options each set to a value other than the preset's own (an example)."""
    plain = PRESETS[preset.name]
    return {
        str(o): next(c for c in OPTION_CHOICES[o] if c != getattr(plain, o))
        for o in PresetOption
        if o in preset.allowed_options
    }


def _options_how(preset: Preset, tx: _Text) -> str:
    """How a table chooses ``preset``'s options: in Discord, the option set to pick (an
    example of one); in a terminal, ``--option``."""
    example = _other_options(preset)
    if tx.terminal is not None:
        flags = " ".join(
            f"--option {k}={str(v).lower() if isinstance(v, bool) else v}"
            for k, v in example.items()
        )
        return tx("rules.options.how", example=f"--rules {preset.name} {flags}")
    shown = OptionSet(preset.name, tuple((PresetOption(k), v) for k, v in example.items()))
    return tx("rules.options.how", example=option_set_label(shown, tx.lang))


def _bonus_items(preset: Preset, position: str) -> list[tuple[str, int]]:
    """The preset's bonus (or royalty) hands for a row, strongest first, from row_values."""
    return [
        (category, preset.row_value(position, category))
        for category in _STRONGEST_FIRST
        if (position, category) in preset.row_values
    ]


def _specials_list(preset: Preset, lang: str) -> str:
    return _join(
        [f"{special_name(s, lang)} {preset.specials[s]}" for s in SPECIALS if s in preset.specials],
        lang,
    )


def _method(preset: Preset) -> str:
    return preset.method or "1-6"


def _method_name(preset: Preset, lang: str) -> str:
    return t(_METHOD_NAMES[_method(preset)], lang)


def _vs_table(preset: Preset, tx: _Text) -> str:
    table = preset.table_sweep_multiplier
    if table is None or table == preset.foul_multiplier:
        return ""
    return tx("rules.foul.vs_table", t=table)


def sweep_example(preset: Preset) -> dict[str, int]:
    """The worked sweep on the scoring page, from the preset's own numbers.

    The winner takes the front with three of a kind, the middle with a straight and the
    back with a flush. ``total`` is what the loser pays, worked out by the engine's own
    scoring functions (tests check it against ``score_round`` too).
    """
    rows = (("front", "three_of_a_kind"), ("middle", "straight"), ("back", "flush"))
    ft, st, fl = (preset.row_value(position, category) for position, category in rows)
    net = sum(row_win_value(preset, position, category) for position, category in rows)
    m = pair_multiplier(preset, table_sweep=False, foul=False)
    total = pair_points(preset, net, 3, 0, m)
    if preset.scoring == "units":
        return {
            "ft": ft,
            "st": st,
            "fl": fl,
            "m": 1,
            "extra": units_extra(preset, 3, 0),
            "total": total,
        }
    if preset.scoring == "base":
        base = pair_points(preset, 3, 3, 0, m)  # the base 1 a row, multiplied
        return {
            "ft": ft,
            "st": st,
            "fl": fl,
            "m": m,
            "b": base,
            "extra": total - base,
            "total": total,
        }
    return {"ft": ft, "st": st, "fl": fl, "m": m, "sum": net, "total": total}


def _foul_text(preset: Preset, tx: _Text) -> str:
    if preset.scoring == "units":
        x = units_extra(preset, 3, 0)
        why = tx(f"rules.foul.why.{_method(preset)}")
        # a fouled player loses all three rows, each worth 1 before royalties
        return tx("rules.foul.units", total=pair_points(preset, 3, 3, 0, 1), x=x, why=why)
    return tx(
        f"rules.foul.{preset.scoring}",
        f=preset.foul_multiplier,
        vs_table=_vs_table(preset, tx),
    )


def _method_text(preset: Preset, tx: _Text) -> str:
    """The method's extra, with a sweep (3 rows to 0) and a 2-1 split as examples."""
    return tx(
        f"rules.method.{_method(preset)}",
        x=units_extra(preset, 3, 0),
        s=pair_points(preset, 3, 3, 0, 1),
        two=pair_points(preset, 1, 2, 1, 1),
    )


# --- topics ------------------------------------------------------------------------------

Sections = list[tuple[str, str]]


def _overview(
    preset: Preset, lang: str, terminal: str | None = None, **_: object
) -> tuple[str, Sections]:
    tx = _Text(preset, lang, terminal)
    suits = (
        "rules.overview.suits.none"
        if preset.suit_tiebreak == "none"
        else "rules.overview.suits.used"
    )
    more = "\n".join(
        tx("rules.overview.more.line", command=tx.words[f"cmd_{topic}"])
        for topic in TOPICS
        if topic != "overview"
    )
    fewest, most = SEATS.bounds
    intro = tx("rules.overview.intro", preset=preset.name, fewest=fewest, most=most)
    match = tx("rules.overview.match.b", rounds=ROUNDS.default, short=min(ROUNDS.choices))
    return intro, [
        (tx("rules.overview.cards.h"), tx("rules.overview.cards.b", suits=tx(suits))),
        (tx("rules.overview.round.h"), tx("rules.overview.round.b")),
        (tx("rules.overview.match.h"), match),
        (tx("rules.overview.typing.h"), tx("rules.overview.typing.b")),
        (tx("rules.overview.more.h"), more),
    ]


def _hands(preset: Preset, lang: str, **_: object) -> tuple[str, Sections]:
    five = "\n".join(
        t(
            "rules.hands.line",
            lang,
            n=n,
            name=category_name(category, lang),
            note=t(f"rules.hands.note.{category}", lang),
        )
        for n, category in enumerate(_STRONGEST_FIRST, 1)
    )
    front_lines = "\n".join(
        t("rules.hands.front.line", lang, n=n, name=category_name(category, lang))
        for n, category in enumerate(_FRONT_CATEGORIES, 1)
    )
    return t("rules.hands.intro", lang), [
        (t("rules.hands.five.h", lang), five),
        (t("rules.hands.front.h", lang), t("rules.hands.front.b", lang, lines=front_lines)),
        (t("rules.hands.ties.h", lang), t(f"rules.hands.tie.{preset.suit_tiebreak}", lang)),
    ]


def _setting(
    preset: Preset,
    lang: str,
    turn_seconds: int | None = None,
    timeout_action: str | None = None,
    terminal: str | None = None,
    **_: object,
) -> tuple[str, Sections]:
    tx = _Text(preset, lang, terminal)
    secs = tx("rules.setting.timer.secs", n=turn_seconds) if turn_seconds else ""
    action = tx(f"rules.setting.timeout.{timeout_action or 'either'}")
    special = "rules.setting.special.b" if preset.specials else "rules.setting.special.none"
    return tx("rules.setting.intro"), [
        (tx("rules.setting.order.h"), tx("rules.setting.order.b")),
        (tx.words["foul_h"], tx("rules.setting.foul.b", text=_foul_text(preset, tx))),
        (tx("rules.setting.builder.h"), tx("rules.setting.builder.b")),
        (tx("rules.setting.timer.h"), tx("rules.setting.timer.b", secs=secs, action=action)),
        (tx("rules.setting.special.h"), tx(special)),
        (tx("rules.setting.invalid.h"), tx("rules.setting.invalid.b")),
    ]


def _scoring(
    preset: Preset, lang: str, terminal: str | None = None, **_: object
) -> tuple[str, Sections]:
    tx = _Text(preset, lang, terminal)
    units = preset.scoring == "units"
    mode = tx(f"rules.mode.{preset.scoring}", method=_method_name(preset, lang))
    note = tx("rules.scoring.fee_note") if preset.room_fee else ""
    intro = tx("rules.scoring.intro", note=note, mode=mode)

    rows = tx("rules.scoring.rows.units" if units else "rules.scoring.rows.value")
    if preset.suit_tiebreak == "none":
        rows += tx("rules.scoring.rows.push")
    sections: Sections = [(tx("rules.scoring.rows.h"), rows)]

    example = sweep_example(preset)
    if units:
        sweep = tx("rules.scoring.sweep.units", method=_method_text(preset, tx), **example)
    else:
        sweep = tx(f"rules.scoring.sweep.{preset.scoring}", **example)
    sections.append((tx.words["sweep_h"], sweep))

    if preset.table_sweep_multiplier is None:
        table = tx("rules.scoring.table.none")
    else:
        n = preset.table_sweep_min_opponents or 1
        players_key = "full" if n + 1 >= 4 else "some"
        table = tx(
            "rules.scoring.table.b",
            n=n,
            players=tx(f"rules.scoring.table.players.{players_key}", p=n + 1),
            t=preset.table_sweep_multiplier,
            m=preset.sweep_multiplier,
            base=tx("rules.scoring.table.base") if preset.scoring == "base" else "",
        )
    sections.append((tx.words["table_h"], table))
    sections.append((tx.words["foul_h"], _foul_text(preset, tx)))
    if preset.specials:
        sections.append(
            (
                tx("rules.scoring.specials.h"),
                tx("rules.scoring.specials.b", list=_specials_list(preset, lang)),
            )
        )
    if units:
        x16, x24 = METHOD_EXTRA["1-6"], METHOD_EXTRA["2-4"]
        method = _method_name(preset, lang)
        sections.append(
            (
                tx("rules.scoring.method.h", method=method),
                tx(
                    "rules.scoring.method.b",
                    x16=x16,
                    s16=3 + x16,
                    x24=x24,
                    s24=3 + x24,
                    two=2 - 1 + x24,
                    method=method,
                ),
            )
        )
    if preset.room_fee or PresetOption.ROOM_FEE in preset.allowed_options:
        sections.append(
            (
                tx.words["fee_h"],
                tx(
                    "rules.scoring.fee.b",
                    rate=_percent(preset.room_fee_rate),
                    state=_state(preset.room_fee, tx),
                ),
            )
        )
    if preset.surrender or PresetOption.SURRENDER in preset.allowed_options:
        sections.append(
            (
                tx("rules.scoring.surrender.h"),
                tx(
                    "rules.scoring.surrender.b",
                    cost=preset.surrender_cost,
                    state=_state(preset.surrender, tx),
                ),
            )
        )
    return intro, sections


def _row_heading(position: str, lang: str) -> str:
    return t(f"rules.bonuses.row.h.{position}", lang)  # each language's own wording


def _bonuses(
    preset: Preset, lang: str, terminal: str | None = None, **_: object
) -> tuple[str, Sections]:
    tx = _Text(preset, lang, terminal)
    units = preset.scoring == "units"
    line_key = "rules.bonuses.line.units" if units else "rules.bonuses.line.value"
    sections: Sections = []
    for position in _BONUS_POSITIONS:
        items = _bonus_items(preset, position)
        body = "\n".join(
            t(line_key, lang, name=category_name(category, lang), value=value)
            for category, value in items
        ) or t("rules.bonuses.row.none", lang)
        sections.append((_row_heading(position, lang), body))

    q = preset.row_value("back", "four_of_a_kind")
    sf = preset.row_value("back", "straight_flush")
    if units:
        example = tx("rules.bonuses.example.units", q=q, sf=sf, total=1 + sf)
        sweep = tx("rules.bonuses.sweep.units")
    elif preset.scoring == "base":
        example = tx("rules.bonuses.example.value", q=q, sf=sf)
        sweep = tx("rules.bonuses.sweep.base", m=preset.sweep_multiplier)
    else:
        example = tx("rules.bonuses.example.value", q=q, sf=sf)
        table = preset.table_sweep_multiplier
        sweep = tx(
            "rules.bonuses.sweep.multiply",
            m=preset.sweep_multiplier,
            extra=tx("rules.bonuses.sweep.table", t=table) if table else "",
        )
    sections.append((tx("rules.bonuses.example.h"), example))
    sections.append((tx("rules.bonuses.sweep.h"), sweep))
    intro = tx("rules.bonuses.intro.units" if units else "rules.bonuses.intro.value")
    return intro, sections


def _specials(
    preset: Preset, lang: str, terminal: str | None = None, **_: object
) -> tuple[str, Sections]:
    tx = _Text(preset, lang, terminal)
    sections: Sections = []
    paid = [s for s in SPECIALS if s in preset.specials]
    for special in paid:
        sections.append(
            (
                tx(
                    "rules.specials.h",
                    name=special_name(special, lang),
                    value=preset.specials[special],
                ),
                tx(f"rules.specials.cond.{special}"),
            )
        )
    if not paid:
        sections.append((tx("rules.specials.none.h"), tx("rules.specials.none.b")))
        return tx("rules.specials.intro"), sections
    sections.append((tx("rules.specials.pay.h"), tx("rules.specials.pay.b")))
    sections.append((tx("rules.specials.same.h"), tx(f"rules.specials.same.{preset.same_special}")))
    absent = [s for s in SPECIALS if s not in preset.specials]
    if absent:
        names = _join([special_name(s, lang) for s in absent], lang)
        sections.append((tx("rules.specials.absent.h"), tx("rules.specials.absent.b", names=names)))
    return tx("rules.specials.intro"), sections


def _preset_summary(preset: Preset, lang: str, terminal: str | None = None) -> str:
    """One preset in a few lines, in that preset's own words."""
    tx = _Text(preset, lang, terminal)
    units = preset.scoring == "units"
    rows = []
    for position in _BONUS_POSITIONS:
        items = _bonus_items(preset, position)
        if items:
            shown = _join(
                [f"{category_name(c, lang)} {'+' if units else ''}{v}" for c, v in items], lang
            )
            rows.append(
                tx("rules.presets.bonus_row", row=position_name(position, lang), items=shown)
            )
    bonus_key = "rules.presets.bonuses.units" if units else "rules.presets.bonuses.value"
    lines = [
        tx("rules.presets.ties", text=tx(f"rules.presets.tie.{preset.suit_tiebreak}")),
        tx(bonus_key, list=" · ".join(rows)),
    ]
    if units:
        method = _method(preset)
        sweep = tx(
            "rules.presets.sweep.units", x=METHOD_EXTRA[method], method=_method_name(preset, lang)
        )
    else:
        sweep = tx(f"rules.presets.sweep.{preset.scoring}", m=preset.sweep_multiplier)
    lines.append(tx("rules.presets.sweep", text=sweep))
    if preset.table_sweep_multiplier is None:
        lines.append(tx("rules.presets.table.none"))
    else:
        lines.append(
            tx(
                "rules.presets.table",
                t=preset.table_sweep_multiplier,
                n=preset.table_sweep_min_opponents or 1,
            )
        )
    if units:
        lines.append(tx("rules.presets.foul.units"))
    else:
        lines.append(
            tx("rules.presets.foul", f=preset.foul_multiplier, vs_table=_vs_table(preset, tx))
        )
    if preset.specials:
        same = tx(f"rules.presets.same.{preset.same_special}")
        lines.append(tx("rules.presets.specials", list=_specials_list(preset, lang), same=same))
    else:
        lines.append(tx("rules.presets.specials.none"))
    options = []
    if PresetOption.METHOD in preset.allowed_options:
        options.append(tx("rules.presets.opt.method", method=_method_name(preset, lang)))
    if PresetOption.ROOM_FEE in preset.allowed_options:
        options.append(
            tx(
                "rules.presets.opt.room_fee",
                rate=_percent(preset.room_fee_rate),
                state=_state(preset.room_fee, tx),
            )
        )
    if PresetOption.SURRENDER in preset.allowed_options:
        options.append(
            tx(
                "rules.presets.opt.surrender",
                cost=preset.surrender_cost,
                state=_state(preset.surrender, tx),
            )
        )
    if options:
        lines.append(tx("rules.presets.options", list=_join(options, lang)))
        lines.append(_options_how(preset, tx))
    else:
        lines.append(tx("rules.presets.options.none"))
    return "\n".join(f"• {line}" for line in lines)


def _presets(
    preset: Preset, lang: str, terminal: str | None = None, **_: object
) -> tuple[str, Sections]:
    sections: Sections = []
    current = _worded("rules.presets.h.current", terminal)
    for name, other in PRESETS.items():
        # The server's own preset is shown with its table options applied.
        shown = preset if name == preset.name else other
        heading = t(current, lang, name=name) if name == preset.name else name
        sections.append((heading, _preset_summary(shown, lang, terminal)))
    intro = t(
        _worded("rules.presets.intro", terminal),
        lang,
        count=len(PRESETS),
        preset=preset.name,
        default=DEFAULT_PRESET,
    )
    return intro, sections


_BUILDERS: dict[str, Callable[..., tuple[str, Sections]]] = {
    "overview": _overview,
    "hands": _hands,
    "setting": _setting,
    "scoring": _scoring,
    "bonuses": _bonuses,
    "specials": _specials,
    "presets": _presets,
}


def rules_page(
    topic: str | None,
    preset: Preset,
    lang: str = "en",
    *,
    turn_seconds: int | None = None,
    timeout_action: str | None = None,
    terminal: str | None = None,
) -> RulesPage:
    """The page for ``topic`` (``None`` or empty: overview) under ``preset``, in ``lang``.

    Optional server settings make the "setting" page exact: ``turn_seconds`` is the
    countdown length and ``timeout_action`` (``auto`` or ``foul``) what happens to a hand
    not submitted in time; without them the page explains both choices. ``terminal``: the
    command that prints the rules on a command line ("capsa rules"): the page is then worded
    for a terminal (the table, not the server or the bot; that command's topics).
    An unknown topic raises :class:`CapsaError` naming it and the valid topics.
    """
    key = (topic or "overview").strip().lower()
    if key not in _BUILDERS:
        raise CapsaError(t("rules.unknown", lang, topic=topic, topics=", ".join(TOPICS)))
    if timeout_action not in (None, *TIMEOUT_ACTIONS):
        raise CapsaError(f"timeout_action must be 'auto' or 'foul', not {timeout_action!r}")
    intro, sections = _BUILDERS[key](
        preset, lang, turn_seconds=turn_seconds, timeout_action=timeout_action, terminal=terminal
    )
    title = t("rules.title", lang, topic=t(f"rules.topic.{key}", lang), preset=preset.name)
    return RulesPage(title=title, intro=intro, sections=tuple(sections))
