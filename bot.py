"""Capsa Susun for Discord: the entry point (``python bot.py``). Settings: see .env.example."""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import contextlib
import json
import logging
import os
import re
import signal
import sqlite3
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TypeVar

import aiohttp
import asyncpg
import discord
import yarl
from discord import app_commands
from discord.ext import commands
from dotenv import load_dotenv

from capsa.timings import GIL_SWITCH_SECONDS
from cogs.components import Refusal
from cogs.discord_endpoints import apply_endpoints
from cogs.health import HealthServer, MetricsUnavailable
from cogs.lobby import LOBBY_PERMISSIONS
from cogs.metrics import Metrics, metered
from cogs.replies import refuse, report_error
from cogs.rest_pace import DISCORD_GLOBAL_LIMIT, GlobalPace, share
from cogs.rest_pace import install as install_pace
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

NO_APPLICATION_ID = (
    "--invite needs the application id: set DISCORD_TOKEN (its first part is the id) or"
    " APPLICATION_ID (the Developer Portal's General Information page) in your .env file."
)
LOG_FORMATS = ("text", "json")
INVITE_SCOPES = ("bot", "applications.commands")


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
    application_id: int | None = None  # None: read from the token
    log_format: str = "text"  # or "json": one JSON object a line
    metrics_port: int | None = None  # /healthz and /metrics; None: off
    metrics_host: str = "127.0.0.1"
    global_rate_limit: int = DISCORD_GLOBAL_LIMIT  # the token's requests a second

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
            application_id=_number("APPLICATION_ID", int, cls.application_id),
            log_format=_choice("LOG_FORMAT", LOG_FORMATS),
            metrics_port=_port("METRICS_PORT"),
            metrics_host=os.environ.get("METRICS_HOST", "").strip() or cls.metrics_host,
            global_rate_limit=_global_rate_limit(),
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


def _choice(name: str, choices: tuple[str, ...]) -> str:
    """A setting that is one of ``choices`` (the first when unset)."""
    text = os.environ.get(name, "").strip().lower()
    if not text:
        return choices[0]
    if text not in choices:
        raise ValueError(
            f"{name}={text!r} must be one of {', '.join(choices)}: fix it in your .env file"
        )
    return text


def _port(name: str) -> int | None:
    port = _number(name, int, None)
    if port is not None and not 0 < port < 65536:
        raise ValueError(f"{name}={port} is not a port (1 to 65535): fix it in your .env file")
    return port


def _global_rate_limit() -> int:
    limit = _number("GLOBAL_RATE_LIMIT", int, DISCORD_GLOBAL_LIMIT)
    if limit < 1:
        raise ValueError(
            f"GLOBAL_RATE_LIMIT={limit} must be 1 or more (Discord's limit for your bot's"
            f" token, requests a second; {DISCORD_GLOBAL_LIMIT} unless Discord raised it):"
            " fix it in your .env file"
        )
    return limit


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


# --- the invite link -----------------------------------------------------------------------


def application_id_from_token(token: str) -> int | None:
    """The application (bot user) id a bot token starts with: its first part, in base64."""
    first = token.strip().split(".", 1)[0]
    try:
        raw = base64.b64decode(first + "=" * (-len(first) % 4), altchars=b"-_", validate=True)
        text = raw.decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return int(text) if text.isdigit() else None


def invite_permissions() -> discord.Permissions:
    """What the bot needs in a table's channel: the very names the lobby checks."""
    return discord.Permissions(**dict.fromkeys(LOBBY_PERMISSIONS, True))


def invite_url(application_id: int) -> str:
    return discord.utils.oauth_url(
        application_id, permissions=invite_permissions(), scopes=INVITE_SCOPES
    )


# --- logs ---------------------------------------------------------------------------------

REDACTED = "<redacted>"
# an interaction token in a path (/interactions/{id}/{token}/callback, /webhooks/{id}/{token})
# or as a payload's "token" field
_PATH_TOKEN = re.compile(r"((?:interactions|webhooks)/\d+/)[^/\s'\"?]+")
_FIELD_TOKEN = re.compile(r"""(['"]token['"]\s*:\s*['"])[^'"]+""")


class Redactor:
    """Takes the bot's token, the database password and interaction tokens out of a text."""

    def __init__(self, secrets: list[str]) -> None:
        self.secrets = sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        text = _PATH_TOKEN.sub(r"\1" + REDACTED, text)
        return _FIELD_TOKEN.sub(r"\1" + REDACTED, text)


def secrets_of(config: Config) -> list[str]:
    found = [config.token]
    if config.database_url:
        url = yarl.URL(config.database_url)
        found += [url.password or "", url.raw_password or ""]
    return found


class LineFormatter(logging.Formatter):
    """One line an event (a traceback's lines joined with " | "), as text or as a JSON
    object, with every secret taken out."""

    def __init__(self, redact: Redactor, json_lines: bool = False) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.redact, self.json_lines = redact, json_lines

    def format(self, record: logging.LogRecord) -> str:
        if not self.json_lines:
            return self.redact(super().format(record)).replace("\n", " | ")
        entry = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps({k: self.redact(v) for k, v in entry.items()}, ensure_ascii=False)


def setup_logging(config: Config) -> None:
    """Every log line to stderr (journald keeps them), at ``LOG_LEVEL``."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(LineFormatter(Redactor(secrets_of(config)), config.log_format == "json"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(getattr(logging, config.log_level, logging.INFO))
    logging.captureWarnings(True)  # a library's warning is a log line too


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
        self.metrics = Metrics()  # cogs/metrics.py; served on METRICS_PORT
        trace = aiohttp.TraceConfig()  # the pace below, and the REST counts if served
        if config.metrics_port is not None:
            self.metrics.watch(trace)
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
            http_trace=trace,
        )
        # Discord's global limit kept on this side (its share of it), and the waits timed
        pace = GlobalPace(share(config.shard_count, config.shard_ids, config.global_rate_limit))
        install_pace(self.http, trace, pace, self.metrics.rest_waited)
        self.config = config
        self.workers = WorkerPool(config.solver_workers, executor)  # process-wide
        self._repo: Repository | None = None
        self.health: HealthServer | None = None
        if config.metrics_port is not None:
            self.add_listener(self._count_interaction, "on_interaction")

    @property
    def repo(self) -> Repository:
        """The database; open from ``setup_hook`` until ``close``."""
        if self._repo is None:
            raise RuntimeError("the database is not open (setup_hook opens it)")
        return self._repo

    async def open_database(self) -> None:
        try:
            repo = await open_repository(
                self.config.database_path, database_url=self.config.database_url
            )
        except (sqlite3.Error, asyncpg.PostgresError) as err:  # a migration, or not a database
            raise DatabaseFailed(err) from None
        self._repo = repo if self.config.metrics_port is None else metered(repo, self.metrics)

    async def _count_interaction(self, interaction: discord.Interaction) -> None:
        self.metrics.interaction(interaction)

    def invite_url(self) -> str | None:
        """The link that adds this bot to a server (None before login without APPLICATION_ID)."""
        app_id = self.config.application_id or self.application_id
        return invite_url(app_id) if app_id else None

    async def setup_hook(self) -> None:
        self.workers.warm_up()  # start the solver worker now, not on the first deal
        await self.open_database()
        if self.config.metrics_port is not None:
            self.health = HealthServer(self, self.config.metrics_host, self.config.metrics_port)
            await self.health.start()
        link = self.invite_url()
        if link:
            log.info("invite link (add the bot to a server): %s", link)
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
        if self.health is not None:
            await self.health.stop()
        if self._repo is not None:
            await self._repo.close()
        self.workers.shutdown()
        log.debug("stopped: the database is closed and the worker processes are told to end")


CapsaInteraction = discord.Interaction[CapsaBot]


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bot.py",
        description="Capsa Susun for Discord. Settings come from .env (see .env.example).",
    )
    parser.add_argument(
        "--invite",
        action="store_true",
        help="print the link that adds the bot to a server, and exit without connecting",
    )
    return parser.parse_args([] if argv is None else argv)


def main(argv: list[str] | None = None) -> int:
    """``python bot.py [--invite]``; ``argv`` None: no arguments."""
    args = _arguments(argv)
    load_dotenv()
    try:
        config = Config.from_env()
    except ValueError as err:
        print(err, file=sys.stderr)
        return 2
    if args.invite:
        app_id = config.application_id or application_id_from_token(config.token)
        if app_id is None:
            print(NO_APPLICATION_ID, file=sys.stderr)
            return 2
        print(invite_url(app_id))
        return 0
    if not config.token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    setup_logging(config)
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
    sys.setswitchinterval(GIL_SWITCH_SECONDS)  # the event loop gets the GIL back sooner
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
    except DatabaseFailed as err:
        print(err, file=sys.stderr)
        return 2
    except MetricsUnavailable as err:
        print(err, file=sys.stderr)
        return 2
    except discord.LoginFailure:
        print(
            "DISCORD_TOKEN was refused by Discord: check the token in your .env file.",
            file=sys.stderr,
        )
        return 2
    finally:
        _join_threads()
    return 0


def _join_threads(timeout: float = 10.0) -> None:
    """Wait for the threads still ending (the worker pool's, which ``close`` asked to stop):
    the interpreter's exit races that thread and can print a stray traceback otherwise."""
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(timeout)


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop where it is installed (Linux, macOS): its sockets, timers and
    callbacks run in C, which leaves more of this process's one core for the tables.
    Otherwise asyncio's own."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


class DatabaseFailed(Exception):
    """The database could not be opened or brought to the current schema. Each migration is
    one transaction: the one that failed left nothing behind."""

    def __init__(self, error: Exception) -> None:
        what = " ".join(str(error).split()) or type(error).__name__
        super().__init__(
            f"The database could not be opened or brought up to date ({what}). Nothing of a"
            " failed migration was kept and the bot stopped: fix the cause and start it again,"
            " or go back to the version you upgraded from and its backup (README, Upgrading)."
        )


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
        try:
            await bot.connect()
        finally:
            # connect returns once SIGTERM's close has closed the client; the rest of that
            # close (the database, the worker processes) must finish too, or the worker pool
            # is never shut down and the exit waits on its thread
            await asyncio.gather(*closing, return_exceptions=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
