"""Lobbies: open a table, join, leave, add computers, start, cancel, expire."""

from __future__ import annotations

import logging
import time

import discord

from capsa.cards import CapsaError
from capsa.i18n import t
from capsa.match import MATCH_LENGTHS
from capsa.presets import get_preset
from capsa.settings import COUNTDOWN_RANGE, SEAT_RANGE
from cogs import embeds, views
from cogs.replies import tell
from cogs.table_base import TableBase
from data.repository import (
    AlreadySeated,
    NotInLobby,
    NotSeated,
    TableExists,
    TableFull,
)

log = logging.getLogger(__name__)


# What the bot needs in a table's channel: post the lobby, status, showdowns and pictures.
LOBBY_PERMISSIONS = ("view_channel", "send_messages", "embed_links", "attach_files")

LOBBY_REFUSALS = {
    TableFull: "ans.full",
    AlreadySeated: "ans.already_seated",
    NotSeated: "ans.not_seated",
    NotInLobby: "ans.not_lobby",
}


class LobbyFlow(TableBase):
    async def open_table(
        self,
        interaction: discord.Interaction,
        seats: int | None,
        rounds: int | None,
        rules: str | None,
        countdown: int | None,
        bots: str | None,
    ) -> None:
        lang = await self.user_lang(interaction)
        if interaction.guild_id is None or interaction.channel_id is None:
            await tell(interaction, t("ans.guild_only", lang))
            return
        settings = await self.repo.guild_settings(interaction.guild_id)
        seats = seats or 4
        rounds = rounds or settings.rounds
        countdown = countdown or settings.countdown
        if seats not in range(SEAT_RANGE[0], SEAT_RANGE[1] + 1):
            await tell(interaction, t("ans.bad_seats", lang))
            return
        if rounds not in MATCH_LENGTHS:
            await tell(interaction, t("ans.bad_rounds", lang))
            return
        if not COUNTDOWN_RANGE[0] <= countdown <= COUNTDOWN_RANGE[1]:
            await tell(interaction, t("ans.bad_countdown", lang))
            return
        try:
            preset = get_preset(rules or settings.preset)
        except CapsaError as err:
            await tell(interaction, str(err))
            return
        perms = interaction.app_permissions
        missing = [name for name in LOBBY_PERMISSIONS if not getattr(perms, name, False)]
        if missing:
            await tell(interaction, t("ans.missing_perms", lang, perms=", ".join(missing)))
            return
        # Acknowledge (privately) before the first write, so the command never waits on a
        # busy database; the lobby itself is a channel message everyone sees.
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            match = await self.repo.create_match(
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                host_id=interaction.user.id,
                preset=preset.name,
                options=preset.options,
                rounds_total=rounds,
                countdown=countdown,
                bot_level=bots or settings.bot_level,
                timeout_action=settings.timeout_action,
                seats_count=seats,
                language=lang,  # the server's language if it sets one (see user_lang)
                lobby_expires_at=time.time() + self.lobby_seconds,
                host_name=interaction.user.display_name,
            )
        except TableExists:
            await tell(interaction, t("ans.channel_busy", lang))
            return
        except AlreadySeated:
            await tell(interaction, t("ans.already_seated", lang))
            return
        self.schedule(match.id, self.lobby_seconds, lambda: self.expire_lobby(match.id))
        try:
            message = await self.channel(match.channel_id).send(
                embed=embeds.lobby_embed(match, lang),
                view=views.lobby_view(match.id, lang),
            )
        except discord.HTTPException:
            log.exception("table %s: could not post the lobby", match.id)
            await self.repo.cancel_match(match.id)
            self.cancel_timer(match.id)
            await tell(interaction, t("ans.missing_perms", lang, perms="send_messages"))
            return
        await self.repo.set_lobby_message(match.id, message.id)
        await tell(interaction, t("ans.opened", lang))

    async def expire_lobby(self, match_id: int) -> None:
        async with self.locks[match_id]:
            match = await self.repo.get_match(match_id)
            if match is None or match.status != "lobby":
                return
            await self.repo.cancel_match(match_id)
            await self._close_lobby_message(match, "lobby.expired")

    async def _close_lobby_message(self, match, key: str) -> None:
        if match.lobby_message_id is None:
            return
        try:
            message = self.channel(match.channel_id).get_partial_message(match.lobby_message_id)
            await message.edit(embed=embeds.lobby_embed(match, match.language, key), view=None)
        except discord.HTTPException:
            log.warning("table %s: could not update the lobby message", match.id)

    async def lobby_action(
        self, interaction: discord.Interaction, match_id: int, action: str
    ) -> None:
        await interaction.response.defer()  # acknowledge first; a busy table may take a moment
        lang = await self.user_lang(interaction)
        async with self.locks[match_id]:
            match = await self.repo.get_match(match_id)
            if match is None or match.status != "lobby":
                await tell(interaction, t("ans.not_lobby", lang))
                return
            user = interaction.user
            try:
                if action == "join":
                    if match.seat_of(user.id) is not None:
                        await tell(interaction, t("ans.already_here", lang))
                        return
                    match = await self.repo.add_seat(match_id, user.id, user.display_name)
                elif action == "leave":
                    if user.id == match.host_id:
                        await tell(interaction, t("ans.host_leave", lang))
                        return
                    match = await self.repo.remove_seat(match_id, user.id)
                elif action in ("add", "start", "cancel"):
                    if not self.is_manager(interaction, match):
                        await tell(interaction, t("ans.host_only", lang))
                        return
                    if action == "add":
                        match = await self._add_computer(match)
                    elif action == "cancel":
                        await self.repo.cancel_match(match_id)
                        self.cancel_timer(match_id)
                        await interaction.edit_original_response(
                            embed=embeds.lobby_embed(match, match.language, "lobby.cancelled"),
                            view=None,
                        )
                        return
                    else:
                        while match.free_seats > 0:
                            match = await self._add_computer(match)
                        if not await self.repo.start_match(match_id):  # cancelled meanwhile
                            await tell(interaction, t("ans.not_lobby", lang))
                            return
                        self.cancel_timer(match_id)
                        await interaction.edit_original_response(
                            embed=embeds.lobby_embed(match, match.language, "lobby.started"),
                            view=None,
                        )
                        match = await self.repo.get_match(match_id)
                        await self.start_round(match, 1)
                        return
            except tuple(LOBBY_REFUSALS) as refusal:
                await tell(interaction, t(LOBBY_REFUSALS[type(refusal)], lang))
                return
            await interaction.edit_original_response(
                embed=embeds.lobby_embed(match, match.language),
                view=views.lobby_view(match_id, match.language),
            )

    async def _add_computer(self, match):
        number = sum(1 for s in match.seats if s.is_bot) + 1
        name = t("seat.computer", match.language, n=number)
        return await self.repo.add_seat(match.id, None, name, match.bot_level)

    async def cancel(self, interaction: discord.Interaction) -> None:
        """``/capsa cancel``: the host or a manager stops the table in this channel. The
        answer is private (acknowledged at once); the channel is told in a message."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        lang = await self.user_lang(interaction)
        match = await self.repo.active_match_in_channel(interaction.channel_id)
        if match is None:
            await tell(interaction, t("ans.no_table", lang))
            return
        if not self.is_manager(interaction, match):
            await tell(interaction, t("ans.host_only", lang))
            return
        # The database settles a race with a round being scored (a cancelled table scores
        # nothing more), so the answer need not wait for the table's lock.
        if not await self.repo.cancel_match(match.id):
            await tell(interaction, t("ans.no_table", lang))
            return
        text = t("ans.cancelled", match.language, name=interaction.user.display_name)
        await tell(interaction, t("ans.cancelled", lang, name=interaction.user.display_name))
        self.cancel_timer(match.id)
        try:
            await self.channel(match.channel_id).send(text)
        except discord.HTTPException:
            log.warning("table %s: could not announce the cancel", match.id)
        if match.status == "lobby":
            await self._close_lobby_message(match, "lobby.cancelled")
        else:
            await self._close_status_message(match)
