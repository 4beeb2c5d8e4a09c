"""Capsa Susun for Discord: the entry point (``python bot.py``). Settings: see .env.example."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TypeVar

import aiohttp
import discord
import yarl
from discord import app_commands
from discord.ext import commands
from dotenv import load_dotenv

from cogs.components import Refusal
from cogs.discord_endpoints import apply_endpoints
from cogs.replies import refuse, report_error
from cogs.translator import CapsaTranslator
from cogs.worker_pool import WorkerPool
from data import (
    DatabaseUnavailable,
    Repository,
    check_reachable,
    database_address,
    open_repository,
)

log = logging.getLogger("capsa")

T = TypeVar("T")

EXTENSIONS = ("cogs.capsa",)
NO_TOKEN = (
    "DISCORD_TOKEN is not set: create a bot at https://discord.com/developers/applications, "
    "copy its token, and put DISCORD_TOKEN=<token> in a .env file next to bot.py "
    "(see .env.example)."
)


@dataclass(frozen=True)
class Config:
    token: str
    database_path: str = "data/capsa.sqlite3"
    database_url: str | None = None  # PostgreSQL instead of SQLite
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    api_base: str | None = None
    gateway_url: str | None = None
    solver_workers: int = 1
    guild_ready_timeout: float = 2.0
    shard_count: int | None = None  # over all processes; None: Discord's recommendation
    shard_ids: tuple[int, ...] | None = None  # the shards this process runs; None: all
    coach: bool = True  # review every person's hand after each showdown (COACH=off: on demand)

    @classmethod
    def from_env(cls) -> Config:
        """Read the settings; a malformed number raises ValueError naming the setting."""
        guild = _number("DEV_GUILD_ID", int, cls.dev_guild_id)
        database_url = os.environ.get("DATABASE_URL", "").strip() or None
        if database_url is not None:
            database_address(database_url)  # ValueError: not a postgresql:// URL
        shard_count, shard_ids = _shards(database_url)
        return cls(
            token=os.environ.get("DISCORD_TOKEN", "").strip(),
            database_path=os.environ.get("DATABASE_PATH", "").strip() or cls.database_path,
            database_url=database_url,
            dev_guild_id=guild,
            log_level=os.environ.get("LOG_LEVEL", "").strip().upper() or cls.log_level,
            api_base=os.environ.get("DISCORD_API_BASE", "").strip() or None,
            gateway_url=os.environ.get("DISCORD_GATEWAY_URL", "").strip() or None,
            solver_workers=_number("SOLVER_WORKERS", int, cls.solver_workers),
            guild_ready_timeout=_number("GUILD_READY_TIMEOUT", float, cls.guild_ready_timeout),
            shard_count=shard_count,
            shard_ids=shard_ids,
            coach=_switch("COACH", cls.coach),
        )


def _number(name: str, kind: Callable[[str], T], default: T) -> T:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        return kind(text)
    except ValueError:
        raise ValueError(f"{name}={text!r} is not a number: fix it in your .env file") from None


_SWITCH = {"on": True, "true": True, "yes": True, "1": True}
_SWITCH |= {"off": False, "false": False, "no": False, "0": False}


def _switch(name: str, default: bool) -> bool:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    value = _SWITCH.get(text.lower())
    if value is None:
        raise ValueError(f"{name}={text!r} must be on or off: fix it in your .env file")
    return value


def _shards(database_url: str | None) -> tuple[int | None, tuple[int, ...] | None]:
    """SHARD_COUNT and SHARD_IDS, checked together; a bad combination raises ValueError
    with one line saying what is wrong and what to do."""
    count = _number("SHARD_COUNT", int, None)
    if count is not None and count < 1:
        raise ValueError(
            f"SHARD_COUNT={count} must be 1 or more (the total number of shards over all"
            " processes): fix it in your .env file, or leave it unset for Discord's recommendation"
        )
    text = os.environ.get("SHARD_IDS", "").strip()
    if not text:
        return count, None
    ids: list[int] = []
    for entry in (part.strip() for part in text.split(",")):
        try:
            shard = int(entry)
        except ValueError:
            raise ValueError(
                f"SHARD_IDS={text!r}: {entry!r} is not a shard number; list the shards this"
                " process runs as numbers separated by commas, e.g. SHARD_IDS=0,1"
            ) from None
        if shard in ids:
            raise ValueError(f"SHARD_IDS={text!r} lists shard {shard} twice: list each shard once")
        ids.append(shard)
    if count is None:
        raise ValueError(
            f"SHARD_IDS={text!r} is set without SHARD_COUNT: set SHARD_COUNT to the total"
            " number of shards over all processes, or unset SHARD_IDS to run them all here"
        )
    outside = [shard for shard in ids if not 0 <= shard < count]
    if outside:
        raise ValueError(
            f"SHARD_IDS={text!r} names shard {outside[0]}, but SHARD_COUNT={count} has shards"
            f" 0 to {count - 1}: fix SHARD_IDS or SHARD_COUNT"
        )
    if database_url is None and len(ids) < count:
        raise ValueError(
            f"SHARD_IDS={text!r} runs {len(ids)} of SHARD_COUNT={count} shards on SQLite, but a"
            " SQLite file serves one process: run every shard in this process (unset SHARD_IDS)"
            " or set DATABASE_URL to a PostgreSQL database all the processes share"
        )
    return count, tuple(ids)


class CapsaTree(app_commands.CommandTree):
    """One error handler for the whole command tree: a refusal a command raised is told to
    the person in their language; anything else is reported as an error."""

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        cause = error.original if isinstance(error, app_commands.CommandInvokeError) else None
        if isinstance(cause, Refusal) and isinstance(self.client, CapsaBot):
            await refuse(self.client.repo, interaction, cause)
            return
        command = interaction.command.qualified_name if interaction.command else "?"
        await report_error(interaction, error, f"command /{command}")


class CapsaBot(commands.AutoShardedBot):
    """The bot: its configuration, the worker processes and the database. The tables
    belong to the Capsa cog (cogs/capsa.py), loaded in ``setup_hook``. It runs the shards
    of ``config.shard_ids`` (all of ``config.shard_count`` when None), one gateway
    connection each; without a shard count it asks Discord for its recommendation.

    ``executor``: a pool to run the solver and the pictures in instead of the bot's own
    worker processes (tests pass a thread pool)."""

    def __init__(self, config: Config, executor: Executor | None = None) -> None:
        # No voice here: discord.py's warnings that voice libraries are missing are noise.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            tree_cls=CapsaTree,
            help_command=None,
            guild_ready_timeout=config.guild_ready_timeout,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
            shard_count=config.shard_count,
            # None (all shards) is discord.py's default, though its option type says list
            shard_ids=list(config.shard_ids) if config.shard_ids is not None else None,  # type: ignore[arg-type]
        )
        self.config = config
        self.workers = WorkerPool(config.solver_workers, executor)  # process-wide
        self._repo: Repository | None = None

    @property
    def repo(self) -> Repository:
        """The database; open from ``setup_hook`` until ``close``."""
        if self._repo is None:
            raise RuntimeError("the database is not open (setup_hook opens it)")
        return self._repo

    async def open_database(self) -> None:
        self._repo = await open_repository(
            self.config.database_path, database_url=self.config.database_url
        )

    async def setup_hook(self) -> None:
        self.workers.warm_up()  # start the solver worker now, not on the first deal
        await self.open_database()
        await self.tree.set_translator(CapsaTranslator())
        for extension in EXTENSIONS:  # the Capsa cog resumes the open tables as it loads
            await self.load_extension(extension)
        if self.config.dev_guild_id:
            guild = discord.Object(self.config.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()

    async def launch_shards(self) -> None:
        """discord.py's, except that Discord's recommended shard count is asked for here:
        discord.py would also take the gateway URL from that answer, and the gateway stays
        ``DISCORD_GATEWAY_URL``'s when it is set."""
        if self.shard_count is None and not self.is_closed():
            self.shard_count, _url, _limits = await self.http.get_bot_gateway()
            log.info("Discord recommends %d shard(s); running them all", self.shard_count)
        await super().launch_shards()

    async def close(self) -> None:
        # Unloading the extensions first stops the tables' timers and background jobs
        # (Capsa.cog_unload), so nothing writes to the database after it closes.
        await super().close()
        if self._repo is not None:
            await self._repo.close()
        self.workers.shutdown()


CapsaInteraction = discord.Interaction[CapsaBot]


def main() -> int:
    load_dotenv()
    try:
        config = Config.from_env()
    except ValueError as err:
        print(err, file=sys.stderr)
        return 2
    if not config.token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    logging.basicConfig(
        level=getattr(logging, config.log_level, logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        apply_endpoints(config.api_base, config.gateway_url)
    except ValueError as err:
        print(f"DISCORD_API_BASE / DISCORD_GATEWAY_URL: {err}", file=sys.stderr)
        return 2
    if config.database_url is not None:
        try:  # before Discord: a wrong database is said in one line, not after the login
            asyncio.run(check_reachable(config.database_url))
        except DatabaseUnavailable as err:
            print(f"DATABASE_URL: {err}", file=sys.stderr)
            return 2
    bot = CapsaBot(config)
    try:
        with asyncio.Runner(loop_factory=_loop_factory()) as runner:
            runner.run(_run(bot))
    except KeyboardInterrupt:
        pass
    except DatabaseUnavailable as err:
        print(f"DATABASE_URL: {err}", file=sys.stderr)
        return 2
    except Unreachable as err:
        print(err, file=sys.stderr)
        return 1
    except discord.LoginFailure:
        print(
            "DISCORD_TOKEN was refused by Discord: check the token in your .env file.",
            file=sys.stderr,
        )
        return 2
    return 0


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop where it is installed (Linux, macOS): its sockets, timers and
    callbacks run in C, which leaves more of this process's one core for the tables.
    Otherwise asyncio's own."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


class Unreachable(Exception):
    """Discord's API could not be reached at login (no network, a wrong DISCORD_API_BASE)."""


def unreachable(error: OSError | aiohttp.ClientError, api_base: str) -> Unreachable:
    """One line naming the host that could not be reached, and why."""
    url = yarl.URL(api_base)
    host, port = url.host, url.port
    if isinstance(error, aiohttp.ClientConnectorError):
        host, port = error.host, error.port
        why = error.os_error.strerror or str(error.os_error) or type(error.os_error).__name__
    else:
        why = str(error) or type(error).__name__
    return Unreachable(
        f"Cannot reach Discord at {host}:{port} ({why}): check the network connection"
        " (and DISCORD_API_BASE, if it is set), then start the bot again."
    )


async def _run(bot: CapsaBot) -> None:
    """``bot.start``, with a login that cannot reach Discord turned into ``Unreachable``
    (once logged in, discord.py itself reconnects through network trouble)."""
    async with bot:
        # SIGTERM (a container or service manager stopping the bot) stops it as Ctrl-C does:
        # the tables' timers handed on at once, the process's row removed, the database
        # closed; not a death the other processes only notice after PROCESS_DEAD_SECONDS.
        loop = asyncio.get_running_loop()
        closing: set[asyncio.Task[None]] = set()
        with contextlib.suppress(NotImplementedError):  # (no signal handlers on Windows)
            loop.add_signal_handler(
                signal.SIGTERM, lambda: closing.add(loop.create_task(bot.close()))
            )
        try:
            await bot.login(bot.config.token)
        except (OSError, aiohttp.ClientError) as err:
            raise unreachable(err, discord.http.Route.BASE) from None
        await bot.connect()


if __name__ == "__main__":
    sys.exit(main())
