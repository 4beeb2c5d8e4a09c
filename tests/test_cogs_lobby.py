"""The lobby: its buttons (``Lobby.action``: join, leave, add a computer, start, cancel) and
``/capsa new`` (``Lobby.open_table``: options, server defaults, the table's language).
"""

from __future__ import annotations

from unittest.mock import MagicMock

import pytest

from capsa.i18n import t
from capsa.presets import PRESETS
from cogs import views
from cogs.components import LobbyAction, LobbyClick
from cogs.life import Clock, Step
from cogs.scheduler import TimerKind
from tests.cog_helpers import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    EN,
    EVE,
    GUILD,
    ID,
    OTHER_CHANNEL,
    command,
    custom_ids,
    edited,
    embed_text,
    ephemeral,
    make_ix,
    new_lobby,
)

# --- the lobby's buttons ----------------------------------------------------------------


async def press(client, match_id: int, action: str, user: int, **kw) -> MagicMock:
    ix = make_ix(client, user, **kw)
    await client.tables.router.dispatch(ix, LobbyClick(match_id, LobbyAction(action)))
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
    scheduler = fake_bot.tables.scheduler
    await scheduler.schedule(match.id, TimerKind.CLOCK, Clock(Step.EXPIRE_LOBBY).encode(), 600)
    ix = await press(fake_bot, match.id, "cancel", ALICE)
    kwargs = edited(ix)
    assert kwargs["view"] is None
    assert kwargs["embed"].description == t("lobby.cancelled", "id")  # the table's language
    assert (await repo.get_match(match.id)).status == "cancelled"
    assert await scheduler.pending(match.id) == {}
    ix = await press(fake_bot, match.id, "join", BOB)
    assert ephemeral(ix) == "This table has already started or closed."


async def test_a_manager_starts_and_computers_fill_the_seats(fake_bot, repo) -> None:
    match = await new_lobby(repo, seats=3)
    ix = await press(fake_bot, match.id, "start", EVE, manage_guild=True)
    await fake_bot.tables.scheduler.jobs_done()  # round 1 is dealt once the click is done
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
    pending = await fake_bot.tables.scheduler.pending(match.id)
    # the clock is set for the round's deadline (no lobby expiry), and no watchdog is left
    assert pending == {TimerKind.CLOCK: Clock(Step.CLOSE, 1).encode()}
    ix = await press(fake_bot, match.id, "start", ALICE)
    assert ephemeral(ix) == "This table has already started or closed."


async def test_lobby_buttons_of_an_unknown_table_are_stale(fake_bot, repo) -> None:
    for action in LobbyAction:
        ix = await press(fake_bot, 99999, action, ALICE, locale=ID)
        assert ephemeral(ix) == t("ans.not_lobby", "id")


# --- open_table -------------------------------------------------------------------------


async def open_(client, user=ALICE, **options) -> MagicMock:
    kw = {k: options.pop(k) for k in list(options) if k in ("locale", "guild_id", "channel_id")}
    ix = make_ix(client, user, name=f"name{user}", **kw)
    args = {"seats": None, "rounds": None, "rules": None, "countdown": None, "bots": None}
    args.update(options)
    await command(client.repo, ix, client.tables.lobby.open_table(ix, **args))
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
    pending = await fake_bot.tables.scheduler.pending(match.id)
    assert pending == {TimerKind.CLOCK: Clock(Step.EXPIRE_LOBBY).encode()}
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
