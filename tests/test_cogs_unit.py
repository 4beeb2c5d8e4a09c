"""Fast unit tests of the Discord glue: views and custom_ids, the TableManager's refusals and
answers, the translator, embed limits, the error hooks and the start-up configuration.

Interactions are ``unittest.mock`` objects; the repository is the real SQLite one on a
temporary file. The end-to-end stories against the fake Discord live in tests/test_e2e_*.py.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import re
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from unittest.mock import AsyncMock, MagicMock

import discord
import pytest
from discord import app_commands
from discord.components import ActionRow
from discord.ui.view import ViewStore

import bot as bot_module
import cogs.capsa
import cogs.strings
from bot import CapsaBot, Config
from capsa.builder import Draft
from capsa.cards import DECK, format_cards, parse_cards, sort_hand
from capsa.hands import evaluate, is_fouled
from capsa.i18n import has, t
from capsa.match import standings
from capsa.names import row_name, special_name
from capsa.presets import PRESETS, get_preset
from capsa.scoring import Seat, score_round
from capsa.showdown import pair_line, player_lines
from capsa.solver import arrange
from capsa.specials import available
from cogs import board, embeds, views
from cogs.replies import component_error
from cogs.table_base import DM_REFUSED
from cogs.tables import TableManager, seat_names
from cogs.translator import CapsaTranslator, tr
from data import RoundScore, open_repository

GUILD = 1
CHANNEL = 10
OTHER_CHANNEL = 11
ALICE, BOB, CAROL, EVE = 101, 102, 103, 109
EN = discord.Locale.american_english
ID = discord.Locale.indonesian

# Alice's hand holds no special; a valid and a fouled setting of it.
ALICE_HAND = "AS KS QS JS TS 9H 9D 5C 5D 3H 2C 7D 8C"
STRONG, PAIRS = "AS KS QS JS TS", "9H 9D 5C 5D 3H"
BOB_HAND = "AH KH QH JH 2D 3D 4D 6S 7S 8S 4C 6H TC"

NOT_YOUR_SEAT = "This is not your seat."


# --- fakes --------------------------------------------------------------------------------


class FakeResponse:
    """``interaction.response``: one answer only, as on Discord."""

    def __init__(self) -> None:
        self.done = False
        self.send_message = AsyncMock(side_effect=self._respond)
        self.edit_message = AsyncMock(side_effect=self._respond)
        self.defer = AsyncMock(side_effect=self._respond)

    async def _respond(self, *args: object, **kwargs: object) -> None:
        if self.done:
            raise AssertionError("the interaction was answered twice")
        self.done = True

    def is_done(self) -> bool:
        return self.done


class FakeBot:
    """What the TableManager uses of the bot: repo, executor, channels, DM channels."""

    def __init__(self, repo, executor: ThreadPoolExecutor) -> None:
        self.repo = repo
        self.executor = executor
        self.channels: dict[int, MagicMock] = {}
        self._ids = itertools.count(5000)
        self.tables = TableManager(self)
        self.http = SimpleNamespace(start_private_message=AsyncMock(side_effect=self._open_dm))

    async def _open_dm(self, user_id: int) -> dict:
        return {"id": str(90_000 + user_id)}

    def _message(self, channel_id: int) -> SimpleNamespace:
        return SimpleNamespace(id=next(self._ids), channel=SimpleNamespace(id=channel_id))

    def get_partial_messageable(self, channel_id: int, **_: object) -> MagicMock:
        if channel_id not in self.channels:
            channel = MagicMock(name=f"channel-{channel_id}")
            channel.id = channel_id
            channel.send = AsyncMock(side_effect=lambda *a, **k: self._message(channel_id))
            messages: dict[int, MagicMock] = {}

            def partial(message_id: int) -> MagicMock:
                if message_id not in messages:
                    message = MagicMock(name=f"message-{message_id}")
                    message.id = message_id
                    message.edit = AsyncMock()
                    messages[message_id] = message
                return messages[message_id]

            channel.get_partial_message = MagicMock(side_effect=partial)
            self.channels[channel_id] = channel
        return self.channels[channel_id]


def make_ix(
    client,
    user_id: int,
    *,
    name: str | None = None,
    locale: discord.Locale = EN,
    guild_id: int | None = GUILD,
    channel_id: int | None = CHANNEL,
    manage_guild: bool = False,
    message_id: int | None = None,
) -> MagicMock:
    ix = MagicMock(spec=discord.Interaction)
    ix.client = client
    ix.user = SimpleNamespace(id=user_id, display_name=name or f"user{user_id}")
    ix.permissions = SimpleNamespace(manage_guild=manage_guild)
    ix.locale = locale
    ix.guild_id = guild_id
    ix.channel_id = channel_id
    ix.response = FakeResponse()
    ix.followup = SimpleNamespace(send=AsyncMock(return_value=SimpleNamespace(id=777)))
    ix.edit_original_response = AsyncMock()
    ix.original_response = AsyncMock(return_value=SimpleNamespace(id=777))
    ix.message = SimpleNamespace(id=message_id) if message_id is not None else None
    ix.command = None
    ix.data = {}
    return ix


def ephemeral(ix: MagicMock) -> str:
    """The one ephemeral text the interaction was answered with."""
    calls = ix.response.send_message.await_args_list + ix.followup.send.await_args_list
    assert len(calls) == 1, calls
    args, kwargs = calls[0]
    assert kwargs.get("ephemeral") is True
    assert not ix.response.edit_message.await_args_list
    return args[0] if args else kwargs["content"]


def edited(ix: MagicMock) -> dict:
    """The keyword arguments of the one edit that answered: ``edit_message``, or (for the
    hand builder, which acknowledges first) ``edit_original_response``."""
    edits = ix.response.edit_message.await_args_list + ix.edit_original_response.await_args_list
    assert len(edits) == 1, edits
    assert not ix.response.send_message.await_args_list and not ix.followup.send.await_args_list
    return edits[0].kwargs


def cards(text: str) -> list:
    return parse_cards(text)


def draft_of(hand: str, back: str = "", middle: str = "") -> Draft:
    return Draft.start(cards(hand)).with_setting(cards(back), cards(middle))


def custom_ids(view: discord.ui.View) -> list[str]:
    return [child.custom_id for child in view.children]


def embed_text(embed: discord.Embed) -> str:
    parts = [embed.title or "", embed.description or ""]
    parts += [f"{f.name}\n{f.value}" for f in embed.fields]
    return "\n".join(parts)


# --- fixtures -----------------------------------------------------------------------------


@pytest.fixture
def executor():
    pool = ThreadPoolExecutor(2)
    yield pool
    pool.shutdown(wait=True)


@pytest.fixture
async def repo(tmp_path):
    r = await open_repository(str(tmp_path / "capsa.sqlite3"))
    try:
        yield r
    finally:
        await r.close()


@pytest.fixture
async def fake_bot(repo, executor):
    client = FakeBot(repo, executor)
    try:
        yield client
    finally:
        tasks = list(client.tables.timers.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def new_lobby(repo, *, host=ALICE, seats=3, channel=CHANNEL, language="en"):
    return await repo.create_match(
        guild_id=GUILD,
        channel_id=channel,
        host_id=host,
        preset="standard",
        options={},
        rounds_total=5,
        countdown=120,
        bot_level="normal",
        timeout_action="auto",
        seats_count=seats,
        language=language,
        lobby_expires_at=time.time() + 600,
        host_name="alice",
    )


async def playing_round(repo):
    """Alice (seat 0, host) and bob (seat 1) in round 1 of a started match."""
    match = await new_lobby(repo, seats=2)
    await repo.add_seat(match.id, BOB, "bob")
    assert await repo.start_match(match.id)
    rnd = await repo.start_round(
        match.id, 1, 12345, time.time() + 120, {0: ALICE_HAND.split(), 1: BOB_HAND.split()}
    )
    return await repo.get_match(match.id), rnd


def test_fixture_hands_are_what_the_tests_assume() -> None:
    standard = get_preset("standard")
    assert available(cards(ALICE_HAND), standard) == []
    assert not draft_of(ALICE_HAND, STRONG, PAIRS).fouled
    assert draft_of(ALICE_HAND, PAIRS, STRONG).fouled
    assert not set(ALICE_HAND.split()) & set(BOB_HAND.split())


# --- custom_ids and DynamicItems ----------------------------------------------------------

BIG_ROUND = 2**63 - 1  # SQLite's largest rowid
TOP13 = tuple(sort_hand(DECK[-13:]))  # the 13 highest cards: the widest masks


def all_views() -> list[tuple[discord.ui.View, str]]:
    """Every view the cogs build, with the largest ids they can carry."""
    full = Draft.start(TOP13).with_setting(TOP13[:5], TOP13[5:10])
    half = Draft.start(TOP13).with_setting(TOP13[:5], ())
    out = []
    for lang in ("en", "id"):
        out.append((views.lobby_view(BIG_ROUND, lang), "lobby"))
        out.append((views.status_view(BIG_ROUND, lang), "status"))
        out.append((views.next_view(BIG_ROUND, 10, lang), "next"))
        for draft in (Draft.start(TOP13), half, full):
            out.append((views.builder_view(BIG_ROUND, 3, draft, lang, "dragon"), "builder"))
        out.append((views.confirm_foul_view(BIG_ROUND, 3, full, lang), "confirm"))
        for sort, period in (("points", "all"), ("matches", "30d"), ("sweeps", "7d")):
            out.append((views.leaderboard_view(sort, period, 1, 9999, lang), "lb"))
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
                for cls in views.DYNAMIC_ITEMS
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
            state = {
                views.LobbyButton: ("match_id", "action"),
                views.ShowHandButton: ("match_id",),
                views.NextRoundButton: ("match_id", "number"),
                views.BuilderSelect: ("act", "round_id", "seat", "masks"),
                views.BuilderButton: ("act", "round_id", "seat", "masks"),
                views.LeaderboardButton: ("sort", "period", "page"),
            }[cls]
            for name in state:
                assert getattr(rebuilt, name) == getattr(child, name), (child.custom_id, name)


async def test_builder_ids_carry_the_draft_through_decode() -> None:
    hand = TOP13
    drafts = [
        Draft.start(hand),
        Draft.start(hand).with_setting(hand[:5], ()),
        Draft.start(hand).with_setting((), hand[8:]),
        Draft.start(hand).with_setting(hand[:5], hand[5:10]),
        Draft.start(hand).with_setting(hand[8:], hand[:5]),
    ]
    ix = MagicMock(spec=discord.Interaction)
    for draft in drafts:
        view = views.builder_view(BIG_ROUND, 3, draft, "en", None)
        for child in view.children:
            assert child.round_id == BIG_ROUND and child.seat == 3
            match = type(child).__discord_ui_compiled_template__.fullmatch(child.custom_id)
            rebuilt = await type(child).from_custom_id(ix, child.item, match)
            assert Draft.decode(hand, *rebuilt.masks) == draft
    acts = [c.act for c in views.builder_view(1, 0, drafts[0], "en", "dragon").children]
    assert acts == ["b", "m", "a", "d", "c", "s"]
    confirm = views.confirm_foul_view(1, 0, drafts[3], "en").children
    assert [c.act for c in confirm] == ["f"] and confirm[0].masks == drafts[3].masks


def test_decode_drops_cards_not_held_and_clashes() -> None:
    hand = cards(ALICE_HAND)
    back_mask, middle_mask = draft_of(ALICE_HAND, STRONG, PAIRS).masks
    foreign = 1 << cards("2H")[0].index
    draft = Draft.decode(hand, back_mask | foreign, middle_mask | back_mask)
    assert draft == draft_of(ALICE_HAND, STRONG, PAIRS)


# --- builder_view -------------------------------------------------------------------------


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
        assert all(o.label == by_code[o.value].symbol for o in select.options)


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


def test_leaderboard_view_pages() -> None:
    first = views.leaderboard_view("wins", "7d", 0, 3, "en").children
    assert [(b.page, b.item.disabled) for b in first] == [(0, True), (1, False)]
    middle = views.leaderboard_view("wins", "7d", 1, 3, "id").children
    assert [(b.page, b.item.disabled) for b in middle] == [(0, False), (2, False)]
    assert [b.item.label for b in middle] == ["◀ Sebelumnya", "Berikutnya ▶"]
    last = views.leaderboard_view("wins", "7d", 2, 3, "en").children
    assert [(b.page, b.item.disabled) for b in last] == [(1, False), (2, True)]
    only = views.leaderboard_view("points", "all", 0, 1, "en").children
    assert all(b.item.disabled for b in only)


async def test_show_leaderboard_clamps_the_page_and_edits(fake_bot) -> None:
    ix = make_ix(fake_bot, ALICE, locale=ID)
    await board.show_leaderboard(ix, "points", "30d", 7, edit=True)
    kwargs = edited(ix)
    embed = kwargs["embed"]
    assert embed.title == "Peringkat · poin · 30 hari terakhir"
    assert embed.description == t("lb.empty", "id")
    assert embed.footer.text == "Halaman 1/1"
    assert [(b.page, b.item.disabled) for b in kwargs["view"].children] == [(0, True), (0, True)]


# --- builder_action -----------------------------------------------------------------------


async def hand_of(repo, rnd, seat: int = 0):
    return (await repo.get_round(rnd.id)).hands[seat]


async def test_builder_refuses_other_users_clicks(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    masks = draft_of(ALICE_HAND, STRONG, PAIRS).masks
    for act, values in [
        ("b", STRONG.split()),
        ("m", PAIRS.split()),
        ("a", []),
        ("d", []),
        ("c", []),
        ("s", []),
        ("f", []),
    ]:
        for intruder, locale, text in ((BOB, EN, NOT_YOUR_SEAT), (EVE, ID, "Ini bukan kursimu.")):
            ix = make_ix(fake_bot, intruder, locale=locale, manage_guild=True)
            await fake_bot.tables.builder_action(ix, act, rnd.id, 0, masks, values)
            assert ephemeral(ix) == text, act
            ix.edit_original_response.assert_not_awaited()
    assert not (await hand_of(repo, rnd)).submitted


async def test_builder_on_a_scored_or_cancelled_round_is_over(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    masks = draft_of(ALICE_HAND, STRONG, PAIRS).masks
    assert await repo.score_round(rnd.id, {}, [RoundScore(0, 3.0), RoundScore(1, -3.0)])
    for act in ("s", "b", "a"):
        ix = make_ix(fake_bot, ALICE)
        values = STRONG.split() if act == "b" else []
        await fake_bot.tables.builder_action(ix, act, rnd.id, 0, masks, values)
        assert ephemeral(ix) == "This round is already over."
    assert not (await hand_of(repo, rnd)).submitted

    match2 = await new_lobby(repo, host=CAROL, seats=2, channel=OTHER_CHANNEL)
    await repo.add_seat(match2.id, None, "Computer 1", "normal")
    await repo.start_match(match2.id)
    rnd2 = await repo.start_round(
        match2.id, 1, 1, time.time() + 99, {0: ALICE_HAND.split(), 1: BOB_HAND.split()}
    )
    await repo.cancel_match(match2.id)
    ix = make_ix(fake_bot, CAROL, locale=ID)
    await fake_bot.tables.builder_action(ix, "s", rnd2.id, 0, masks, [])
    assert ephemeral(ix) == "Ronde ini sudah selesai."


async def test_builder_after_a_submission_says_already_submitted(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    assert await repo.submit_hand(
        rnd.id, 0, STRONG.split(), PAIRS.split(), ["2C", "7D", "8C"], None, False
    )
    before = await hand_of(repo, rnd)
    fouled_masks = draft_of(ALICE_HAND, PAIRS, STRONG).masks
    for act, values in (("s", []), ("f", []), ("b", PAIRS.split()), ("c", []), ("a", [])):
        ix = make_ix(fake_bot, ALICE)
        await fake_bot.tables.builder_action(ix, act, rnd.id, 0, fouled_masks, values)
        assert ephemeral(ix) == "You already submitted this round."
    assert await hand_of(repo, rnd) == before


async def test_builder_on_an_unknown_round_is_stale(fake_bot, repo) -> None:
    ix = make_ix(fake_bot, ALICE)
    await fake_bot.tables.builder_action(ix, "s", 424242, 0, (0, 0), [])
    assert ephemeral(ix) == "This table is no longer open."


@pytest.mark.parametrize("back,middle", [("", ""), (STRONG, ""), ("", PAIRS)])
@pytest.mark.parametrize("act", ["s", "f"])
async def test_submit_with_an_incomplete_draft_is_refused(
    fake_bot, repo, act, back, middle
) -> None:
    match, rnd = await playing_round(repo)
    masks = draft_of(ALICE_HAND, back, middle).masks
    ix = make_ix(fake_bot, ALICE)
    await fake_bot.tables.builder_action(ix, act, rnd.id, 0, masks, [])
    assert ephemeral(ix) == "Pick the back and the middle first (5 cards each)."
    ix = make_ix(fake_bot, ALICE, locale=ID)
    await fake_bot.tables.builder_action(ix, act, rnd.id, 0, masks, [])
    assert ephemeral(ix) == t("hand.incomplete", "id")
    assert not (await hand_of(repo, rnd)).submitted


async def test_submit_of_a_fouled_draft_asks_first(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    draft = draft_of(ALICE_HAND, PAIRS, STRONG)
    ix = make_ix(fake_bot, ALICE, locale=ID, message_id=4000)
    await fake_bot.tables.builder_action(ix, "s", rnd.id, 0, draft.masks, [])
    kwargs = ix.followup.send.await_args.kwargs
    assert ix.followup.send.await_args.args == (t("hand.confirm_foul", "id"),)
    assert kwargs["ephemeral"] is True
    (button,) = kwargs["view"].children
    assert isinstance(button, views.BuilderButton)
    assert (button.act, button.round_id, button.seat, button.masks) == ("f", rnd.id, 0, draft.masks)
    assert button.item.label == "Tetap kirim (salah susun)"
    assert button.item.style is discord.ButtonStyle.danger
    assert not (await hand_of(repo, rnd)).submitted


async def test_confirmed_foul_is_stored_fouled_and_locks_the_dm_builder(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    await repo.set_dm_message(rnd.id, 0, 600, 601)
    await repo.set_round_messages(rnd.id, status_message_id=700)
    draft = draft_of(ALICE_HAND, PAIRS, STRONG)
    ix = make_ix(fake_bot, ALICE, message_id=4000)  # the ephemeral confirm message
    await fake_bot.tables.builder_action(ix, "f", rnd.id, 0, draft.masks, [])
    hand = await hand_of(repo, rnd)
    assert hand.submitted and hand.fouled and not hand.auto and hand.declare is None
    assert set(hand.back) == set(PAIRS.split()) and set(hand.middle) == set(STRONG.split())
    assert set(hand.front) == {"2C", "7D", "8C"}
    kwargs = edited(ix)
    assert kwargs["view"] is None and "Locked in" in kwargs["embed"].description
    dm = fake_bot.channels[600].get_partial_message(601)
    dm.edit.assert_awaited_once()
    assert dm.edit.await_args.kwargs["view"] is None
    assert "Locked in" in dm.edit.await_args.kwargs["embed"].description
    status = fake_bot.channels[CHANNEL].get_partial_message(700)
    text = embed_text(status.edit.await_args.kwargs["embed"])
    assert "✅ alice" in text and "⏳ bob" in text
    assert not (await hand_of(repo, rnd, 1)).submitted


async def test_submit_of_a_valid_draft_stores_it_unfouled(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    draft = draft_of(ALICE_HAND, STRONG, PAIRS)
    ix = make_ix(fake_bot, ALICE, locale=ID, message_id=None)
    await fake_bot.tables.builder_action(ix, "s", rnd.id, 0, draft.masks, [])
    hand = await hand_of(repo, rnd)
    assert hand.submitted and not hand.fouled
    assert set(hand.back) == set(STRONG.split())
    kwargs = edited(ix)
    assert kwargs["view"] is None and kwargs["embed"].description.startswith("🔒 Terkunci")
    again = make_ix(fake_bot, ALICE)
    await fake_bot.tables.builder_action(again, "s", rnd.id, 0, draft.masks, [])
    assert ephemeral(again) == "You already submitted this round."


@pytest.mark.parametrize(
    "act,masks_of,values,expected",
    [
        ("m", (STRONG, ""), "AS 9H 9D 5C 5D", "A♠ is already in another row"),
        ("b", ("", PAIRS), "AS KS QS JS 3H", "3♥ is already in another row"),
        ("b", ("", ""), "AS KS QS JS", "The back row needs exactly 5 cards; you picked 4."),
        ("m", ("", ""), "AS KS QS JS TS 9H", "The middle row needs exactly 5 cards; you picked 6"),
        ("b", ("", ""), "AS KS QS JS 2H", "2♥ is not in your hand"),  # not in the hand
    ],
)
async def test_bad_select_values_get_a_clear_error(
    fake_bot, repo, act, masks_of, values, expected
) -> None:
    match, rnd = await playing_round(repo)
    masks = draft_of(ALICE_HAND, *masks_of).masks
    ix = make_ix(fake_bot, ALICE)
    await fake_bot.tables.builder_action(ix, act, rnd.id, 0, masks, values.split())
    assert expected in ephemeral(ix)
    assert not (await hand_of(repo, rnd)).submitted


async def test_bad_select_values_in_indonesian(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    masks = draft_of(ALICE_HAND, STRONG, "").masks
    ix = make_ix(fake_bot, ALICE, locale=ID)
    await fake_bot.tables.builder_action(ix, "m", rnd.id, 0, masks, "KS 9H 9D 5C 5D".split())
    assert ephemeral(ix) == t("builder.clash", "id", card="K♠")


async def test_selects_and_clear_redraw_the_builder_with_new_masks(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    ix = make_ix(fake_bot, ALICE)
    await fake_bot.tables.builder_action(ix, "b", rnd.id, 0, (0, 0), STRONG.split())
    kwargs = edited(ix)
    after_back = draft_of(ALICE_HAND, STRONG, "")
    assert {c.masks for c in kwargs["view"].children} == {after_back.masks}
    royal = row_name(evaluate(cards(STRONG)), "en")
    assert f"{format_cards(cards(STRONG), symbols=True)} — {royal}" in embed_text(kwargs["embed"])
    assert len(kwargs["attachments"]) == 1  # the hand picture

    ix = make_ix(fake_bot, ALICE)
    await fake_bot.tables.builder_action(ix, "m", rnd.id, 0, after_back.masks, PAIRS.split())
    complete = draft_of(ALICE_HAND, STRONG, PAIRS)
    assert {c.masks for c in edited(ix)["view"].children} == {complete.masks}
    assert t("builder.ok", "en") in embed_text(edited(ix)["embed"])

    ix = make_ix(fake_bot, ALICE)
    await fake_bot.tables.builder_action(ix, "c", rnd.id, 0, complete.masks, [])
    assert {c.masks for c in edited(ix)["view"].children} == {(0, 0)}
    assert not (await hand_of(repo, rnd)).submitted


async def test_auto_arrange_fills_a_valid_setting_without_submitting(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    ix = make_ix(fake_bot, ALICE)
    await fake_bot.tables.builder_action(ix, "a", rnd.id, 0, (0, 0), [])
    ix.response.defer.assert_awaited_once()
    kwargs = ix.edit_original_response.await_args.kwargs
    (masks,) = {c.masks for c in kwargs["view"].children}
    draft = Draft.decode(cards(ALICE_HAND), *masks)
    assert draft.complete and not draft.fouled
    assert not (await hand_of(repo, rnd)).submitted


async def test_declare_without_a_special_is_refused(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    ix = make_ix(fake_bot, ALICE, locale=ID)
    masks = draft_of(ALICE_HAND, STRONG, PAIRS).masks
    await fake_bot.tables.builder_action(ix, "d", rnd.id, 0, masks, [])
    assert ephemeral(ix) == t("hand.no_special", "id")
    assert not (await hand_of(repo, rnd)).submitted


# --- lobby_action -------------------------------------------------------------------------


async def press(client, match_id: int, action: str, user: int, **kw) -> MagicMock:
    ix = make_ix(client, user, **kw)
    await client.tables.lobby_action(ix, match_id, action)
    return ix


async def test_join_and_leave(fake_bot, repo) -> None:
    match = await new_lobby(repo)
    ix = await press(fake_bot, match.id, "join", BOB, name="bob")
    kwargs = edited(ix)
    assert f"<@{BOB}>" in embed_text(kwargs["embed"])
    assert custom_ids(kwargs["view"]) == [
        f"capsa:lobby:{match.id}:{a}" for a in ("join", "leave", "add", "start", "cancel")
    ]
    assert (await repo.get_match(match.id)).seat_of(BOB).seat == 1

    ix = await press(fake_bot, match.id, "join", BOB)
    assert ephemeral(ix) == "You already sit at this table."
    ix = await press(fake_bot, match.id, "leave", ALICE, locale=ID)
    assert ephemeral(ix) == t("ans.host_leave", "id")
    ix = await press(fake_bot, match.id, "leave", EVE)
    assert ephemeral(ix) == "You are not seated at this table."

    ix = await press(fake_bot, match.id, "leave", BOB)
    assert f"<@{BOB}>" not in embed_text(edited(ix)["embed"])
    assert (await repo.get_match(match.id)).seat_of(BOB) is None


async def test_join_a_full_table_or_while_seated_elsewhere(fake_bot, repo) -> None:
    match = await new_lobby(repo, seats=2)
    await repo.add_seat(match.id, BOB, "bob")
    ix = await press(fake_bot, match.id, "join", CAROL)
    assert ephemeral(ix) == "This table is full."
    elsewhere = await new_lobby(repo, host=EVE, channel=OTHER_CHANNEL)
    ix = await press(fake_bot, elsewhere.id, "join", BOB, locale=ID)
    assert ephemeral(ix) == t("ans.already_seated", "id")
    ix = await press(fake_bot, match.id, "add", ALICE)
    assert ephemeral(ix) == "This table is full."
    assert len((await repo.get_match(match.id)).seats) == 2
    assert (await repo.get_match(elsewhere.id)).seat_of(BOB) is None


@pytest.mark.parametrize("action", ["add", "start", "cancel"])
async def test_only_the_host_or_a_manager_runs_the_lobby(fake_bot, repo, action) -> None:
    match = await new_lobby(repo)
    await repo.add_seat(match.id, BOB, "bob")
    for user, locale, lang in ((BOB, EN, "en"), (EVE, ID, "id")):
        ix = await press(fake_bot, match.id, action, user, locale=locale)
        assert ephemeral(ix) == t("ans.host_only", lang)
    after = await repo.get_match(match.id)
    assert after.status == "lobby" and len(after.seats) == 2


async def test_a_manager_adds_a_computer(fake_bot, repo) -> None:
    match = await new_lobby(repo)
    ix = await press(fake_bot, match.id, "add", EVE, manage_guild=True)
    assert "🤖 Computer 1" in embed_text(edited(ix)["embed"])
    seats = (await repo.get_match(match.id)).seats
    assert [(s.seat, s.is_bot, s.name) for s in seats] == [
        (0, False, "alice"),
        (1, True, "Computer 1"),
    ]


async def test_the_host_cancels_the_lobby(fake_bot, repo) -> None:
    match = await new_lobby(repo, language="id")
    fake_bot.tables.schedule(match.id, 600, AsyncMock())
    timer = fake_bot.tables.timers[match.id]
    ix = await press(fake_bot, match.id, "cancel", ALICE)
    kwargs = edited(ix)
    assert kwargs["view"] is None
    assert kwargs["embed"].description == t("lobby.cancelled", "id")  # the table's language
    assert (await repo.get_match(match.id)).status == "cancelled"
    await asyncio.sleep(0)
    assert timer.cancelled() and match.id not in fake_bot.tables.timers
    ix = await press(fake_bot, match.id, "join", BOB)
    assert ephemeral(ix) == "This table has already started or closed."


async def test_a_manager_starts_and_computers_fill_the_seats(fake_bot, repo) -> None:
    match = await new_lobby(repo, seats=3)
    ix = await press(fake_bot, match.id, "start", EVE, manage_guild=True)
    kwargs = edited(ix)
    assert kwargs["view"] is None and kwargs["embed"].description == "The match has started."
    started = await repo.get_match(match.id)
    assert started.status == "playing"
    assert [(s.seat, s.is_bot) for s in started.seats] == [(0, False), (1, True), (2, True)]
    rnd = await repo.current_round(match.id)
    assert rnd.number == 1 and [h.submitted for h in rnd.hands] == [False, True, True]
    status = fake_bot.channels[CHANNEL].send.await_args.kwargs
    assert status["embed"].title == "Round 1/5"
    assert custom_ids(status["view"]) == [f"capsa:show:{match.id}"]
    dm = fake_bot.channels[90_000 + ALICE].send.await_args.kwargs  # her DM channel
    assert {type(c) for c in dm["view"].children} == {views.BuilderSelect, views.BuilderButton}
    assert (await repo.get_round(rnd.id)).hands[0].dm_message_id is not None
    assert match.id in fake_bot.tables.timers  # the countdown
    ix = await press(fake_bot, match.id, "start", ALICE)
    assert ephemeral(ix) == "This table has already started or closed."


async def test_lobby_buttons_of_an_unknown_table_are_stale(fake_bot, repo) -> None:
    for action in views.LOBBY_ACTIONS:
        ix = await press(fake_bot, 99999, action, ALICE, locale=ID)
        assert ephemeral(ix) == t("ans.not_lobby", "id")


# --- open_table ---------------------------------------------------------------------------


async def open_(client, user=ALICE, **options) -> MagicMock:
    kw = {k: options.pop(k) for k in list(options) if k in ("locale", "guild_id", "channel_id")}
    ix = make_ix(client, user, name=f"name{user}", **kw)
    args = {"seats": None, "rounds": None, "rules": None, "countdown": None, "bots": None}
    args.update(options)
    await client.tables.open_table(ix, **args)
    return ix


@pytest.mark.parametrize(
    "options,key",
    [
        ({"seats": 5}, "ans.bad_seats"),
        ({"seats": 1}, "ans.bad_seats"),
        ({"rounds": 7}, "ans.bad_rounds"),
        ({"countdown": 29}, "ans.bad_countdown"),
        ({"countdown": 301}, "ans.bad_countdown"),
    ],
)
async def test_open_table_validates_its_options(fake_bot, repo, options, key) -> None:
    ix = await open_(fake_bot, **options)
    assert ephemeral(ix) == t(key, "en")
    ix = await open_(fake_bot, locale=ID, **options)
    assert ephemeral(ix) == t(key, "id")
    assert await repo.active_match_in_channel(CHANNEL) is None


async def test_open_table_unknown_preset_and_guild_only(fake_bot, repo) -> None:
    ix = await open_(fake_bot, rules="texas")
    text = ephemeral(ix)
    assert "texas" in text and all(name in text for name in PRESETS)
    ix = await open_(fake_bot, guild_id=None, locale=ID)
    assert ephemeral(ix) == t("ans.guild_only", "id")
    assert await repo.active_match_in_channel(CHANNEL) is None


async def test_open_table_uses_server_defaults_and_posts_the_lobby(fake_bot, repo) -> None:
    await repo.update_guild_settings(
        GUILD, preset="indocapsa", rounds=5, countdown=60, bot_level="hard", timeout_action="foul"
    )
    ix = await open_(fake_bot, seats=3)
    assert ix.response.defer.await_args.kwargs == {"ephemeral": True, "thinking": True}
    assert ephemeral(ix) == t("ans.opened", "en")  # the host's private answer
    lobby = fake_bot.channels[CHANNEL].send.await_args  # the lobby, a channel message
    kwargs = lobby.kwargs
    match = await repo.active_match_in_channel(CHANNEL)
    assert (match.preset, match.rounds_total, match.countdown) == ("indocapsa", 5, 60)
    assert (match.bot_level, match.timeout_action, match.seats_count) == ("hard", "foul", 3)
    assert match.host_id == ALICE and match.lobby_message_id is not None
    assert custom_ids(kwargs["view"])[0] == f"capsa:lobby:{match.id}:join"
    assert "**indocapsa**" in kwargs["embed"].description
    assert match.id in fake_bot.tables.timers  # lobby expiry
    ix = await open_(fake_bot, CAROL, seats=2, rounds=10, rules="chinese-poker", countdown=300)
    other = await repo.active_match_of_user(CAROL)
    assert other is None  # refused: the channel is busy
    assert ephemeral(ix) == t("ans.channel_busy", "en")


async def test_open_table_channel_busy_and_already_seated(fake_bot, repo) -> None:
    ix = await open_(fake_bot)
    first = await repo.active_match_in_channel(CHANNEL)
    ix = await open_(fake_bot, BOB, locale=ID)
    assert ephemeral(ix) == t("ans.channel_busy", "id")
    ix = await open_(fake_bot, ALICE, channel_id=OTHER_CHANNEL)
    assert ephemeral(ix) == t("ans.already_seated", "en")
    assert await repo.active_match_in_channel(OTHER_CHANNEL) is None
    assert (await repo.active_match_in_channel(CHANNEL)).id == first.id


@pytest.mark.parametrize(
    "setting,locale,lang",
    [("auto", EN, "en"), ("auto", ID, "id"), ("id", EN, "id"), ("en", ID, "en")],
)
async def test_table_language_forced_by_the_server_or_from_the_locale(
    fake_bot, repo, setting, locale, lang
) -> None:
    await repo.update_guild_settings(GUILD, language=setting)
    ix = await open_(fake_bot, locale=locale)
    assert ephemeral(ix) == t("ans.opened", lang)
    kwargs = fake_bot.channels[CHANNEL].send.await_args.kwargs  # the lobby
    assert (await repo.active_match_in_channel(CHANNEL)).language == lang
    assert kwargs["embed"].title == t("lobby.title", lang)
    assert kwargs["view"].children[0].item.label == t("btn.join", lang)
    refused = await open_(fake_bot, BOB, locale=locale, seats=9)
    assert ephemeral(refused) == t("ans.bad_seats", lang)


# --- translator ---------------------------------------------------------------------------

DISCORD_NAME = re.compile(r"[-_\w]{1,32}")


async def test_translator_gives_indonesian_only_for_id() -> None:
    translator = CapsaTranslator()
    context = app_commands.TranslationContext(
        location=app_commands.TranslationContextLocation.command_name, data=None
    )
    assert await translator.translate(tr("cmd.new"), ID, context) == "baru"
    assert await translator.translate(tr("cmd.new.desc"), ID, context) == t("cmd.new.desc", "id")
    for locale in discord.Locale:
        if locale is not ID:
            assert await translator.translate(tr("cmd.new"), locale, context) is None, locale
    assert await translator.translate(app_commands.locale_str("new"), ID, context) is None
    unknown = app_commands.locale_str("x", key="cmd.nope")
    assert await translator.translate(unknown, ID, context) is None


@pytest.fixture
async def capsa_tree(executor):
    client = CapsaBot(Config(token="x"), executor=executor)
    await cogs.capsa.setup(client)
    try:
        yield client.tree
    finally:
        await client.close()


def walk_options(payload: dict, depth: int = 0):
    yield payload, depth
    for option in payload.get("options", []):
        yield from walk_options(option, depth + 1)


async def test_command_tree_is_translated_and_names_are_valid(capsa_tree) -> None:
    (group,) = capsa_tree.get_commands()
    payload = await group.get_translated_payload(capsa_tree, CapsaTranslator())
    assert payload["name"] == "capsa"
    assert payload["description_localizations"] == {"id": t("cmd.capsa", "id")}
    seen = 0
    for node, depth in walk_options(payload):
        siblings = node.get("options", [])
        for lang in ("en", "id"):
            names = [o["name_localizations"]["id"] if lang == "id" else o["name"] for o in siblings]
            assert len(names) == len(set(names)), names
        for choice in node.get("choices", []):
            assert 1 <= len(choice["name"]) <= 100
            if not choice["name"].isdigit() and choice["value"] not in PRESETS:
                localized = choice["name_localizations"]["id"]
                assert 1 <= len(localized) <= 100
        if depth == 0:
            continue
        seen += 1
        name_id = node["name_localizations"]["id"]
        for name in (node["name"], name_id):
            assert DISCORD_NAME.fullmatch(name) and name == name.lower(), name
        description_id = node["description_localizations"]["id"]
        assert 1 <= len(node["description"]) <= 100 and 1 <= len(description_id) <= 100
    assert seen >= 7 + 5 + 2 + 1 + 1 + 6  # every subcommand and option was visited
    subcommands = {o["name"]: o["name_localizations"]["id"] for o in payload["options"]}
    assert subcommands["new"] == "baru" and subcommands["settings"] == "pengaturan"


def test_every_tree_key_exists_in_both_languages() -> None:
    source = open(cogs.capsa.__file__, encoding="utf-8").read()
    literal = set(re.findall(r'tr\("([^"]+)"\)', source))
    prefixes = set(re.findall(r'tr\(f"([^"{]+)\{', source))
    assert literal and prefixes and prefixes <= {"choice.", "rules.topic."}
    for key in literal:
        assert has(key) and t(key, "id") and t(key, "en"), key
        assert key.split(".")[0] in ("cmd", "opt", "choice"), key
    for key in [f"choice.{x}" for x in ("easy", "normal", "hard", *board.SORTS, *board.PERIODS)]:
        assert has(key), key
    for key in ("auto_arrange", "foul", "lang_auto", "en", "id"):
        assert has(f"choice.{key}")


# --- embeds -------------------------------------------------------------------------------

LONG_NAMES = [
    "Alexandria Wilhelmina Kusumawati",
    "Bartholomew Maximilian Santosooo",
    "Alexandria Wilhelmina Kusumawati",  # a repeated name gets its seat number
    "Wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww",
]


def check_embed(embed: discord.Embed) -> int:
    assert len(embed.title or "") <= 256
    assert len(embed.description or "") <= 4096
    assert len(embed.fields) <= 25
    for field in embed.fields:
        assert 1 <= len(field.name) <= 256, field.name
        assert 1 <= len(field.value) <= 1024, field.value
    assert len(embed.footer.text or "") <= 2048
    return len(embed)


def four_player_result(preset_name: str, scenario: str):
    """Four long (one repeated) names. ``special``: a dragon declared, one fouled setting, two
    solver settings. ``bonuses``: a royal flush, quads and front trips sweep three opponents."""
    preset = get_preset(preset_name)
    if scenario == "special":
        strong = [DECK[(r * 4) + (r % 4)] for r in range(13)]  # one of each rank
    else:
        strong = cards("AS KS QS JS TS 9S 9H 9D 9C 2D 8S 8H 8D")
    rest = [c for c in DECK if c not in strong]
    random.Random(7).shuffle(rest)
    hands = [strong, rest[:13], rest[13:26], rest[26:]]
    fake = SimpleNamespace(
        seats=[SimpleNamespace(seat=i, name=n) for i, n in enumerate(LONG_NAMES)]
    )
    names = seat_names(fake)
    seats = []
    for index, hand in enumerate(hands):
        if scenario == "bonuses" and index == 0:
            seats.append(Seat(names[0], tuple(hand[:5]), tuple(hand[5:10]), tuple(hand[10:])))
            continue
        choice = arrange(hand, preset, "normal", 3, seed=index)
        back, middle, front = choice.back, choice.middle, choice.front
        declare = choice.declare
        if scenario == "special" and index == 1:  # fouled: swap the back and the middle
            back, middle, front = choice.ordinary[1], choice.ordinary[0], choice.ordinary[2]
            declare = None
            assert is_fouled(evaluate(back), evaluate(middle), evaluate(front))
        seats.append(Seat(names[index], back, middle, front, declare=declare))
    assert (seats[0].declare == "dragon") is (scenario == "special")
    return score_round(seats, preset), names


@pytest.mark.parametrize("scenario", ["special", "bonuses"])
@pytest.mark.parametrize("lang", ["en", "id"])
@pytest.mark.parametrize("preset_name", list(PRESETS))
def test_showdown_embeds_fit_discord_limits(preset_name, lang, scenario) -> None:
    result, names = four_player_result(preset_name, scenario)
    assert names[2] == f"{LONG_NAMES[2]} (3)"
    totals = {p.name: -1234.5 + i for i, p in enumerate(result.players)}
    auto = {2, 3}
    embed_list = embeds.showdown_embeds(result, totals, 10, 10, lang, auto=auto)
    embed_list[-1].add_field(
        name="⏭️", value=t("sd.next_at", lang, when=embeds.relative(2e9)), inline=False
    )
    total = sum(check_embed(e) for e in embed_list)
    assert total <= 6000, total
    assert len(embed_list) <= 10
    rows_text = embed_text(embed_list[0])
    assert all(name in rows_text for name in names.values())
    assert t("sd.auto", lang) in rows_text
    for index, field in enumerate(embed_list[0].fields[: len(result.players)]):
        full = "\n".join(player_lines(result, index, lang, auto=index in auto))
        assert field.value == full, "a player's rows were cut"
    full = "\n".join(pair_line(result, pair, lang) for pair in result.pairs)
    assert embed_list[1].description == full, "the head-to-head text was cut"
    assert embed_list[1].footer.text == t("sd.round_footer", lang, k=10, n=10, preset=result.preset)
    final = embeds.standings_embed(standings(totals), lang)
    assert check_embed(final) <= 6000
    assert all(name in final.description for name in names.values())


@pytest.mark.parametrize("lang", ["en", "id"])
async def test_lobby_status_builder_and_locked_embeds_fit(repo, lang) -> None:
    long = "W" * 32
    match = await repo.create_match(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=ALICE,
        preset="chinese-poker",
        options={},
        rounds_total=10,
        countdown=300,
        bot_level="hard",
        timeout_action="auto",
        seats_count=4,
        language=lang,
        lobby_expires_at=time.time() + 600,
        host_name=long,
    )
    await repo.add_seat(match.id, BOB, long + "b")
    await repo.add_seat(match.id, None, t("seat.computer", lang, n=1), "hard")
    match = await repo.get_match(match.id)
    for key in (None, "lobby.started", "lobby.cancelled", "lobby.expired"):
        embed = embeds.lobby_embed(match, lang, key)
        assert check_embed(embed) <= 6000
        assert embed.fields[0].value.count("\n") == 3  # four seats listed
    lobby = embeds.lobby_embed(match, lang)
    assert long in lobby.description and t(f"choice.{match.bot_level}", lang) in lobby.description
    assert t("lobby.empty", lang) in lobby.fields[0].value

    await repo.add_seat(match.id, CAROL, long + "c")
    await repo.start_match(match.id)
    match = await repo.get_match(match.id)
    deal = {0: ALICE_HAND.split(), 1: BOB_HAND.split()}
    leftover = [c.code for c in DECK if c.code not in ALICE_HAND.split() + BOB_HAND.split()]
    deal |= {2: leftover[:13], 3: leftover[13:26]}
    rnd = await repo.start_round(match.id, 10, 1, time.time() + 300, deal)
    status = embeds.status_embed(match, rnd, lang)
    assert check_embed(status) <= 6000 and status.title == t("round.title", lang, k=10, n=10)
    assert status.fields[0].value.count("⏳") == 4

    note = t("hand.special", lang, special=special_name("dragon", lang), value=78, ordinary="+12.5")
    for draft in (
        Draft.start(cards(ALICE_HAND)),
        draft_of(ALICE_HAND, STRONG, ""),
        draft_of(ALICE_HAND, PAIRS, STRONG),
    ):
        builder = embeds.builder_embed(match, rnd, 0, draft, lang, note)
        assert check_embed(builder) <= 6000
        assert note in embed_text(builder)
    fouled = embeds.builder_embed(match, rnd, 0, draft_of(ALICE_HAND, PAIRS, STRONG), lang)
    assert t("builder.fouled", lang) in embed_text(fouled)
    locked = embeds.locked_embed(match, rnd, draft_of(ALICE_HAND, STRONG, PAIRS), lang, "dragon")
    assert check_embed(locked) <= 6000
    assert special_name("dragon", lang) in locked.description


# --- error hooks --------------------------------------------------------------------------


def http_error() -> discord.HTTPException:
    return discord.HTTPException(MagicMock(status=500, reason="boom"), "boom")


@pytest.fixture
async def real_bot(executor):
    client = CapsaBot(Config(token="x"), executor=executor)
    try:
        yield client
    finally:
        await client.close()


@pytest.mark.parametrize("locale,lang", [(ID, "id"), (EN, "en"), (discord.Locale.french, "en")])
async def test_tree_error_answers_in_the_users_language_and_logs(
    real_bot, caplog, locale, lang
) -> None:
    ix = make_ix(real_bot, ALICE, locale=locale)
    ix.command = SimpleNamespace(name="new", qualified_name="capsa new")
    error = app_commands.CommandInvokeError(ix.command, RuntimeError("kaput"))
    with caplog.at_level(logging.ERROR):
        await real_bot.tree.on_error(ix, error)
    assert ephemeral(ix) == t("ans.error", lang)
    (record,) = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert record.levelno == logging.ERROR and "capsa new" in record.getMessage()
    assert record.exc_info and record.exc_info[1] is error


async def test_tree_error_after_a_defer_uses_the_followup(real_bot, caplog) -> None:
    ix = make_ix(real_bot, ALICE, locale=ID)
    await ix.response.defer()
    await real_bot.tree.on_error(ix, app_commands.AppCommandError("late"))
    ix.followup.send.assert_awaited_once_with(t("ans.error", "id"), ephemeral=True)


async def test_tree_cooldown_is_not_an_error(real_bot, caplog) -> None:
    ix = make_ix(real_bot, ALICE, locale=ID)
    cooldown = app_commands.CommandOnCooldown(app_commands.Cooldown(1, 10), 5.0)
    with caplog.at_level(logging.ERROR):
        await real_bot.tree.on_error(ix, cooldown)
    assert ephemeral(ix) == t("ans.cooldown", "id")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_tree_error_survives_a_failed_answer(real_bot, caplog) -> None:
    ix = make_ix(real_bot, ALICE)
    ix.response.send_message.side_effect = http_error()
    with caplog.at_level(logging.WARNING):
        await real_bot.tree.on_error(ix, app_commands.AppCommandError("x"))
    assert [r.levelno for r in caplog.records] == [logging.ERROR, logging.WARNING]


async def test_component_error_hook_answers_and_logs(caplog) -> None:
    item = views.LobbyButton(7, "join")
    error = RuntimeError("kaput")
    ix = make_ix(None, ALICE, locale=ID)
    with caplog.at_level(logging.ERROR):
        await component_error(ix, error, item)
    assert ephemeral(ix) == t("ans.error", "id")
    (record,) = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert "capsa:lobby:7:join" in record.getMessage() and record.exc_info[1] is error

    done = make_ix(None, ALICE, locale=EN)
    await done.response.defer()
    await component_error(done, error, item)
    done.followup.send.assert_awaited_once_with(t("ans.error", "en"), ephemeral=True)

    failing = make_ix(None, ALICE)
    failing.response.send_message.side_effect = http_error()
    await component_error(failing, error, item)  # swallowed


async def test_a_failing_component_reaches_the_bots_error_hook(monkeypatch) -> None:
    view = views.lobby_view(7, "en")
    message = MagicMock()
    message.flags.components_v2 = False
    message.components = [ActionRow(row) for row in view.to_components()]
    client = SimpleNamespace(tables=SimpleNamespace(lobby_action=AsyncMock(side_effect=KeyError)))
    ix = make_ix(client, ALICE, locale=ID)
    ix.message = message
    ix.data = {"custom_id": "capsa:lobby:7:join", "component_type": 2}
    store = ViewStore(MagicMock())
    match = views.LobbyButton.__discord_ui_compiled_template__.fullmatch("capsa:lobby:7:join")
    await store.schedule_dynamic_item_call(2, views.LobbyButton, ix, "capsa:lobby:7:join", match)
    client.tables.lobby_action.assert_awaited_once()  # the real dispatch path ran the callback
    assert ephemeral(ix) == t("ans.error", "id")


# --- configuration and start-up -----------------------------------------------------------

ENV_KEYS = (
    "DISCORD_TOKEN",
    "DATABASE_PATH",
    "DEV_GUILD_ID",
    "LOG_LEVEL",
    "DISCORD_API_BASE",
    "DISCORD_GATEWAY_URL",
    "SOLVER_WORKERS",
    "GUILD_READY_TIMEOUT",
)


@pytest.fixture
def clean_env(monkeypatch):
    for key in ENV_KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setattr(bot_module, "load_dotenv", lambda *a, **k: False)
    return monkeypatch


def test_config_defaults(clean_env) -> None:
    config = Config.from_env()
    assert config == Config(token="")
    assert config.database_path == "data/capsa.sqlite3" and config.dev_guild_id is None
    assert config.log_level == "INFO" and config.api_base is None and config.gateway_url is None
    assert config.solver_workers == 1 and config.guild_ready_timeout == 2.0


def test_config_parsing(clean_env) -> None:
    for key, value in {
        "DISCORD_TOKEN": "  abc.def  ",
        "DATABASE_PATH": " /tmp/x.sqlite3 ",
        "DEV_GUILD_ID": " 123456789012345678 ",
        "LOG_LEVEL": "debug",
        "DISCORD_API_BASE": "http://127.0.0.1:1/api/v10",
        "DISCORD_GATEWAY_URL": "ws://127.0.0.1:1/gateway",
        "SOLVER_WORKERS": "3",
        "GUILD_READY_TIMEOUT": "0.25",
    }.items():
        clean_env.setenv(key, value)
    config = Config.from_env()
    assert config == Config(
        token="abc.def",
        database_path="/tmp/x.sqlite3",
        dev_guild_id=123456789012345678,
        log_level="DEBUG",
        api_base="http://127.0.0.1:1/api/v10",
        gateway_url="ws://127.0.0.1:1/gateway",
        solver_workers=3,
        guild_ready_timeout=0.25,
    )
    for key in ENV_KEYS[1:]:
        clean_env.setenv(key, "   " if key != "LOG_LEVEL" else " ")
    clean_env.setenv("SOLVER_WORKERS", "")
    clean_env.setenv("GUILD_READY_TIMEOUT", "")
    blank = Config.from_env()
    assert blank.database_path == "data/capsa.sqlite3" and blank.dev_guild_id is None
    assert blank.log_level == "INFO" and blank.api_base is None and blank.gateway_url is None
    assert blank.solver_workers == 1 and blank.guild_ready_timeout == 2.0


@pytest.mark.parametrize("token", [None, "", "   "])
def test_main_without_a_token_prints_one_line_and_exits_2(clean_env, capsys, token) -> None:
    if token is not None:
        clean_env.setenv("DISCORD_TOKEN", token)
    started = MagicMock()
    clean_env.setattr(bot_module, "CapsaBot", started)
    before = discord.http.Route.BASE
    assert bot_module.main() == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n")
    assert "DISCORD_TOKEN" in err and ".env" in err and "discord.com/developers" in err
    assert "Traceback" not in err
    started.assert_not_called()
    assert discord.http.Route.BASE == before


def test_main_refuses_half_an_endpoint_pair(clean_env, capsys) -> None:
    clean_env.setenv("DISCORD_TOKEN", "abc")
    clean_env.setenv("DISCORD_API_BASE", "http://127.0.0.1:1/api/v10")
    clean_env.setattr(logging, "basicConfig", lambda **kw: None)
    started = MagicMock()
    clean_env.setattr(bot_module, "CapsaBot", started)
    before = discord.http.Route.BASE
    assert bot_module.main() == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "DISCORD_GATEWAY_URL" in err and "Traceback" not in err
    started.assert_not_called()
    assert discord.http.Route.BASE == before


async def test_a_broken_solver_pool_is_replaced_once(fake_bot) -> None:
    from concurrent.futures import BrokenExecutor, Executor

    class Broken(Executor):
        def submit(self, *args, **kwargs):
            raise BrokenExecutor("a worker died")

    renewed = []

    def renew() -> None:
        renewed.append(True)
        fake_bot.executor = ThreadPoolExecutor(1)

    fake_bot.executor = Broken()
    fake_bot.renew_executor = renew
    hand = cards(ALICE_HAND)
    arrangement = await fake_bot.tables.arrange(hand, get_preset("standard"), "normal", 3, 1)
    assert renewed == [True]
    assert sorted(arrangement.back + arrangement.middle + arrangement.front) == sorted(hand)

    fake_bot.renew_executor = lambda: None  # the new pool is broken too: the error surfaces
    fake_bot.executor = Broken()
    with pytest.raises(BrokenExecutor):
        await fake_bot.tables.arrange(hand, get_preset("standard"), "normal", 3, 1)


async def test_a_failed_deadline_is_tried_again_and_scores_once(fake_bot, repo, caplog) -> None:
    """The countdown ends while the database fails once: the timer runs close_round again
    after a pause, the round is scored (people auto-arranged) and counted once."""
    match, rnd = await playing_round(repo)
    tables = fake_bot.tables
    tables.retry_seconds = (0.05, 0.05)
    real_score = repo.score_round
    calls = []

    async def fail_once(*args, **kwargs):
        calls.append(args[0])
        if len(calls) == 1:
            raise sqlite3.OperationalError("database is locked")
        return await real_score(*args, **kwargs)

    repo.score_round = fail_once
    tables.schedule(match.id, 0, lambda: tables.close_round(match.id, rnd.id))
    for _ in range(200):
        if (await repo.get_round(rnd.id)).status == "scored":
            break
        await asyncio.sleep(0.01)
    scored = await repo.get_round(rnd.id)
    assert scored.status == "scored" and all(h.auto for h in scored.hands)
    assert calls == [rnd.id, rnd.id]
    assert sum((await repo.match_totals(match.id)).values()) == 0
    assert "timed job failed; again in 0.05 s" in caplog.text


async def test_a_deadline_failing_every_time_gives_up_after_the_retries(
    fake_bot, repo, caplog
) -> None:
    match, rnd = await playing_round(repo)
    tables = fake_bot.tables
    tables.retry_seconds = (0.01, 0.01)
    calls = []

    async def always_fail(*args, **kwargs):
        calls.append(args[0])
        raise sqlite3.OperationalError("disk I/O error")

    repo.score_round = always_fail
    tables.schedule(match.id, 0, lambda: tables.close_round(match.id, rnd.id))
    timer = tables.timers[match.id]
    await asyncio.wait_for(asyncio.shield(timer), 5)
    assert len(calls) == 3  # the first run and two retries
    assert (await repo.get_round(rnd.id)).status == "open"  # left for the next start
    assert match.id not in tables.timers
    assert "left for the next start" in caplog.text


async def test_a_refused_dm_is_told_in_the_channel_once_even_after_a_restart(
    fake_bot, repo
) -> None:
    match, rnd = await playing_round(repo)
    dm = fake_bot.get_partial_messageable(90_000 + BOB)
    closed = {"code": 50007, "message": "Cannot send messages to this user"}
    dm.send.side_effect = discord.Forbidden(MagicMock(status=403, reason="Forbidden"), closed)
    channel = fake_bot.get_partial_messageable(CHANNEL)

    def told_bob() -> int:
        return sum(1 for c in channel.send.call_args_list if c.args and f"<@{BOB}>" in c.args[0])

    await fake_bot.tables._prepare_round(match, rnd)
    assert told_bob() == 1
    stored = await repo.get_round(rnd.id)
    assert stored.hands[1].dm_message_id == DM_REFUSED and stored.hands[0].dm_message_id
    await fake_bot.tables._prepare_round(match, stored)  # what a restart does
    assert told_bob() == 1
    assert dm.send.call_count == 1  # and the DM is not tried again
    alice_dm = fake_bot.get_partial_messageable(90_000 + ALICE)
    assert alice_dm.send.call_count == 1


async def test_when_the_pause_runs_out_the_next_round_starts_and_next_goes(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    tables = fake_bot.tables
    tables.next_round_seconds = 0
    for seat, hand in ((0, ALICE_HAND), (1, BOB_HAND)):
        rows = arrange(cards(hand), get_preset("standard"), "easy", 1, seed=1).ordinary
        codes = [[c.code for c in row] for row in rows]
        assert await repo.submit_hand(rnd.id, seat, *codes, None, fouled=False)
    await tables.close_round(match.id, rnd.id)
    shown = await repo.get_round(rnd.id)
    assert shown.showdown_message_id is not None
    for _ in range(300):
        current = await repo.current_round(match.id)
        if current.number == 2 and current.status_message_id is not None:
            break
        await asyncio.sleep(0.01)
    assert current.number == 2
    showdown = fake_bot.get_partial_messageable(CHANNEL).get_partial_message(
        shown.showdown_message_id
    )
    for _ in range(100):
        if showdown.edit.await_count:
            break
        await asyncio.sleep(0.01)
    showdown.edit.assert_awaited_once_with(view=None)


async def test_a_timed_job_that_drops_its_own_timer_is_still_tried_again(fake_bot, repo) -> None:
    """close_round takes its table's timer off before finishing a match; if it fails after
    that, the retry must still happen."""
    tables = fake_bot.tables
    tables.retry_seconds = (0.01,)
    runs = []

    async def job() -> None:
        runs.append(1)
        tables.cancel_timer(7)  # what close_round does before _finish
        if len(runs) == 1:
            raise sqlite3.OperationalError("database is locked")

    tables.schedule(7, 0, job)
    timer = tables.timers[7]
    await asyncio.wait_for(asyncio.shield(timer), 5)
    assert len(runs) == 2


async def test_a_showdown_posted_by_a_later_call_also_updates_the_status(fake_bot, repo) -> None:
    """The round was scored, then posting failed: the next close_round posts the showdown
    and updates the status message too (it is not left saying "waiting")."""
    match, rnd = await playing_round(repo)
    await repo.set_round_messages(rnd.id, status_message_id=4242)
    tables = fake_bot.tables
    real_post = tables._post_showdown
    fails = [1]

    async def post_once(*args):
        if fails:
            fails.pop()
            raise discord.DiscordServerError(MagicMock(status=503, reason="down"), "down")
        return await real_post(*args)

    tables._post_showdown = post_once
    with pytest.raises(discord.DiscordServerError):
        await tables.close_round(match.id, rnd.id)
    assert (await repo.get_round(rnd.id)).status == "scored"
    status = fake_bot.get_partial_messageable(CHANNEL).get_partial_message(4242)
    assert status.edit.await_count == 0
    await tables.close_round(match.id, rnd.id)
    assert (await repo.get_round(rnd.id)).showdown_message_id is not None
    assert status.edit.await_count == 1
    assert status.edit.await_args.kwargs["view"] is None  # "Show my hand" is gone
