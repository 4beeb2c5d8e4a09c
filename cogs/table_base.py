"""What every part of a table shares: the services (the repository, the Discord client's
channels, the table's flow with its locks and timers, the worker processes), and the pure
helpers that turn stored rounds into engine objects."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from capsa.cards import Card, parse_cards
from capsa.presets import Preset, get_preset
from capsa.scoring import RoundResult, Seat, score_round
from capsa.settings import Level
from cogs.channel_posts import ChannelTokens, TableChannel
from cogs.worker_pool import Priority
from data.repository import (
    HandRecord,
    MatchRecord,
    Repository,
    RoundRecord,
    RoundScore,
)

if TYPE_CHECKING:
    from capsa.solver import Arrangement
    from cogs.flow import TableFlow
    from cogs.worker_pool import WorkerPool


class TableServices:
    """The shared services of every table, handed to the lobby, the hand builder and the
    rounds.

    ``client``: the Discord connection (channels by id, DM channels); ``tokens``: the
    tables' channels through interaction tokens. ``repo``: where every
    table's state lives. ``workers``: the worker processes (solver, pictures). ``flow``: how
    a table moves on (``cogs.flow``), with the tables' timers and background jobs
    (``scheduler``) and their locks.
    """

    def __init__(
        self,
        client: discord.Client,
        repo: Repository,
        workers: WorkerPool,
        flow: TableFlow,
    ) -> None:
        self.client = client
        self.repo = repo
        self.workers = workers
        self.flow = flow
        self.scheduler = flow.scheduler
        self._dm_channels: dict[int, int] = {}  # user id -> DM channel id
        self.tokens = ChannelTokens(client, repo)

    def channel(self, channel_id: int) -> TableChannel:
        """A table's channel: its messages through the latest interaction token (Start,
        Next) while one is valid, else the bot token (``cogs.channel_posts``)."""
        return self.tokens.channel(channel_id)

    async def dm_channel(self, user_id: int) -> discord.PartialMessageable:
        """The DM channel with a player: opened once per person and stored, so that every
        process, and a restarted one, reuses it (opening one is a request of its own, with a
        small rate limit of its own)."""
        channel_id = self._dm_channels.get(user_id)
        if channel_id is None:
            channel_id = await self.repo.dm_channel_of(user_id)
        if channel_id is None:
            data = await self.client.http.start_private_message(user_id)
            channel_id = int(data["id"])
            await self.repo.remember_dm_channel(user_id, channel_id)
        self._dm_channels[user_id] = channel_id
        return self.client.get_partial_messageable(channel_id, type=discord.ChannelType.private)

    async def round_now(self, round_id: int) -> RoundRecord:
        """A round as stored now, for a round known to exist (rounds are never deleted)."""
        rnd = await self.repo.get_round(round_id)
        if rnd is None:
            raise LookupError(f"round {round_id} is gone")
        return rnd

    async def suggest(
        self,
        match: MatchRecord,
        rnd: RoundRecord,
        seat: int,
        level: str = Level.NORMAL,
        *,
        priority: Priority = Priority.CLICK,
    ) -> Arrangement:
        """The solver's setting of a seat's dealt cards, seeded per seat: what Auto-arrange
        suggests, what a late player gets at the deadline and what a computer plays."""
        return await self.workers.arrange(
            parse_cards(rnd.hands[seat].cards),
            preset_of(match),
            level,
            len(match.seats) - 1,
            rnd.seed + seat,
            priority=priority,
        )


def is_manager(interaction: discord.Interaction, match: MatchRecord) -> bool:
    """The table's host, or a member who may manage the server."""
    perms = interaction.permissions
    return interaction.user.id == match.host_id or bool(perms and perms.manage_guild)


def seat_names(match: MatchRecord) -> dict[int, str]:
    """Engine names must be unique at a table: repeat names get their seat number."""
    names: dict[int, str] = {}
    seen: set[str] = set()
    for seat in sorted(match.seats, key=lambda s: s.seat):
        name = seat.name if seat.name not in seen else f"{seat.name} ({seat.seat + 1})"
        seen.add(name)
        names[seat.seat] = name
    return names


def preset_of(match: MatchRecord) -> Preset:
    return get_preset(match.preset, match.options or None)


def rows_of(hand: HandRecord) -> tuple[list[Card], list[Card], list[Card]]:
    """A submitted hand's back, middle and front (a surrendered hand has none)."""
    if hand.back is None or hand.middle is None or hand.front is None:
        raise ValueError(f"seat {hand.seat} has not set its rows")
    return parse_cards(hand.back), parse_cards(hand.middle), parse_cards(hand.front)


def round_result(match: MatchRecord, rnd: RoundRecord) -> RoundResult:
    """Score a round from its stored settings (deterministic, so it can be rebuilt)."""
    names = seat_names(match)
    seats = []
    for hand in sorted(rnd.hands, key=lambda h: h.seat):
        if hand.surrendered:  # given up unseen: no rows
            seats.append(Seat(names[hand.seat], surrender=True))
            continue
        back, middle, front = rows_of(hand)
        seats.append(
            Seat(
                names[hand.seat],
                tuple(back),
                tuple(middle),
                tuple(front),
                declare=hand.declare,
                foul=hand.fouled and hand.auto,
            )
        )
    return score_round(seats, preset_of(match))


def round_scores(result: RoundResult) -> list[RoundScore]:
    """The engine's per-player figures as the repository's ledger rows."""
    scores = []
    for index, player in enumerate(result.players):
        given, taken = result.sweeps_of(index)
        best = result.best_row(index)
        scores.append(
            RoundScore(
                seat=index,
                points=player.total,
                fouled=player.fouled,
                special=player.special,
                sweeps_given=given,
                sweeps_taken=taken,
                table_sweep=result.table_sweeper == index,
                best_row=None
                if best is None
                else {
                    "category": best[1].category,
                    "cards": [c.code for c in best[1].cards],
                    "strength": best[1].strength,
                    "position": best[0],
                },
            )
        )
    return scores
