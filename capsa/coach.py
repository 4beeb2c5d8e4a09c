"""The coach: how well a person set their hand, valued as the ``hard`` level values settings.

``review_hand`` solves the 13 cards at ``hard`` (the same call, seed and table size as
``python -m capsa arrange --level hard``, so the best setting and its value are the ones
that command prints) and scores the setting the person played on the same Monte Carlo
deals: opponents dealt from the 39 unseen cards and set by ``normal``, each mean shrunk
towards the row model's estimate as ``hard`` shrinks its own candidates
(capsa.solver.monte_carlo.hard_choice). A fouled setting is scored on those deals too, and
so is a surrender (its price to each opponent who did not surrender too); where the table
allows surrender, the best choice may be to surrender. What the choice cost is the best
value less the played one.

A review is a frozen :class:`Review`; ``to_dict``/``from_dict`` store it with the round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from capsa.cards import CapsaError, Card, DeckStyle, format_cards, parse_cards
from capsa.hands import evaluate, is_fouled
from capsa.i18n import count_of, number, t
from capsa.names import OPPONENTS_WORDS, position_name, row_name, special_name
from capsa.presets import POSITIONS, Preset
from capsa.showdown import signed
from capsa.solver.evaluator import C3, C5, HandTables, find_specials
from capsa.solver.front import Rows, check_hand, default_seed, solve_indices
from capsa.solver.model import declare_value, normal_choice, special_edge, special_odds
from capsa.solver.monte_carlo import PlayedRows, hard_choice

# A choice within this many points a hand of the best is the best: the Monte Carlo cannot
# tell them apart, and neither can a player.
BEST_MARGIN = 0.05


class Origin(StrEnum):
    """Who set the reviewed hand. Only ``played`` hands count toward a player's sharpness."""

    PLAYED = "played"  # the person set (or declared) it
    AUTO = "auto"  # the person submitted Auto-arrange's suggestion as it came
    TIMED_OUT = "timed_out"  # the countdown ran out and the table's timeout action set it


class SpecialAdvice(StrEnum):
    """Was declaring (or not declaring) the hand's special right?"""

    NONE = "none"  # the hand holds no special the preset pays
    DECLARED_RIGHT = "declared_right"
    DECLARED_WRONG = "declared_wrong"  # the rows were worth more
    ROWS_RIGHT = "rows_right"  # holding a special, playing rows was right
    SHOULD_DECLARE = "should_declare"  # the special was worth more than the rows


@dataclass(frozen=True)
class Review:
    cards: tuple[Card, ...]
    opponents: int
    origin: Origin
    played: Rows | None  # back, middle, front; None for a surrender without rows
    declared: str | None
    surrendered: bool
    fouled: bool
    played_value: float  # expected points of the played setting (all opponents)
    best: Rows  # hard's setting (the special's rows when it declares)
    best_declare: str | None
    best_value: float
    special: str | None  # the best special the hand holds that the preset pays
    special_value: float | None  # expected points of declaring it
    rows_value: float  # expected points of hard's best ordinary rows
    best_surrender: bool = False  # hard surrenders the hand (best: the rows it would play)
    surrender_value: float | None = None  # expected points of surrendering, where allowed

    @property
    def loss(self) -> float:
        """Points a hand the choice gave away against the best setting (never below 0)."""
        return max(0.0, self.best_value - self.played_value)

    @property
    def is_best(self) -> bool:
        return self.loss < BEST_MARGIN

    @property
    def counts(self) -> bool:
        """Does this hand count toward the player's sharpness?"""
        return self.origin == Origin.PLAYED

    @property
    def advice(self) -> SpecialAdvice:
        if self.special is None or self.special_value is None:
            return SpecialAdvice.NONE
        declare_better = self.special_value > self.rows_value
        if self.declared is not None:
            return SpecialAdvice.DECLARED_RIGHT if declare_better else SpecialAdvice.DECLARED_WRONG
        return SpecialAdvice.SHOULD_DECLARE if declare_better else SpecialAdvice.ROWS_RIGHT

    def to_dict(self) -> dict[str, Any]:
        def rows(setting: Rows | None) -> list[list[str]] | None:
            return None if setting is None else [[c.code for c in row] for row in setting]

        return {
            "cards": [c.code for c in self.cards],
            "opponents": self.opponents,
            "origin": self.origin.value,
            "played": rows(self.played),
            "declared": self.declared,
            "surrendered": self.surrendered,
            "fouled": self.fouled,
            "played_value": self.played_value,
            "best": rows(self.best),
            "best_declare": self.best_declare,
            "best_value": self.best_value,
            "special": self.special,
            "special_value": self.special_value,
            "rows_value": self.rows_value,
            "best_surrender": self.best_surrender,
            "surrender_value": self.surrender_value,
            "loss": self.loss,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Review:
        def rows(value: Any) -> Rows | None:
            if value is None:
                return None
            back, middle, front = (tuple(parse_cards(r)) for r in value)
            return back, middle, front

        best = rows(data["best"])
        if best is None:
            raise ValueError("a stored review has no best setting")
        special_value = data.get("special_value")
        surrender_value = data.get("surrender_value")
        return cls(
            cards=tuple(parse_cards(data["cards"])),
            opponents=int(data["opponents"]),
            origin=Origin(data["origin"]),
            played=rows(data["played"]),
            declared=data.get("declared"),
            surrendered=bool(data.get("surrendered")),
            fouled=bool(data.get("fouled")),
            played_value=float(data["played_value"]),
            best=best,
            best_declare=data.get("best_declare"),
            best_value=float(data["best_value"]),
            special=data.get("special"),
            special_value=None if special_value is None else float(special_value),
            rows_value=float(data["rows_value"]),
            best_surrender=bool(data.get("best_surrender")),
            surrender_value=None if surrender_value is None else float(surrender_value),
        )


def review_hand(
    cards: Sequence[Card],
    preset: Preset,
    opponents: int,
    played: Rows | None,
    declared: str | None = None,
    *,
    surrendered: bool = False,
    foul: bool = False,
    origin: Origin = Origin.PLAYED,
    seed: int | None = None,
) -> Review:
    """Review the setting ``played`` (None only with ``surrendered``) of ``cards`` at a
    table of ``opponents`` opponents. ``foul``: the hand was scored as fouled whatever its
    rows (a timed-out hand, by table setting). ``seed`` defaults to the hand's own, as
    ``arrange``'s."""
    indices = check_hand(cards)
    if not 1 <= opponents <= 3:
        raise CapsaError(f"a table has 1 to 3 opponents, not {opponents}")
    if seed is None:
        seed = default_seed(indices)
    tables = HandTables(indices)
    order = np.argsort(indices, kind="stable")
    sorted_cards = [cards[i] for i in order]

    def to_cards(positions: np.ndarray) -> tuple[Card, ...]:
        return tuple(sorted((sorted_cards[p] for p in positions), reverse=True))

    def setting(rows: tuple[np.ndarray, np.ndarray, np.ndarray]) -> Rows:
        return to_cards(rows[0]), to_cards(rows[1]), to_cards(rows[2])

    rows_played = None
    fouled = False
    if played is not None:
        _check_played(cards, played)
        fouled = declared is None and (foul or is_fouled(*(evaluate(r) for r in played)))
        if declared is None and not surrendered:
            rows_played = _played_rows(tables, played, fouled)
    elif not surrendered:
        raise CapsaError("a review needs the rows played, or a surrender")

    solved = solve_indices(indices, preset, "hard", opponents, seed, rows_played, tables)
    if surrendered:
        if solved.surrender_value is None:
            raise CapsaError(f"{preset.name} does not allow surrender at this table")
        played_value = solved.surrender_value
    elif declared is not None:
        if declared == solved.special and solved.special_value is not None:
            played_value = solved.special_value
        else:
            played_value = _declared_value(tables, preset, opponents, seed, declared)
    else:
        assert solved.played_expected is not None
        played_value = solved.played_expected
    return Review(
        cards=tuple(cards),
        opponents=opponents,
        origin=origin,
        played=None if played is None else tuple(tuple(r) for r in played),  # type: ignore[arg-type]
        declared=declared,
        surrendered=surrendered,
        fouled=fouled,
        played_value=float(played_value),
        best=setting(solved.rows),
        best_declare=solved.declare,
        best_value=float(solved.expected),
        special=solved.special,
        special_value=None if solved.special_value is None else float(solved.special_value),
        rows_value=float(solved.ordinary_expected),
        best_surrender=solved.surrender,
        surrender_value=solved.surrender_value,
    )


def review_job(
    cards: Sequence[Card],
    preset: Preset,
    opponents: int,
    played: Rows | None,
    declared: str | None,
    foul: bool,
    origin: Origin,
    surrendered: bool = False,
) -> Review:
    """``review_hand`` with positional arguments only: a job for a worker process."""
    return review_hand(
        cards,
        preset,
        opponents,
        played,
        declared,
        surrendered=surrendered,
        foul=foul,
        origin=origin,
    )


def _check_played(cards: Sequence[Card], played: Rows) -> None:
    back, middle, front = played
    if (len(back), len(middle), len(front)) != (5, 5, 3):
        raise CapsaError("a setting has 5 cards in the back, 5 in the middle and 3 in the front")
    if sorted(c.index for r in played for c in r) != sorted(c.index for c in cards):
        raise CapsaError("the rows played are not these 13 cards")


_FIVE = {int(m): i for i, m in enumerate((1 << C5).sum(axis=1))}  # position mask -> subset
_THREE = {int(m): i for i, m in enumerate((1 << C3).sum(axis=1))}


def _played_rows(tables: HandTables, played: Rows, fouled: bool) -> PlayedRows:
    """The played rows as subset indices of the hand's sorted positions."""
    position = {int(card): p for p, card in enumerate(tables.indices)}

    def mask(row: Sequence[Card]) -> int:
        return sum(1 << position[c.index] for c in row)

    back, middle, front = played
    return PlayedRows(_FIVE[mask(back)], _FIVE[mask(middle)], _THREE[mask(front)], fouled)


def _declared_value(
    tables: HandTables, preset: Preset, opponents: int, seed: int, declared: str
) -> float:
    """Expected points of declaring ``declared`` when it is not the hand's best special:
    scored as hard scores the special it weighs, on the same deals."""
    found = find_specials(tables, preset)
    if declared not in found:
        raise CapsaError(f"the hand does not hold '{declared}', so it cannot be declared")
    _, ev = normal_choice(tables, preset, opponents)
    odds = special_odds(tables.indices, preset)
    edge = special_edge(tables.indices, preset, declared)
    prior = declare_value(preset, odds, declared, edge) * opponents
    value = hard_choice(
        tables, preset, opponents, ev, seed, odds, declared, found[declared], prior
    ).special
    assert value is not None
    return value


# --- the review in words ------------------------------------------------------------------


@dataclass(frozen=True)
class ReviewText:
    """A review as text (the bot's embed, the terminal, screen readers): both settings row
    by row with their values, the verdict, the notes (special, who set the hand) and how
    the values were found."""

    yours_title: str
    yours: str
    best_title: str
    best: str
    verdict: str
    notes: tuple[str, ...]
    how: str


def review_text(review: Review, lang: str, deck: DeckStyle = DeckStyle.CLASSIC) -> ReviewText:
    """The review in words, the cards in the reader's ``deck`` style."""

    def points(value: float) -> str:
        return signed(value, lang)

    notes = []
    if review.special is not None and review.special_value is not None:
        notes.append(
            t(
                f"rev.{review.advice.value}",
                lang,
                special=special_name(review.special, lang),
                special_points=points(review.special_value),
                rows_points=points(review.rows_value),
            )
        )
    surrender_note = _surrender_note(review, lang)
    if surrender_note is not None:
        notes.append(surrender_note)
    if review.origin == Origin.AUTO:
        notes.append(t("rev.auto", lang))
    elif review.origin == Origin.TIMED_OUT:
        notes.append(t("rev.timed_out", lang))
    if review.is_best:
        verdict = t("rev.best_choice", lang)
    else:
        verdict = t("rev.cost", lang, loss=number(review.loss, lang, digits=2))
    return ReviewText(
        yours_title=t("rev.yours", lang, points=points(review.played_value)),
        yours=_setting_text(review.played, review.declared, review.surrendered, lang, deck),
        best_title=t("rev.best", lang, points=points(review.best_value)),
        best=_setting_text(review.best, review.best_declare, review.best_surrender, lang, deck),
        verdict=verdict,
        notes=tuple(notes),
        how=" ".join(
            (
                t("rev.how", lang, opponents=count_of(OPPONENTS_WORDS, review.opponents, lang)),
                t("rev.models", lang),
            )
        ),
    )


def _surrender_note(review: Review, lang: str) -> str | None:
    """Where the table allows surrender: was giving the hand up (or keeping it) right?"""
    if review.surrender_value is None:
        return None
    surrender_points = signed(review.surrender_value, lang)
    if review.surrendered:
        if review.is_best:
            return t("rev.surrender_best", lang, surrender_points=surrender_points)
        return t(
            "rev.surrender_cost",
            lang,
            loss=number(review.loss, lang, digits=2),
            best_points=signed(review.best_value, lang),
            surrender_points=surrender_points,
        )
    if review.best_surrender and not review.is_best:
        return t(
            "rev.should_surrender",
            lang,
            surrender_points=surrender_points,
            played_points=signed(review.played_value, lang),
        )
    return None


def _setting_text(
    setting: Rows | None, declared: str | None, surrendered: bool, lang: str, deck: DeckStyle
) -> str:
    """Front on top, as on the table; then a declared special, a surrender or a foul."""
    lines = []
    if setting is not None:
        for position, cards in reversed(list(zip(POSITIONS, setting, strict=True))):
            row = evaluate(cards)
            lines.append(
                f"{position_name(position, lang)}: {format_cards(row.cards, True, deck)}"
                f" ({row_name(row, lang)})"
            )
    if surrendered:
        lines.append(t("rev.surrendered", lang))
    elif declared is not None:
        lines.append(t("rev.declared", lang, special=special_name(declared, lang)))
    elif setting is not None and is_fouled(*(evaluate(r) for r in setting)):
        lines.append(t("rev.fouled", lang))
    return "\n".join(lines)
