"""Persistent components of the tables. Every ``custom_id`` is namespaced ``capsa:`` and
carries the state it needs (table, round, seat, and the builder's draft as two card masks),
so the buttons on old messages keep working after a restart. Callbacks hand over to the
table's parts, found through the Capsa cog (``tables_of``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from enum import StrEnum
from typing import Any, Self, TypeVar

import discord

from capsa.builder import Draft, DraftState
from capsa.i18n import t
from capsa.names import special_name
from cogs.replies import guarded, tell, user_lang
from cogs.tables import Tables, tables_of

log = logging.getLogger(__name__)

# Table, round and message ids are signed 64-bit integers (Discord's snowflakes, SQLite's
# INTEGER): a custom_id carrying a bigger number was never ours.
ID_MAX = 2**63 - 1


def fits_id(*numbers: int) -> bool:
    """Whether every number read from a custom_id can be an id (0 to :data:`ID_MAX`)."""
    return all(0 <= n <= ID_MAX for n in numbers)


async def _hand_over(
    item: discord.ui.Item,
    interaction: discord.Interaction,
    ids: tuple[int, ...],
    work: Callable[[Tables], Awaitable[None]],
) -> None:
    """``work`` with the Capsa cog's tables; its errors, and a cog that is not loaded, are
    reported to the user like a command's. A custom_id whose ``ids`` cannot be ids (forged,
    or cut by a client) is answered like a click on a table that no longer exists."""

    async def job() -> None:
        tables = tables_of(interaction.client)
        if not fits_id(*ids):
            log.info("refused a component with out-of-range ids: %s", ids)
            lang = await user_lang(tables.services.repo, interaction)
            await tell(interaction, t("ans.stale", lang))
            return
        await work(tables)

    await guarded(item, interaction, job())


class LobbyAction(StrEnum):
    """The lobby's buttons (the value is the custom_id's last part)."""

    JOIN = "join"
    LEAVE = "leave"
    ADD = "add"  # a computer player
    START = "start"
    CANCEL = "cancel"


LOBBY_BUTTONS = {
    LobbyAction.JOIN: ("btn.join", discord.ButtonStyle.success),
    LobbyAction.LEAVE: ("btn.leave", discord.ButtonStyle.secondary),
    LobbyAction.ADD: ("btn.add_bot", discord.ButtonStyle.secondary),
    LobbyAction.START: ("btn.start", discord.ButtonStyle.primary),
    LobbyAction.CANCEL: ("btn.cancel", discord.ButtonStyle.danger),
}


class LobbyButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=rf"capsa:lobby:(?P<match>\d+):(?P<action>{'|'.join(LobbyAction)})",
):
    def __init__(self, match_id: int, action: LobbyAction, lang: str = "en") -> None:
        key, style = LOBBY_BUTTONS[action]
        super().__init__(
            discord.ui.Button(
                label=t(key, lang), style=style, custom_id=f"capsa:lobby:{match_id}:{action}"
            )
        )
        self.match_id = match_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        return cls(int(match["match"]), LobbyAction(match["action"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _hand_over(
            self,
            interaction,
            (self.match_id,),
            lambda tables: tables.lobby.action(interaction, self.match_id, self.action),
        )


def lobby_view(match_id: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for action in LobbyAction:
        view.add_item(LobbyButton(match_id, action, lang))
    return view


class ShowHandButton(
    discord.ui.DynamicItem[discord.ui.Button], template=r"capsa:show:(?P<match>\d+)"
):
    def __init__(self, match_id: int, lang: str = "en") -> None:
        super().__init__(
            discord.ui.Button(
                label=t("btn.show_hand", lang),
                style=discord.ButtonStyle.primary,
                emoji="🃏",
                custom_id=f"capsa:show:{match_id}",
            )
        )
        self.match_id = match_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        return cls(int(match["match"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _hand_over(
            self,
            interaction,
            (self.match_id,),
            lambda tables: tables.builder.open(interaction, match_id=self.match_id),
        )


def status_view(match_id: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ShowHandButton(match_id, lang))
    return view


class NextRoundButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"capsa:next:(?P<match>\d+):(?P<number>\d+)",
):
    def __init__(self, match_id: int, number: int, lang: str = "en") -> None:
        super().__init__(
            discord.ui.Button(
                label=t("btn.next", lang),
                style=discord.ButtonStyle.primary,
                custom_id=f"capsa:next:{match_id}:{number}",
            )
        )
        self.match_id = match_id
        self.number = number

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        return cls(int(match["match"]), int(match["number"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _hand_over(
            self,
            interaction,
            (self.match_id, self.number),
            lambda tables: tables.rounds.next_pressed(interaction, self.match_id, self.number),
        )


class ReviewButton(
    discord.ui.DynamicItem[discord.ui.Button], template=r"capsa:review:(?P<round>\d+)"
):
    """ "Review my hand", on a showdown and on each person's DM of that round: the presser's
    own review, privately (``Coach.pressed``)."""

    def __init__(self, round_id: int, lang: str = "en") -> None:
        super().__init__(
            discord.ui.Button(
                label=t("btn.review", lang),
                style=discord.ButtonStyle.secondary,
                emoji="🔍",
                custom_id=f"capsa:review:{round_id}",
            )
        )
        self.round_id = round_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        return cls(int(match["round"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _hand_over(
            self,
            interaction,
            (self.round_id,),
            lambda tables: tables.coach.pressed(interaction, self.round_id),
        )


def review_view(round_id: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ReviewButton(round_id, lang))
    return view


def showdown_view(
    match_id: int, number: int, round_id: int, lang: str, *, next_button: bool
) -> discord.ui.View:
    """A showdown's buttons: Next (until the next round starts) and Review my hand."""
    view = discord.ui.View(timeout=None)
    if next_button:
        view.add_item(NextRoundButton(match_id, number, lang))
    view.add_item(ReviewButton(round_id, lang))
    return view


class RematchButton(
    discord.ui.DynamicItem[discord.ui.Button], template=r"capsa:rematch:(?P<match>\d+)"
):
    """On a finished match's standings: a new table like it (``Lobby.rematch``)."""

    def __init__(self, match_id: int, lang: str = "en") -> None:
        super().__init__(
            discord.ui.Button(
                label=t("btn.rematch", lang),
                style=discord.ButtonStyle.success,
                emoji="🔁",
                custom_id=f"capsa:rematch:{match_id}",
            )
        )
        self.match_id = match_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        return cls(int(match["match"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _hand_over(
            self,
            interaction,
            (self.match_id,),
            lambda tables: tables.lobby.rematch(interaction, self.match_id),
        )


def rematch_view(match_id: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(RematchButton(match_id, lang))
    return view


# --- the hand builder -----------------------------------------------------------------------


class BuilderAction(StrEnum):
    """The hand builder's selects and buttons (the value is the custom_id's short code)."""

    BACK = "b"  # the back row's select
    MIDDLE = "m"  # the middle row's select
    AUTO = "a"  # Auto-arrange
    DECLARE = "d"  # declare the hand's special
    CLEAR = "c"
    SUBMIT = "s"
    SUBMIT_FOUL = "f"  # submit a fouled setting, once confirmed


SELECTS = (BuilderAction.BACK, BuilderAction.MIDDLE)
BUTTONS = tuple(a for a in BuilderAction if a not in SELECTS)


def _builder_template(acts: tuple[BuilderAction, ...]) -> str:
    return (
        rf"capsa:h:(?P<act>[{''.join(acts)}]):(?P<round>\d+):(?P<seat>\d)"
        r":(?P<b>[0-9a-f]+):(?P<m>[0-9a-f]+)(?P<arranged>:a)?"
    )


def builder_id(act: BuilderAction, round_id: int, seat: int, draft: Draft) -> str:
    """The component's state: the draft's masks, and ``:a`` while its rows are
    Auto-arrange's suggestion (ids without it, from before the coach, read as not)."""
    back, middle = draft.masks
    arranged = ":a" if draft.arranged else ""
    return f"capsa:h:{act}:{round_id}:{seat}:{back:x}:{middle:x}{arranged}"


ItemT = TypeVar("ItemT", bound=discord.ui.Item[Any])


class _BuilderItem(discord.ui.DynamicItem[ItemT], template=_builder_template(tuple(BuilderAction))):
    """What the builder's selects and buttons share: their state, read back from the
    custom_id, and the hand-over to the hand builder."""

    def __init__(
        self, item: ItemT, act: BuilderAction, round_id: int, seat: int, state: DraftState
    ) -> None:
        super().__init__(item)
        self.act, self.round_id, self.seat, self.state = act, round_id, seat, state

    @staticmethod
    def _state(match: re.Match[str]) -> tuple[BuilderAction, int, int, DraftState]:
        state = (int(match["b"], 16), int(match["m"], 16), match["arranged"] is not None)
        return BuilderAction(match["act"]), int(match["round"]), int(match["seat"]), state

    def _values(self, interaction: discord.Interaction) -> list[str]:
        return []

    async def callback(self, interaction: discord.Interaction) -> None:
        values = self._values(interaction)
        await _hand_over(
            self,
            interaction,
            (self.round_id,),
            lambda tables: tables.builder.action(
                interaction, self.act, self.round_id, self.seat, self.state, values
            ),
        )


class BuilderSelect(_BuilderItem[discord.ui.Select], template=_builder_template(SELECTS)):
    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        stand_in: discord.ui.Select = discord.ui.Select(
            custom_id=match.string,
            min_values=5,
            max_values=5,
            options=[discord.SelectOption(label="-")] * 5,
        )
        return cls(stand_in, *cls._state(match))

    def _values(self, interaction: discord.Interaction) -> list[str]:
        data: Mapping[str, object] = interaction.data or {}
        values = data.get("values")
        return [str(v) for v in values] if isinstance(values, list) else []


class BuilderButton(_BuilderItem[discord.ui.Button], template=_builder_template(BUTTONS)):
    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        stand_in: discord.ui.Button = discord.ui.Button(custom_id=match.string, label="-")
        return cls(stand_in, *cls._state(match))


def builder_view(
    round_id: int, seat: int, draft: Draft, lang: str, special: str | None
) -> discord.ui.View:
    """Back select, middle select, then Auto-arrange / Declare / Clear / Submit."""
    view = discord.ui.View(timeout=None)
    state = draft.state
    for act, position, options, chosen in (
        (BuilderAction.BACK, "back", draft.back_options(), draft.back),
        (BuilderAction.MIDDLE, "middle", draft.middle_options(), draft.middle),
    ):
        select: discord.ui.Select = discord.ui.Select(
            custom_id=builder_id(act, round_id, seat, draft),
            placeholder=t(f"hand.{position}_ph", lang),
            min_values=5,
            max_values=5,
            options=[
                discord.SelectOption(label=c.symbol, value=c.code, default=c in chosen)
                for c in options
            ],
            row=0 if act == BuilderAction.BACK else 1,
        )
        view.add_item(BuilderSelect(select, act, round_id, seat, state))
    buttons = [(BuilderAction.AUTO, t("btn.auto", lang), discord.ButtonStyle.secondary)]
    if special:
        label = t("btn.declare", lang, special=special_name(special, lang))
        buttons.append((BuilderAction.DECLARE, label, discord.ButtonStyle.success))
    buttons.append((BuilderAction.CLEAR, t("btn.clear", lang), discord.ButtonStyle.secondary))
    buttons.append((BuilderAction.SUBMIT, t("btn.submit", lang), discord.ButtonStyle.primary))
    for act, label, style in buttons:
        button: discord.ui.Button = discord.ui.Button(
            custom_id=builder_id(act, round_id, seat, draft), label=label, style=style, row=2
        )
        view.add_item(BuilderButton(button, act, round_id, seat, state))
    return view


def confirm_foul_view(round_id: int, seat: int, draft: Draft, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    act = BuilderAction.SUBMIT_FOUL
    button: discord.ui.Button = discord.ui.Button(
        custom_id=builder_id(act, round_id, seat, draft),
        label=t("btn.submit_foul", lang),
        style=discord.ButtonStyle.danger,
    )
    view.add_item(BuilderButton(button, act, round_id, seat, draft.state))
    return view


DYNAMIC_ITEMS = (
    LobbyButton,
    ShowHandButton,
    NextRoundButton,
    BuilderSelect,
    BuilderButton,
    RematchButton,
    ReviewButton,
)
