"""The in-bot rules reference (``/capsa rules [topic]``), in English and Indonesian.

Every page is built for one preset: the bonus table, special values, multipliers, the
table-sweep minimum, the foul multiplier, the scoring mode and method, the room fee rate and
the surrender cost are read from the :class:`~capsa.presets.Preset` object, so the text
cannot drift from the engine. All prose goes through :mod:`capsa.i18n`.

A page fits a Discord embed: ``title``, an ``intro`` (the description) and at most
:data:`MAX_SECTIONS` ``(heading, body)`` fields, within the limits below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from capsa.cards import CapsaError
from capsa.hands import ALL_CATEGORIES
from capsa.i18n import t
from capsa.names import category_name, position_name, special_name
from capsa.presets import DEFAULT_PRESET, METHOD_EXTRA, PRESETS, SPECIALS, Preset
from capsa.scoring import pair_multiplier, pair_points, row_win_value, units_extra
from capsa.settings import TIMEOUT_ACTIONS

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


def _state(flag: bool, lang: str) -> str:
    return t("rules.on" if flag else "rules.off", lang)


def _percent(rate: float) -> str:
    return f"{rate * 100:g}"


def _join(items: list[str], lang: str) -> str:
    return t("rules.list_sep", lang).join(items)


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


def _vs_table(preset: Preset, lang: str) -> str:
    table = preset.table_sweep_multiplier
    if table is None or table == preset.foul_multiplier:
        return ""
    return t("rules.foul.vs_table", lang, t=table)


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


def _foul_text(preset: Preset, lang: str) -> str:
    if preset.scoring == "units":
        x = units_extra(preset, 3, 0)
        why = t(f"rules.foul.why.{_method(preset)}", lang)
        # a fouled player loses all three rows, each worth 1 before royalties
        return t("rules.foul.units", lang, total=pair_points(preset, 3, 3, 0, 1), x=x, why=why)
    return t(
        f"rules.foul.{preset.scoring}",
        lang,
        f=preset.foul_multiplier,
        vs_table=_vs_table(preset, lang),
    )


def _method_text(preset: Preset, lang: str) -> str:
    """The method's extra, with a sweep (3 rows to 0) and a 2-1 split as examples."""
    return t(
        f"rules.method.{_method(preset)}",
        lang,
        x=units_extra(preset, 3, 0),
        s=pair_points(preset, 3, 3, 0, 1),
        two=pair_points(preset, 1, 2, 1, 1),
    )


# --- topics ------------------------------------------------------------------------------

Sections = list[tuple[str, str]]


def _overview(preset: Preset, lang: str, **_: object) -> tuple[str, Sections]:
    suits = (
        "rules.overview.suits.none"
        if preset.suit_tiebreak == "none"
        else "rules.overview.suits.used"
    )
    more = "\n".join(
        t("rules.overview.more.line", lang, topic=topic, name=t(f"rules.topic.{topic}", lang))
        for topic in TOPICS
        if topic != "overview"
    )
    return t("rules.overview.intro", lang, preset=preset.name), [
        (
            t("rules.overview.cards.h", lang),
            t("rules.overview.cards.b", lang, suits=t(suits, lang)),
        ),
        (t("rules.overview.round.h", lang), t("rules.overview.round.b", lang)),
        (t("rules.overview.match.h", lang), t("rules.overview.match.b", lang)),
        (t("rules.overview.typing.h", lang), t("rules.overview.typing.b", lang)),
        (t("rules.overview.more.h", lang), more),
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
    **_: object,
) -> tuple[str, Sections]:
    secs = t("rules.setting.timer.secs", lang, n=turn_seconds) if turn_seconds else ""
    action = t(f"rules.setting.timeout.{timeout_action or 'either'}", lang)
    special = "rules.setting.special.b" if preset.specials else "rules.setting.special.none"
    return t("rules.setting.intro", lang), [
        (t("rules.setting.order.h", lang), t("rules.setting.order.b", lang)),
        (
            t("rules.setting.foul.h", lang),
            t("rules.setting.foul.b", lang, foul=_foul_text(preset, lang)),
        ),
        (t("rules.setting.builder.h", lang), t("rules.setting.builder.b", lang)),
        (
            t("rules.setting.timer.h", lang),
            t("rules.setting.timer.b", lang, secs=secs, action=action),
        ),
        (t("rules.setting.special.h", lang), t(special, lang)),
        (t("rules.setting.invalid.h", lang), t("rules.setting.invalid.b", lang)),
    ]


def _scoring(preset: Preset, lang: str, **_: object) -> tuple[str, Sections]:
    method = _method(preset)
    units = preset.scoring == "units"
    mode = t(f"rules.mode.{preset.scoring}", lang, method=method)
    fee = t("rules.scoring.fee_note", lang) if preset.room_fee else ""
    intro = t("rules.scoring.intro", lang, fee=fee, mode=mode)

    rows = t("rules.scoring.rows.units" if units else "rules.scoring.rows.value", lang)
    if preset.suit_tiebreak == "none":
        rows += t("rules.scoring.rows.push", lang)
    sections: Sections = [(t("rules.scoring.rows.h", lang), rows)]

    example = sweep_example(preset)
    if units:
        sweep = t("rules.scoring.sweep.units", lang, method=_method_text(preset, lang), **example)
    else:
        sweep = t(f"rules.scoring.sweep.{preset.scoring}", lang, **example)
    sections.append((t("rules.scoring.sweep.h", lang), sweep))

    if preset.table_sweep_multiplier is None:
        table = t("rules.scoring.table.none", lang)
    else:
        n = preset.table_sweep_min_opponents or 1
        players_key = "full" if n + 1 >= 4 else "some"
        table = t(
            "rules.scoring.table.b",
            lang,
            n=n,
            players=t(f"rules.scoring.table.players.{players_key}", lang, p=n + 1),
            t=preset.table_sweep_multiplier,
            m=preset.sweep_multiplier,
            base=t("rules.scoring.table.base", lang) if preset.scoring == "base" else "",
        )
    sections.append((t("rules.scoring.table.h", lang), table))
    sections.append((t("rules.scoring.foul.h", lang), _foul_text(preset, lang)))
    if preset.specials:
        sections.append(
            (
                t("rules.scoring.specials.h", lang),
                t("rules.scoring.specials.b", lang, list=_specials_list(preset, lang)),
            )
        )
    if units:
        x16, x24 = METHOD_EXTRA["1-6"], METHOD_EXTRA["2-4"]
        sections.append(
            (
                t("rules.scoring.method.h", lang, method=method),
                t(
                    "rules.scoring.method.b",
                    lang,
                    x16=x16,
                    s16=3 + x16,
                    x24=x24,
                    s24=3 + x24,
                    two=2 - 1 + x24,
                    method=method,
                ),
            )
        )
    if preset.room_fee or "room_fee" in preset.allowed_options:
        sections.append(
            (
                t("rules.scoring.fee.h", lang),
                t(
                    "rules.scoring.fee.b",
                    lang,
                    rate=_percent(preset.room_fee_rate),
                    state=_state(preset.room_fee, lang),
                ),
            )
        )
    if preset.surrender or "surrender" in preset.allowed_options:
        sections.append(
            (
                t("rules.scoring.surrender.h", lang),
                t(
                    "rules.scoring.surrender.b",
                    lang,
                    cost=preset.surrender_cost,
                    state=_state(preset.surrender, lang),
                ),
            )
        )
    return intro, sections


def _row_heading(position: str, lang: str) -> str:
    return t(f"rules.bonuses.row.h.{position}", lang)  # each language's own wording


def _bonuses(preset: Preset, lang: str, **_: object) -> tuple[str, Sections]:
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
        example = t("rules.bonuses.example.units", lang, q=q, sf=sf, total=1 + sf)
        sweep = t("rules.bonuses.sweep.units", lang)
    elif preset.scoring == "base":
        example = t("rules.bonuses.example.value", lang, q=q, sf=sf)
        sweep = t("rules.bonuses.sweep.base", lang, m=preset.sweep_multiplier)
    else:
        example = t("rules.bonuses.example.value", lang, q=q, sf=sf)
        table = preset.table_sweep_multiplier
        sweep = t(
            "rules.bonuses.sweep.multiply",
            lang,
            m=preset.sweep_multiplier,
            table=t("rules.bonuses.sweep.table", lang, t=table) if table else "",
        )
    sections.append((t("rules.bonuses.example.h", lang), example))
    sections.append((t("rules.bonuses.sweep.h", lang), sweep))
    intro = t("rules.bonuses.intro.units" if units else "rules.bonuses.intro.value", lang)
    return intro, sections


def _specials(preset: Preset, lang: str, **_: object) -> tuple[str, Sections]:
    sections: Sections = []
    paid = [s for s in SPECIALS if s in preset.specials]
    for special in paid:
        sections.append(
            (
                t(
                    "rules.specials.h",
                    lang,
                    name=special_name(special, lang),
                    value=preset.specials[special],
                ),
                t(f"rules.specials.cond.{special}", lang),
            )
        )
    if not paid:
        sections.append((t("rules.specials.none.h", lang), t("rules.specials.none.b", lang)))
        return t("rules.specials.intro", lang), sections
    sections.append((t("rules.specials.pay.h", lang), t("rules.specials.pay.b", lang)))
    sections.append(
        (t("rules.specials.same.h", lang), t(f"rules.specials.same.{preset.same_special}", lang))
    )
    absent = [s for s in SPECIALS if s not in preset.specials]
    if absent:
        names = _join([special_name(s, lang) for s in absent], lang)
        sections.append(
            (t("rules.specials.absent.h", lang), t("rules.specials.absent.b", lang, names=names))
        )
    return t("rules.specials.intro", lang), sections


def _preset_summary(preset: Preset, lang: str) -> str:
    units = preset.scoring == "units"
    rows = []
    for position in _BONUS_POSITIONS:
        items = _bonus_items(preset, position)
        if items:
            shown = _join(
                [f"{category_name(c, lang)} {'+' if units else ''}{v}" for c, v in items], lang
            )
            rows.append(
                t("rules.presets.bonus_row", lang, row=position_name(position, lang), items=shown)
            )
    bonus_key = "rules.presets.bonuses.units" if units else "rules.presets.bonuses.value"
    lines = [
        t("rules.presets.ties", lang, text=t(f"rules.presets.tie.{preset.suit_tiebreak}", lang)),
        t(bonus_key, lang, list=" · ".join(rows)),
    ]
    if units:
        method = _method(preset)
        sweep = t("rules.presets.sweep.units", lang, x=METHOD_EXTRA[method], method=method)
    else:
        sweep = t(f"rules.presets.sweep.{preset.scoring}", lang, m=preset.sweep_multiplier)
    lines.append(t("rules.presets.sweep", lang, text=sweep))
    if preset.table_sweep_multiplier is None:
        lines.append(t("rules.presets.table.none", lang))
    else:
        lines.append(
            t(
                "rules.presets.table",
                lang,
                t=preset.table_sweep_multiplier,
                n=preset.table_sweep_min_opponents or 1,
            )
        )
    if units:
        lines.append(t("rules.presets.foul.units", lang))
    else:
        lines.append(
            t(
                "rules.presets.foul",
                lang,
                f=preset.foul_multiplier,
                vs_table=_vs_table(preset, lang),
            )
        )
    if preset.specials:
        same = t(f"rules.presets.same.{preset.same_special}", lang)
        lines.append(
            t("rules.presets.specials", lang, list=_specials_list(preset, lang), same=same)
        )
    else:
        lines.append(t("rules.presets.specials.none", lang))
    options = []
    if "method" in preset.allowed_options:
        options.append(t("rules.presets.opt.method", lang, method=_method(preset)))
    if "room_fee" in preset.allowed_options:
        options.append(
            t(
                "rules.presets.opt.room_fee",
                lang,
                rate=_percent(preset.room_fee_rate),
                state=_state(preset.room_fee, lang),
            )
        )
    if "surrender" in preset.allowed_options:
        options.append(
            t(
                "rules.presets.opt.surrender",
                lang,
                cost=preset.surrender_cost,
                state=_state(preset.surrender, lang),
            )
        )
    if options:
        lines.append(t("rules.presets.options", lang, list=_join(options, lang)))
    else:
        lines.append(t("rules.presets.options.none", lang))
    return "\n".join(f"• {line}" for line in lines)


def _presets(preset: Preset, lang: str, **_: object) -> tuple[str, Sections]:
    sections: Sections = []
    for name, other in PRESETS.items():
        # The server's own preset is shown with its table options applied.
        shown = preset if name == preset.name else other
        heading = t("rules.presets.h.current", lang, name=name) if name == preset.name else name
        sections.append((heading, _preset_summary(shown, lang)))
    intro = t(
        "rules.presets.intro", lang, count=len(PRESETS), preset=preset.name, default=DEFAULT_PRESET
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
) -> RulesPage:
    """The page for ``topic`` (``None`` or empty: overview) under ``preset``, in ``lang``.

    Optional server settings make the "setting" page exact: ``turn_seconds`` is the
    countdown length and ``timeout_action`` (``auto`` or ``foul``) what happens to a hand
    not submitted in time; without them the page explains both choices.
    An unknown topic raises :class:`CapsaError` naming it and the valid topics.
    """
    key = (topic or "overview").strip().lower()
    if key not in _BUILDERS:
        raise CapsaError(t("rules.unknown", lang, topic=topic, topics=", ".join(TOPICS)))
    if timeout_action not in (None, *TIMEOUT_ACTIONS):
        raise CapsaError(f"timeout_action must be 'auto' or 'foul', not {timeout_action!r}")
    intro, sections = _BUILDERS[key](
        preset, lang, turn_seconds=turn_seconds, timeout_action=timeout_action
    )
    title = t("rules.title", lang, topic=t(f"rules.topic.{key}", lang), preset=preset.name)
    return RulesPage(title=title, intro=intro, sections=tuple(sections))
