"""Lobbies: open a table, join, leave, add computers, start, cancel, expire."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import discord

from capsa.cards import CapsaError
from capsa.i18n import t
from capsa.presets import PRESETS
from capsa.settings import BOT_LEVEL, COUNTDOWN, ROUNDS, SEATS, TIMEOUT_ACTION
from capsa.timings import LOBBY_SECONDS, WATCHDOG_SECONDS
from cogs.components import LobbyAction, Refusal, RefusalCode
from cogs.delivery import attempt
from cogs.flow import Driver, Tell
from cogs.life import Next, Step
from cogs.parts import RoundsPart
from cogs.replies import language_for, own_language, refuse, tell, user_lang
from cogs.scheduler import TimerKind
from cogs.screens.lobby import LobbyClosed, lobby_screen
from cogs.screens.status import cancelled_notice
from cogs.server_settings import option_set, table_preset
from cogs.table_base import TableServices, is_manager
from data.repository import (
    AlreadySeated,
    MatchRecord,
    MatchStatus,
    NotInLobby,
    NotSeated,
    RoundRecord,
    TableExists,
    TableFull,
)

log = logging.getLogger(__name__)


# What the bot needs in a table's channel: post the lobby, status, showdowns and pictures.
LOBBY_PERMISSIONS = ("view_channel", "send_messages", "embed_links", "attach_files")

LOBBY_REFUSALS = {
    TableFull: RefusalCode.TABLE_FULL,
    AlreadySeated: RefusalCode.ALREADY_SEATED,
    NotSeated: RefusalCode.NOT_SEATED,
    NotInLobby: RefusalCode.NOT_LOBBY,
}

# Lobby buttons only the host (or a manager) may press.
HOST_ACTIONS = (LobbyAction.ADD, LobbyAction.START, LobbyAction.CANCEL)


def closed_key(match: MatchRecord) -> LobbyClosed:
    """What the lobby message of a table that is no longer a lobby says: it started (and
    may have finished since), it was cancelled, or nobody started it in time."""
    if match.started_at is not None:
        return LobbyClosed.STARTED
    expires = match.lobby_expires_at
    if match.finished_at is not None and expires is not None and match.finished_at >= expires:
        return LobbyClosed.EXPIRED
    return LobbyClosed.CANCELLED


@dataclass(frozen=True)
class NewTable:
    """What a new table is opened with (``repo.create_match``'s settings)."""

    guild_id: int
    channel_id: int
    preset: str
    options: dict[str, Any]
    rounds_total: int
    countdown: int
    bot_level: str
    timeout_action: str
    seats_count: int
    language: str


class Lobby:
    """A table before its first deal: ``/capsa new``, the lobby's buttons, its expiry, and
    ``/capsa cancel``. Starting hands the table to its flow, which deals round 1;
    cancelling a playing table closes its round's status message through ``rounds``."""

    def __init__(
        self, services: TableServices, rounds: RoundsPart, *, lobby_seconds: float = LOBBY_SECONDS
    ) -> None:
        self.services = services
        self.repo = services.repo
        self.flow = services.flow
        self.rounds = rounds
        self.lobby_seconds = lobby_seconds
        self._redraws: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)  # per table

    def register(self) -> None:
        self.flow.handle(Step.EXPIRE_LOBBY, self.expire)

    async def open_table(
        self,
        interaction: discord.Interaction,
        seats: int | None,
        rounds: int | None,
        rules: str | None,
        countdown: int | None,
        bots: str | None,
        options: str | None = None,
    ) -> None:
        """``/capsa new``: what the command leaves out is the server's (its settings, and
        its table options for the preset). ``options`` (an option set's key) names its
        preset, so it is the table's preset when ``rules`` is left out."""
        lang = await user_lang(self.repo, interaction)
        if interaction.guild_id is None or interaction.channel_id is None:
            raise Refusal(RefusalCode.GUILD_ONLY)
        settings = await self.repo.guild_settings(interaction.guild_id)
        seats = seats or SEATS.default
        rounds = rounds or settings.get(ROUNDS)
        countdown = countdown or settings.get(COUNTDOWN)
        if not SEATS.allows(seats):
            raise Refusal(RefusalCode.BAD_SEATS)
        if not ROUNDS.allows(rounds):
            raise Refusal(RefusalCode.BAD_ROUNDS)
        if not COUNTDOWN.allows(countdown):
            raise Refusal(RefusalCode.BAD_COUNTDOWN)
        picked = option_set(options) if options is not None else None
        name = rules or (picked.preset if picked is not None else None)
        try:
            preset = settings.table_preset(name)
        except CapsaError as err:  # the command's choices keep this from people
            raise Refusal(RefusalCode.BAD_RULES, name=rules, presets=", ".join(PRESETS)) from err
        preset = table_preset(preset, options, lang)
        await self._open(
            interaction,
            lang,
            NewTable(
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                preset=preset.name,
                options=preset.options,
                rounds_total=rounds,
                countdown=countdown,
                bot_level=bots or settings.get(BOT_LEVEL),
                timeout_action=settings.get(TIMEOUT_ACTION),
                seats_count=seats,
                language=lang,  # the server's language if it sets one (see user_lang)
            ),
        )

    async def _open(
        self,
        interaction: discord.Interaction,
        lang: str,
        table: NewTable,
        computers: Sequence[str | None] = (),
        ping: Sequence[int] = (),
    ) -> None:
        """Open a lobby hosted by the user of ``interaction``, with ``computers`` seated at
        once (their levels; None: the table's), and post it in its channel, mentioning the
        users in ``ping``. ``lang``: the user's language for the private answers."""
        perms = interaction.app_permissions
        missing = [name for name in LOBBY_PERMISSIONS if not getattr(perms, name, False)]
        if missing:
            raise Refusal(RefusalCode.MISSING_PERMS, perms=", ".join(missing))
        # Acknowledge (privately) before the first write, so the command never waits on a
        # busy database; the lobby itself is a channel message everyone sees.
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            match = await self.repo.create_match(
                **asdict(table),
                host_id=interaction.user.id,
                lobby_expires_at=time.time() + self.lobby_seconds,
                host_name=interaction.user.display_name,
                host_language=own_language(interaction),
            )
        except TableExists as taken:
            raise Refusal(RefusalCode.CHANNEL_BUSY) from taken
        except AlreadySeated as seated:
            raise Refusal(RefusalCode.ALREADY_SEATED) from seated
        await self.flow.resume(match.id)  # its clock: the lobby's expiry
        for level in computers:
            match = await self._add_computer(match, level)
        screen = lobby_screen(
            match,
            await language_for(self.repo, match),  # the table's
            rematch_host=interaction.user.display_name,
            ping=ping,
        )
        posted = await attempt(
            self.services.channel(match.channel_id).send(**screen.send_kwargs()),
            "table %s: could not post the lobby",
            match.id,
            level=logging.ERROR,
            trace=True,
        )
        if posted.value is None:
            await self.repo.cancel_match(match.id)
            await self.services.scheduler.cancel(match.id)
            raise Refusal(RefusalCode.MISSING_PERMS, perms="send_messages")
        await self.repo.set_lobby_message(match.id, posted.value.id)
        await tell(interaction, t("ans.opened", lang))

    async def resume(self, match: MatchRecord) -> None:
        """At start: the lobby message of a table that has started shows so (the bot may have
        died between Start and that edit, leaving Join and Start on it). Editing it again is
        harmless. (The table's timers are the flow's: ``TableFlow.resume``.)"""
        if match.status != MatchStatus.LOBBY:
            self.services.scheduler.spawn(self.close_message(match))

    async def expire(
        self, match: MatchRecord, rnd: RoundRecord | None, step: Next, driver: Driver
    ) -> Tell | bool:
        """The lobby's time ran out: cancel the table if it is still a lobby (under the
        table's lock); its message says so after the lock is let go."""
        if not await self.repo.cancel_match(match.id, lobby_only=True):
            return False  # started (or cancelled) meanwhile, by another process

        async def tell() -> bool:
            await self._close_lobby_message(match, LobbyClosed.EXPIRED)
            return True

        return tell

    async def close_message(self, match: MatchRecord) -> None:
        """The lobby message of a table that is no longer a lobby, as it should read now:
        started, cancelled or expired, without buttons."""
        await self._close_lobby_message(match, closed_key(match))

    async def _close_lobby_message(self, match: MatchRecord, key: LobbyClosed) -> None:
        if match.lobby_message_id is None:
            return
        channel = self.services.channel(match.channel_id)
        message = channel.get_partial_message(match.lobby_message_id)
        screen = lobby_screen(match, await language_for(self.repo, match), key)
        await attempt(
            message.edit(**screen.edit_kwargs()),
            "table %s: could not update the lobby message",
            match.id,
        )

    async def action(
        self, interaction: discord.Interaction, match_id: int, action: LobbyAction
    ) -> None:
        await interaction.response.defer()  # acknowledge first; a busy table may take a moment
        lang = await user_lang(self.repo, interaction)
        # The table's lock covers deciding and storing (the table's steps take it too);
        # Discord is told after it is let go (a refusal raised here is told by the router).
        async with self.flow.locks[match_id]:
            match = await self.repo.get_match(match_id)
            if match is not None and match.status == MatchStatus.LOBBY:
                await self._act(interaction, match, action, lang)
        if match is None or match.status != MatchStatus.LOBBY:
            await refuse(self.repo, interaction, Refusal(RefusalCode.NOT_LOBBY))
            if match is None:
                return
        # the message pressed on, as the table reads now (without buttons if they
        # outlived the lobby)
        await self._redraw(interaction, match_id)

    async def _act(
        self, interaction: discord.Interaction, match: MatchRecord, action: LobbyAction, lang: str
    ) -> None:
        """A lobby button's change, stored (under the table's lock; nothing sent)."""
        user = interaction.user
        try:
            if action == LobbyAction.JOIN:
                if match.seat_of(user.id) is not None:
                    raise Refusal(RefusalCode.ALREADY_HERE)
                await self.repo.add_seat(
                    match.id, user.id, user.display_name, language=own_language(interaction)
                )
            elif action == LobbyAction.LEAVE:
                if user.id == match.host_id:
                    raise Refusal(RefusalCode.HOST_LEAVES)
                await self.repo.remove_seat(match.id, user.id)
            elif action in HOST_ACTIONS:
                if not is_manager(interaction, match):
                    raise Refusal(RefusalCode.HOST_ONLY)
                if action == LobbyAction.ADD:
                    await self._add_computer(match)
                elif action == LobbyAction.CANCEL:
                    await self.repo.cancel_match(match.id)
                    await self.services.scheduler.cancel(match.id)
                else:
                    await self._start(interaction, match, lang)
        except tuple(LOBBY_REFUSALS) as refusal:
            raise Refusal(LOBBY_REFUSALS[type(refusal)]) from refusal

    async def _redraw(self, interaction: discord.Interaction, match_id: int) -> None:
        """The lobby message a button was pressed on, as the table reads now: open with its
        seats, or started, cancelled or expired without buttons. One redraw at a time per
        table, each from a fresh read, so a slow earlier one never lands over a later one
        (and never under the table's lock)."""
        async with self._redraws[match_id]:
            match = await self.repo.get_match(match_id)
            if match is None:
                return
            table_lang = await language_for(self.repo, match)
            if match.status == MatchStatus.LOBBY:
                screen = lobby_screen(match, table_lang)
            else:
                screen = lobby_screen(match, table_lang, closed_key(match))
            await attempt(
                interaction.edit_original_response(**screen.edit_kwargs()),
                "table %s: could not redraw the lobby message",
                match.id,
            )

    async def _start(self, interaction: discord.Interaction, match: MatchRecord, lang: str) -> None:
        """Computers take the free seats, the table starts, and round 1 is dealt."""
        while match.free_seats > 0:
            match = await self._add_computer(match)
        if not await self.repo.start_match(match.id):  # cancelled meanwhile
            raise Refusal(RefusalCode.NOT_LOBBY)
        await self.services.tokens.keep(interaction)  # round 1 speaks through it
        scheduler = self.services.scheduler
        # should this process die before round 1 is dealt, another deals it after a pause
        await scheduler.hold(match.id, TimerKind.WATCHDOG, 0, WATCHDOG_SECONDS)
        # round 1 is dealt as soon as this click lets go of the table's lock
        scheduler.spawn(self.flow.advance(match.id, Driver.CLICK, holding=True))

    async def _add_computer(self, match: MatchRecord, level: str | None = None) -> MatchRecord:
        number = sum(1 for s in match.seats if s.is_bot) + 1
        name = t("seat.computer", match.language, n=number)
        return await self.repo.add_seat(match.id, None, name, level or match.bot_level)

    async def rematch(self, interaction: discord.Interaction, match_id: int) -> None:
        """Rematch on a finished match's standings: a new lobby in the same channel with the
        same preset, options, rounds, countdown, computer level, timeout action, seats and
        language. Whoever presses it hosts and sits first, the computers sit again at their
        level, and the other people who played are mentioned to join: a seat is theirs to
        take, because sitting at a table keeps a person from every other table until it
        ends. Only someone who sat at the match may press it."""
        lang = await user_lang(self.repo, interaction)
        match = await self.repo.get_match(match_id)
        if match is None or not match.finished or match.guild_id != interaction.guild_id:
            raise Refusal(RefusalCode.STALE)
        if match.seat_of(interaction.user.id) is None:
            raise Refusal(RefusalCode.REMATCH_PLAYERS_ONLY)
        await self._open(
            interaction,
            lang,
            NewTable(
                guild_id=match.guild_id,
                channel_id=match.channel_id,
                preset=match.preset,
                options=match.options,
                rounds_total=match.rounds_total,
                countdown=match.countdown,
                bot_level=match.bot_level,
                timeout_action=match.timeout_action,
                seats_count=match.seats_count,
                language=match.language,
            ),
            computers=[s.level for s in match.seats if s.is_bot],
            ping=[
                s.user_id
                for s in match.seats
                if s.user_id is not None and s.user_id != interaction.user.id
            ],
        )

    async def cancel(self, interaction: discord.Interaction) -> None:
        """``/capsa cancel``: the host or a manager stops the table in this channel. The
        answer is private (acknowledged at once); the channel is told in a message."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        lang = await user_lang(self.repo, interaction)
        match = (
            await self.repo.active_match_in_channel(interaction.channel_id)
            if interaction.channel_id is not None
            else None
        )
        if match is None:
            raise Refusal(RefusalCode.NO_TABLE)
        if not is_manager(interaction, match):
            raise Refusal(RefusalCode.HOST_ONLY)
        # The database settles a race with a round being scored (a cancelled table scores
        # nothing more), so the answer need not wait for the table's lock.
        if not await self.repo.cancel_match(match.id):
            raise Refusal(RefusalCode.NO_TABLE)
        await self.services.scheduler.cancel(match.id)  # stopped before anyone is told
        name = interaction.user.display_name
        text = cancelled_notice(name, await language_for(self.repo, match))
        await tell(interaction, cancelled_notice(name, lang))
        await attempt(
            self.services.channel(match.channel_id).send(text),
            "table %s: could not announce the cancel",
            match.id,
        )
        if match.status == MatchStatus.LOBBY:
            await self._close_lobby_message(match, LobbyClosed.CANCELLED)
        else:
            await self.rounds.close_status_message(match)
