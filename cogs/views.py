"""The components under each message, in the reader's language: which buttons and selects a
screen carries (``cogs/items.py`` holds the components, ``cogs/components.py`` their
actions and custom_ids). Built by the screens (``cogs/screens/``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import discord

from capsa.builder import Draft
from capsa.cards import Card, DeckStyle
from capsa.i18n import t
from capsa.names import position_name, special_name
from cogs import components as c
from cogs.components import BuilderAction, LobbyAction, PageDirection, Placement, ReplayStep
from cogs.items import (
    BuilderButton,
    BuilderSelect,
    Component,
    DailyButton,
    DailySelect,
    HistoryButton,
    LeaderboardButton,
    LobbyButton,
    NextRoundButton,
    RematchButton,
    ReplayButton,
    ReviewButton,
    ShowHandButton,
    button,
)


def lobby_view(match_id: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for action in LobbyAction:
        click = c.LobbyClick(match_id, action)
        view.add_item(LobbyButton(button(click, t(action.key, lang), action.style), click))
    return view


def status_view(match_id: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    click = c.ShowHandClick(match_id)
    item = button(click, t("btn.show_hand", lang), discord.ButtonStyle.primary, emoji="🃏")
    view.add_item(ShowHandButton(item, click))
    return view


def _review_button(round_id: int, lang: str) -> Component[Any]:
    click = c.ReviewClick(round_id)
    item = button(click, t("btn.review", lang), discord.ButtonStyle.secondary, emoji="🔍")
    return ReviewButton(item, click)


def review_view(round_id: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(_review_button(round_id, lang))
    return view


def showdown_view(
    match_id: int, number: int, round_id: int, lang: str, *, next_button: bool
) -> discord.ui.View:
    """A showdown's buttons: Next (until the next round starts) and Review my hand."""
    view = discord.ui.View(timeout=None)
    if next_button:
        click = c.NextClick(match_id, number)
        item = button(click, t("btn.next", lang), discord.ButtonStyle.primary)
        view.add_item(NextRoundButton(item, click))
    view.add_item(_review_button(round_id, lang))
    return view


def rematch_view(match_id: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    click = c.RematchClick(match_id)
    item = button(click, t("btn.rematch", lang), discord.ButtonStyle.success, emoji="🔁")
    view.add_item(RematchButton(item, click))
    return view


# --- the hand builder -------------------------------------------------------------------------


def _builder_button(
    act: BuilderAction, round_id: int, seat: int, draft: Draft, label: str, row: int | None
) -> Component[Any]:
    click = c.BuilderClick(act, round_id, seat, draft.state)
    return BuilderButton(button(click, label, act.style, row=row), click)


def select_options(
    position: str,
    options: Sequence[Card],
    chosen: Sequence[Card],
    lang: str,
    deck: DeckStyle = DeckStyle.CLASSIC,
) -> list[discord.SelectOption]:
    """A row's select: every card it may take (in the person's ``deck`` style), the row's
    cards chosen. Once a row is filled
    Discord shows its chosen cards instead of the placeholder, so the first of them carries
    the row's name ("Back: A♠, K♠, ..."): on a phone the two filled menus stay told apart."""
    first = next((card for card in options if card in chosen), None)
    return [
        discord.SelectOption(
            label=t("hand.filled", lang, row=position_name(position, lang), card=card.label(deck))
            if card == first
            else card.label(deck),
            value=card.code,
            default=card in chosen,
        )
        for card in options
    ]


def row_select(
    act: BuilderAction, custom_id: str, draft: Draft, lang: str, deck: DeckStyle, row: int
) -> discord.ui.Select[Any]:
    """The back's or the middle's select of a builder (a table's or the daily hand's): the
    five cards of the row out of those it may take."""
    chosen = draft.back if act == BuilderAction.BACK else draft.middle
    options = draft.back_options() if act == BuilderAction.BACK else draft.middle_options()
    return discord.ui.Select(
        custom_id=custom_id,
        placeholder=t(act.key, lang),
        min_values=5,
        max_values=5,
        options=select_options(act.position, options, chosen, lang, deck),
        row=row,
    )


def builder_view(
    round_id: int,
    seat: int,
    draft: Draft,
    lang: str,
    special: str | None,
    deck: DeckStyle = DeckStyle.CLASSIC,
    *,
    surrender: bool = False,
) -> discord.ui.View:
    """Back select, middle select (each card in the person's ``deck`` style), then the
    buttons of the builder's row in the enum's order (Declare only when the hand holds
    ``special``, Surrender only where the table allows ``surrender``)."""
    view = discord.ui.View(timeout=None)
    declared = special_name(special, lang) if special else ""
    shown = {Placement.BUTTON}
    if special:
        shown.add(Placement.SPECIAL)
    if surrender:
        shown.add(Placement.SURRENDER)
    for act in BuilderAction:
        if act.placement == Placement.SELECT:
            click = c.BuilderClick(act, round_id, seat, draft.state)
            select = row_select(act, click.custom_id, draft, lang, deck, c.SELECTS.index(act))
            view.add_item(BuilderSelect(select, click))
        elif act.placement in shown:
            label = t(act.key, lang, special=declared)
            # row None: the first row under the selects with room, five buttons to a row
            # (Discord's width), so a sixth wraps to the next row
            view.add_item(_builder_button(act, round_id, seat, draft, label, None))
    return view


def _confirm_view(
    placement: Placement, round_id: int, seat: int, draft: Draft, lang: str
) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for act in BuilderAction:
        if act.placement == placement:
            view.add_item(_builder_button(act, round_id, seat, draft, t(act.key, lang), None))
    return view


def confirm_foul_view(round_id: int, seat: int, draft: Draft, lang: str) -> discord.ui.View:
    return _confirm_view(Placement.CONFIRM, round_id, seat, draft, lang)


def confirm_surrender_view(round_id: int, seat: int, draft: Draft, lang: str) -> discord.ui.View:
    return _confirm_view(Placement.CONFIRM_SURRENDER, round_id, seat, draft, lang)


# --- pages --------------------------------------------------------------------------------------


def page_label(direction: PageDirection, lang: str) -> str:
    return t("btn.prev" if direction == PageDirection.PREV else "btn.next_page", lang)


PageButton = Callable[[int, PageDirection, bool], discord.ui.Item[Any]]


def page_view(make: PageButton, page: int, pages: int) -> discord.ui.View:
    """Previous and Next: ``make(page it shows, direction, disabled)`` makes each."""
    view = discord.ui.View(timeout=None)
    view.add_item(make(max(page - 1, 0), PageDirection.PREV, page <= 0))
    view.add_item(make(min(page + 1, pages - 1), PageDirection.NEXT, page >= pages - 1))
    return view


def leaderboard_view(sort: str, period: str, page: int, pages: int, lang: str) -> discord.ui.View:
    def make(to: int, direction: PageDirection, off: bool) -> Component[Any]:
        click = c.LeaderboardClick(sort, period, to, direction)
        label = page_label(direction, lang)
        return LeaderboardButton(
            button(click, label, discord.ButtonStyle.secondary, disabled=off), click
        )

    return page_view(make, page, pages)


def history_view(member_id: int, page: int, pages: int, lang: str) -> discord.ui.View:
    def make(to: int, direction: PageDirection, off: bool) -> Component[Any]:
        click = c.HistoryClick(member_id, to, direction)
        label = page_label(direction, lang)
        return HistoryButton(
            button(click, label, discord.ButtonStyle.secondary, disabled=off), click
        )

    return page_view(make, page, pages)


def replay_view(match_id: int, number: int, last: int, lang: str) -> discord.ui.View:
    labels = {
        ReplayStep.FIRST: t("btn.first", lang),
        ReplayStep.PREV: page_label(PageDirection.PREV, lang),
        ReplayStep.NEXT: page_label(PageDirection.NEXT, lang),
        ReplayStep.LAST: t("btn.last", lang),
    }
    view = discord.ui.View(timeout=None)
    for step, target, off in (
        (ReplayStep.FIRST, 1, number <= 1),
        (ReplayStep.PREV, max(number - 1, 1), number <= 1),
        (ReplayStep.NEXT, min(number + 1, last), number >= last),
        (ReplayStep.LAST, last, number >= last),
    ):
        click = c.ReplayClick(match_id, target, step)
        item = button(click, labels[step], discord.ButtonStyle.secondary, disabled=off)
        view.add_item(ReplayButton(item, click))
    return view


# --- the daily hand ---------------------------------------------------------------------------


def daily_builder_view(
    day: int,
    draft: Draft,
    lang: str,
    special: str | None,
    deck: DeckStyle = DeckStyle.CLASSIC,
) -> discord.ui.View:
    """The hand builder's selects (each card in the person's ``deck`` style) and buttons for
    the daily hand of ``day`` (no Auto-arrange; Declare only when the hand holds
    ``special``)."""
    view = discord.ui.View(timeout=None)
    declared = special_name(special, lang) if special else ""
    for act in c.DAILY_ACTIONS:
        click = c.DailyClick(act, day, draft.state)
        if act.placement == Placement.SELECT:
            select = row_select(act, click.custom_id, draft, lang, deck, c.DAILY_SELECTS.index(act))
            view.add_item(DailySelect(select, click))
        elif act.placement == Placement.BUTTON or (act.placement == Placement.SPECIAL and special):
            label = t(act.key, lang, special=declared)
            item = button(click, label, act.style, row=None)  # under the selects, as above
            view.add_item(DailyButton(item, click))
    return view


def daily_confirm_view(day: int, draft: Draft, lang: str) -> discord.ui.View:
    """Under "submit a fouled setting?" for the daily hand."""
    view = discord.ui.View(timeout=None)
    for act in c.DAILY_BUTTONS:
        if act.placement == Placement.CONFIRM:
            click = c.DailyClick(act, day, draft.state)
            view.add_item(DailyButton(button(click, t(act.key, lang), act.style), click))
    return view
