"""capsa/rating.py: Plackett-Luce ratings from a match's places, computers as one player
per level, and a replay that folds them in order."""

from __future__ import annotations

import pytest

from capsa.rating import (
    CONSERVATIVE_SIGMAS,
    PROVISIONAL_MATCHES,
    Placing,
    PlayerKind,
    RatedPlayer,
    Rating,
    rate_match,
    replay,
)

ANI, BUDI, CITRA = (RatedPlayer.member(u) for u in (100, 101, 102))
HARD = RatedPlayer.computer("hard")


def test_the_winner_goes_up_the_last_goes_down_and_everyone_is_surer() -> None:
    after = rate_match({}, [Placing(ANI, 1), Placing(BUDI, 2), Placing(CITRA, 3)])
    assert after[ANI].mu > Rating().mu > after[CITRA].mu
    assert after[ANI].mu > after[BUDI].mu > after[CITRA].mu
    assert all(r.sigma < Rating().sigma and r.matches == 1 for r in after.values())
    assert after[ANI].conservative == after[ANI].mu - CONSERVATIVE_SIGMAS * after[ANI].sigma


def test_beating_a_strong_player_is_worth_more_than_beating_a_weak_one() -> None:
    strong, weak = Rating(mu=35.0, sigma=4.0, matches=30), Rating(mu=15.0, sigma=4.0, matches=30)
    over_strong = rate_match({BUDI: strong}, [Placing(ANI, 1), Placing(BUDI, 2)])[ANI]
    over_weak = rate_match({BUDI: weak}, [Placing(ANI, 1), Placing(BUDI, 2)])[ANI]
    assert over_strong.mu > over_weak.mu


def test_equal_places_move_equal_ratings_alike() -> None:
    after = rate_match({}, [Placing(ANI, 1), Placing(BUDI, 1), Placing(CITRA, 3)])
    assert after[ANI] == after[BUDI]


def test_a_computer_level_with_two_seats_is_one_player_with_the_mean_of_its_seats() -> None:
    placings = [Placing(ANI, 1), Placing(HARD, 2), Placing(HARD, 4), Placing(BUDI, 3)]
    after = rate_match({}, placings)
    assert set(after) == {ANI, BUDI, HARD}
    assert after[HARD].matches == 1
    # between what its second and its last place would have given it alone
    second = rate_match(
        {}, [Placing(ANI, 1), Placing(HARD, 2), Placing(CITRA, 4), Placing(BUDI, 3)]
    )
    fourth = rate_match(
        {}, [Placing(ANI, 1), Placing(CITRA, 2), Placing(HARD, 4), Placing(BUDI, 3)]
    )
    assert fourth[HARD].mu < after[HARD].mu < second[HARD].mu


def test_a_match_without_two_players_changes_nothing() -> None:
    assert rate_match({}, [Placing(ANI, 1)]) == {}
    assert rate_match({}, []) == {}
    assert rate_match({}, [Placing(HARD, 1), Placing(HARD, 2)]) == {}


def test_replay_is_rate_match_folded_in_order_and_order_matters() -> None:
    games = [
        (Placing(ANI, 1), Placing(BUDI, 2)),
        (Placing(BUDI, 1), Placing(CITRA, 2), Placing(HARD, 3)),
        (Placing(CITRA, 1), Placing(ANI, 2)),
    ]
    ratings: dict[RatedPlayer, Rating] = {}
    for game in games:
        ratings = {**ratings, **rate_match(ratings, game)}
    assert replay(games) == ratings
    assert replay(games) == replay(list(games))  # the same numbers every time
    assert replay(reversed(games)) != ratings
    assert ratings[ANI].matches == 2 and ratings[HARD].matches == 1


def test_provisional_until_enough_matches() -> None:
    assert Rating(matches=PROVISIONAL_MATCHES - 1).provisional
    assert not Rating(matches=PROVISIONAL_MATCHES).provisional


@pytest.mark.parametrize("player", [ANI, HARD, RatedPlayer.member(2**62)])
def test_a_player_key_reads_back(player: RatedPlayer) -> None:
    assert RatedPlayer.from_key(player.key) == player
    assert (player.user_id is None) == (player.kind == PlayerKind.COMPUTER)
