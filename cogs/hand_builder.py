"""The hand builder: DM or ephemeral, selects, auto-arrange, declare, submit."""

from __future__ import annotations

import io
import logging

import discord

from capsa.builder import Draft
from capsa.cards import CapsaError, parse_cards
from capsa.i18n import t
from capsa.names import special_name
from capsa.render import render_hand
from capsa.showdown import signed
from capsa.specials import available, find_setting
from cogs import embeds, views
from cogs.replies import tell
from cogs.table_base import CLICK, TableBase, preset_of

log = logging.getLogger(__name__)


class BuilderFlow(TableBase):
    async def builder_payload(
        self,
        match,
        rnd,
        seat: int,
        draft: Draft,
        lang: str,
        note: str | None = None,
        priority: int = CLICK,
    ) -> tuple[discord.Embed, discord.ui.View, discord.File | None]:
        """The builder's embed, its components and the hand picture (one redraw a call)."""
        special = await self.special_for(match, rnd, seat, priority)
        embed = embeds.builder_embed(match, rnd, seat, draft, lang, note)
        view = views.builder_view(rnd.id, seat, draft, lang, special)
        picture = await self._draw_hand(draft, lang, priority)
        if picture is not None:
            embed.set_image(url="attachment://hand.jpg")
        return embed, view, picture

    async def _draw_hand(self, draft: Draft, lang: str, priority: int) -> discord.File | None:
        rows = draft.setting if (draft.back or draft.middle) else None
        try:
            image = await self.in_worker(priority, render_hand, draft.hand, rows, lang)
        except Exception:
            log.exception("could not draw a hand")
            return None
        return discord.File(io.BytesIO(image), filename="hand.jpg")

    async def special_for(self, match, rnd, seat: int, priority: int = CLICK) -> str | None:
        key = (rnd.id, seat)
        if key not in self._specials:
            cards = parse_cards(rnd.hands[seat].cards)
            found = await self.in_worker(priority, available, cards, preset_of(match))
            self._specials[key] = found[0] if found else None
        return self._specials[key]

    async def open_builder(
        self, interaction: discord.Interaction, match_id: int | None = None
    ) -> None:
        """``/capsa hand`` and the "Show my hand" button: the builder, ephemerally."""
        await interaction.response.defer(ephemeral=True, thinking=True)  # acknowledge first
        lang = await self.user_lang(interaction)
        match = (
            await self.repo.get_match(match_id)
            if match_id is not None
            else await self.repo.active_match_of_user(interaction.user.id)
        )
        seat = match.seat_of(interaction.user.id) if match else None
        if match is None or match.status != "playing":
            await tell(interaction, t("ans.stale" if match_id else "hand.none", lang))
            return
        if seat is None:
            await tell(interaction, t("hand.not_yours", lang))
            return
        if interaction.guild_id is None:  # in a DM: the table's language, as its builder
            lang = match.language
        rnd = await self.repo.current_round(match.id)
        if rnd is None or rnd.status != "open":
            await tell(interaction, t("hand.round_over", lang))
            return
        hand = rnd.hands[seat.seat]
        if hand.submitted:
            draft = Draft.start(parse_cards(hand.cards)).with_setting(
                parse_cards(hand.back), parse_cards(hand.middle)
            )
            await interaction.followup.send(
                embed=embeds.locked_embed(match, rnd, draft, lang, hand.declare), ephemeral=True
            )
            return
        draft = Draft.start(parse_cards(hand.cards))
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
        # Acknowledge first: everything below (database, solver, picture) may take a while
        # on a busy bot, and Discord gives a click 3 seconds.
        await interaction.response.defer()
        lang = await self.user_lang(interaction)
        rnd = await self.repo.get_round(round_id)
        match = await self.repo.get_match(rnd.match_id) if rnd else None
        if rnd is None or match is None:
            await tell(interaction, t("ans.stale", lang))
            return
        if interaction.guild_id is None:  # a DM builder stays in the table's language
            lang = match.language
        owner = next((s for s in match.seats if s.seat == seat), None)
        if owner is None or owner.user_id != interaction.user.id:
            await tell(interaction, t("hand.not_yours", lang))
            return
        if rnd.status != "open" or match.status != "playing":
            await tell(interaction, t("hand.round_over", lang))
            return
        hand = rnd.hands[seat]
        if hand.submitted:
            await tell(interaction, t("hand.already", lang))
            return
        draft = Draft.decode(parse_cards(hand.cards), *masks)
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
            arrangement = await self.suggest(match, rnd, seat)
            draft = draft.with_setting(*arrangement.ordinary[:2])
            if arrangement.special:
                note = t(
                    "hand.special",
                    lang,
                    special=special_name(arrangement.special, lang),
                    value=preset_of(match).specials[arrangement.special],
                    ordinary=signed(round(arrangement.ordinary_expected, 1)),
                )
        elif act == "d":
            special = await self.special_for(match, rnd, seat)
            await self._declare(interaction, match, rnd, seat, draft, special, lang)
            return
        elif act in ("s", "f"):
            if not draft.complete:
                await tell(interaction, t("hand.incomplete", lang))
                return
            if act == "s" and draft.fouled:
                await interaction.followup.send(
                    t("hand.confirm_foul", lang),
                    view=views.confirm_foul_view(rnd.id, seat, draft, lang),
                    ephemeral=True,
                )
                return
            await self._submit(interaction, match, rnd, seat, draft, None, lang)
            return
        embed, view, picture = await self.builder_payload(match, rnd, seat, draft, lang, note)
        await interaction.edit_original_response(
            embed=embed, view=view, attachments=[picture] if picture else []
        )

    async def _declare(self, interaction, match, rnd, seat, draft, special, lang) -> None:
        if special is None:
            await tell(interaction, t("hand.no_special", lang))
            return
        if special in ("three_straights", "three_flushes"):
            back, middle, _ = await self.in_worker(CLICK, find_setting, draft.hand, special)
            draft = draft.with_setting(back, middle)
        elif not draft.complete:
            arrangement = await self.suggest(match, rnd, seat)
            draft = draft.with_setting(*arrangement.ordinary[:2])
        await self._submit(interaction, match, rnd, seat, draft, special, lang)

    async def _submit(self, interaction, match, rnd, seat, draft: Draft, declare, lang) -> None:
        back, middle, front = ([c.code for c in row] for row in draft.setting)
        accepted = await self.repo.submit_hand(
            rnd.id, seat, back, middle, front, declare, fouled=declare is None and draft.fouled
        )
        if not accepted:
            await tell(interaction, t("hand.already", lang))
            return
        rnd = await self.repo.get_round(rnd.id)
        complete = rnd.all_submitted
        if complete:  # the showdown first: the whole table waits for it
            self.spawn(self.close_round(match.id, rnd.id))
        locked = embeds.locked_embed(match, rnd, draft, lang, declare)
        await interaction.edit_original_response(
            content=None, embed=locked, view=None, attachments=[]
        )
        hand = rnd.hands[seat]
        if (  # a refused DM is stored without a channel
            interaction.message is not None
            and hand.dm_channel_id is not None
            and hand.dm_message_id != interaction.message.id
        ):
            try:  # the confirm step came from another message: lock the DM builder too
                dm = self.bot.get_partial_messageable(hand.dm_channel_id)
                message = dm.get_partial_message(hand.dm_message_id)
                await message.edit(embed=locked, view=None, attachments=[])
            except discord.HTTPException:
                log.info("table %s: could not lock the DM builder of seat %s", match.id, seat)
        if not complete:  # else the showdown's close_round updates the status message
            await self.refresh_status(match, rnd)
