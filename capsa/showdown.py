"""The showdown as text (embeds, terminal): rows, head to head, round points and totals.

Everything here reads a :class:`~capsa.scoring.RoundResult`; nothing is recomputed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from capsa.cards import format_cards
from capsa.i18n import number, t
from capsa.names import category_name, position_name, row_name, special_name
from capsa.presets import POSITIONS
from capsa.scoring import PairResult, RoundResult

# The order rows are listed in, in a player's block and in every "X vs Y" line alike: front
# on top, as the pictures stack them.
ROW_ORDER = ("front", "middle", "back")


def signed(points: float, lang: str) -> str:
    """Points with their sign ("+5", "-2", "+9,7" in Indonesian), as ``lang`` writes
    numbers; a room fee leaves at most two decimals."""
    return number(points, lang, digits=2, sign=True)


def player_lines(
    result: RoundResult, index: int, lang: str = "en", auto: bool = False
) -> list[str]:
    """A player's three rows (front on top), then foul/special/auto marks and points."""
    player = result.players[index]
    lines = []
    if player.rows is not None and not player.surrendered:
        for position in ROW_ORDER:
            row = player.rows[POSITIONS.index(position)]
            cards = format_cards(row.cards, symbols=True)
            lines.append(f"{position_name(position, lang)}: {cards} — {row_name(row, lang)}")
    if player.surrendered:
        lines.append(t("sd.surrender", lang))
    if player.fouled:
        lines.append(t("sd.fouled", lang))
    if player.special:
        lines.append(t("sd.special", lang, special=special_name(player.special, lang)))
    if auto:
        lines.append(t("sd.auto", lang))
    points = t("sd.points", lang, points=signed(player.total, lang))
    if player.fee:
        points += " " + t("sd.fee", lang, fee=number(player.fee, lang, digits=2))
    lines.append(points)
    return lines


def pair_line(result: RoundResult, pair: PairResult, lang: str = "en") -> str:
    """Head to head for one pair: row winners and values, bonuses, sweep, multiplier, points."""
    names = [p.name for p in result.players]
    i, j = pair.players
    parts: list[str] = []
    if pair.kind in ("rows", "foul"):
        if pair.kind == "foul":
            loser = i if result.players[i].fouled else j
            parts.append(t("sd.foul_pair", lang, name=names[loser], mult=pair.multiplier))
        for outcome in sorted(pair.rows, key=lambda o: ROW_ORDER.index(o.position)):
            row = position_name(outcome.position, lang)
            if outcome.winner is None:
                parts.append(t("sd.row_push", lang, row=row))
                continue
            text = t("sd.row_win", lang, row=row, winner=names[outcome.winner], value=outcome.value)
            if outcome.bonus:
                text += " " + t("sd.bonus", lang, bonus=category_name(outcome.bonus, lang))
            parts.append(text)
        if pair.kind == "rows" and pair.sweep is not None:
            key = "sd.table_sweep" if pair.table_sweep else "sd.sweep"
            if pair.multiplier > 1:
                parts.append(t(key, lang, name=names[pair.sweep], mult=pair.multiplier))
        if pair.extra:
            key = "sd.extra_sweep" if pair.sweep is not None else "sd.extra_majority"
            won = [o.winner for o in pair.rows]  # the extra is the one who won more rows
            parts.append(t(key, lang, units=pair.extra, name=names[max((i, j), key=won.count)]))
    elif pair.kind == "both_fouled":
        parts.append(t("sd.both_fouled", lang))
    elif pair.kind == "special":
        if pair.special is None:
            parts.append(t("sd.special_tie", lang))
        else:
            holder = i if pair.points > 0 else j
            special = special_name(pair.special, lang)
            parts.append(t("sd.special_pair", lang, name=names[holder], special=special))
    elif pair.kind == "surrender":
        for k in (i, j):
            if result.players[k].surrendered:
                parts.append(t("sd.surrender_pair", lang, name=names[k]))
    head = t("sd.vs", lang, a=names[i], b=names[j])
    tail = t(
        "sd.result",
        lang,
        a=names[i],
        pa=signed(pair.points, lang),
        b=names[j],
        pb=signed(-pair.points, lang),
    )
    return f"**{head}**: " + " · ".join(parts) + f" {tail}"


def totals_lines(totals: Mapping[str, float], lang: str) -> list[str]:
    ordered = sorted(totals.items(), key=lambda kv: -kv[1])
    return [f"{name}: **{signed(total, lang)}**" for name, total in ordered]


def showdown_text(
    result: RoundResult,
    totals: Mapping[str, float],
    round_number: int,
    rounds_total: int,
    lang: str = "en",
    auto: Collection[int] = (),
) -> str:
    """The whole showdown as plain text (the terminal game prints this)."""
    out: list[str] = []
    for index, player in enumerate(result.players):
        out.append(f"== {player.name} ==")
        out.extend(player_lines(result, index, lang, auto=index in auto))
    out.append("")
    out.extend(pair_line(result, pair, lang) for pair in result.pairs)
    out.append("")
    out.append(t("sd.totals", lang))
    out.extend(totals_lines(totals, lang))
    out.append(t("sd.round_footer", lang, k=round_number, n=rounds_total, preset=result.preset))
    return "\n".join(out).replace("**", "")  # embeds use Markdown; a terminal does not
