"""Persistent components. Every ``custom_id`` is namespaced ``capsa:`` and carries the state
it needs (table, round, seat, and the builder's draft as two card masks), so the buttons on
old messages keep working after a restart. Callbacks hand over to the TableManager.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable
from typing import TYPE_CHECKING

import discord

from capsa.builder import Draft
from capsa.i18n import t
from capsa.names import special_name
from cogs.replies import component_error

if TYPE_CHECKING:
    from cogs.tables import TableManager


def _tables(interaction: discord.Interaction) -> TableManager:
    return interaction.client.tables  # type: ignore[attr-defined]


async def _guarded(
    item: discord.ui.Item, interaction: discord.Interaction, work: Awaitable[None]
) -> None:
    """discord.py logs and drops a DynamicItem callback's exception (View.on_error is never
    called for them), so every callback reports its own errors like commands do."""
    try:
        await work
    except Exception as error:
        await component_error(interaction, error, item)


LOBBY_ACTIONS = {
    "join": ("btn.join", discord.ButtonStyle.success),
    "leave": ("btn.leave", discord.ButtonStyle.secondary),
    "add": ("btn.add_bot", discord.ButtonStyle.secondary),
    "start": ("btn.start", discord.ButtonStyle.primary),
    "cancel": ("btn.cancel", discord.ButtonStyle.danger),
}


class LobbyButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=rf"capsa:lobby:(?P<match>\d+):(?P<action>{'|'.join(LOBBY_ACTIONS)})",
):
    def __init__(self, match_id: int, action: str, lang: str = "en") -> None:
        key, style = LOBBY_ACTIONS[action]
        super().__init__(
            discord.ui.Button(
                label=t(key, lang), style=style, custom_id=f"capsa:lobby:{match_id}:{action}"
            )
        )
        self.match_id = match_id
        self.action = action

    @classmethod
    async def from_custom_id(cls, interaction, item, match: re.Match[str]):
        return cls(int(match["match"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await _guarded(
            self,
            interaction,
            _tables(interaction).lobby_action(interaction, self.match_id, self.action),
        )


def lobby_view(match_id: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for action in LOBBY_ACTIONS:
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
    async def from_custom_id(cls, interaction, item, match: re.Match[str]):
        return cls(int(match["match"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _guarded(
            self,
            interaction,
            _tables(interaction).open_builder(interaction, match_id=self.match_id),
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
    async def from_custom_id(cls, interaction, item, match: re.Match[str]):
        return cls(int(match["match"]), int(match["number"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await _guarded(
            self,
            interaction,
            _tables(interaction).next_pressed(interaction, self.match_id, self.number),
        )


def next_view(match_id: int, number: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(NextRoundButton(match_id, number, lang))
    return view


# --- the hand builder -----------------------------------------------------------------------

_BUILDER = (
    r"capsa:h:(?P<act>[bmadcsf]):(?P<round>\d+):(?P<seat>\d):(?P<b>[0-9a-f]+):(?P<m>[0-9a-f]+)"
)


def builder_id(act: str, round_id: int, seat: int, draft: Draft) -> str:
    back, middle = draft.masks
    return f"capsa:h:{act}:{round_id}:{seat}:{back:x}:{middle:x}"


class _BuilderItem:
    """What the builder's selects and buttons share (mixed in before ``DynamicItem``): their
    state, read back from the custom_id, and the hand-over to the TableManager."""

    def __init__(
        self, item: discord.ui.Item, act: str, round_id: int, seat: int, masks: tuple[int, int]
    ) -> None:
        super().__init__(item)  # type: ignore[call-arg]
        self.act, self.round_id, self.seat, self.masks = act, round_id, seat, masks

    @staticmethod
    def _stand_in(custom_id: str) -> discord.ui.Item:
        """The component rebuilt for a dispatched custom_id."""
        raise NotImplementedError

    def _values(self, interaction: discord.Interaction) -> list[str]:
        return []

    @classmethod
    async def from_custom_id(cls, interaction, item, match: re.Match[str]):
        return cls(
            cls._stand_in(item.custom_id),
            match["act"],
            int(match["round"]),
            int(match["seat"]),
            (int(match["b"], 16), int(match["m"], 16)),
        )

    async def callback(self, interaction: discord.Interaction) -> None:
        values = self._values(interaction)
        await _guarded(
            self,  # type: ignore[arg-type]
            interaction,
            _tables(interaction).builder_action(
                interaction, self.act, self.round_id, self.seat, self.masks, values
            ),
        )


class BuilderSelect(
    _BuilderItem,
    discord.ui.DynamicItem[discord.ui.Select],
    template=_BUILDER.replace("[bmadcsf]", "[bm]"),
):
    @staticmethod
    def _stand_in(custom_id: str) -> discord.ui.Select:
        return discord.ui.Select(
            custom_id=custom_id,
            min_values=5,
            max_values=5,
            options=[discord.SelectOption(label="-")] * 5,
        )

    def _values(self, interaction: discord.Interaction) -> list[str]:
        return list((interaction.data or {}).get("values", []))  # type: ignore[union-attr]


class BuilderButton(
    _BuilderItem,
    discord.ui.DynamicItem[discord.ui.Button],
    template=_BUILDER.replace("[bmadcsf]", "[adcsf]"),
):
    @staticmethod
    def _stand_in(custom_id: str) -> discord.ui.Button:
        return discord.ui.Button(custom_id=custom_id, label="-")


def builder_view(
    round_id: int, seat: int, draft: Draft, lang: str, special: str | None
) -> discord.ui.View:
    """Back select, middle select, then Auto-arrange / Declare / Clear / Submit."""
    view = discord.ui.View(timeout=None)
    masks = draft.masks
    for act, position, options, chosen in (
        ("b", "back", draft.back_options(), draft.back),
        ("m", "middle", draft.middle_options(), draft.middle),
    ):
        select = discord.ui.Select(
            custom_id=builder_id(act, round_id, seat, draft),
            placeholder=t(f"hand.{position}_ph", lang),
            min_values=5,
            max_values=5,
            options=[
                discord.SelectOption(label=c.symbol, value=c.code, default=c in chosen)
                for c in options
            ],
            row=0 if act == "b" else 1,
        )
        view.add_item(BuilderSelect(select, act, round_id, seat, masks))
    buttons = [("a", t("btn.auto", lang), discord.ButtonStyle.secondary)]
    if special:
        label = t("btn.declare", lang, special=special_name(special, lang))
        buttons.append(("d", label, discord.ButtonStyle.success))
    buttons.append(("c", t("btn.clear", lang), discord.ButtonStyle.secondary))
    buttons.append(("s", t("btn.submit", lang), discord.ButtonStyle.primary))
    for act, label, style in buttons:
        button = discord.ui.Button(
            custom_id=builder_id(act, round_id, seat, draft), label=label, style=style, row=2
        )
        view.add_item(BuilderButton(button, act, round_id, seat, masks))
    return view


def confirm_foul_view(round_id: int, seat: int, draft: Draft, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    button = discord.ui.Button(
        custom_id=builder_id("f", round_id, seat, draft),
        label=t("btn.submit_foul", lang),
        style=discord.ButtonStyle.danger,
    )
    view.add_item(BuilderButton(button, "f", round_id, seat, draft.masks))
    return view


# --- leaderboard pages ----------------------------------------------------------------------


class LeaderboardButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"capsa:lb:(?P<sort>\w+):(?P<period>\w+):(?P<page>\d+):(?P<dir>[pn])",
):
    def __init__(
        self,
        sort: str,
        period: str,
        page: int,
        direction: str,
        lang: str = "en",
        disabled: bool = False,
    ) -> None:
        label = t("btn.prev" if direction == "p" else "btn.next_page", lang)
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=f"capsa:lb:{sort}:{period}:{page}:{direction}",
                disabled=disabled,
            )
        )
        self.sort, self.period, self.page = sort, period, page

    @classmethod
    async def from_custom_id(cls, interaction, item, match: re.Match[str]):
        return cls(match["sort"], match["period"], int(match["page"]), match["dir"])

    async def callback(self, interaction: discord.Interaction) -> None:
        from cogs.board import show_leaderboard  # board imports this module

        await _guarded(
            self,
            interaction,
            show_leaderboard(interaction, self.sort, self.period, self.page, edit=True),
        )


def leaderboard_view(sort: str, period: str, page: int, pages: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(LeaderboardButton(sort, period, max(page - 1, 0), "p", lang, disabled=page <= 0))
    view.add_item(
        LeaderboardButton(
            sort, period, min(page + 1, pages - 1), "n", lang, disabled=page >= pages - 1
        )
    )
    return view


DYNAMIC_ITEMS = (
    LobbyButton,
    ShowHandButton,
    NextRoundButton,
    BuilderSelect,
    BuilderButton,
    LeaderboardButton,
)
