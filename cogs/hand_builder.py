"""The hand builder: DM or ephemeral, selects, auto-arrange, declare, submit.

A special hand is only ever declared by its holder (RULES §4): the builder offers Declare
when the hand holds one the preset pays, Auto-arrange fills in the best ordinary rows and
shows both choices with their expected points, and the person picks one (Submit or
Declare). Nothing declares for a person, not even the countdown running out."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING

import discord

from capsa.builder import Draft, DraftState
from capsa.cards import CapsaError, parse_cards
from capsa.i18n import t
from capsa.names import special_name
from capsa.render import render_hand
from capsa.showdown import signed
from capsa.specials import available, find_setting
from cogs import embeds, views
from cogs.replies import tell, user_lang
from cogs.table_base import TableServices, preset_of, rows_of
from cogs.views import BuilderAction
from cogs.worker_pool import Priority
from data.repository import MatchRecord, MatchStatus, RoundRecord

if TYPE_CHECKING:
    from capsa.solver import Arrangement
    from cogs.rounds import Rounds

log = logging.getLogger(__name__)

# Specials formed by the rows themselves: declaring one sets the rows that form it.
SPECIALS_BY_ROWS = ("three_straights", "three_flushes")


def special_choice(match: MatchRecord, arrangement: Arrangement, lang: str) -> str:
    """Both choices of a hand that holds a special, with what each is expected to bring
    (summed over the opponents, as the solver weighs them)."""
    special = arrangement.special
    if special is None:
        raise ValueError("the hand holds no special")
    value = preset_of(match).specials[special]
    declared = arrangement.special_value
    if declared is None:  # every opponent pays it, unless one declares a higher one
        declared = value * (len(match.seats) - 1)
    return t(
        "hand.special",
        lang,
        special=special_name(special, lang),
        value=value,
        declared=signed(round(declared, 1)),
        ordinary=signed(round(arrangement.ordinary_expected, 1)),
    )


class BuilderDisplay:
    """What a hand builder shows: its embed, its components and the hand picture, and the
    special each dealt hand may declare (checked once per round and seat)."""

    def __init__(self, services: TableServices) -> None:
        self.services = services
        self._specials: dict[tuple[int, int], str | None] = {}  # (round id, seat) -> special

    async def payload(
        self,
        match: MatchRecord,
        rnd: RoundRecord,
        seat: int,
        draft: Draft,
        lang: str,
        note: str | None = None,
        priority: Priority = Priority.CLICK,
    ) -> tuple[discord.Embed, discord.ui.View, discord.File | None]:
        """The builder's embed, its components and the hand picture (one redraw a call)."""
        special = await self.special_for(match, rnd, seat, priority)
        if note is None and special is not None:  # the choice is theirs: say so
            note = t(
                "hand.special_held",
                lang,
                special=special_name(special, lang),
                value=preset_of(match).specials[special],
            )
        embed = embeds.builder_embed(match, rnd, seat, draft, lang, note)
        view = views.builder_view(rnd.id, seat, draft, lang, special)
        picture = await self._draw_hand(draft, lang, priority)
        if picture is not None:
            embed.set_image(url="attachment://hand.jpg")
        return embed, view, picture

    async def _draw_hand(self, draft: Draft, lang: str, priority: Priority) -> discord.File | None:
        rows = draft.setting if (draft.back or draft.middle) else None
        try:
            image = await self.services.workers.run(priority, render_hand, draft.hand, rows, lang)
        except Exception:
            log.exception("could not draw a hand")
            return None
        return discord.File(io.BytesIO(image), filename="hand.jpg")

    async def special_for(
        self, match: MatchRecord, rnd: RoundRecord, seat: int, priority: Priority = Priority.CLICK
    ) -> str | None:
        key = (rnd.id, seat)
        if key not in self._specials:
            cards = parse_cards(rnd.hands[seat].cards)
            found = await self.services.workers.run(priority, available, cards, preset_of(match))
            self._specials[key] = found[0] if found else None
        return self._specials[key]

    def forget(self, rnd: RoundRecord) -> None:
        """A scored round's builders are done: drop what was remembered for them."""
        for hand in rnd.hands:
            self._specials.pop((rnd.id, hand.seat), None)


class HandBuilder:
    """``/capsa hand``, "Show my hand" and every click of a builder. A submitted hand goes to
    ``rounds``: the last one closes the round, any other updates the status."""

    def __init__(self, services: TableServices, display: BuilderDisplay, rounds: Rounds) -> None:
        self.services = services
        self.repo = services.repo
        self.display = display
        self.rounds = rounds

    async def open(self, interaction: discord.Interaction, match_id: int | None = None) -> None:
        """``/capsa hand`` and the "Show my hand" button: the builder, ephemerally."""
        await interaction.response.defer(ephemeral=True, thinking=True)  # acknowledge first
        lang = await user_lang(self.repo, interaction)
        match = (
            await self.repo.get_match(match_id)
            if match_id is not None
            else await self.repo.active_match_of_user(interaction.user.id)
        )
        seat = match.seat_of(interaction.user.id) if match else None
        if match is None or match.status != MatchStatus.PLAYING:
            await tell(interaction, t("ans.stale" if match_id else "hand.none", lang))
            return
        if seat is None:
            await tell(interaction, t("hand.not_yours", lang))
            return
        if interaction.guild_id is None:  # in a DM: the table's language, as its builder
            lang = match.language
        rnd = await self.repo.current_round(match.id)
        if rnd is None or rnd.scored:
            await tell(interaction, t("hand.round_over", lang))
            return
        hand = rnd.hands[seat.seat]
        if hand.submitted:
            back, middle, _ = rows_of(hand)
            draft = Draft.start(parse_cards(hand.cards)).with_setting(back, middle)
            await interaction.followup.send(
                embed=embeds.locked_embed(match, rnd, draft, lang, hand.declare), ephemeral=True
            )
            return
        draft = Draft.start(parse_cards(hand.cards))
        embed, view, picture = await self.display.payload(match, rnd, seat.seat, draft, lang)
        await interaction.followup.send(
            embed=embed, view=view, files=[picture] if picture else [], ephemeral=True
        )

    async def action(
        self,
        interaction: discord.Interaction,
        act: BuilderAction,
        round_id: int,
        seat: int,
        state: DraftState,
        values: list[str],
    ) -> None:
        # Acknowledge first: everything below (database, solver, picture) may take a while
        # on a busy bot, and Discord gives a click 3 seconds.
        await interaction.response.defer()
        lang = await user_lang(self.repo, interaction)
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
        if rnd.scored or match.status != MatchStatus.PLAYING:
            await tell(interaction, t("hand.round_over", lang))
            return
        hand = rnd.hands[seat]
        if hand.submitted:
            await tell(interaction, t("hand.already", lang))
            return
        draft = Draft.decode(parse_cards(hand.cards), *state)
        note = None
        if act in (BuilderAction.BACK, BuilderAction.MIDDLE):
            position = "back" if act == BuilderAction.BACK else "middle"
            try:
                draft = draft.place(position, parse_cards(values), lang)
            except CapsaError as err:
                await tell(interaction, str(err))
                return
        elif act == BuilderAction.CLEAR:
            draft = draft.cleared()
        elif act == BuilderAction.AUTO:
            # The best ordinary rows, never the special: when the hand holds one, both
            # choices are shown with their expected points and the person picks.
            arrangement = await self.services.suggest(match, rnd, seat)
            draft = draft.with_setting(*arrangement.ordinary[:2], arranged=True)
            if arrangement.special:
                note = special_choice(match, arrangement, lang)
        elif act == BuilderAction.DECLARE:
            special = await self.display.special_for(match, rnd, seat)
            await self._declare(interaction, match, rnd, seat, draft, special, lang)
            return
        elif act in (BuilderAction.SUBMIT, BuilderAction.SUBMIT_FOUL):
            if not draft.complete:
                await tell(interaction, t("hand.incomplete", lang))
                return
            if act == BuilderAction.SUBMIT and draft.fouled:
                await interaction.followup.send(
                    t("hand.confirm_foul", lang),
                    view=views.confirm_foul_view(rnd.id, seat, draft, lang),
                    ephemeral=True,
                )
                return
            await self._submit(interaction, match, rnd, seat, draft, None, lang)
            return
        embed, view, picture = await self.display.payload(match, rnd, seat, draft, lang, note)
        await interaction.edit_original_response(
            embed=embed, view=view, attachments=[picture] if picture else []
        )

    async def _declare(
        self,
        interaction: discord.Interaction,
        match: MatchRecord,
        rnd: RoundRecord,
        seat: int,
        draft: Draft,
        special: str | None,
        lang: str,
    ) -> None:
        if special is None:
            await tell(interaction, t("hand.no_special", lang))
            return
        if special in SPECIALS_BY_ROWS:
            setting = await self.services.workers.run(
                Priority.CLICK, find_setting, draft.hand, special
            )
            if setting is None:  # cannot happen: ``available`` found the special this way
                raise RuntimeError(f"no setting of these cards forms {special}")
            back, middle, _ = setting
            draft = draft.with_setting(back, middle)
        elif not draft.complete:
            arrangement = await self.services.suggest(match, rnd, seat)
            draft = draft.with_setting(*arrangement.ordinary[:2])
        await self._submit(interaction, match, rnd, seat, draft, special, lang)

    async def _submit(
        self,
        interaction: discord.Interaction,
        match: MatchRecord,
        rnd: RoundRecord,
        seat: int,
        draft: Draft,
        declare: str | None,
        lang: str,
    ) -> None:
        back, middle, front = ([c.code for c in row] for row in draft.setting)
        accepted = await self.repo.submit_hand(
            rnd.id,
            seat,
            back,
            middle,
            front,
            declare,
            fouled=declare is None and draft.fouled,
            arranged=declare is None and draft.arranged,
        )
        if not accepted:
            await tell(interaction, t("hand.already", lang))
            return
        rnd = await self.services.round_now(rnd.id)
        complete = rnd.all_submitted
        if complete:  # the showdown first: the whole table waits for it
            self.services.scheduler.spawn(self.rounds.close_round(match.id))
        locked = embeds.locked_embed(match, rnd, draft, lang, declare)
        await interaction.edit_original_response(
            content=None, embed=locked, view=None, attachments=[]
        )
        hand = rnd.hands[seat]
        if (  # a refused DM left no DM message to lock
            interaction.message is not None
            and hand.dm_channel_id is not None
            and hand.dm_message_id is not None
            and hand.dm_message_id != interaction.message.id
        ):
            try:  # the confirm step came from another message: lock the DM builder too
                dm = self.services.client.get_partial_messageable(hand.dm_channel_id)
                message = dm.get_partial_message(hand.dm_message_id)
                await message.edit(embed=locked, view=None, attachments=[])
            except discord.HTTPException:
                log.info("table %s: could not lock the DM builder of seat %s", match.id, seat)
        if not complete:  # else the showdown's close_round updates the status message
            await self.rounds.refresh_status(match, rnd)
