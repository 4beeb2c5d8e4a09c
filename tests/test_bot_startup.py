"""bot.py: the configuration from the environment, ``main``'s refusals, and the Capsa cog's
life on the bot (it owns the tables, registers the components, resumes and stops them).
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
from pathlib import Path
from unittest.mock import MagicMock

import discord
import pytest
from discord.ext import commands

import bot as bot_module
import cogs.capsa
from bot import CapsaBot, Config
from capsa.timings import GIL_SWITCH_SECONDS
from cogs.life import Clock, Step
from cogs.scheduler import TimerKind
from cogs.tables import CAPSA_COG, tables_of
from tests.cog_helpers import (
    new_lobby,
)

# --- configuration ----------------------------------------------------------------------


ENV_KEYS = (
    "DISCORD_TOKEN",
    "DATABASE_PATH",
    "DATABASE_URL",
    "DEV_GUILD_ID",
    "LOG_LEVEL",
    "DISCORD_API_BASE",
    "DISCORD_GATEWAY_URL",
    "SOLVER_WORKERS",
    "GLOBAL_RATE_LIMIT",
    "GUILD_READY_TIMEOUT",
    "SHARD_COUNT",
    "SHARD_IDS",
    "COACH",
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
    assert config.shard_count is None and config.shard_ids is None
    assert config.coach


@pytest.mark.parametrize(
    "text,on", [("on", True), (" OFF ", False), ("false", False), ("1", True), ("no", False)]
)
def test_coach_setting(clean_env, text, on) -> None:
    clean_env.setenv("COACH", text)
    assert Config.from_env().coach is on


def test_main_refuses_a_coach_setting_that_is_not_on_or_off(clean_env, capsys) -> None:
    clean_env.setenv("DISCORD_TOKEN", "abc")
    clean_env.setenv("COACH", "maybe")
    assert bot_module.main() == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["COACH='maybe' must be on or off: fix it in your .env file"]


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
    assert blank.shard_count is None and blank.shard_ids is None


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


def _closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound once, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _run_bot_py(tmp_path: Path, port: int, **settings: str) -> subprocess.CompletedProcess[str]:
    """``python bot.py`` with a token, Discord at a closed port of 127.0.0.1, a SQLite file
    in ``tmp_path`` and ``settings``, none of the caller's own settings."""
    env = {key: value for key, value in os.environ.items() if key not in ENV_KEYS}
    env.update(
        DISCORD_TOKEN="abc.def",
        DISCORD_API_BASE=f"http://127.0.0.1:{port}/api/v10",
        DISCORD_GATEWAY_URL=f"ws://127.0.0.1:{port}/gateway",
        DATABASE_PATH=str(tmp_path / "capsa.sqlite3"),
        **settings,
    )
    return subprocess.run(
        [sys.executable, str(Path(bot_module.__file__).resolve())],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("log_level", ["WARNING", "INFO"])
def test_without_network_the_bot_names_the_host_in_one_line(tmp_path, log_level) -> None:
    """A token but no way to reach Discord: one line naming the host, exit 1, and no
    traceback (aiohttp's ClientConnectorError at login used to print about 60 lines)."""
    port = _closed_port()
    done = _run_bot_py(tmp_path, port, LOG_LEVEL=log_level)
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr and "ClientConnectorError" not in done.stderr
    lines = done.stderr.splitlines()
    assert f"Cannot reach Discord at 127.0.0.1:{port}" in lines[-1]
    assert "check the network connection" in lines[-1]
    if log_level == "WARNING":
        assert lines == lines[-1:], "nothing but the one line"
    else:  # discord.py's own "logging in" line, then ours
        assert len(lines) <= 2, lines
    assert not (tmp_path / "capsa.sqlite3").exists(), "nothing is opened before the login"


# --- shards ----------------------------------------------------------------------------

PG_URL = "postgresql://capsa:secret@127.0.0.1:5432/capsa"  # parsed only, never connected


def test_the_bot_runs_with_a_short_gil_switch_interval(clean_env) -> None:
    """The event loop's thread gets the GIL back within GIL_SWITCH_SECONDS of a pipe write
    to the worker pool (not Python's default 5 ms): set before the bot runs."""
    clean_env.setenv("DISCORD_TOKEN", "abc")
    clean_env.setattr(bot_module, "CapsaBot", MagicMock())
    clean_env.setattr(bot_module, "setup_logging", lambda config: None)
    seen: list[float] = []

    async def run(bot) -> None:
        seen.append(sys.getswitchinterval())

    clean_env.setattr(bot_module, "_run", run)
    before = sys.getswitchinterval()
    try:
        assert bot_module.main() == 0
    finally:
        sys.setswitchinterval(before)
    assert seen == [pytest.approx(GIL_SWITCH_SECONDS)] and GIL_SWITCH_SECONDS < before


def test_config_global_rate_limit(clean_env) -> None:
    assert Config.from_env().global_rate_limit == 50  # Discord's, unless raised
    clean_env.setenv("GLOBAL_RATE_LIMIT", " 500 ")
    assert Config.from_env().global_rate_limit == 500


@pytest.mark.parametrize(
    "env,count,ids",
    [
        ({"SHARD_COUNT": " 3 "}, 3, None),  # every shard in this process, on SQLite too
        ({"SHARD_COUNT": "2", "SHARD_IDS": " 1, 0 "}, 2, (1, 0)),  # all of them, on SQLite
        ({"SHARD_COUNT": "4", "SHARD_IDS": "1,3", "DATABASE_URL": PG_URL}, 4, (1, 3)),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0", "DATABASE_URL": PG_URL}, 2, (0,)),
    ],
)
def test_config_shards(clean_env, env, count, ids) -> None:
    for key, value in env.items():
        clean_env.setenv(key, value)
    config = Config.from_env()
    assert (config.shard_count, config.shard_ids) == (count, ids)


@pytest.mark.parametrize(
    "env,words",
    [
        ({"SHARD_COUNT": "two"}, ["SHARD_COUNT='two'", "not a number", ".env"]),
        ({"SHARD_COUNT": "0"}, ["SHARD_COUNT=0", "1 or more", "unset"]),
        ({"GLOBAL_RATE_LIMIT": "0"}, ["GLOBAL_RATE_LIMIT=0", "1 or more", "50 unless"]),
        ({"GLOBAL_RATE_LIMIT": "fifty"}, ["GLOBAL_RATE_LIMIT='fifty'", "not a number"]),
        ({"SHARD_IDS": "0"}, ["SHARD_IDS='0'", "without SHARD_COUNT", "set SHARD_COUNT"]),
        (
            {"SHARD_COUNT": "2", "SHARD_IDS": "0,2", "DATABASE_URL": PG_URL},
            ["names shard 2", "SHARD_COUNT=2", "0 to 1", "fix SHARD_IDS or SHARD_COUNT"],
        ),
        (
            {"SHARD_COUNT": "2", "SHARD_IDS": "-1", "DATABASE_URL": PG_URL},
            ["names shard -1", "0 to 1"],
        ),
        (
            {"SHARD_COUNT": "3", "SHARD_IDS": "0,1,0", "DATABASE_URL": PG_URL},
            ["SHARD_IDS='0,1,0'", "shard 0 twice", "each shard once"],
        ),
        (
            {"SHARD_COUNT": "2", "SHARD_IDS": "0,x", "DATABASE_URL": PG_URL},
            ["'x' is not a shard number", "separated by commas"],
        ),
        (
            {"SHARD_COUNT": "2", "SHARD_IDS": "0,,1", "DATABASE_URL": PG_URL},
            ["'' is not a shard number"],
        ),
        (
            {"SHARD_COUNT": "2", "SHARD_IDS": "1"},
            ["runs 1 of SHARD_COUNT=2 shards on SQLite", "one process", "DATABASE_URL"],
        ),
    ],
)
def test_main_refuses_bad_shard_settings_in_one_line(clean_env, capsys, env, words) -> None:
    clean_env.setenv("DISCORD_TOKEN", "abc")
    for key, value in env.items():
        clean_env.setenv(key, value)
    started = MagicMock()
    clean_env.setattr(bot_module, "CapsaBot", started)
    reachable = MagicMock()
    clean_env.setattr(bot_module, "check_reachable", reachable)
    before = discord.http.Route.BASE
    assert bot_module.main() == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n") and "Traceback" not in err
    for word in words:
        assert word in err
    started.assert_not_called()
    reachable.assert_not_called()  # refused before the database, and before Discord
    assert discord.http.Route.BASE == before


def test_bot_py_refuses_some_shards_on_sqlite_before_anything(tmp_path) -> None:
    """``python bot.py`` itself: exit 2, the one line, nothing opened or connected."""
    done = _run_bot_py(tmp_path, _closed_port(), SHARD_COUNT="2", SHARD_IDS="0")
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert "runs 1 of SHARD_COUNT=2 shards on SQLite" in done.stderr
    assert not (tmp_path / "capsa.sqlite3").exists()


async def test_the_bot_is_auto_sharded_with_the_configured_shards(executor) -> None:
    async with CapsaBot(Config(token="x"), executor) as every:
        assert isinstance(every, commands.AutoShardedBot)
        assert every.shard_count is None and every.shard_ids is None  # Discord's recommendation
    async with CapsaBot(Config(token="x", shard_count=4, shard_ids=(1, 3)), executor) as some:
        assert some.shard_count == 4 and some.shard_ids == [1, 3]


# --- the Capsa cog on the bot ---------------------------------------------------------------


@pytest.fixture
async def opened_bot(executor, tmp_path):
    """The real bot with its database open, as after ``setup_hook``'s first step."""
    client = CapsaBot(Config(token="x", database_path=str(tmp_path / "capsa.sqlite3")), executor)
    with pytest.raises(RuntimeError, match="database is not open"):
        client.repo  # noqa: B018
    async with client:  # as main runs it (an AutoShardedBot closes only once set up)
        await client.open_database()
        yield client


async def test_the_cog_owns_the_tables_registers_components_and_resumes(opened_bot) -> None:
    bot = opened_bot
    lobby = await new_lobby(bot.repo)
    store = bot._connection._view_store  # where discord.py keeps the dynamic items
    assert not store._dynamic_items
    with pytest.raises(RuntimeError, match="cog is not loaded"):
        tables_of(bot)

    await cogs.capsa.setup(bot)
    tables = tables_of(bot)
    assert bot.get_cog(CAPSA_COG).tables is tables
    assert not hasattr(bot, "tables")
    assert tables.services.repo is bot.repo and tables.services.workers is bot.workers
    assert set(store._dynamic_items.values()) == set(cogs.capsa.DYNAMIC_ITEMS)
    assert tables.coach.after_every_showdown is bot.config.coach
    # resumed: the lobby's expiry is armed, and this process claims the due timers
    expiry = Clock(Step.EXPIRE_LOBBY).encode()
    assert await tables.scheduler.pending(lobby.id) == {TimerKind.CLOCK: expiry}
    claiming = tables.scheduler._loop
    assert claiming is not None and not claiming.done()

    await bot.remove_cog(CAPSA_COG)
    assert claiming.cancelled()
    assert not store._dynamic_items
    with pytest.raises(RuntimeError, match="cog is not loaded"):
        tables_of(bot)
    assert (await bot.repo.get_match(lobby.id)).status == "lobby"  # left for the next start


async def test_close_stops_the_tables_before_the_database_closes(executor, tmp_path) -> None:
    bot = CapsaBot(Config(token="x", database_path=str(tmp_path / "capsa.sqlite3")), executor)
    async with bot:
        await bot.open_database()
        await cogs.capsa.setup(bot)
        tables = tables_of(bot)
        events: list[str] = []
        stop, close = tables.scheduler.stop, bot.repo.close

        async def stopping() -> None:
            events.append("tables stopped")
            await stop()

        async def closing() -> None:
            events.append("database closed")
            await close()

        tables.scheduler.stop = stopping
        bot.repo.close = closing
        tables.scheduler.start()
        claiming = tables.scheduler._loop
        assert claiming is not None
        await bot.close()
    assert events == ["tables stopped", "database closed"]
    assert claiming.cancelled()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_main_with_an_unreachable_database_names_host_and_port(clean_env, capsys) -> None:
    port = _free_port()
    clean_env.setenv("DISCORD_TOKEN", "abc")
    clean_env.setenv("DATABASE_URL", f"postgresql://capsa:secret@127.0.0.1:{port}/capsa")
    clean_env.setattr(logging, "basicConfig", lambda **kw: None)
    started = MagicMock()
    clean_env.setattr(bot_module, "CapsaBot", started)
    assert bot_module.main() == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"127.0.0.1:{port}" in err
    assert "secret" not in err and "Traceback" not in err
    started.assert_not_called()


def test_main_refuses_a_database_url_that_is_not_postgresql(clean_env, capsys) -> None:
    clean_env.setenv("DISCORD_TOKEN", "abc")
    clean_env.setenv("DATABASE_URL", "mysql://u:p@127.0.0.1/capsa")
    started = MagicMock()
    clean_env.setattr(bot_module, "CapsaBot", started)
    assert bot_module.main() == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "DATABASE_URL" in err and "Traceback" not in err
    started.assert_not_called()
