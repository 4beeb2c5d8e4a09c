"""FakeDiscord: owns the state, the aiohttp server (REST + gateway) and the scripted users."""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Callable

from aiohttp import web

from .faults import Faults
from .gateway import Gateway
from .interactions import InteractionResult
from .limits import Limiter, RateLimits
from .server import RecordedRequest, build_app
from .state import (
    FakeAccount,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeRole,
    Json,
    Perm,
    Snowflakes,
)
from .users import FakeUser
from .waiting import Watch, eventually

GUILD_MESSAGES, DIRECT_MESSAGES, MESSAGE_CONTENT = 1 << 9, 1 << 12, 1 << 15
BOT_PERMS = Perm.EVERYONE | Perm.MANAGE_MESSAGES


class FakeDiscord:
    """A fake Discord (REST + gateway) on 127.0.0.1, for the real discord.py client.

    >>> fake = await FakeDiscord().start()
    >>> guild = fake.add_guild("Test"); chan = guild.add_text_channel("capsa")
    >>> alice = fake.add_user("alice", guild=guild, manage_guild=True)
    """

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "FakeBot",
        interaction_deadline: float | None = 3.0,
        heartbeat_interval: float = 41.25,
        buffer_size: int = 200_000,
        recommended_shards: int = 1,
        limits: RateLimits | None = None,
    ) -> None:
        self.ids = Snowflakes()
        # Discord's rate limits (limits.py), on unless ``RateLimits.off()`` is passed
        self.limiter = Limiter(limits if limits is not None else RateLimits())
        # GET /gateway/bot's "shards": what an AutoShardedBot without a shard count runs
        self.recommended_shards = recommended_shards
        self.token = token
        self.interaction_deadline = interaction_deadline
        # When True, an interaction the bot answers with a deferral (type 5 or 6) returns
        # only once the answer shows (the "thinking" message replaced, the clicked message
        # edited, or a follow-up), as a person waits to see the result before going on.
        self.settle_deferred_updates = False
        self.heartbeat_interval = heartbeat_interval
        self.buffer_size = buffer_size
        self.bot_user = FakeAccount(self.ids.next(), bot_name, bot=True)
        self.application_id = self.bot_user.id
        self.developer = FakeAccount(self.ids.next(), "developer")
        self.accounts: dict[int, FakeAccount] = {a.id: a for a in (self.bot_user, self.developer)}
        self.users: dict[str, FakeUser] = {}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.dm_channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        # (channel id, nonce) -> the message a create with enforce_nonce made (Discord returns
        # that message again for the same nonce "in the past few minutes")
        self.nonces: dict[tuple[int, str], FakeMessage] = {}
        self.attachments: dict[int, FakeAttachment] = {}
        self.interactions: dict[str, InteractionResult] = {}  # by token
        self.interactions_by_message: dict[int, list[InteractionResult]] = {}
        self.global_commands: list[Json] = []
        self.guild_commands: dict[int, list[Json]] = {}
        self.requests: list[RecordedRequest] = []
        self.faults = Faults()
        self.watch = Watch()
        self.gateway = Gateway(self)
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    # -- lifecycle ------------------------------------------------------------------------------
    async def start(self, port: int = 0) -> FakeDiscord:
        """Serve on 127.0.0.1 (ephemeral port unless given). Returns self."""
        self._runner = web.AppRunner(build_app(self), access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port, backlog=1024)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def stop(self) -> None:
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        assert self.port is not None, "call start() first"
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """Value for ``discord.http.Route.BASE`` / ``DISCORD_API_BASE``."""
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """Value for ``DiscordWebSocket.DEFAULT_GATEWAY`` / ``DISCORD_GATEWAY_URL``."""
        return f"ws://127.0.0.1:{self.port}/gateway"

    def bot_env(self, **extra: str) -> dict[str, str]:
        """Environment for a bot subprocess pointed at this fake."""
        env = {
            "DISCORD_API_BASE": self.api_base,
            "DISCORD_GATEWAY_URL": self.gateway_url,
            "DISCORD_TOKEN": self.token,
        }
        env.update(extra)
        return env

    # -- world building -------------------------------------------------------------------------
    def add_guild(
        self, name: str = "Test", *, locale: str = "en-US", shard: tuple[int, int] | None = None
    ) -> FakeGuild:
        """A guild (the bot a member). ``shard=(i, n)``: an id whose events go to shard
        ``i`` of ``n`` (``(id >> 22) % n == i``)."""
        gid = self.ids.next() if shard is None else self.ids.next_on_shard(*shard)
        guild = FakeGuild(self, gid, name, locale)
        self.accounts[guild.owner.id] = guild.owner
        guild.add_member(self.bot_user, [_role(guild, "Bot", BOT_PERMS)])
        self.guilds[guild.id] = guild
        self.dispatch("GUILD_CREATE", guild.create_payload(), guild=guild)
        return guild

    def add_user(
        self,
        name: str,
        guild: FakeGuild | None = None,
        *,
        locale: str = "en-US",
        manage_guild: bool = False,
        admin: bool = False,
        roles: tuple[str, ...] = (),
    ) -> FakeUser:
        """A scripted user; joins ``guild`` (with a Manage Server role if ``manage_guild``)."""
        user = FakeUser(self, self.ids.next(), name, locale=locale)
        self.users[name] = user
        self.accounts[user.id] = user
        if guild is not None:
            self.join(user, guild, manage_guild=manage_guild, admin=admin, roles=roles)
        return user

    def join(
        self,
        user: FakeAccount,
        guild: FakeGuild,
        *,
        manage_guild: bool = False,
        admin: bool = False,
        roles: tuple[str, ...] = (),
    ) -> None:
        member_roles = [guild.role(r) for r in roles]
        if manage_guild:
            member_roles.append(_role(guild, "Server Manager", Perm.MANAGE_GUILD))
        if admin:
            member_roles.append(_role(guild, "Admin", Perm.ADMINISTRATOR))
        guild.add_member(user, member_roles)

    def user(self, name: str) -> FakeUser:
        return self.users[name]

    def dm_channel(self, account: FakeAccount) -> FakeChannel:
        """The bot's DM channel with ``account`` (created on first use, stable id)."""
        chan = self.dm_channels.get(account.id)
        if chan is None:
            chan = FakeChannel(self, self.ids.next(), f"dm-{account.name}", 1, recipient=account)
            self.dm_channels[account.id] = chan
            self.channels[chan.id] = chan
        return chan

    def bot_user_payload(self) -> Json:
        data = self.bot_user.payload()
        data.update(verified=True, mfa_enabled=False, flags=0, email=None, locale="en-US")
        return data

    # -- commands -------------------------------------------------------------------------------
    def commands(self, guild: FakeGuild | None = None) -> list[Json]:
        """Synced commands: guild-scoped ones of ``guild``, or the global ones."""
        if guild is None:
            return self.global_commands
        return self.guild_commands.get(guild.id, [])

    def find_command(self, name: str, guild: FakeGuild | None, ctype: int = 1) -> Json:
        pools = ([self.commands(guild)] if guild else []) + [self.global_commands]
        for pool in pools:
            for cmd in pool:
                if cmd["name"] == name and cmd.get("type", 1) == ctype:
                    return cmd
        known = [c["name"] for pool in pools for c in pool]
        raise LookupError(f"command {name!r} not synced (did the bot sync?); known: {known}")

    # -- events ---------------------------------------------------------------------------------
    def dispatch(
        self,
        event: str,
        data: Json,
        *,
        guild: FakeGuild | None = None,
        intent: int | None = None,
        private_content: bool = False,
        shard: int | None = None,
    ) -> None:
        """Send a gateway dispatch to the live session(s) responsible for ``guild``: those of
        its shard, ``(guild.id >> 22) % shard_count``; without a guild (a DM), shard 0's.
        ``shard``: to that shard's sessions instead."""
        if guild is not None and guild.id not in self.guilds and event != "GUILD_CREATE":
            return
        self.gateway.dispatch(
            event, data, guild.id if guild else None, intent, private_content, shard
        )

    # -- messages -------------------------------------------------------------------------------
    async def wait_for_message(
        self,
        channel: FakeChannel,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 5.0,
        *,
        after: FakeMessage | int | None = None,
    ) -> FakeMessage:
        """Newest message in ``channel`` matching ``predicate`` (existing or future; an
        edit that makes a message match also counts). ``after`` skips older messages."""
        floor = after.id if isinstance(after, FakeMessage) else (after or 0)

        def pred(m: FakeMessage) -> bool:
            return not m.deleted and m.id > floor and (predicate is None or predicate(m))

        def describe() -> str:
            last = [f"{m.id}: {m.text()[:80]!r} {m.button_labels()}" for m in channel.history[-5:]]
            return f"last messages in #{channel.name}: {last}"

        existing = reversed(list(channel.messages.values()))
        return await self.watch.wait(("chan", channel.id), pred, timeout, existing, describe)

    def store_attachment(
        self, channel_id: int, filename: str, blob: bytes, content_type: str | None
    ) -> FakeAttachment:
        aid = self.ids.next()
        url = f"{self.base_url}/attachments/{channel_id}/{aid}/{filename}"
        att = FakeAttachment(aid, filename, blob, url, content_type)
        self.attachments[aid] = att
        return att

    def post_message(
        self,
        channel: FakeChannel,
        author: FakeAccount,
        body: Json,
        attachments: list[FakeAttachment] | None = None,
        *,
        webhook: bool = False,
        interaction: InteractionResult | None = None,
        extra_flags: int = 0,
        mtype: int = 0,
    ) -> FakeMessage:
        flags = (body.get("flags") or 0) | extra_flags
        msg = FakeMessage(
            self.ids.next(),
            channel,
            author,
            content=body.get("content") or "",
            embeds=_embeds(body),
            components=body.get("components") or [],
            attachments=attachments or [],
            flags=flags,
            type=mtype,
            webhook_id=self.application_id if webhook else None,
            interaction_meta=interaction.metadata() if interaction else None,
            reference=body.get("message_reference"),
        )
        if msg.ephemeral:
            assert interaction is not None, "only interaction messages can be ephemeral"
            msg.ephemeral_for = interaction.user
        self.messages[msg.id] = msg
        if msg.ephemeral_for is not None:
            if isinstance(msg.ephemeral_for, FakeUser):
                msg.ephemeral_for.ephemerals.append(msg)
            self.watch.notify(("eph", msg.ephemeral_for.id), msg)
            return msg
        channel.messages[msg.id] = msg
        self._announce("MESSAGE_CREATE", msg)
        return msg

    def edit_message(
        self, msg: FakeMessage, body: Json, new_attachments: list[FakeAttachment]
    ) -> FakeMessage:
        if "content" in body:
            msg.content = body["content"] or ""
        if "embeds" in body or "embed" in body:
            msg.embeds = _embeds(body)
        if "components" in body:
            msg.components = body["components"] or []
        if "flags" in body and body["flags"] is not None:
            keep = msg.flags & FakeMessage.EPHEMERAL
            msg.flags = (body["flags"] & ~FakeMessage.EPHEMERAL) | keep
        if "attachments" in body and body["attachments"] is not None:
            keep_ids = {str(a.get("id")) for a in body["attachments"]}
            msg.attachments = [a for a in msg.attachments if str(a.id) in keep_ids]
        msg.attachments.extend(new_attachments)
        msg.flags &= ~FakeMessage.LOADING
        msg.edited_at = time.time()
        msg.edits += 1
        self._changed(msg, "MESSAGE_UPDATE")
        return msg

    def delete_message(self, msg: FakeMessage) -> None:
        msg.deleted = True
        self.messages.pop(msg.id, None)
        if msg.ephemeral_for is None:
            data: Json = {"id": str(msg.id), "channel_id": str(msg.channel.id)}
            if msg.channel.guild is not None:
                data["guild_id"] = str(msg.channel.guild.id)
            self.dispatch("MESSAGE_DELETE", data, guild=msg.channel.guild, intent=_intent(msg))
        self._changed(msg, None)

    def _changed(self, msg: FakeMessage, event: str | None) -> None:
        if msg.ephemeral_for is not None:
            self.watch.notify(("eph", msg.ephemeral_for.id), msg)
        elif event is not None:
            self._announce(event, msg)
        else:
            self.watch.notify(("chan", msg.channel.id), msg)
        for ix in self.interactions_by_message.get(msg.id, ()):
            ix.changed()

    def _announce(self, event: str, msg: FakeMessage) -> None:
        self.watch.notify(("chan", msg.channel.id), msg)
        private = (
            msg.author is not self.bot_user
            and msg.channel.guild is not None
            and self.bot_user.mention not in msg.content
        )
        self.dispatch(
            event,
            msg.payload(),
            guild=msg.channel.guild,
            intent=_intent(msg),
            private_content=private,
        )

    def link(self, ix: InteractionResult, msg: FakeMessage) -> None:
        """Let ``ix`` be notified when ``msg`` changes."""
        lst = self.interactions_by_message.setdefault(msg.id, [])
        if ix not in lst:
            lst.append(ix)

    # -- requests / gateway helpers --------------------------------------------------------------
    def requests_to(
        self, method: str | None = None, pattern: str | None = None
    ) -> list[RecordedRequest]:
        """Recorded REST requests, filtered by method and a glob on the path."""
        return [
            r
            for r in self.requests
            if (method is None or r.method == method)
            and (pattern is None or fnmatch.fnmatchcase(r.path, pattern))
        ]

    @property
    def unknown_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.unknown_route]

    @property
    def limits(self) -> RateLimits:
        return self.limiter.settings

    @limits.setter
    def limits(self, settings: RateLimits) -> None:
        self.limiter.configure(settings)

    @property
    def rate_limited(self) -> list[RecordedRequest]:
        """Requests the rate limits answered with 429 (not the 429s a test injected)."""
        return [r for r in self.requests if r.limited is not None]

    @property
    def invalid_requests(self) -> int:
        """Answers Discord counts toward its ban of 10,000 in 10 minutes: 401, 403 and 429
        (injected ones included, as Discord would count them)."""
        return sum(r.status in (401, 403, 429) for r in self.requests)

    async def wait_for_identify(self, count: int = 1, timeout: float = 10.0) -> None:
        """Wait until the gateway has seen ``count`` IDENTIFYs in total (restarts, op 9)."""
        gateway = self.gateway
        await eventually(
            lambda: gateway.identifies >= count and gateway.connected(),
            timeout,
            0.02,
            message=lambda: f"{gateway.identifies}/{count} IDENTIFYs",
        )

    async def drop_gateway(self, *, hard: bool = True, code: int = 4000) -> int:
        return await self.gateway.drop(hard=hard, code=code)

    def request_reconnect(self) -> int:
        return self.gateway.request_reconnect()

    def invalidate_session(self, *, resumable: bool = False) -> int:
        return self.gateway.invalidate(resumable=resumable)


def _role(guild: FakeGuild, name: str, perms: int) -> FakeRole:
    try:
        return guild.role(name)
    except KeyError:
        return guild.add_role(name, perms)


def _embeds(body: Json) -> list[Json]:
    embeds = body.get("embeds")
    if embeds is None and body.get("embed"):
        embeds = [body["embed"]]
    return [{"type": "rich", **e} for e in (embeds or [])]


def _intent(msg: FakeMessage) -> int:
    return DIRECT_MESSAGES if msg.channel.is_dm else GUILD_MESSAGES
