"""The persistent components (discord.py's DynamicItems), one class per kind of click, all
answered through one wrapper (:meth:`Component.callback`): the custom_id's ids are checked,
the route's handler (registered with the tables' :class:`~cogs.components.Router`) is
called with the click's record, a :class:`~cogs.components.Refusal` it raises is told to
the person in their language, and any other error is logged and reported briefly
(``Router.dispatch``). Nothing
here knows the controllers: they are reached through the router of the loaded Capsa cog.
"""

from __future__ import annotations

import logging
import re
import types
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any, ClassVar, Generic, Self, TypeVar, cast

import discord
from discord.ext.commands.bot import BotBase  # commands.Bot and commands.AutoShardedBot

from cogs import components as c
from cogs.components import Router
from cogs.replies import component_error

log = logging.getLogger(__name__)

ClickT = TypeVar("ClickT", bound=c.Click)


def router_of(client: discord.Client) -> Router:
    """The handlers of the loaded Capsa cog's tables: how a component, which discord.py
    rebuilds from its custom_id, finds the controller that answers it."""
    cog = client.get_cog(c.CAPSA_COG) if isinstance(client, BotBase) else None
    router = getattr(getattr(cog, "tables", None), "router", None)
    if not isinstance(router, Router):
        raise c.NotLoaded(f"the {c.CAPSA_COG} cog is not loaded")
    return router


class Component(
    discord.ui.DynamicItem[discord.ui.Item[Any]], Generic[ClickT], template=r"capsa:(?!)"
):
    """What every persistent component shares: its click record (``self.click``), read
    back from the custom_id, and the one way a click is handed over and answered."""

    codec: ClassVar[type[Any]]  # the click record's class (its TEMPLATE and from_match)

    def __init__(self, item: discord.ui.Item[Any], click: ClickT) -> None:
        super().__init__(item)
        self.click = click

    @classmethod
    def stand_in(cls, custom_id: str) -> discord.ui.Item[Any]:
        """The item discord.py hands back is rebuilt from the custom_id alone."""
        return discord.ui.Button(custom_id=custom_id, label="-")

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        return cls(cls.stand_in(match.string), cls.codec.from_match(match))

    def received(self, interaction: discord.Interaction) -> ClickT:
        """The click as the handler gets it (a select adds the values chosen)."""
        return self.click

    async def callback(self, interaction: discord.Interaction) -> None:
        """Handed to the router's one wrapper (``Router.dispatch``); a cog that is not
        loaded is reported like an error. Never raises."""
        try:
            router = router_of(interaction.client)
        except Exception as error:  # an answer, not silence
            await component_error(interaction, error, self)
            return
        await router.dispatch(interaction, self.received(interaction))


def button(
    click: c.Click,
    label: str,
    style: discord.ButtonStyle,
    *,
    emoji: str | None = None,
    disabled: bool = False,
    row: int | None = None,
) -> discord.ui.Button[Any]:
    return discord.ui.Button(
        label=label,
        style=style,
        emoji=emoji,
        custom_id=click.custom_id,
        disabled=disabled,
        row=row,
    )


def _kind(name: str, codec: type[Any], template: str | None = None) -> type[Component[Any]]:
    """A button component answering ``codec``'s clicks (matched by the codec's template
    unless another is given)."""

    def body(namespace: dict[str, Any]) -> None:
        namespace.update(codec=codec, __module__=__name__, __qualname__=name)

    made = types.new_class(name, (Component,), {"template": template or codec.TEMPLATE}, body)
    return cast(type[Component[Any]], made)


LobbyButton = _kind("LobbyButton", c.LobbyClick)
ShowHandButton = _kind("ShowHandButton", c.ShowHandClick)
NextRoundButton = _kind("NextRoundButton", c.NextClick)
ReviewButton = _kind("ReviewButton", c.ReviewClick)
RematchButton = _kind("RematchButton", c.RematchClick)
BuilderButton = _kind("BuilderButton", c.BuilderClick, c.builder_template(c.BUTTONS))
LeaderboardButton = _kind("LeaderboardButton", c.LeaderboardClick)
HistoryButton = _kind("HistoryButton", c.HistoryClick)
ReplayButton = _kind("ReplayButton", c.ReplayClick)


SelectClickT = TypeVar("SelectClickT", c.BuilderClick, c.DailyClick)


class RowSelect(Component[SelectClickT], template=r"capsa:(?!)"):
    """A builder's row select (a round's hand builder's, or the daily hand's): the click
    as its custom_id says, with the cards chosen."""

    @classmethod
    def stand_in(cls, custom_id: str) -> discord.ui.Item[Any]:
        return discord.ui.Select(
            custom_id=custom_id,
            min_values=5,
            max_values=5,
            options=[discord.SelectOption(label="-")] * 5,
        )

    def received(self, interaction: discord.Interaction) -> SelectClickT:
        data: Mapping[str, object] = interaction.data or {}
        values = data.get("values")
        chosen = tuple(str(v) for v in values) if isinstance(values, list) else ()
        return replace(self.click, values=chosen)


class BuilderSelect(RowSelect[c.BuilderClick], template=c.builder_template(c.SELECTS)):
    codec = c.BuilderClick


class DailySelect(RowSelect[c.DailyClick], template=c.daily_template(c.DAILY_SELECTS)):
    codec = c.DailyClick


DailyButton = _kind("DailyButton", c.DailyClick, c.daily_template(c.DAILY_BUTTONS))


DYNAMIC_ITEMS: tuple[type[Component[Any]], ...] = (
    LobbyButton,
    ShowHandButton,
    NextRoundButton,
    ReviewButton,
    RematchButton,
    BuilderSelect,
    BuilderButton,
    LeaderboardButton,
    HistoryButton,
    ReplayButton,
    DailySelect,
    DailyButton,
)
"""Every persistent component the bot answers (the Capsa cog registers them)."""


def _shown(components: Iterable[discord.Component]) -> set[tuple[int, str | None]]:
    """Each (type, custom id) of a message's components, nested ones included (an action
    row's, a container's or a section's children, a section's accessory)."""
    out: set[tuple[int, str | None]] = set()
    todo = list(components)
    while todo:
        component = todo.pop()
        out.add((component.type.value, getattr(component, "custom_id", None)))
        todo.extend(getattr(component, "children", ()))
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            todo.append(accessory)
    return out


async def answer_stale(interaction: discord.Interaction) -> bool:
    """A click on one of our components that its message no longer shows (a client not
    redrawn yet: the lobby's Join after Start, a showdown's Next after the next deal, a
    locked DM's Submit). discord.py finds a DynamicItem in the message as it is now, so it
    would drop such a click unanswered ("This interaction failed"); here it goes to its
    route's handler like any other, which refuses what no longer applies. Returns whether
    the interaction was one of those (and is answered here)."""
    message = interaction.message
    if interaction.type != discord.InteractionType.component or message is None:
        return False
    data: Mapping[str, object] = interaction.data or {}
    custom_id, kind = data.get("custom_id"), data.get("component_type")
    if not isinstance(custom_id, str):
        return False
    if (kind, custom_id) in _shown(message.components):
        return False  # discord.py's view store answers it
    for factory in DYNAMIC_ITEMS:
        match = factory.__discord_ui_compiled_template__.fullmatch(custom_id)
        if match is not None:
            try:
                item = await factory.from_custom_id(interaction, factory.stand_in(custom_id), match)
            except Exception as error:
                await component_error(interaction, error, factory.stand_in(custom_id))
                return True
            await item.callback(interaction)
            return True
    return False
