"""A table's life as data (cogs/life.py): for every phase, what the table does next and when,
from the stored records alone. One row per phase: what a restart, a timer, a click or a
process taking over finds there, and does."""

from __future__ import annotations

import dataclasses

import pytest

from cogs.life import Clock, Next, Phase, Step, next_step, phase_of
from data.repository import (
    HandRecord,
    MatchRecord,
    MatchStatus,
    RoundRecord,
    RoundStatus,
    SeatRecord,
)

NOW = 1_000_000.0
PAUSE = 30.0


def _match(status: MatchStatus, **changes: object) -> MatchRecord:
    match = MatchRecord(
        id=7,
        guild_id=1,
        channel_id=2,
        host_id=3,
        preset="standard",
        options={},
        rounds_total=3,
        countdown=120,
        bot_level="normal",
        timeout_action="auto",
        seats_count=2,
        status=status,
        lobby_message_id=None,
        created_at=NOW - 500,
        started_at=None if status == MatchStatus.LOBBY else NOW - 400,
        finished_at=NOW - 5 if status in (MatchStatus.FINISHED, MatchStatus.ENDED) else None,
        lobby_expires_at=NOW + 100,
        seats=(
            SeatRecord(0, 3, "Ann", False, None, None),
            SeatRecord(1, None, "Computer 1", True, "normal", None),
        ),
        language="en",
    )
    return dataclasses.replace(match, **changes)  # type: ignore[arg-type]


def _hand(seat: int, submitted: bool) -> HandRecord:
    return HandRecord(
        seat=seat,
        cards=(),
        back=None,
        middle=None,
        front=None,
        declare=None,
        fouled=False,
        auto=False,
        submitted_at=NOW - 10 if submitted else None,
        points=None,
        dm_channel_id=None,
        dm_message_id=None,
        dm_refused=False,
    )


def _round(
    status: RoundStatus, *, number: int = 2, submitted: tuple[bool, bool] = (False, True)
) -> RoundRecord:
    scored = status in (RoundStatus.SCORED, RoundStatus.SHOWN)
    return RoundRecord(
        id=40 + number,
        match_id=7,
        number=number,
        seed=1,
        deadline=NOW + 60,
        status=status,
        status_message_id=None,
        showdown_message_id=None,
        result=None,
        created_at=NOW - 60,
        scored_at=NOW - 20 if scored else None,
        hands=(_hand(0, submitted[0]), _hand(1, submitted[1])),
    )


PLAYING = _match(MatchStatus.PLAYING)

# (what is stored, its phase, the next step, its round number, when it is due)
CASES = [
    ("lobby", _match(MatchStatus.LOBBY), None, Phase.LOBBY, Step.EXPIRE_LOBBY, 0, NOW + 100),
    (
        "lobby past its expiry",
        _match(MatchStatus.LOBBY, lobby_expires_at=NOW - 1),
        None,
        Phase.LOBBY,
        Step.EXPIRE_LOBBY,
        0,
        NOW - 1,
    ),
    ("started, nothing dealt", PLAYING, None, Phase.STARTING, Step.DEAL, 1, NOW - 400),
    ("dealing", PLAYING, _round(RoundStatus.DEALING), Phase.DEALING, Step.PREPARE, 2, NOW - 60),
    ("open", PLAYING, _round(RoundStatus.OPEN), Phase.OPEN, Step.CLOSE, 2, NOW + 60),
    (
        "open, everyone in",
        PLAYING,
        _round(RoundStatus.OPEN, submitted=(True, True)),
        Phase.CLOSING,
        Step.CLOSE,
        2,
        NOW,
    ),
    (
        "open, the countdown ran out",
        PLAYING,
        dataclasses.replace(_round(RoundStatus.OPEN), deadline=NOW - 3),
        Phase.CLOSING,
        Step.CLOSE,
        2,
        NOW - 3,
    ),
    ("scored", PLAYING, _round(RoundStatus.SCORED), Phase.SCORED, Step.SHOW, 2, NOW - 20),
    (
        "shown, rounds to go",
        PLAYING,
        _round(RoundStatus.SHOWN),
        Phase.SHOWN,
        Step.DEAL,
        3,
        NOW - 20 + PAUSE,
    ),
    (
        "shown, the last round",
        PLAYING,
        _round(RoundStatus.SHOWN, number=3),
        Phase.SHOWN,
        Step.FINISH,
        3,
        NOW - 20,
    ),
    (
        "finished",
        _match(MatchStatus.FINISHED),
        _round(RoundStatus.SHOWN, number=3),
        Phase.FINISHED,
        Step.POST_STANDINGS,
        0,
        NOW - 5,
    ),
]


@pytest.mark.parametrize(
    ("match", "rnd", "phase", "step", "number", "due"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_every_phase_has_one_next_step(
    match: MatchRecord,
    rnd: RoundRecord | None,
    phase: Phase,
    step: Step,
    number: int,
    due: float,
) -> None:
    assert phase_of(match, rnd, NOW) == phase
    found = next_step(match, rnd, NOW, pause=PAUSE)
    assert found is not None
    assert (found.step, found.number, found.due) == (step, number, due)
    assert found.is_due(NOW) == (due <= NOW)
    if rnd is not None and step not in (Step.DEAL, Step.POST_STANDINGS):
        assert found.round_id == rnd.id


@pytest.mark.parametrize(
    ("match", "phase"),
    [
        (_match(MatchStatus.ENDED), Phase.ENDED),
        (_match(MatchStatus.CANCELLED), Phase.CANCELLED),
    ],
)
def test_an_ended_or_cancelled_table_does_nothing_more(match: MatchRecord, phase: Phase) -> None:
    for rnd in (None, _round(RoundStatus.OPEN), _round(RoundStatus.SHOWN, number=3)):
        assert phase_of(match, rnd, NOW) == phase
        assert next_step(match, rnd, NOW) is None


def test_every_phase_is_reached_by_some_stored_table() -> None:
    reached = {case[3] for case in CASES} | {Phase.ENDED, Phase.CANCELLED}
    assert reached == set(Phase)
    steps = {case[4] for case in CASES}
    assert steps == set(Step)


def test_an_open_round_closes_when_its_countdown_ends_not_before() -> None:
    rnd = _round(RoundStatus.OPEN)
    before = next_step(PLAYING, rnd, rnd.deadline - 0.5)
    at = next_step(PLAYING, rnd, rnd.deadline)
    assert before is not None and not before.is_due(rnd.deadline - 0.5)
    assert at is not None and at.is_due(rnd.deadline) and at.step == Step.CLOSE


@pytest.mark.parametrize("step", list(Step))
@pytest.mark.parametrize("number", [0, 1, 9, 10_000])
def test_a_clock_payload_reads_back_as_it_was_stored(step: Step, number: int) -> None:
    stored = Clock(step, number).encode()
    assert isinstance(stored, int) and stored >= 0
    assert Clock.decode(stored) == Clock(step, number)


def test_next_is_a_frozen_result() -> None:
    step = Next(Step.CLOSE, NOW, number=1, round_id=5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.due = 0  # type: ignore[misc]
