"""The error hooks: the command tree's one handler and the components' reporter answer in
the user's language, log, and never raise.
"""

from __future__ import annotations

import logging
from types import SimpleNamespace
from unittest.mock import AsyncMock, MagicMock

import discord
import pytest
from discord import app_commands
from discord.components import ActionRow
from discord.ext import commands
from discord.ui.view import ViewStore

from bot import CapsaBot, Config
from capsa.i18n import t
from cogs import items, views
from cogs.components import (
    CAPSA_COG,
    LOBBY,
    ROUTE_OF,
    ROUTES,
    LobbyAction,
    LobbyClick,
    Refusal,
    RefusalCode,
    Router,
)
from cogs.replies import Replies, component_error
from tests.cog_helpers import (
    ALICE,
    EN,
    ID,
    ephemeral,
    http_error,
    make_ix,
)


@pytest.fixture
async def real_bot(executor):
    async with CapsaBot(Config(token="x"), executor=executor) as client:  # set up, as in main
        yield client


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


def join_button() -> views.LobbyButton:
    item = views.lobby_view(7, "en").children[0]
    assert isinstance(item, views.LobbyButton) and item.click.action == LobbyAction.JOIN
    return item


def running_bot() -> MagicMock:
    """A bot that is running (not stopping: its connections to Discord open)."""
    client = MagicMock(spec=commands.Bot)
    client.is_closed.return_value = False
    return client


async def test_component_error_hook_answers_and_logs(caplog) -> None:
    item = join_button()
    error = RuntimeError("kaput")
    ix = make_ix(running_bot(), ALICE, locale=ID)
    with caplog.at_level(logging.ERROR):
        await component_error(ix, error, item)
    assert ephemeral(ix) == t("ans.error", "id")
    (record,) = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert "capsa:lobby:7:join" in record.getMessage() and record.exc_info[1] is error

    done = make_ix(running_bot(), ALICE, locale=EN)
    await done.response.defer()
    await component_error(done, error, item)
    done.followup.send.assert_awaited_once_with(t("ans.error", "en"), ephemeral=True)

    failing = make_ix(running_bot(), ALICE)
    failing.response.send_message.side_effect = http_error()
    await component_error(failing, error, item)  # swallowed


async def test_a_failing_component_reaches_the_bots_error_hook(fake_bot) -> None:
    view = views.lobby_view(7, "en")
    message = MagicMock()
    message.flags.components_v2 = False
    message.components = [ActionRow(row) for row in view.to_components()]
    action = AsyncMock(side_effect=KeyError)
    router = Router(Replies(fake_bot.repo))
    router.register(LOBBY, action)
    client = running_bot()
    client.get_cog.side_effect = lambda name: (
        SimpleNamespace(tables=SimpleNamespace(router=router)) if name == CAPSA_COG else None
    )
    ix = make_ix(client, ALICE, locale=ID)
    ix.message = message
    ix.data = {"custom_id": "capsa:lobby:7:join", "component_type": 2}
    store = ViewStore(MagicMock())
    match = views.LobbyButton.__discord_ui_compiled_template__.fullmatch("capsa:lobby:7:join")
    await store.schedule_dynamic_item_call(2, views.LobbyButton, ix, "capsa:lobby:7:join", match)
    action.assert_awaited_once()  # the real dispatch path found the handler through the cog
    assert action.await_args.args[1] == LobbyClick(7, LobbyAction.JOIN)
    assert ephemeral(ix) == t("ans.error", "id")


async def test_a_refusal_is_told_in_the_pressers_language_and_not_logged(fake_bot, caplog) -> None:
    router = Router(Replies(fake_bot.repo))
    router.register(LOBBY, AsyncMock(side_effect=Refusal(RefusalCode.NEXT_STARTED, k=3)))
    for locale, lang in ((ID, "id"), (discord.Locale.vietnamese, "vi")):
        ix = make_ix(fake_bot, ALICE, locale=locale)
        with caplog.at_level(logging.WARNING):
            await router.dispatch(ix, LobbyClick(7, LobbyAction.JOIN))
        assert ephemeral(ix) == t("ans.next_started", lang, k=3)
    assert not caplog.records


async def test_a_forged_id_is_answered_as_a_stale_table(fake_bot) -> None:
    router = Router(Replies(fake_bot.repo))
    handler = AsyncMock()
    router.register(LOBBY, handler)
    ix = make_ix(fake_bot, ALICE, locale=ID)
    await router.dispatch(ix, LobbyClick(2**63, LobbyAction.JOIN))
    handler.assert_not_awaited()
    assert ephemeral(ix) == t("ans.stale", "id")


def test_every_route_has_a_handler_and_every_component_a_route(fake_bot) -> None:
    assert fake_bot.tables.router.routes == set(ROUTES)
    assert {item.codec for item in items.DYNAMIC_ITEMS} == set(ROUTE_OF)


@pytest.mark.parametrize(
    "item",
    [
        *views.lobby_view(7, "en").children[:1],
        *views.status_view(7, "en").children,
        *views.showdown_view(7, 1, 9, "en", next_button=True).children[:1],
        *views.leaderboard_view("points", "all", 0, 2, "en").children[1:],
    ],
    ids=lambda item: item.custom_id,
)
async def test_a_component_without_the_capsa_cog_says_so_and_logs(caplog, item) -> None:
    """A click on an old message while the cog is not loaded (the bot starting or
    stopping): an answer, not silence, asking to try again."""
    client = MagicMock(spec=commands.Bot)
    client.get_cog.return_value = None
    ix = make_ix(client, ALICE, locale=ID)
    with caplog.at_level(logging.WARNING):
        await item.callback(ix)
    assert ephemeral(ix) == t("ans.restarting", "id")
    client.get_cog.assert_called_once_with(CAPSA_COG)
    assert "the Capsa cog is not loaded" in caplog.text


async def test_a_commands_refusal_is_told_in_the_users_language_not_logged(
    real_bot, repo, caplog
) -> None:
    real_bot._repo = repo  # as setup_hook leaves it
    ix = make_ix(real_bot, ALICE, locale=discord.Locale.vietnamese, guild_id=None)
    ix.command = SimpleNamespace(name="stats", qualified_name="capsa stats")
    error = app_commands.CommandInvokeError(ix.command, Refusal(RefusalCode.GUILD_ONLY))
    with caplog.at_level(logging.WARNING):
        await real_bot.tree.on_error(ix, error)
    assert ephemeral(ix) == t("ans.guild_only", "vi")
    assert not caplog.records
