"""A match (RULES §5.2): rounds at one table, running totals, final standings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from capsa.cards import CapsaError, parse_cards
from capsa.presets import Preset, get_preset
from capsa.scoring import RoundResult, Seat, score_round

MATCH_LENGTHS = (5, 10)


@dataclass(frozen=True)
class Standing:
    place: int  # equal totals share the place (1, 1, 3, ...)
    name: str
    total: float


def seat_to_dict(seat: Seat) -> dict:
    return {
        "name": seat.name,
        "back": [c.code for c in seat.back],
        "middle": [c.code for c in seat.middle],
        "front": [c.code for c in seat.front],
        "declare": seat.declare,
        "surrender": seat.surrender,
        "foul": seat.foul,
    }


def seat_from_dict(data: Mapping) -> Seat:
    if not isinstance(data, Mapping):
        raise CapsaError("each player must be an object with name, back, middle and front")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise CapsaError("each player needs a 'name' (text)")
    rows = []
    for key in ("back", "middle", "front"):
        value = data.get(key, [])
        if isinstance(value, str):
            value = value.split()
        if not isinstance(value, list):
            raise CapsaError(f"{name}: '{key}' must be a list of cards")
        try:
            rows.append(tuple(parse_cards(value)))
        except CapsaError as err:
            raise CapsaError(f"{name}: {key} row: {err}") from None
    declare = data.get("declare")
    if declare is not None and not isinstance(declare, str):
        raise CapsaError(f"{name}: 'declare' must be the name of a special or null")
    surrender = data.get("surrender", False)
    if not isinstance(surrender, bool):
        raise CapsaError(f"{name}: 'surrender' must be true or false")
    foul = data.get("foul", False)
    if not isinstance(foul, bool):
        raise CapsaError(f"{name}: 'foul' must be true or false")
    back, middle, front = rows
    return Seat(name, back, middle, front, declare=declare or None, surrender=surrender, foul=foul)


def standings(totals: Mapping[str, float]) -> list[Standing]:
    ordered = sorted(totals.items(), key=lambda kv: -kv[1])
    out: list[Standing] = []
    for index, (name, total) in enumerate(ordered):
        place = out[-1].place if out and out[-1].total == total else index + 1
        out.append(Standing(place, name, total))
    return out


@dataclass
class Match:
    """Rounds played by the same players under one preset. Every round is kept."""

    preset: Preset
    players: tuple[str, ...]
    length: int = 10
    seats: list[tuple[Seat, ...]] = field(default_factory=list)
    results: list[RoundResult] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.length < 1:
            raise CapsaError(f"a match has at least one round, not {self.length}")
        if not 2 <= len(self.players) <= 4:
            raise CapsaError(f"a table has 2 to 4 players, not {len(self.players)}")

    @property
    def round_number(self) -> int:
        """The number of the next round to play (1-based)."""
        return len(self.results) + 1

    @property
    def finished(self) -> bool:
        return len(self.results) >= self.length

    def play(self, seats: Sequence[Seat]) -> RoundResult:
        if self.finished:
            raise CapsaError(f"the match is over: all {self.length} rounds were played")
        if tuple(s.name for s in seats) != self.players:
            raise CapsaError(f"the seats must be {', '.join(self.players)}, in that order")
        result = score_round(seats, self.preset)
        self.seats.append(tuple(seats))
        self.results.append(result)
        return result

    @property
    def totals(self) -> dict[str, float]:
        totals: dict[str, float] = {name: 0 for name in self.players}
        for result in self.results:
            for player in result.players:
                totals[player.name] = round(totals[player.name] + player.total, 2)
        return totals

    def standings(self) -> list[Standing]:
        return standings(self.totals)

    def to_dict(self) -> dict:
        return {
            "rules": self.preset.name,
            "options": self.preset.options,
            "players": list(self.players),
            "length": self.length,
            "rounds": [[seat_to_dict(s) for s in seats] for seats in self.seats],
            "totals": self.totals,
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> Match:
        """Rebuild a match; each round is re-scored from its stored settings."""
        preset = get_preset(data.get("rules"), data.get("options") or None)
        match = cls(preset, tuple(data["players"]), int(data.get("length", 10)))
        for seats in data.get("rounds", []):
            match.play([seat_from_dict(s) for s in seats])
        return match
