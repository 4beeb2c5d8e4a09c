"""Ratings: a skill number for each player of a server, from the final places of its
finished matches, with openskill's Plackett-Luce model (a multiplayer Bayesian rating: a
place above a strong player is worth more than one above a weak one).

The one place a rating is computed. ``rate_match`` turns the ratings before a match and
its places into the ratings after it; ``replay`` folds it over a server's matches in the
order they were rated, so the stored ratings can always be computed again from scratch.
Computers are players too, one identity per level on each server (every ``hard``
computer of a server shares one rating).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from statistics import fmean

from openskill.models import PlackettLuce, PlackettLuceRating

MODEL = PlackettLuce()  # openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
CONSERVATIVE_SIGMAS = 3  # the rating shown and ranked: mu - 3 sigma (openskill's ordinal)
# A rating is "provisional" for a player's first matches. `python -m bench.rating` (40
# players of known skill at 2-4 seat tables) measured how well the order by rating agrees
# with the true order (Spearman): 0.22 after 1 match, 0.57 after 3, 0.70 after 5, 0.79
# after 10, 0.84 after 30. From 10 matches on it is about as good as it gets for a long
# while, so a rating stops being provisional there.
PROVISIONAL_MATCHES = 10


class PlayerKind(StrEnum):
    MEMBER = "member"  # a person of the server, by user id
    COMPUTER = "computer"  # the server's computers of one level


@dataclass(frozen=True, order=True)
class RatedPlayer:
    """Who a rating belongs to on a server: a member, or the computers of one level."""

    kind: PlayerKind
    name: str  # the member's user id, or the computers' level

    @classmethod
    def member(cls, user_id: int) -> RatedPlayer:
        return cls(PlayerKind.MEMBER, str(int(user_id)))

    @classmethod
    def computer(cls, level: str) -> RatedPlayer:
        return cls(PlayerKind.COMPUTER, level)

    @classmethod
    def from_key(cls, key: str) -> RatedPlayer:
        kind, _, name = key.partition(":")
        return cls(PlayerKind(kind), name)

    @property
    def key(self) -> str:
        """As stored: ``member:<user id>`` or ``computer:<level>``."""
        return f"{self.kind}:{self.name}"

    @property
    def user_id(self) -> int | None:
        return int(self.name) if self.kind == PlayerKind.MEMBER else None


@dataclass(frozen=True)
class Rating:
    """A player's skill estimate: ``mu`` (the mean) and ``sigma`` (its uncertainty), after
    ``matches`` rated matches."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    matches: int = 0

    @property
    def conservative(self) -> float:
        """The value shown and ranked: the skill the player has almost surely reached."""
        return self.mu - CONSERVATIVE_SIGMAS * self.sigma

    @property
    def provisional(self) -> bool:
        return self.matches < PROVISIONAL_MATCHES


@dataclass(frozen=True)
class Placing:
    """A seat's final place in a match (1 = first; equal totals share a place)."""

    player: RatedPlayer
    place: int


def rate_match(
    before: Mapping[RatedPlayer, Rating], placings: Sequence[Placing]
) -> dict[RatedPlayer, Rating]:
    """The ratings after a match of the players who sat in it (a player missing from
    ``before`` starts at the default). Each seat is rated as a team of its own; a computer
    level with several seats gets the mean of its seats' new ratings. A match with fewer
    than two players to compare changes nothing (an empty answer)."""
    if len({p.player for p in placings}) < 2:
        return {}
    start = {p.player: before.get(p.player, Rating()) for p in placings}
    teams = [[MODEL.rating(mu=start[p.player].mu, sigma=start[p.player].sigma)] for p in placings]
    rated = MODEL.rate(teams, ranks=[float(p.place) for p in placings])
    seats: dict[RatedPlayer, list[PlackettLuceRating]] = defaultdict(list)
    for placing, team in zip(placings, rated, strict=True):
        seats[placing.player].append(team[0])
    return {
        player: Rating(
            mu=fmean(r.mu for r in new),
            sigma=fmean(r.sigma for r in new),
            matches=start[player].matches + 1,
        )
        for player, new in seats.items()
    }


def replay(matches: Iterable[Sequence[Placing]]) -> dict[RatedPlayer, Rating]:
    """Every player's rating after ``matches`` (each one's placings), rated in this order."""
    ratings: dict[RatedPlayer, Rating] = {}
    for placings in matches:
        ratings.update(rate_match(ratings, placings))
    return ratings
