"""In-memory Discord state: accounts, guilds, roles, members, channels, messages.

Every object can render itself as the JSON payload Discord would send (``payload()``).
Objects are mutable and shared: a test holding a :class:`FakeMessage` sees later edits.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .fake import FakeDiscord

DISCORD_EPOCH_MS = 1420070400000
Json = dict[str, Any]


class Perm:
    """Permission bits (subset discord.py and typical bots care about)."""

    CREATE_INSTANT_INVITE = 1 << 0
    KICK_MEMBERS = 1 << 1
    BAN_MEMBERS = 1 << 2
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    USE_EXTERNAL_EMOJIS = 1 << 18
    CONNECT = 1 << 20
    SPEAK = 1 << 21
    CHANGE_NICKNAME = 1 << 26
    USE_APPLICATION_COMMANDS = 1 << 31
    SEND_MESSAGES_IN_THREADS = 1 << 38
    ALL = (1 << 51) - 1

    EVERYONE = (
        VIEW_CHANNEL
        | SEND_MESSAGES
        | EMBED_LINKS
        | ATTACH_FILES
        | READ_MESSAGE_HISTORY
        | ADD_REACTIONS
        | USE_EXTERNAL_EMOJIS
        | CONNECT
        | SPEAK
        | CHANGE_NICKNAME
        | USE_APPLICATION_COMMANDS
        | SEND_MESSAGES_IN_THREADS
        | CREATE_INSTANT_INVITE
    )


class Snowflakes:
    """Monotonic, time-based snowflake generator (so ``created_at`` is meaningful)."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        value = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        if value <= self._last:
            value = self._last + 1
        self._last = value
        return value

    def next_on_shard(self, shard_id: int, shard_count: int) -> int:
        """The next id whose events Discord sends to shard ``shard_id`` of ``shard_count``:
        ``(id >> 22) % shard_count == shard_id`` (the id's millisecond moves on by less
        than ``shard_count``)."""
        value = self.next()
        while (value >> 22) % shard_count != shard_id:
            value = ((value >> 22) + 1) << 22
        self._last = value
        return value


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return dt.datetime.fromtimestamp(ts, dt.UTC).isoformat()


@dataclass(eq=False)
class FakeAccount:
    """A Discord user account (the bot itself, or the base of a scripted user)."""

    id: int
    name: str
    bot: bool = False
    locale: str = "en-US"

    def payload(self) -> Json:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": None if self.bot else self.name,
            "discriminator": "0000" if self.bot else "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} id={self.id}>"


@dataclass(eq=False)
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0

    def payload(self) -> Json:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeMember:
    account: FakeAccount
    guild: FakeGuild
    roles: list[FakeRole] = field(default_factory=list)
    joined_at: float = field(default_factory=time.time)

    def base_permissions(self) -> int:
        if self.account.id == self.guild.owner.id:
            return Perm.ALL
        perms = self.guild.everyone.permissions
        for role in self.roles:
            perms |= role.permissions
        return Perm.ALL if perms & Perm.ADMINISTRATOR else perms

    def permissions_in(self, channel: FakeChannel | None) -> int:
        """Discord's permission algorithm: base, then @everyone/role/member overwrites."""
        perms = self.base_permissions()
        if perms & Perm.ADMINISTRATOR or channel is None or channel.guild is None:
            return perms
        ow = channel.overwrites
        allow, deny = ow.get(self.guild.id, (0, 0))
        perms = (perms & ~deny) | allow
        r_allow = r_deny = 0
        for role in self.roles:
            a, d = ow.get(role.id, (0, 0))
            r_allow |= a
            r_deny |= d
        perms = (perms & ~r_deny) | r_allow
        allow, deny = ow.get(self.account.id, (0, 0))
        perms = (perms & ~deny) | allow
        if not perms & Perm.VIEW_CHANNEL:
            return 0
        return perms

    def payload(self, *, user: bool = True, channel: FakeChannel | None = None) -> Json:
        data: Json = {
            "roles": [str(r.id) for r in self.roles],
            "nick": None,
            "avatar": None,
            "joined_at": iso(self.joined_at),
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if user:
            data["user"] = self.account.payload()
        if channel is not None:
            data["permissions"] = str(self.permissions_in(channel))
        return data


class FakeGuild:
    """A guild. Create with :meth:`FakeDiscord.add_guild`."""

    def __init__(self, fake: FakeDiscord, gid: int, name: str, locale: str) -> None:
        self._fake = fake
        self.id = gid
        self.name = name
        self.preferred_locale = locale
        self.everyone = FakeRole(gid, "@everyone", Perm.EVERYONE, 0)
        self.roles: dict[int, FakeRole] = {gid: self.everyone}
        self.channels: dict[int, FakeChannel] = {}
        self.members: dict[int, FakeMember] = {}
        self.owner = FakeAccount(fake.ids.next(), f"{name}-owner")
        self.members[self.owner.id] = FakeMember(self.owner, self)

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name} id={self.id}>"

    def add_role(self, name: str, permissions: int = 0) -> FakeRole:
        role = FakeRole(self._fake.ids.next(), name, permissions, len(self.roles))
        self.roles[role.id] = role
        self._fake.dispatch(
            "GUILD_ROLE_CREATE", {"guild_id": str(self.id), "role": role.payload()}, guild=self
        )
        return role

    def role(self, name: str) -> FakeRole:
        for role in self.roles.values():
            if role.name == name:
                return role
        raise KeyError(name)

    def add_text_channel(self, name: str, *, position: int | None = None) -> FakeChannel:
        chan = FakeChannel(
            self._fake, self._fake.ids.next(), name, 0, guild=self, position=position
        )
        self.channels[chan.id] = chan
        self._fake.channels[chan.id] = chan
        self._fake.dispatch("CHANNEL_CREATE", chan.payload(), guild=self)
        return chan

    def add_member(self, account: FakeAccount, roles: list[FakeRole] | None = None) -> FakeMember:
        member = FakeMember(account, self, list(roles or []))
        self.members[account.id] = member
        data = member.payload()
        data["guild_id"] = str(self.id)
        self._fake.dispatch("GUILD_MEMBER_ADD", data, guild=self, intent=1 << 1)
        return member

    def payload(self) -> Json:
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner.id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "preferred_locale": self.preferred_locale,
            "features": [],
            "roles": [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "max_members": 500000,
            "max_video_channel_users": 25,
        }

    def create_payload(self) -> Json:
        """The GUILD_CREATE event body (full guild with channels and members)."""
        data = self.payload()
        data.update(
            joined_at=iso(time.time()),
            large=False,
            unavailable=False,
            member_count=len(self.members),
            voice_states=[],
            members=[m.payload() for m in self.members.values()],
            channels=[c.payload() for c in self.channels.values()],
            threads=[],
            presences=[],
            stage_instances=[],
            guild_scheduled_events=[],
            soundboard_sounds=[],
        )
        return data


class FakeChannel:
    """A guild text channel (type 0) or a DM channel (type 1)."""

    def __init__(
        self,
        fake: FakeDiscord,
        cid: int,
        name: str,
        ctype: int,
        *,
        guild: FakeGuild | None = None,
        recipient: FakeAccount | None = None,
        position: int | None = None,
    ) -> None:
        self._fake = fake
        self.id = cid
        self.name = name
        self.type = ctype
        self.guild = guild
        self.recipient = recipient
        self.position = position if position is not None else len(guild.channels) if guild else 0
        self.overwrites: dict[int, tuple[int, int]] = {}
        self._ow_types: dict[int, int] = {}
        self.messages: dict[int, FakeMessage] = {}

    def __repr__(self) -> str:
        return f"<FakeChannel #{self.name} id={self.id}>"

    @property
    def is_dm(self) -> bool:
        return self.type == 1

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def history(self) -> list[FakeMessage]:
        """Visible (non-deleted, non-ephemeral) messages, oldest first."""
        return [m for m in self.messages.values() if not m.deleted]

    def set_overwrite(
        self, target: FakeRole | FakeAccount, *, allow: int = 0, deny: int = 0
    ) -> None:
        """Set a permission overwrite for a role (or @everyone) or a member."""
        self.overwrites[target.id] = (allow, deny)
        self._ow_types[target.id] = 0 if isinstance(target, FakeRole) else 1
        if self.guild is not None:
            self._fake.dispatch("CHANNEL_UPDATE", self.payload(), guild=self.guild)

    def payload(self) -> Json:
        if self.is_dm:
            assert self.recipient is not None
            return {
                "id": str(self.id),
                "type": 1,
                "last_message_id": None,
                "flags": 0,
                "recipients": [self.recipient.payload()],
            }
        assert self.guild is not None
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild.id),
            "name": self.name,
            "position": self.position,
            "parent_id": None,
            "topic": None,
            "nsfw": False,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
            "permission_overwrites": [
                {"id": str(tid), "type": self._ow_types[tid], "allow": str(a), "deny": str(d)}
                for tid, (a, d) in self.overwrites.items()
            ],
        }


@dataclass(eq=False)
class FakeAttachment:
    id: int
    filename: str
    data: bytes
    url: str
    content_type: str | None = None
    description: str | None = None

    def payload(self) -> Json:
        data: Json = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
        }
        if self.content_type:
            data["content_type"] = self.content_type
        if self.description:
            data["description"] = self.description
        return data


def walk_components(components: list[Json]) -> Iterator[Json]:
    """Depth-first walk over (possibly nested, components v2) component payloads."""
    for comp in components:
        yield comp
        if "components" in comp:
            yield from walk_components(comp["components"])
        for key in ("accessory", "component"):
            if key in comp:
                yield from walk_components([comp[key]])


@dataclass(eq=False)
class FakeMessage:
    """A message; edits mutate it in place. Ephemeral ones have ``ephemeral_for`` set."""

    id: int
    channel: FakeChannel
    author: FakeAccount
    content: str = ""
    embeds: list[Json] = field(default_factory=list)
    components: list[Json] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    webhook_id: int | None = None
    interaction_meta: Json | None = None
    reference: Json | None = None
    ephemeral_for: FakeAccount | None = None
    created_at: float = field(default_factory=time.time)
    edited_at: float | None = None
    deleted: bool = False
    edits: int = 0

    EPHEMERAL = 1 << 6
    LOADING = 1 << 7

    def __repr__(self) -> str:
        return f"<FakeMessage id={self.id} in {self.channel.name!r} content={self.content!r}>"

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & self.EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & self.LOADING)

    # -- component helpers ------------------------------------------------------------------
    def all_components(self) -> list[Json]:
        return list(walk_components(self.components))

    def buttons(self) -> list[Json]:
        return [c for c in self.all_components() if c.get("type") == 2]

    def button_labels(self) -> list[str]:
        return [c.get("label") or "" for c in self.buttons()]

    def selects(self) -> list[Json]:
        return [c for c in self.all_components() if c.get("type") in (3, 5, 6, 7, 8)]

    def find_component(self, key: str, types: tuple[int, ...] = (2, 3, 5, 6, 7, 8)) -> Json:
        """Find a component by custom_id, label, placeholder or emoji name."""
        comps = [c for c in self.all_components() if c.get("type") in types]
        for attr in ("custom_id", "label", "placeholder"):
            for comp in comps:
                if comp.get(attr) == key:
                    return comp
        for comp in comps:
            emoji = comp.get("emoji") or {}
            if key in (emoji.get("name"), f"{emoji.get('name')} {comp.get('label')}"):
                return comp
        known = [(c.get("custom_id"), c.get("label") or c.get("placeholder")) for c in comps]
        raise LookupError(f"no component {key!r} on message {self.id}; has {known}")

    # -- text helpers -----------------------------------------------------------------------
    def embed_text(self) -> str:
        """All human-readable text of the embeds, joined by newlines."""
        parts: list[str] = []
        for emb in self.embeds:
            for key in ("title", "description"):
                if emb.get(key):
                    parts.append(emb[key])
            for fld in emb.get("fields", []):
                parts += [fld.get("name", ""), fld.get("value", "")]
            for key in ("footer", "author"):
                if (emb.get(key) or {}).get("text") or (emb.get(key) or {}).get("name"):
                    parts.append(emb[key].get("text") or emb[key].get("name"))
        return "\n".join(parts)

    def text(self) -> str:
        """Content plus embed text plus text-display components (components v2)."""
        parts = [self.content, self.embed_text()]
        parts += [c.get("content", "") for c in self.all_components() if c.get("type") == 10]
        return "\n".join(p for p in parts if p)

    def payload(self) -> Json:
        data: Json = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "type": self.type,
            "content": self.content,
            "author": self.author.payload(),
            "timestamp": iso(self.created_at),
            "edited_timestamp": iso(self.edited_at),
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "flags": self.flags,
        }
        guild = self.channel.guild
        if guild is not None:
            data["guild_id"] = str(guild.id)
            member = guild.members.get(self.author.id)
            if member is not None and self.webhook_id is None:
                data["member"] = member.payload(user=False)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
            data["application_id"] = str(self.webhook_id)
        if self.interaction_meta is not None:
            data["interaction_metadata"] = self.interaction_meta
        if self.reference is not None:
            data["message_reference"] = self.reference
        return data
