"""Running a real discord.py bot against the fake: in-process or as a subprocess."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import signal
import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any

import discord
import discord.asset
import discord.gateway
import discord.http
import yarl

from .fake import FakeDiscord

LOCAL_NAMES = {"127.0.0.1", "localhost", "::1"}


def _is_local(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode()
    if host is None or host in LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@contextlib.contextmanager
def only_localhost() -> Iterator[None]:
    """Refuse DNS lookups and TCP connects to anything but loopback, process-wide."""
    real_getaddrinfo = socket.getaddrinfo
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not _is_local(host):
            raise OSError(f"fakediscord: blocked lookup of non-local host {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    def check(sock: socket.socket, address: Any) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _is_local(address[0]):
            raise OSError(f"fakediscord: blocked connect to non-local address {address!r}")

    def connect(sock: socket.socket, address: Any) -> None:
        check(sock, address)
        return real_connect(sock, address)

    def connect_ex(sock: socket.socket, address: Any) -> int:
        check(sock, address)
        return real_connect_ex(sock, address)

    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    try:
        yield
    finally:
        socket.getaddrinfo = real_getaddrinfo
        socket.socket.connect = real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = real_connect_ex  # type: ignore[method-assign]


@contextlib.contextmanager
def restored_endpoints() -> Iterator[None]:
    """Undo whatever ``apply_endpoints`` changed in discord.py's globals afterwards."""
    saved = (
        discord.http.Route.BASE,
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY,
        discord.asset.Asset.BASE,
    )
    try:
        yield
    finally:
        (
            discord.http.Route.BASE,
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY,
            discord.asset.Asset.BASE,
        ) = saved


def assert_points_at(fake: FakeDiscord) -> None:
    """Fail loudly unless discord.py's endpoints are this fake's."""
    base = discord.http.Route.BASE
    gw = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    assert base == fake.api_base, f"Route.BASE is {base}"
    assert yarl.URL(str(gw)) == yarl.URL(fake.gateway_url), f"DEFAULT_GATEWAY is {gw}"


@contextlib.asynccontextmanager
async def running_bot(
    fake: FakeDiscord, bot: discord.Client, *, timeout: float = 10.0
) -> AsyncIterator[discord.Client]:
    """Point discord.py at ``fake`` with ``cogs.discord_endpoints.apply_endpoints``, run
    ``bot.start()`` in this event loop until ``on_ready``, then close it and restore."""
    from cogs.discord_endpoints import apply_endpoints

    with restored_endpoints():
        apply_endpoints(fake.api_base, fake.gateway_url)
        assert_points_at(fake)
        task = asyncio.create_task(bot.start(fake.token), name="bot under test")
        ready = asyncio.create_task(bot.wait_until_ready())
        try:
            done, _ = await asyncio.wait(
                {task, ready}, timeout=timeout, return_when="FIRST_COMPLETED"
            )
            if task in done:
                task.result()
                raise RuntimeError("bot.start() returned before the bot became ready")
            if ready not in done:
                raise TimeoutError(f"bot not ready within {timeout}s")
            yield bot
        finally:
            ready.cancel()
            await bot.close()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(task, 5)


async def spawn_bot(
    fake: FakeDiscord, *argv: str, env: dict[str, str] | None = None, **kwargs: Any
) -> asyncio.subprocess.Process:
    """Start a bot subprocess with ``DISCORD_API_BASE``/``DISCORD_GATEWAY_URL`` set, and
    SIGINT stopping it as Ctrl-C does in a terminal: a test runner started in the
    background (``cmd &`` in a script) ignores SIGINT, and its children would inherit that,
    so the tests' clean stop (SIGINT, then SIGKILL after a grace) would always kill."""
    full_env = {**os.environ, **fake.bot_env(), **(env or {})}
    return await asyncio.create_subprocess_exec(
        *argv, env=full_env, preexec_fn=_ctrl_c_as_in_a_terminal, **kwargs
    )


def _ctrl_c_as_in_a_terminal() -> None:
    """(In the child, before it runs the bot.) SIGINT's default action again."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
