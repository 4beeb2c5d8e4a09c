"""A table's life as data: the phases a match and its rounds go through, and the one pure
function that says, from the stored records alone, what happens next.

Every path that moves a table on goes through :func:`next_step`: the table's timer when it
is due, a click (Start, Next, a submitted hand), a process that starts and takes the open
tables on, a process that takes over the work of one that died. So "what happens after a
restart in phase X" has one answer, here, with a table test per phase
(``tests/test_life.py``).

The phases (``Phase``) and what comes after each (``Step``):

=========  ==========================================  ====================  ===============
phase      stored as                                   next step             due
=========  ==========================================  ====================  ===============
lobby      match ``lobby``                             ``expire_lobby``      lobby expiry
starting   match ``playing``, no round yet             ``deal`` round 1      at once
dealing    round ``dealing``                           ``prepare``           at once
open       round ``open``, hands missing               ``close``             the deadline
closing    round ``open``, all in or deadline passed   ``close``             at once
scored     round ``scored``                            ``show``              at once
shown      round ``shown``, rounds to go               ``deal`` the next     after the pause
shown      round ``shown``, the last round             ``finish``            at once
finished   match ``finished`` (places stored)          ``post_standings``    at once
ended      match ``ended`` (standings posted)          none
cancelled  match ``cancelled``                         none
=========  ==========================================  ====================  ===============

Each step is idempotent and the database settles who does it once (``start_round`` keeps
the first deal, ``score_round`` flips a round once, the showdown and standings claims let
one process post), so a step run twice, by two processes or after a restart, changes
nothing twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from capsa.timings import NEXT_ROUND_SECONDS
from data.repository import MatchRecord, MatchStatus, RoundRecord, RoundStatus


class Phase(StrEnum):
    """Where a table is in its life."""

    LOBBY = "lobby"  # seats are being taken
    STARTING = "starting"  # started; round 1 not dealt yet
    DEALING = "dealing"  # a round is stored; computers, status message, DMs under way
    OPEN = "open"  # people are setting their rows
    CLOSING = "closing"  # everyone is in, or the countdown ran out: to be scored
    SCORED = "scored"  # scored and counted; the showdown is not posted yet
    SHOWN = "shown"  # the showdown is out
    FINISHED = "finished"  # places stored; the final standings are not posted yet
    ENDED = "ended"  # the final standings are out
    CANCELLED = "cancelled"


class Step(StrEnum):
    """What a table does next."""

    EXPIRE_LOBBY = "expire_lobby"  # cancel a lobby nobody started
    DEAL = "deal"  # deal round ``number``
    PREPARE = "prepare"  # a dealt round's computers, status message and DMs
    CLOSE = "close"  # fill in the missing hands, score once
    SHOW = "show"  # post the showdown
    FINISH = "finish"  # store the places
    POST_STANDINGS = "post_standings"  # post the final standings


@dataclass(frozen=True)
class Next:
    """The next step of a table: ``number`` is the round it is for (0: none), ``round_id``
    that round's id once it exists, ``due`` when it should happen (unix seconds)."""

    step: Step
    due: float
    number: int = 0
    round_id: int | None = None

    def is_due(self, now: float) -> bool:
        return self.due <= now


def phase_of(match: MatchRecord, rnd: RoundRecord | None, now: float) -> Phase:
    """The table's phase from its match and its latest round (None: not dealt yet)."""
    if match.status == MatchStatus.LOBBY:
        return Phase.LOBBY
    if match.status == MatchStatus.CANCELLED:
        return Phase.CANCELLED
    if match.status == MatchStatus.FINISHED:
        return Phase.FINISHED
    if match.status == MatchStatus.ENDED:
        return Phase.ENDED
    if rnd is None:
        return Phase.STARTING
    if rnd.status == RoundStatus.DEALING:
        return Phase.DEALING
    if rnd.status == RoundStatus.OPEN:
        return Phase.CLOSING if rnd.all_submitted or rnd.deadline <= now else Phase.OPEN
    if rnd.status == RoundStatus.SCORED:
        return Phase.SCORED
    return Phase.SHOWN


def next_step(
    match: MatchRecord,
    rnd: RoundRecord | None,
    now: float,
    *,
    pause: float = NEXT_ROUND_SECONDS,
) -> Next | None:
    """What the table does next, and when; None once it has ended or was cancelled.
    ``pause``: the rest after a showdown before the next deal."""
    phase = phase_of(match, rnd, now)
    if phase == Phase.LOBBY:
        return Next(Step.EXPIRE_LOBBY, match.lobby_expires_at or now)
    if phase == Phase.STARTING:
        return Next(Step.DEAL, match.started_at or now, number=1)
    if phase == Phase.FINISHED:
        return Next(Step.POST_STANDINGS, match.finished_at or now)
    if phase in (Phase.ENDED, Phase.CANCELLED) or rnd is None:
        return None
    if phase == Phase.DEALING:
        return Next(Step.PREPARE, rnd.created_at, rnd.number, rnd.id)
    if phase == Phase.OPEN:
        return Next(Step.CLOSE, rnd.deadline, rnd.number, rnd.id)
    if phase == Phase.CLOSING:
        return Next(Step.CLOSE, min(now, rnd.deadline), rnd.number, rnd.id)
    if phase == Phase.SCORED:
        return Next(Step.SHOW, rnd.scored_at or now, rnd.number, rnd.id)
    scored_at = rnd.scored_at or now
    if rnd.number >= match.rounds_total:
        return Next(Step.FINISH, scored_at, rnd.number, rnd.id)
    return Next(Step.DEAL, scored_at + pause, rnd.number + 1)


@dataclass(frozen=True)
class Clock:
    """The payload of a table's CLOCK timer: the step it was set for and its round number
    (0: none), stored as one number (``encode``/``decode``)."""

    step: Step
    number: int = 0

    def encode(self) -> int:
        return self.number * len(_CLOCK_CODES) + _CLOCK_CODES.index(self.step)

    @classmethod
    def decode(cls, arg: int) -> Clock:
        number, code = divmod(arg, len(_CLOCK_CODES))
        return cls(_CLOCK_CODES[code], number)


# A step's code in a stored clock: the order of Step, which is therefore never reordered.
_CLOCK_CODES: tuple[Step, ...] = tuple(Step)
