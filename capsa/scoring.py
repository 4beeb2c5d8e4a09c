"""Scoring a round (RULES §4-§5): pairwise settlement, sweeps, fouls, specials, fees.

``score_round`` returns an immutable :class:`RoundResult` that holds everything a showdown
needs (rows, hand names, row winners and values, bonuses, sweeps, multipliers, points), so
that nothing has to be recomputed to show it.

The arithmetic of a pair (what a won row pays, when a table sweep counts, the multiplier,
the units extra, the pair's points) is in small public functions below. ``score_round``
settles with them, and so do the solver's vectorised copies (capsa.solver.model,
capsa.solver.monte_carlo: they work on numpy arrays as well as on ints) and the rules text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal, TypeVar

import numpy as np

from capsa.cards import CapsaError, Card, check_setting, format_cards
from capsa.hands import Row, compare, evaluate, is_fouled
from capsa.presets import METHOD_EXTRA, POSITIONS, Preset
from capsa.specials import compare_specials, holds

# The pair arithmetic below takes numbers (score_round) or numpy arrays (the solver).
Num = TypeVar("Num", int, float, np.ndarray)


@dataclass(frozen=True)
class Seat:
    """One player's input to a round: the rows as set, and what they declared."""

    name: str
    back: tuple[Card, ...] = ()
    middle: tuple[Card, ...] = ()
    front: tuple[Card, ...] = ()
    declare: str | None = None
    surrender: bool = False
    foul: bool = False  # scored as fouled whatever the rows (a timed-out player, by table setting)

    @property
    def setting(self) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
        return self.back, self.middle, self.front

    @property
    def cards(self) -> tuple[Card, ...]:
        return (*self.back, *self.middle, *self.front)


@dataclass(frozen=True)
class PlayerResult:
    name: str
    rows: tuple[Row, Row, Row] | None  # back, middle, front; None for a surrender without rows
    fouled: bool
    special: str | None
    surrendered: bool
    points: int  # before any room fee
    fee: float
    total: float  # points - fee: the round score


@dataclass(frozen=True)
class RowOutcome:
    position: str
    winner: int | None  # player index, or None for a push
    value: int  # what the row pays before any multiplier
    bonus: str | None  # the winner's category when it carries a bonus/royalty


@dataclass(frozen=True)
class PairResult:
    """How two players settled. ``points`` go to ``players[0]`` (the other gets minus)."""

    players: tuple[int, int]
    kind: Literal["rows", "foul", "both_fouled", "special", "surrender"]
    rows: tuple[RowOutcome, ...]
    sweep: int | None  # the player who took all three rows (or the foul)
    table_sweep: bool
    multiplier: int
    special: str | None  # the special that was paid, if any
    extra: int  # chinese-poker: the sweep (1-6) or majority (2-4) units, to the winner
    points: int

    def points_for(self, player: int) -> int:
        return self.points if player == self.players[0] else -self.points


@dataclass(frozen=True)
class RoundResult:
    preset: str
    options: dict
    players: tuple[PlayerResult, ...]
    pairs: tuple[PairResult, ...]
    table_sweeper: int | None

    def pairs_of(self, player: int) -> list[PairResult]:
        return [p for p in self.pairs if player in p.players]

    def sweeps_of(self, player: int) -> tuple[int, int]:
        """(opponents this player swept, opponents who swept this player), over the pairs
        settled row by row."""
        sweeps = [
            p.sweep for p in self.pairs_of(player) if p.kind == "rows" and p.sweep is not None
        ]
        given = sum(1 for s in sweeps if s == player)
        return given, len(sweeps) - given

    def best_row(self, player: int) -> tuple[str, Row] | None:
        """The player's strongest row and its position; None when fouled or without rows."""
        rows = self.players[player].rows
        if rows is None or self.players[player].fouled:
            return None
        return max(zip(POSITIONS, rows, strict=True), key=lambda pr: pr[1].strength)

    def to_dict(self) -> dict:
        return {
            "rules": self.preset,
            "options": dict(self.options),
            "players": [_player_dict(p) for p in self.players],
            "pairs": [_pair_dict(p, self.players) for p in self.pairs],
            "table_sweep": (
                self.players[self.table_sweeper].name if self.table_sweeper is not None else None
            ),
        }


def _player_dict(p: PlayerResult) -> dict:
    rows = {}
    if p.rows is not None:
        for position, row in zip(POSITIONS, p.rows, strict=True):
            rows[position] = {"cards": [c.code for c in row.cards], "category": row.category}
    return {
        "name": p.name,
        "total": p.total,
        "points": p.points,
        "fee": p.fee,
        "fouled": p.fouled,
        "special": p.special,
        "surrendered": p.surrendered,
        **rows,
    }


def _pair_dict(pair: PairResult, players: Sequence[PlayerResult]) -> dict:
    def name(i: int | None) -> str | None:
        return players[i].name if i is not None else None

    return {
        "players": [name(i) for i in pair.players],
        "kind": pair.kind,
        "rows": {
            r.position: {"winner": name(r.winner), "value": r.value, "bonus": r.bonus}
            for r in pair.rows
        },
        "sweep": name(pair.sweep),
        "table_sweep": pair.table_sweep,
        "multiplier": pair.multiplier,
        "special": pair.special,
        "extra": pair.extra,
        "points": {name(pair.players[0]): pair.points, name(pair.players[1]): -pair.points},
    }


# --- validation ---------------------------------------------------------------------------


def _validate(seats: Sequence[Seat], preset: Preset) -> None:
    if not 2 <= len(seats) <= 4:
        raise CapsaError(f"a table has 2 to 4 players, not {len(seats)}")
    names = [s.name for s in seats]
    if len(set(names)) != len(names):
        raise CapsaError("two players have the same name: give each player a different name")
    owner: dict[Card, str] = {}
    for seat in seats:
        if seat.surrender:
            if not preset.surrender:
                raise CapsaError(f"{seat.name}: surrender is not allowed with these rules")
            if not any(seat.setting):
                continue
        try:
            check_setting(None, *seat.setting)
        except CapsaError as err:
            raise CapsaError(f"{seat.name}: {err}") from None
        for card in seat.cards:
            if card in owner:
                raise CapsaError(f"'{card.code}' is held by both {owner[card]} and {seat.name}")
            owner[card] = seat.name
        if seat.declare is not None:
            if not preset.pays(seat.declare):
                raise CapsaError(
                    f"{seat.name}: '{seat.declare}' is not a special that {preset.name} pays"
                )
            if not holds(seat.declare, seat.setting):
                raise CapsaError(
                    f"{seat.name}: the hand {format_cards(seat.cards)} does not hold "
                    f"'{seat.declare}', so it cannot be declared"
                )


# --- the arithmetic of a pair -------------------------------------------------------------


def row_win_value(preset: Preset, position: str, category: str) -> int:
    """What a row pays its winner before any multiplier: the preset's value for the
    category at that position (1 if none is listed), or 1 + the royalty for ``units``."""
    value = preset.row_value(position, category)
    return value + 1 if preset.scoring == "units" else value


def table_sweep_applies(preset: Preset, players: int) -> bool:
    """Does the preset pay a table sweep at a table of ``players``?"""
    return preset.table_sweep_multiplier is not None and players - 1 >= (
        preset.table_sweep_min_opponents or 0
    )


def pair_multiplier(preset: Preset, *, table_sweep: bool, foul: bool) -> int:
    """The multiplier of a pair where one player took all three rows: the table-sweep
    multiplier when the sweep is part of a table sweep, else the foul multiplier when the
    other player fouled, else the sweep multiplier. Nothing is multiplied under ``units``."""
    if preset.scoring == "units":
        return 1
    if table_sweep:
        return preset.table_sweep_multiplier or 1
    return preset.foul_multiplier if foul else preset.sweep_multiplier


def units_extra(preset: Preset, won: Num, lost: Num) -> Num:
    """``units`` scoring's extra for the player who won ``won`` rows and lost ``lost``
    (signed): +3 for a sweep under 1-6, +1 for the majority of the rows under 2-4."""
    if preset.method == "2-4":
        return METHOD_EXTRA["2-4"] * ((won > lost) * 1 - (won < lost) * 1)
    return METHOD_EXTRA["1-6"] * ((won == 3) * 1 - (lost == 3) * 1)


def pair_points(preset: Preset, net: Num, won: Num, lost: Num, multiplier: Num) -> Num:
    """A pair's points to the player who won ``won`` rows and lost ``lost``, where ``net``
    is the value of the rows won minus the value of the rows lost (``row_win_value``) and
    ``multiplier`` is 1 or ``pair_multiplier``. ``multiply`` multiplies the whole net,
    bonuses included; ``base`` only the base 1 a row (the bonus surplus is added as it is);
    ``units`` adds ``units_extra`` and multiplies nothing."""
    if preset.scoring == "units":
        return net + units_extra(preset, won, lost)
    if preset.scoring == "multiply":
        return net * multiplier
    base = won - lost
    return base * multiplier + (net - base)


# --- scoring ------------------------------------------------------------------------------


def score_round(seats: Sequence[Seat], preset: Preset) -> RoundResult:
    """Settle a round pairwise under ``preset`` (RULES §5)."""
    _validate(seats, preset)
    rows: list[tuple[Row, Row, Row] | None] = []
    for seat in seats:
        if seat.back:
            back, middle, front = (evaluate(r) for r in seat.setting)
            rows.append((back, middle, front))
        else:
            rows.append(None)  # a surrender without rows (_validate allows nothing else)
    special = [None if s.surrender else s.declare for s in seats]
    fouled = [
        not s.surrender
        and declared is None
        and (s.foul or (setting is not None and is_fouled(*setting)))
        for s, setting, declared in zip(seats, rows, special, strict=True)
    ]

    raw = {
        (i, j): _settle_rows(i, j, seats, rows, fouled, special, preset)
        for i, j in combinations(range(len(seats)), 2)
    }
    sweeper = _table_sweeper(len(seats), raw, fouled, special, seats, preset)
    pairs = tuple(_finish_pair(pair, sweeper, preset) for pair in raw.values())

    points = [0] * len(seats)
    for pair in pairs:
        i, j = pair.players
        points[i] += pair.points
        points[j] -= pair.points
    players = []
    for i, seat in enumerate(seats):
        fee = 0.0
        if preset.room_fee and points[i] > 0:
            fee = round(points[i] * preset.room_fee_rate, 2)
        total: float = points[i] - fee if fee else points[i]
        players.append(
            PlayerResult(
                name=seat.name,
                rows=rows[i],
                fouled=fouled[i],
                special=special[i],
                surrendered=seat.surrender,
                points=points[i],
                fee=fee,
                total=round(total, 2) if fee else total,
            )
        )
    return RoundResult(
        preset=preset.name,
        options=preset.options,
        players=tuple(players),
        pairs=pairs,
        table_sweeper=sweeper,
    )


def _settle_rows(i, j, seats, rows, fouled, special, preset: Preset) -> PairResult:
    """The pair's row outcomes, before multipliers (those need the table sweeper)."""

    def pair(kind, outcomes=(), sweep=None, special_paid=None, points=0) -> PairResult:
        return PairResult(
            players=(i, j),
            kind=kind,
            rows=tuple(outcomes),
            sweep=sweep,
            table_sweep=False,
            multiplier=1,
            special=special_paid,
            extra=0,
            points=points,
        )

    if seats[i].surrender or seats[j].surrender:
        if seats[i].surrender and seats[j].surrender:
            return pair("surrender")
        sign = -1 if seats[i].surrender else 1
        return pair("surrender", points=sign * preset.surrender_cost)
    if special[i] or special[j]:
        if special[i] and special[j]:
            sign = compare_specials(
                special[i], seats[i].setting, special[j], seats[j].setting, preset
            )
        else:
            sign = 1 if special[i] else -1
        paid = (special[i] if sign > 0 else special[j]) if sign else None
        points = sign * preset.specials[paid] if paid else 0
        return pair("special", special_paid=paid, points=points)
    if fouled[i] and fouled[j]:
        return pair("both_fouled")
    outcomes = []
    for k, position in enumerate(POSITIONS):
        if fouled[i] or fouled[j]:
            sign = -1 if fouled[i] else 1
        else:
            sign = compare(rows[i][k], rows[j][k], preset.suit_tiebreak)
        winner = None if sign == 0 else (i if sign > 0 else j)
        value = 0
        bonus = None
        if winner is not None:
            category = rows[winner][k].category
            value = row_win_value(preset, position, category)
            if (position, category) in preset.row_values:
                bonus = category
        outcomes.append(RowOutcome(position, winner, value, bonus))
    kind = "foul" if fouled[i] or fouled[j] else "rows"
    winners = {o.winner for o in outcomes}
    sweep = outcomes[0].winner if len(winners) == 1 and None not in winners else None
    return pair(kind, outcomes, sweep=sweep)


def _table_sweeper(n, raw, fouled, special, seats, preset: Preset) -> int | None:
    if not table_sweep_applies(preset, n):
        return None
    for p in range(n):
        if fouled[p] or special[p] or seats[p].surrender:
            continue
        if all(pair.sweep == p for key, pair in raw.items() if p in key):
            return p
    return None


def _finish_pair(pair: PairResult, sweeper: int | None, preset: Preset) -> PairResult:
    """Apply the sweep, table-sweep and foul multipliers (or units) to a pair's rows."""
    if pair.kind not in ("rows", "foul"):
        return pair
    i, j = pair.players
    net = sum(o.value if o.winner == i else -o.value for o in pair.rows if o.winner is not None)
    table_sweep = pair.sweep is not None and pair.sweep == sweeper
    won_i = sum(o.winner == i for o in pair.rows)
    won_j = sum(o.winner == j for o in pair.rows)
    multiplier = 1
    if pair.sweep is not None:
        multiplier = pair_multiplier(preset, table_sweep=table_sweep, foul=pair.kind == "foul")
    extra = abs(units_extra(preset, won_i, won_j)) if preset.scoring == "units" else 0
    points = pair_points(preset, net, won_i, won_j, multiplier)
    return PairResult(
        players=pair.players,
        kind=pair.kind,
        rows=pair.rows,
        sweep=pair.sweep,
        table_sweep=table_sweep,
        multiplier=multiplier,
        special=None,
        extra=extra,
        points=points,
    )
