"""A database out of reach while someone clicks or runs a command (PostgreSQL down or
restarting, a connection it dropped, a SQLite file on a full disk): the person is told, in
their language, that nothing was saved and to try again; the log says so in one line,
without a traceback. Any other error stays "something went wrong", with its traceback."""

from __future__ import annotations

import logging
import sqlite3
from types import SimpleNamespace

import asyncpg
import discord
import pytest
from discord import app_commands

from bot import CapsaBot, Config
from capsa.i18n import LANGS, t
from cogs.replies import report_error
from data import is_database_outage
from tests.cog_helpers import ALICE, EN, ID, ephemeral, make_ix


@pytest.fixture
async def real_bot(executor):
    async with CapsaBot(Config(token="x"), executor=executor) as client:
        yield client


def _wrapped(inner: BaseException) -> Exception:
    """``inner`` as a repository call raises it inside a handler: the cause of another."""
    try:
        try:
            raise inner
        except BaseException as exc:
            raise RuntimeError("the handler failed") from exc
    except RuntimeError as outer:
        return outer


OUTAGES = [
    sqlite3.OperationalError("database or disk is full"),
    sqlite3.OperationalError("attempt to write a readonly database"),
    asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed in the middle"),
    asyncpg.exceptions.CannotConnectNowError("the database system is starting up"),
    asyncpg.exceptions.AdminShutdownError("terminating connection due to administrator"),
    asyncpg.InterfaceError("connection is closed"),
    ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5999)"),
    _wrapped(sqlite3.OperationalError("database or disk is full")),
]
BUGS = [
    sqlite3.OperationalError("no such column: wrong"),
    RuntimeError("kaput"),
    KeyError("seat"),
]


@pytest.mark.parametrize("error", OUTAGES, ids=repr)
def test_an_outage_is_told_apart(error) -> None:
    assert is_database_outage(error)


@pytest.mark.parametrize("error", BUGS, ids=repr)
def test_a_bug_is_not_an_outage(error) -> None:
    assert not is_database_outage(error)


def test_every_language_has_the_outage_answer() -> None:
    texts = {lang: t("ans.db_down", lang) for lang in LANGS}
    assert len(set(texts.values())) == len(LANGS)  # each its own, none falling back
    assert all(text and text != t("ans.error", lang) for lang, text in texts.items())


@pytest.mark.parametrize("locale,lang", [(ID, "id"), (EN, "en")])
async def test_a_click_in_an_outage_is_asked_to_try_again(real_bot, caplog, locale, lang):
    ix = make_ix(real_bot, ALICE, locale=locale)
    with caplog.at_level(logging.WARNING):
        await report_error(ix, _wrapped(sqlite3.OperationalError("database or disk is full")), "x")
    assert ephemeral(ix) == t("ans.db_down", lang)
    (record,) = caplog.records
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert "database is out of reach" in record.getMessage()


async def test_a_command_in_an_outage_is_asked_to_try_again(real_bot, caplog):
    ix = make_ix(real_bot, ALICE, locale=EN)
    ix.command = SimpleNamespace(name="new", qualified_name="capsa new")
    cause = asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed")
    error = app_commands.CommandInvokeError(ix.command, cause)
    with caplog.at_level(logging.WARNING):
        await real_bot.tree.on_error(ix, error)
    assert ephemeral(ix) == t("ans.db_down", "en")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_bug_is_still_an_error_with_its_traceback(real_bot, caplog):
    ix = make_ix(real_bot, ALICE, locale=discord.Locale.american_english)
    with caplog.at_level(logging.WARNING):
        await report_error(ix, sqlite3.OperationalError("no such column: wrong"), "x")
    assert ephemeral(ix) == t("ans.error", "en")
    (record,) = caplog.records
    assert record.levelno == logging.ERROR and record.exc_info is not None


async def test_a_command_while_the_bot_stops_is_asked_to_try_again(real_bot, caplog):
    """Stopping, the bot unloads its tables before its gateway closes: a command that
    arrives in between is asked to try again, not told that something went wrong."""
    ix = make_ix(real_bot, ALICE, locale=ID)
    ix.command = None
    with caplog.at_level(logging.WARNING):
        await real_bot.tree.on_error(ix, app_commands.CommandNotFound("capsa", []))
    assert ephemeral(ix) == t("ans.restarting", "id")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_click_cut_short_by_the_stop_is_one_warning(real_bot, caplog, monkeypatch):
    """A click whose handler was under way when the bot closed its connections to Discord
    (its answer failed with aiohttp's "Session is closed"): one warning line, no traceback
    logged as an error, and no attempt to answer through the closed connections."""
    ix = make_ix(real_bot, ALICE, locale=EN)
    monkeypatch.setattr(real_bot, "is_closed", lambda: True)
    with caplog.at_level(logging.WARNING):
        await report_error(ix, RuntimeError("Session is closed"), "component x")
    assert not ix.response.send_message.await_args_list and not ix.followup.send.await_args_list
    (record,) = caplog.records
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert "the bot is stopping" in record.getMessage()
