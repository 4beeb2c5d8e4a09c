"""Tables in channels: lobby, deal, hand builders, countdown, showdown, next round, resume.

The TableManager is the only place that runs a table. Its state lives in the repository
(and in components' custom_ids), so a restarted bot picks every table up where it was.
"""

from __future__ import annotations

import asyncio
import io
import logging
import secrets
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import discord

from capsa.builder import Draft
from capsa.cards import CapsaError, parse_cards
from capsa.cards import deal as deal_cards
from capsa.i18n import lang_from_locale, t
from capsa.match import standings
from capsa.names import special_name
from capsa.presets import get_preset
from capsa.scoring import RoundResult, Seat, score_round
from capsa.showdown import signed
from capsa.solver import arrange_async
from capsa.specials import available, find_setting
from cogs import embeds, views
from cogs.replies import tell
from data.repository import (
    AlreadySeated,
    NotInLobby,
    NotSeated,
    RoundScore,
    TableExists,
    TableFull,
)

if TYPE_CHECKING:
    from bot import CapsaBot

log = logging.getLogger(__name__)

LOBBY_SECONDS = 600
NEXT_ROUND_SECONDS = 30
DM_CLOSED = 50007


def seat_names(match) -> dict[int, str]:  # noqa: ANN001
    """Engine names must be unique at a table: repeat names get their seat number."""
    names: dict[int, str] = {}
    seen: set[str] = set()
    for seat in sorted(match.seats, key=lambda s: s.seat):
        name = seat.name if seat.name not in seen else f"{seat.name} ({seat.seat + 1})"
        seen.add(name)
        names[seat.seat] = name
    return names


def preset_of(match):  # noqa: ANN001, ANN201
    return get_preset(match.preset, match.options or None)


def round_result(match, rnd) -> RoundResult:  # noqa: ANN001
    """Score a round from its stored settings (deterministic, so it can be rebuilt)."""
    names = seat_names(match)
    seats = []
    for hand in sorted(rnd.hands, key=lambda h: h.seat):
        seats.append(
            Seat(
                names[hand.seat],
                tuple(parse_cards(hand.back)),
                tuple(parse_cards(hand.middle)),
                tuple(parse_cards(hand.front)),
                declare=hand.declare,
                foul=hand.fouled and hand.auto,
            )
        )
    return score_round(seats, preset_of(match))


def round_scores(result: RoundResult) -> list[RoundScore]:
    scores = []
    for index, player in enumerate(result.players):
        given = sum(1 for p in result.pairs_of(index) if p.sweep == index and p.kind == "rows")
        taken = sum(
            1
            for p in result.pairs_of(index)
            if p.sweep is not None and p.sweep != index and p.kind == "rows"
        )
        best = None
        if player.rows is not None and not player.fouled:
            position, row = max(
                zip(("back", "middle", "front"), player.rows, strict=True),
                key=lambda pr: pr[1].strength,
            )
            best = {
                "category": row.category,
                "cards": [c.code for c in row.cards],
                "strength": row.strength,
                "position": position,
            }
        scores.append(
            RoundScore(
                seat=index,
                points=player.total,
                fouled=player.fouled,
                special=player.special,
                sweeps_given=given,
                sweeps_taken=taken,
                table_sweep=result.table_sweeper == index,
                best_row=best,
            )
        )
    return scores


class TableManager:
    def __init__(self, bot: CapsaBot) -> None:
        self.bot = bot
        self.locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.timers: dict[int, asyncio.Task] = {}
        self.lobby_seconds = LOBBY_SECONDS
        self.next_round_seconds = NEXT_ROUND_SECONDS
        self._specials: dict[tuple[int, int], str | None] = {}

    @property
    def repo(self):  # noqa: ANN201
        return self.bot.repo

    # --- helpers -----------------------------------------------------------------------

    async def user_lang(self, interaction: discord.Interaction) -> str:
        if interaction.guild_id:
            settings = await self.repo.guild_settings(interaction.guild_id)
            if settings.language in ("en", "id"):
                return settings.language
        return lang_from_locale(str(interaction.locale))

    def channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id)

    def schedule(self, match_id: int, delay: float, job: Callable[[], Awaitable[None]]) -> None:
        """One pending timer per table; a new one replaces the old."""
        old = self.timers.get(match_id)
        if old is not None and old is not asyncio.current_task():
            old.cancel()

        async def run() -> None:
            try:
                await asyncio.sleep(max(0.0, delay))
                await job()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("table %s: timed job failed", match_id)
            finally:
                if self.timers.get(match_id) is asyncio.current_task():
                    del self.timers[match_id]

        self.timers[match_id] = asyncio.create_task(run(), name=f"capsa-table-{match_id}")

    def cancel_timer(self, match_id: int) -> None:
        task = self.timers.pop(match_id, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def is_manager(self, interaction: discord.Interaction, match) -> bool:  # noqa: ANN001
        perms = interaction.permissions
        return interaction.user.id == match.host_id or bool(perms and perms.manage_guild)

    async def arrange(self, cards, preset, level: str, opponents: int, seed: int | None):  # noqa: ANN001, ANN201
        return await arrange_async(
            cards, preset, level=level, opponents=opponents, seed=seed, executor=self.bot.executor
        )

    # --- lobby --------------------------------------------------------------------------

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
        if seats not in (2, 3, 4):
            await tell(interaction, t("ans.bad_seats", lang))
            return
        if rounds not in (5, 10):
            await tell(interaction, t("ans.bad_rounds", lang))
            return
        if not 30 <= countdown <= 300:
            await tell(interaction, t("ans.bad_countdown", lang))
            return
        try:
            preset = get_preset(rules or settings.preset)
        except CapsaError as err:
            await tell(interaction, str(err))
            return
        table_lang = settings.language if settings.language in ("en", "id") else lang
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
                language=table_lang,
                lobby_expires_at=time.time() + self.lobby_seconds,
                host_name=interaction.user.display_name,
            )
        except TableExists:
            await tell(interaction, t("ans.channel_busy", lang))
            return
        except AlreadySeated:
            await tell(interaction, t("ans.already_seated", lang))
            return
        await interaction.response.send_message(
            embed=embeds.lobby_embed(match, table_lang), view=views.lobby_view(match.id, table_lang)
        )
        message = await interaction.original_response()
        await self.repo.set_lobby_message(match.id, message.id)
        self.schedule(match.id, self.lobby_seconds, lambda: self.expire_lobby(match.id))

    async def expire_lobby(self, match_id: int) -> None:
        async with self.locks[match_id]:
            match = await self.repo.get_match(match_id)
            if match is None or match.status != "lobby":
                return
            await self.repo.cancel_match(match_id)
            await self._close_lobby_message(match, "lobby.expired")

    async def _close_lobby_message(self, match, key: str) -> None:  # noqa: ANN001
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
        lang = await self.user_lang(interaction)
        async with self.locks[match_id]:
            match = await self.repo.get_match(match_id)
            if match is None or match.status != "lobby":
                await tell(interaction, t("ans.not_lobby", lang))
                return
            user = interaction.user
            try:
                if action == "join":
                    if any(s.user_id == user.id for s in match.seats):
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
                        await interaction.response.edit_message(
                            embed=embeds.lobby_embed(match, match.language, "lobby.cancelled"),
                            view=None,
                        )
                        return
                    else:
                        while len(match.seats) < match.seats_count:
                            match = await self._add_computer(match)
                        await self.repo.start_match(match_id)
                        self.cancel_timer(match_id)
                        await interaction.response.edit_message(
                            embed=embeds.lobby_embed(match, match.language, "lobby.started"),
                            view=None,
                        )
                        match = await self.repo.get_match(match_id)
                        await self.start_round(match, 1)
                        return
            except TableFull:
                await tell(interaction, t("ans.full", lang))
                return
            except AlreadySeated:
                await tell(interaction, t("ans.already_seated", lang))
                return
            except NotSeated:
                await tell(interaction, t("ans.not_seated", lang))
                return
            except NotInLobby:
                await tell(interaction, t("ans.not_lobby", lang))
                return
            await interaction.response.edit_message(
                embed=embeds.lobby_embed(match, match.language),
                view=views.lobby_view(match_id, match.language),
            )

    async def _add_computer(self, match):  # noqa: ANN001, ANN202
        number = sum(1 for s in match.seats if s.is_bot) + 1
        name = t("bot.name", match.language, n=number)
        return await self.repo.add_seat(match.id, None, name, match.bot_level)

    async def cancel(self, interaction: discord.Interaction) -> None:
        """``/capsa cancel``: the host or a manager stops the table in this channel."""
        lang = await self.user_lang(interaction)
        match = await self.repo.active_match_in_channel(interaction.channel_id)
        if match is None:
            await tell(interaction, t("ans.no_table", lang))
            return
        if not self.is_manager(interaction, match):
            await tell(interaction, t("ans.host_only", lang))
            return
        async with self.locks[match.id]:
            await self.repo.cancel_match(match.id)
            self.cancel_timer(match.id)
        if match.status == "lobby":
            await self._close_lobby_message(match, "lobby.cancelled")
        else:
            await self._close_status_message(match)
        await interaction.response.send_message(
            t("ans.cancelled", lang, name=interaction.user.display_name)
        )

    # --- rounds -------------------------------------------------------------------------

    async def start_round(self, match, number: int) -> None:  # noqa: ANN001
        """Deal, let the computers set, post the status message, DM the builders. Idempotent."""
        existing = await self.repo.current_round(match.id)
        if existing is not None and existing.number >= number:
            return
        seed = secrets.randbits(48)
        hands = deal_cards(len(match.seats), seed)
        deadline = time.time() + match.countdown
        rnd = await self.repo.start_round(
            match.id,
            number,
            seed,
            deadline,
            {s.seat: [c.code for c in hands[s.seat]] for s in match.seats},
        )
        self.schedule(match.id, deadline - time.time(), lambda: self.close_round(match.id, rnd.id))
        await self._prepare_round(match, rnd)

    async def _prepare_round(self, match, rnd) -> None:  # noqa: ANN001
        """Whatever of a dealt round is not done yet: the computers' settings, the status
        message, the DMs. Safe to call again after a restart."""
        preset = preset_of(match)
        opponents = len(match.seats) - 1

        async def computer(seat) -> None:  # noqa: ANN001
            cards = parse_cards(rnd.hands[seat.seat].cards)
            level = seat.level or match.bot_level
            arrangement = await self.arrange(cards, preset, level, opponents, rnd.seed + seat.seat)
            await self.repo.submit_hand(
                rnd.id,
                seat.seat,
                [c.code for c in arrangement.back],
                [c.code for c in arrangement.middle],
                [c.code for c in arrangement.front],
                arrangement.declare,
                fouled=False,
            )

        waiting = {h.seat for h in rnd.hands if h.submitted_at is None}
        await asyncio.gather(*(computer(s) for s in match.seats if s.is_bot and s.seat in waiting))
        rnd = await self.repo.get_round(rnd.id)
        lang = match.language
        if rnd.status_message_id is None:
            try:
                status = await self.channel(match.channel_id).send(
                    embed=embeds.status_embed(match, rnd, lang),
                    view=views.status_view(match.id, lang),
                )
                await self.repo.set_round_messages(rnd.id, status_message_id=status.id)
            except discord.HTTPException:
                log.exception("table %s: could not post the round status", match.id)
        await asyncio.gather(
            *(
                self._send_builder_dm(match, rnd, seat)
                for seat in match.seats
                if not seat.is_bot
                and rnd.hands[seat.seat].dm_message_id is None
                and rnd.hands[seat.seat].submitted_at is None
            )
        )

    async def _send_builder_dm(self, match, rnd, seat) -> None:  # noqa: ANN001
        lang = match.language
        hand = rnd.hands[seat.seat]
        draft = Draft.start(parse_cards(hand.cards))
        embed, view, picture = await self.builder_payload(match, rnd, seat.seat, draft, lang)
        try:
            user = self.bot.get_user(seat.user_id) or await self.bot.fetch_user(seat.user_id)
            message = await user.send(embed=embed, view=view, files=[picture] if picture else [])
            await self.repo.set_dm_message(rnd.id, seat.seat, message.channel.id, message.id)
            return
        except discord.Forbidden as err:
            if err.code != DM_CLOSED:
                log.warning("table %s: DM to seat %s refused: %s", match.id, seat.seat, err)
        except discord.HTTPException:
            log.exception("table %s: could not DM seat %s", match.id, seat.seat)
        try:  # tell them in the channel; "Show my hand" opens the same builder there
            await self.channel(match.channel_id).send(
                t("round.dm_closed", lang, mention=f"<@{seat.user_id}>"),
                allowed_mentions=discord.AllowedMentions(users=True),
            )
        except discord.HTTPException:
            log.warning("table %s: could not tell seat %s that DMs failed", match.id, seat.seat)

    async def builder_payload(
        self,
        match,
        rnd,
        seat: int,
        draft: Draft,
        lang: str,
        note: str | None = None,  # noqa: ANN001
    ) -> tuple[discord.Embed, discord.ui.View, discord.File | None]:
        """The builder's embed, its components and the hand picture (one redraw a call)."""
        special = await self.special_for(match, rnd, seat)
        embed = embeds.builder_embed(match, rnd, seat, draft, lang, note)
        view = views.builder_view(rnd.id, seat, draft, lang, special)
        picture = await self._draw_hand(draft, lang)
        if picture is not None:
            embed.set_image(url="attachment://hand.png")
        return embed, view, picture

    async def _draw_hand(self, draft: Draft, lang: str) -> discord.File | None:
        from capsa.render import render_hand

        rows = draft.setting if (draft.back or draft.middle) else None
        try:
            image = await asyncio.to_thread(render_hand, draft.hand, rows, lang)
        except Exception:
            log.exception("could not draw a hand")
            return None
        return discord.File(io.BytesIO(image), filename="hand.png")

    async def special_for(self, match, rnd, seat: int) -> str | None:  # noqa: ANN001
        key = (rnd.id, seat)
        if key not in self._specials:
            cards = parse_cards(rnd.hands[seat].cards)
            found = await asyncio.to_thread(available, cards, preset_of(match))
            self._specials[key] = found[0] if found else None
        return self._specials[key]

    async def _close_status_message(self, match) -> None:  # noqa: ANN001
        rnd = await self.repo.current_round(match.id)
        if rnd is None or rnd.status != "open" or rnd.status_message_id is None:
            return
        try:
            message = self.channel(match.channel_id).get_partial_message(rnd.status_message_id)
            embed = embeds.status_embed(match, rnd, match.language)
            embed.description = t("lobby.cancelled", match.language)
            await message.edit(embed=embed, view=None)
        except discord.HTTPException:
            log.warning("table %s: could not close the status message", match.id)

    async def refresh_status(self, match, rnd) -> None:  # noqa: ANN001
        if rnd.status_message_id is None:
            return
        try:
            message = self.channel(match.channel_id).get_partial_message(rnd.status_message_id)
            done = rnd.status != "open" or all(h.submitted_at is not None for h in rnd.hands)
            view = None if done else views.status_view(match.id, match.language)
            await message.edit(embed=embeds.status_embed(match, rnd, match.language), view=view)
        except discord.HTTPException:
            log.warning("table %s: could not update the status message", match.id)

    # --- the hand builder ---------------------------------------------------------------

    async def open_builder(
        self, interaction: discord.Interaction, match_id: int | None = None
    ) -> None:
        """``/capsa hand`` and the "Show my hand" button: the builder, ephemerally."""
        lang = await self.user_lang(interaction)
        match = (
            await self.repo.get_match(match_id)
            if match_id is not None
            else await self.repo.active_match_of_user(interaction.user.id)
        )
        seat = (
            next((s for s in match.seats if s.user_id == interaction.user.id), None)
            if match
            else None
        )
        if match is None or match.status != "playing":
            await tell(interaction, t("ans.stale" if match_id else "hand.none", lang))
            return
        if seat is None:
            await tell(interaction, t("hand.not_yours", lang))
            return
        rnd = await self.repo.current_round(match.id)
        if rnd is None or rnd.status != "open":
            await tell(interaction, t("hand.round_over", lang))
            return
        hand = rnd.hands[seat.seat]
        if hand.submitted_at is not None:
            draft = Draft.start(parse_cards(hand.cards)).with_setting(
                parse_cards(hand.back), parse_cards(hand.middle)
            )
            await interaction.response.send_message(
                embed=embeds.locked_embed(match, rnd, draft, lang, hand.declare), ephemeral=True
            )
            return
        draft = Draft.start(parse_cards(hand.cards))
        await interaction.response.defer(ephemeral=True, thinking=True)
        embed, view, picture = await self.builder_payload(match, rnd, seat.seat, draft, lang)
        await interaction.followup.send(
            embed=embed, view=view, files=[picture] if picture else [], ephemeral=True
        )

    async def builder_action(
        self,
        interaction: discord.Interaction,
        act: str,
        round_id: int,
        seat: int,
        masks: tuple[int, int],
        values: list[str],
    ) -> None:
        lang = await self.user_lang(interaction)
        rnd = await self.repo.get_round(round_id)
        match = await self.repo.get_match(rnd.match_id) if rnd else None
        if rnd is None or match is None:
            await tell(interaction, t("ans.stale", lang))
            return
        owner = next((s for s in match.seats if s.seat == seat), None)
        if owner is None or owner.user_id != interaction.user.id:
            await tell(interaction, t("hand.not_yours", lang))
            return
        if rnd.status != "open" or match.status != "playing":
            await tell(interaction, t("hand.round_over", lang))
            return
        hand = rnd.hands[seat]
        if hand.submitted_at is not None:
            await tell(interaction, t("hand.already", lang))
            return
        draft = Draft.decode(parse_cards(hand.cards), *masks)
        special = await self.special_for(match, rnd, seat)
        note = None
        if act in ("b", "m"):
            try:
                draft = draft.place("back" if act == "b" else "middle", parse_cards(values), lang)
            except CapsaError as err:
                await tell(interaction, str(err))
                return
        elif act == "c":
            draft = draft.cleared()
        elif act == "a":
            await interaction.response.defer()
            arrangement = await self.arrange(
                draft.hand, preset_of(match), "normal", len(match.seats) - 1, rnd.seed + seat
            )
            draft = draft.with_setting(*arrangement.ordinary[:2])
            if arrangement.special:
                note = t(
                    "hand.special",
                    lang,
                    special=special_name(arrangement.special, lang),
                    value=preset_of(match).specials[arrangement.special],
                    ordinary=signed(round(arrangement.ordinary_expected, 1)),
                )
            embed, view, picture = await self.builder_payload(match, rnd, seat, draft, lang, note)
            await interaction.edit_original_response(
                embed=embed, view=view, attachments=[picture] if picture else []
            )
            return
        elif act == "d":
            await self._declare(interaction, match, rnd, seat, draft, special, lang)
            return
        elif act in ("s", "f"):
            if not draft.complete:
                await tell(interaction, t("hand.incomplete", lang))
                return
            if act == "s" and draft.fouled:
                await interaction.response.send_message(
                    t("hand.confirm_foul", lang),
                    view=views.confirm_foul_view(rnd.id, seat, draft, lang),
                    ephemeral=True,
                )
                return
            await self._submit(interaction, match, rnd, seat, draft, None, lang)
            return
        embed, view, picture = await self.builder_payload(match, rnd, seat, draft, lang, note)
        await interaction.response.edit_message(
            embed=embed, view=view, attachments=[picture] if picture else []
        )

    async def _declare(self, interaction, match, rnd, seat, draft, special, lang) -> None:  # noqa: ANN001
        if special is None:
            await tell(interaction, t("hand.no_special", lang))
            return
        if special in ("three_straights", "three_flushes"):
            back, middle, _ = find_setting(draft.hand, special)
            draft = draft.with_setting(back, middle)
        elif not draft.complete:
            await interaction.response.defer()
            arrangement = await self.arrange(
                draft.hand, preset_of(match), "normal", len(match.seats) - 1, rnd.seed + seat
            )
            draft = draft.with_setting(*arrangement.ordinary[:2])
        await self._submit(interaction, match, rnd, seat, draft, special, lang)

    async def _submit(self, interaction, match, rnd, seat, draft: Draft, declare, lang) -> None:  # noqa: ANN001
        back, middle, front = ([c.code for c in row] for row in draft.setting)
        accepted = await self.repo.submit_hand(
            rnd.id, seat, back, middle, front, declare, fouled=declare is None and draft.fouled
        )
        if not accepted:
            await tell(interaction, t("hand.already", lang))
            return
        locked = embeds.locked_embed(match, rnd, draft, lang, declare)
        if interaction.response.is_done():
            await interaction.edit_original_response(embed=locked, view=None, attachments=[])
        else:
            await interaction.response.edit_message(
                content=None, embed=locked, view=None, attachments=[]
            )
        hand = rnd.hands[seat]
        if interaction.message is not None and hand.dm_message_id not in (
            None,
            interaction.message.id,
        ):
            try:  # the confirm step came from another message: lock the DM builder too
                dm = self.bot.get_partial_messageable(hand.dm_channel_id)
                message = dm.get_partial_message(hand.dm_message_id)
                await message.edit(embed=locked, view=None, attachments=[])
            except discord.HTTPException:
                log.info("table %s: could not lock the DM builder of seat %s", match.id, seat)
        rnd = await self.repo.get_round(rnd.id)
        await self.refresh_status(match, rnd)
        if all(h.submitted_at is not None for h in rnd.hands):
            asyncio.create_task(self.close_round(match.id, rnd.id))

    # --- showdown -----------------------------------------------------------------------

    async def close_round(self, match_id: int, round_id: int) -> None:
        """Fill in the missing settings, score once, post the showdown, go on."""
        async with self.locks[match_id]:
            match = await self.repo.get_match(match_id)
            rnd = await self.repo.get_round(round_id)
            if match is None or rnd is None or match.status != "playing":
                return
            if rnd.status == "open":
                await self._fill_missing(match, rnd)
                rnd = await self.repo.get_round(round_id)
                result = round_result(match, rnd)
                auto = [h.seat for h in rnd.hands if h.auto]
                payload = result.to_dict() | {"auto": auto}
                await self.repo.score_round(round_id, payload, round_scores(result))
                for hand in rnd.hands:
                    self._specials.pop((round_id, hand.seat), None)
                rnd = await self.repo.get_round(round_id)
                await self.refresh_status(match, rnd)
            if rnd.showdown_message_id is None:
                await self._post_showdown(match, rnd)
            self.cancel_timer(match_id)
            if rnd.number >= match.rounds_total:
                await self._finish(match)
            else:
                delay = (rnd.scored_at or time.time()) + self.next_round_seconds - time.time()
                number = rnd.number + 1
                self.schedule(match_id, delay, lambda: self.start_next(match_id, number))

    async def _fill_missing(self, match, rnd) -> None:  # noqa: ANN001
        preset = preset_of(match)
        foul = match.timeout_action == "foul"
        for hand in rnd.hands:
            if hand.submitted_at is not None:
                continue
            arrangement = await self.arrange(
                parse_cards(hand.cards),
                preset,
                "normal",
                len(match.seats) - 1,
                rnd.seed + hand.seat,
            )
            rows = (
                arrangement.ordinary
                if foul
                else (arrangement.back, arrangement.middle, arrangement.front)
            )
            await self.repo.submit_hand(
                rnd.id,
                hand.seat,
                *([c.code for c in row] for row in rows),
                None if foul else arrangement.declare,
                fouled=foul,
                auto=True,
            )

    async def _post_showdown(self, match, rnd) -> None:  # noqa: ANN001
        lang = match.language
        result = round_result(match, rnd)
        totals = await self._totals(match)
        auto = {h.seat for h in rnd.hands if h.auto}
        embed_list = embeds.showdown_embeds(
            result, totals, rnd.number, match.rounds_total, lang, auto
        )
        image = await self._render(result, lang, embed_list[0].title)
        files = []
        if image is not None:
            files.append(discord.File(io.BytesIO(image), filename="showdown.png"))
            embed_list[0].set_image(url="attachment://showdown.png")
        last = rnd.number >= match.rounds_total
        if not last:
            when = embeds.relative((rnd.scored_at or time.time()) + self.next_round_seconds)
            embed_list[-1].add_field(name="⏭️", value=t("sd.next_at", lang, when=when), inline=False)
        view = None if last else views.next_view(match.id, rnd.number, lang)
        try:
            kwargs = {"embeds": embed_list, "files": files}
            if view is not None:
                kwargs["view"] = view
            message = await self.channel(match.channel_id).send(**kwargs)
        except discord.HTTPException:
            log.exception("table %s: could not post the showdown of round %s", match.id, rnd.number)
            return
        await self.repo.set_round_messages(rnd.id, showdown_message_id=message.id)

    async def _render(self, result: RoundResult, lang: str, title: str | None) -> bytes | None:
        from capsa.render import render_showdown

        try:
            return await asyncio.to_thread(render_showdown, result, lang, title)
        except Exception:
            log.exception("could not draw the showdown")
            return None

    async def _totals(self, match) -> dict[str, float]:  # noqa: ANN001
        names = seat_names(match)
        by_seat = await self.repo.match_totals(match.id)
        return {names[s.seat]: by_seat.get(s.seat, 0) for s in match.seats}

    async def _finish(self, match) -> None:  # noqa: ANN001
        totals = await self._totals(match)
        table = standings(totals)
        names = seat_names(match)
        by_name = {name: seat for seat, name in names.items()}
        places = {by_name[s.name]: s.place for s in table}
        if not await self.repo.finish_match(match.id, places):
            return
        embed = embeds.standings_embed(table, match.language)
        files = []
        try:
            from capsa.render import render_standings

            image = await asyncio.to_thread(render_standings, table, match.language, embed.title)
            files.append(discord.File(io.BytesIO(image), filename="standings.png"))
            embed.set_image(url="attachment://standings.png")
        except Exception:
            log.exception("could not draw the standings")
        await self.channel(match.channel_id).send(embed=embed, files=files)

    async def next_pressed(
        self, interaction: discord.Interaction, match_id: int, number: int
    ) -> None:
        lang = await self.user_lang(interaction)
        match = await self.repo.get_match(match_id)
        if match is None or match.status != "playing":
            await tell(interaction, t("ans.stale", lang))
            return
        if not self.is_manager(interaction, match):
            await tell(interaction, t("ans.host_only", lang))
            return
        current = await self.repo.current_round(match_id)
        if current is not None and current.number > number:  # an old showdown's button
            await tell(interaction, t("ans.next_started", lang, k=current.number))
            return
        if current is None or current.number != number or current.status != "scored":
            await tell(interaction, t("ans.next_wait", lang))
            return
        await interaction.response.edit_message(view=None)
        await self.start_next(match_id, number + 1)

    async def start_next(self, match_id: int, number: int) -> None:
        async with self.locks[match_id]:
            match = await self.repo.get_match(match_id)
            if match is None or match.status != "playing":
                return
            current = await self.repo.current_round(match_id)
            if current is not None and (current.number >= number or current.status != "scored"):
                return
            await self.start_round(match, number)

    # --- start-up -------------------------------------------------------------------------

    async def resume(self) -> None:
        """Pick every open table up again: lobbies' expiry, countdowns, pending showdowns."""
        for match in await self.repo.active_matches():
            try:
                await self._resume(match)
            except Exception:
                log.exception("table %s: could not resume", match.id)

    async def _resume(self, match) -> None:  # noqa: ANN001
        now = time.time()
        if match.status == "lobby":
            self.schedule(
                match.id, match.lobby_expires_at - now, lambda: self.expire_lobby(match.id)
            )
            return
        rnd = await self.repo.current_round(match.id)
        if rnd is None:
            self.schedule(match.id, 0, lambda: self.start_next(match.id, 1))
        elif rnd.status == "open":
            round_id = rnd.id
            self.schedule(
                match.id, rnd.deadline - now, lambda: self.close_round(match.id, round_id)
            )
            await self._prepare_round(match, rnd)
        else:
            round_id = rnd.id
            self.schedule(match.id, 0, lambda: self.close_round(match.id, round_id))
