"""Components: every custom_id the tables and the leaderboard post fits Discord and matches
exactly one DynamicItem, which rebuilds the same state from it; the builder's selects and
buttons; the leaderboard's pages.
"""

from __future__ import annotations

from unittest.mock import MagicMock

import discord
import pytest

from capsa.builder import Draft
from capsa.cards import DECK, sort_hand
from capsa.i18n import t
from capsa.names import position_name, special_name
from cogs import board, items, views
from tests.cog_helpers import (
    ALICE,
    ALICE_HAND,
    ID,
    PAIRS,
    STRONG,
    cards,
    custom_ids,
    draft_of,
    edited,
    make_ix,
)

# --- custom_ids and DynamicItems --------------------------------------------------------


BIG_ROUND = 2**63 - 1  # SQLite's largest rowid


TOP13 = tuple(sort_hand(DECK[-13:]))  # the 13 highest cards: the widest masks


def all_views() -> list[tuple[discord.ui.View, str]]:
    """Every view the cogs build, with the largest ids they can carry."""
    full = Draft.start(TOP13).with_setting(TOP13[:5], TOP13[5:10])
    half = Draft.start(TOP13).with_setting(TOP13[:5], ())
    arranged = Draft.start(TOP13).with_setting(TOP13[:5], TOP13[5:10], arranged=True)
    out = []
    for lang in ("en", "id"):
        out.append((views.lobby_view(BIG_ROUND, lang), "lobby"))
        out.append((views.status_view(BIG_ROUND, lang), "status"))
        for next_button in (True, False):
            view = views.showdown_view(BIG_ROUND, 10, BIG_ROUND, lang, next_button=next_button)
            out.append((view, "showdown"))
        out.append((views.review_view(BIG_ROUND, lang), "review"))
        for draft in (Draft.start(TOP13), half, full, arranged):
            out.append((views.builder_view(BIG_ROUND, 3, draft, lang, "dragon"), "builder"))
        out.append((views.confirm_foul_view(BIG_ROUND, 3, full, lang), "confirm"))
        for sort, period in (("points", "all"), ("matches", "30d"), ("sweeps", "7d")):
            out.append((views.leaderboard_view(sort, period, 1, 9999, lang), "lb"))
        out.append((views.history_view(BIG_ROUND, 10, 9999, lang), "history"))
        out.append((views.replay_view(BIG_ROUND, 2, 10, lang), "replay"))
        out.append((views.rematch_view(BIG_ROUND, lang), "rematch"))
    return out


def test_every_custom_id_matches_exactly_one_template_and_fits() -> None:
    for view, kind in all_views():
        ids = custom_ids(view)
        assert len(ids) == len(set(ids)), f"{kind}: duplicate custom_ids {ids}"
        for child in view.children:
            cid = child.custom_id
            assert cid.startswith("capsa:") and len(cid) <= 100, cid
            owners = [
                cls
                for cls in items.DYNAMIC_ITEMS
                if cls.__discord_ui_compiled_template__.fullmatch(cid)
            ]
            assert owners == [type(child)], (cid, owners)


async def test_from_custom_id_rebuilds_the_same_state() -> None:
    ix = MagicMock(spec=discord.Interaction)
    for view, _kind in all_views():
        for child in view.children:
            cls = type(child)
            match = cls.__discord_ui_compiled_template__.fullmatch(child.custom_id)
            rebuilt = await cls.from_custom_id(ix, child.item, match)
            assert type(rebuilt) is cls and rebuilt.custom_id == child.custom_id
            assert rebuilt.click == child.click, child.custom_id


async def test_builder_ids_carry_the_draft_through_decode() -> None:
    hand = TOP13
    drafts = [
        Draft.start(hand),
        Draft.start(hand).with_setting(hand[:5], ()),
        Draft.start(hand).with_setting((), hand[8:]),
        Draft.start(hand).with_setting(hand[:5], hand[5:10]),
        Draft.start(hand).with_setting(hand[8:], hand[:5]),
        Draft.start(hand).with_setting(hand[:5], hand[5:10], arranged=True),
    ]
    ix = MagicMock(spec=discord.Interaction)
    for draft in drafts:
        view = views.builder_view(BIG_ROUND, 3, draft, "en", None)
        for child in view.children:
            assert child.click.round_id == BIG_ROUND and child.click.seat == 3
            match = type(child).__discord_ui_compiled_template__.fullmatch(child.custom_id)
            rebuilt = await type(child).from_custom_id(ix, child.item, match)
            assert Draft.decode(hand, *rebuilt.click.state) == draft
    acts = [c.click.act for c in views.builder_view(1, 0, drafts[0], "en", "dragon").children]
    assert acts == ["b", "m", "a", "d", "c", "s"]
    confirm = views.confirm_foul_view(1, 0, drafts[3], "en").children
    assert [c.click.act for c in confirm] == ["f"] and confirm[0].click.state == drafts[3].state
    # Auto-arrange's rows stay marked through a click; a draft not complete never is
    assert drafts[5].state[2] and not drafts[3].state[2]
    assert not Draft.decode(hand, *drafts[1].masks, True).arranged
    placed = drafts[5].place("back", hand[:5])
    assert not placed.arranged and not drafts[5].cleared().arranged


def test_decode_drops_cards_not_held_and_clashes() -> None:
    hand = cards(ALICE_HAND)
    back_mask, middle_mask = draft_of(ALICE_HAND, STRONG, PAIRS).masks
    foreign = 1 << cards("2H")[0].index
    draft = Draft.decode(hand, back_mask | foreign, middle_mask | back_mask)
    assert draft == draft_of(ALICE_HAND, STRONG, PAIRS)


# --- builder_view -----------------------------------------------------------------------


def selects(view: discord.ui.View) -> tuple[discord.ui.Select, discord.ui.Select]:
    back, middle = (c.item for c in view.children if isinstance(c, views.BuilderSelect))
    return back, middle


def button_labels(view: discord.ui.View) -> list[str]:
    return [c.item.label for c in view.children if isinstance(c, views.BuilderButton)]


@pytest.mark.parametrize(
    "back,middle",
    [("", ""), (STRONG, ""), ("", PAIRS), (STRONG, PAIRS), (PAIRS, STRONG)],
)
def test_builder_selects_offer_the_unplaced_cards_with_current_defaults(back, middle) -> None:
    draft = draft_of(ALICE_HAND, back, middle)
    hand = set(ALICE_HAND.split())
    back_select, middle_select = selects(views.builder_view(5, 0, draft, "en", None))
    for select, own, other in (
        (back_select, back.split(), middle.split()),
        (middle_select, middle.split(), back.split()),
    ):
        values = [o.value for o in select.options]
        assert len(values) == len(set(values)) <= 25
        assert set(values) == hand - set(other)
        assert {o.value for o in select.options if o.default} == set(own)
        assert select.min_values == select.max_values == 5
        assert len(select.options) >= 5
        by_code = {c.code: c for c in cards(" ".join(values))}
        chosen = [o for o in select.options if o.default]
        # a filled menu shows its chosen cards, not its placeholder: the first carries the
        # row's name ("Back: A♠, K♠, ..."), every other option is its card
        named = {chosen[0].value} if chosen else set()
        for option in select.options:
            symbol = by_code[option.value].symbol
            position = "back" if select is back_select else "middle"
            row = position_name(position, "en")
            assert option.label == (f"{row}: {symbol}" if option.value in named else symbol)


def test_builder_buttons_and_labels_in_both_languages() -> None:
    draft = Draft.start(cards(ALICE_HAND))
    plain = views.builder_view(5, 0, draft, "en", None)
    assert button_labels(plain) == ["Auto-arrange", "Clear", "Submit"]
    back, middle = selects(plain)
    assert (back.placeholder, middle.placeholder) == ("Back (5)", "Middle (5)")
    special = views.builder_view(5, 0, draft, "en", "dragon")
    assert button_labels(special) == ["Auto-arrange", "Declare Dragon", "Clear", "Submit"]
    indonesian = views.builder_view(5, 0, draft, "id", "six_pairs")
    assert button_labels(indonesian) == [
        "Susun otomatis",
        f"Nyatakan {special_name('six_pairs', 'id')}",
        "Hapus",
        "Kirim",
    ]
    back, middle = selects(indonesian)
    assert (back.placeholder, middle.placeholder) == ("Bawah (5)", "Tengah (5)")
    rows = indonesian.to_components()
    assert [len(r["components"]) for r in rows] == [1, 1, 4]
    for row in rows:
        for component in row["components"]:
            assert len(component.get("label", "")) <= 80
            assert len(component.get("placeholder", "")) <= 150


# --- leaderboard pages ------------------------------------------------------------------


def test_leaderboard_view_pages() -> None:
    first = views.leaderboard_view("wins", "7d", 0, 3, "en").children
    assert [(b.click.page, b.item.disabled) for b in first] == [(0, True), (1, False)]
    middle = views.leaderboard_view("wins", "7d", 1, 3, "id").children
    assert [(b.click.page, b.item.disabled) for b in middle] == [(0, False), (2, False)]
    assert [b.item.label for b in middle] == ["◀ Sebelumnya", "Berikutnya ▶"]
    last = views.leaderboard_view("wins", "7d", 2, 3, "en").children
    assert [(b.click.page, b.item.disabled) for b in last] == [(1, False), (2, True)]
    only = views.leaderboard_view("points", "all", 0, 1, "en").children
    assert all(b.item.disabled for b in only)


async def test_show_leaderboard_clamps_the_page_and_edits(fake_bot) -> None:
    ix = make_ix(fake_bot, ALICE, locale=ID)
    await board.show_leaderboard(ix, fake_bot.repo, "points", "30d", 7, edit=True)
    kwargs = edited(ix)
    embed = kwargs["embed"]
    assert embed.title == "Peringkat · poin · 30 hari terakhir"
    assert embed.description == t("lb.empty", "id")
    assert embed.footer.text == "Halaman 1/1"
    assert [(b.click.page, b.item.disabled) for b in kwargs["view"].children] == [
        (0, True),
        (0, True),
    ]
