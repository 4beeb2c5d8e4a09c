"""The daily hand's builder components: each custom_id is owned by exactly one persistent
component, fits Discord's 100 characters, and rebuilds the same click (day and draft)
after a restart; no Auto-arrange."""

from __future__ import annotations

from datetime import date
from unittest.mock import MagicMock

import discord

from capsa.builder import Draft
from capsa.cards import DECK, sort_hand
from capsa.daily import day_number
from cogs import items, views
from cogs.components import BuilderAction, DailyClick

TOP13 = tuple(sort_hand(DECK[-13:]))  # the widest masks
DAY = day_number(date(2026, 12, 31))


def daily_views() -> list[discord.ui.View]:
    drafts = [
        Draft.start(TOP13),
        Draft.start(TOP13).with_setting(TOP13[:5], ()),
        Draft.start(TOP13).with_setting(TOP13[8:], TOP13[:5]),
    ]
    out = []
    for lang in ("en", "zh-CN"):
        for draft in drafts:
            out.append(views.daily_builder_view(DAY, draft, lang, "dragon"))
            out.append(views.daily_builder_view(DAY, draft, lang, None))
        out.append(views.daily_confirm_view(DAY, drafts[2], lang))
    return out


async def test_every_daily_custom_id_has_one_owner_and_rebuilds_its_click() -> None:
    ix = MagicMock(spec=discord.Interaction)
    for view in daily_views():
        for child in view.children:
            cid = child.custom_id
            assert cid.startswith("capsa:dh:") and len(cid) <= 100, cid
            owners = [
                cls
                for cls in items.DYNAMIC_ITEMS
                if cls.__discord_ui_compiled_template__.fullmatch(cid)
            ]
            assert owners == [type(child)], (cid, owners)
            match = type(child).__discord_ui_compiled_template__.fullmatch(cid)
            rebuilt = await type(child).from_custom_id(ix, child.item, match)
            assert isinstance(rebuilt.click, DailyClick) and rebuilt.click == child.click
            assert rebuilt.click.day == DAY


def test_the_daily_builder_has_no_auto_arrange_and_declare_only_with_a_special() -> None:
    draft = Draft.start(TOP13)
    acts = [c.click.act for c in views.daily_builder_view(DAY, draft, "en", "dragon").children]
    assert acts == [BuilderAction.BACK, BuilderAction.MIDDLE, "d", "c", "s"]
    plain = [c.click.act for c in views.daily_builder_view(DAY, draft, "en", None).children]
    assert BuilderAction.DECLARE not in plain and BuilderAction.AUTO not in plain
    confirm = views.daily_confirm_view(DAY, draft, "en").children
    assert [c.click.act for c in confirm] == [BuilderAction.SUBMIT_FOUL]


def test_a_select_click_carries_the_cards_chosen() -> None:
    view = views.daily_builder_view(DAY, Draft.start(TOP13), "en", None)
    select = view.children[0]
    ix = MagicMock(spec=discord.Interaction)
    ix.data = {"values": [c.code for c in TOP13[:5]]}
    assert select.received(ix).values == tuple(c.code for c in TOP13[:5])
