"""Interactions: building INTERACTION_CREATE payloads and tracking the bot's answers."""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING, Any

from .state import FakeAccount, FakeChannel, FakeMessage, FakeRole, Json, Perm

if TYPE_CHECKING:
    from .fake import FakeDiscord

APP_COMMAND, COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 2, 3, 4, 5
# callback types
CHANNEL_MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE = 4, 5, 6, 7
AUTOCOMPLETE_RESULT, MODAL = 8, 9
ALLOWED_CALLBACKS = {
    APP_COMMAND: {CHANNEL_MESSAGE, DEFERRED_MESSAGE, MODAL},
    COMPONENT: {CHANNEL_MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, MODAL},
    AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
    MODAL_SUBMIT: {CHANNEL_MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE},
}


class InteractionResult:
    """One interaction a scripted user made, and everything the bot answered to it.

    ``callback_type`` is None until the bot's callback was accepted. ``message`` is the
    response message (type 4/5), or the component's message (type 6/7), kept live on edits.
    """

    def __init__(
        self,
        fake: FakeDiscord,
        itype: int,
        user: FakeAccount,
        channel: FakeChannel,
        data: Json,
        source: FakeMessage | None = None,
        name: str = "",
    ) -> None:
        self.fake = fake
        self.id = fake.ids.next()
        self.token = "fake-" + secrets.token_urlsafe(24)
        self.type = itype
        self.user = user
        self.channel = channel
        self.data = data
        self.source = source
        self.name = name
        self.created_at = time.monotonic()
        self.slow = False
        self.expired = False
        self.callback_type: int | None = None
        self.callback_data: Json = {}
        self.message: FakeMessage | None = source
        self.modal: Json | None = None
        self.choices: list[Json] | None = None
        self.followups: list[FakeMessage] = []
        self.errors: list[Json] = []  # error bodies the fake answered to this interaction's routes

    def __repr__(self) -> str:
        return f"<InteractionResult {self.name!r} type={self.type} callback={self.callback_type}>"

    # -- test-facing ----------------------------------------------------------------------------
    @property
    def answered(self) -> bool:
        return self.callback_type is not None

    @property
    def answer(self) -> FakeMessage | None:
        """What the user sees as the answer: the response message, or, after a deferred
        update (type 6) that left the clicked message alone, the first follow-up."""
        if self.callback_type == DEFERRED_UPDATE and self.followups:
            return self.followups[0]
        return self.message

    @property
    def flags(self) -> int:
        return self.answer.flags if self.answer is not None else 0

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FakeMessage.EPHEMERAL)

    @property
    def content(self) -> str:
        return self.answer.content if self.answer is not None else ""

    @property
    def embeds(self) -> list[Json]:
        return self.answer.embeds if self.answer is not None else []

    @property
    def components(self) -> list[Json]:
        return self.answer.components if self.answer is not None else []

    def text(self) -> str:
        return self.answer.text() if self.answer is not None else ""

    def _key(self) -> tuple[str, int]:
        return ("ix", self.id)

    def changed(self) -> None:
        self.fake.watch.notify(self._key(), self)

    async def wait(self, timeout: float = 5.0) -> InteractionResult:
        """Wait until the bot's callback was accepted (or refused as expired)."""
        return await self.wait_until(lambda r: r.answered or r.expired, timeout)

    async def wait_until(self, pred: Any, timeout: float = 5.0) -> InteractionResult:
        """Wait until ``pred(result)`` holds; re-checked on every callback/edit/followup."""
        return await self.fake.watch.wait(
            self._key(), pred, timeout, [self], lambda: f"last state: {self.describe()}"
        )

    async def wait_response(self, timeout: float = 5.0) -> FakeMessage:
        """Wait for a visible answer: a non-loading response message (e.g. after a defer)."""
        res = await self.wait_until(
            lambda r: (
                r.message is not None and r.callback_type is not None and not r.message.loading
            ),
            timeout,
        )
        assert res.message is not None
        return res.message

    def describe(self) -> str:
        msg = self.message
        return (
            f"callback={self.callback_type} expired={self.expired} errors={self.errors} "
            f"content={msg.content if msg else None!r} followups={len(self.followups)}"
        )

    # -- server-facing --------------------------------------------------------------------------
    def metadata(self) -> Json:
        owners = (
            {"0": str(self.channel.guild.id)} if self.channel.guild else {"1": str(self.user.id)}
        )
        meta: Json = {
            "id": str(self.id),
            "type": self.type,
            "user": self.user.payload(),
            "authorizing_integration_owners": owners,
        }
        if self.type == APP_COMMAND:
            meta["name"] = self.name
        if self.source is not None:
            meta["interacted_message_id"] = str(self.source.id)
        return meta

    def payload(self) -> Json:
        fake, chan, guild = self.fake, self.channel, self.channel.guild
        data: Json = {
            "id": str(self.id),
            "application_id": str(fake.application_id),
            "type": self.type,
            "data": self.data,
            "token": self.token,
            "version": 1,
            "locale": self.user.locale,
            "channel": chan.payload(),
            "channel_id": str(chan.id),
            "entitlements": [],
            "attachment_size_limit": 10 * 1024 * 1024,
            "context": 0 if guild else 1,
        }
        if guild is not None:
            bot_member = guild.members.get(fake.bot_user.id)
            data["app_permissions"] = str(bot_member.permissions_in(chan) if bot_member else 0)
            data["guild_id"] = str(guild.id)
            data["guild_locale"] = guild.preferred_locale
            data["guild"] = {"id": str(guild.id), "locale": guild.preferred_locale, "features": []}
            data["member"] = guild.members[self.user.id].payload(channel=chan)
            data["authorizing_integration_owners"] = {"0": str(guild.id)}
        else:
            data["app_permissions"] = str(Perm.EVERYONE)
            data["user"] = self.user.payload()
            data["authorizing_integration_owners"] = {"1": str(self.user.id)}
        if self.source is not None:
            data["message"] = self.source.payload()
        return data


# -- slash command option building ------------------------------------------------------------
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = range(3, 12)


def _convert(opt: Json, value: Any, resolved: Json, fake: FakeDiscord) -> Any:
    """Convert a Python value into the wire value Discord sends for option ``opt``."""
    name, otype = opt["name"], opt["type"]
    if opt.get("choices"):
        for choice in opt["choices"]:
            if value == choice["value"] or value == choice["name"]:
                return choice["value"]
        raise ValueError(f"option {name!r}: {value!r} is not one of {opt['choices']}")
    if otype == STRING:
        if not isinstance(value, str):
            raise TypeError(f"option {name!r} is a string, got {value!r}")
        if not opt.get("min_length", 0) <= len(value) <= opt.get("max_length", 6000):
            raise ValueError(f"option {name!r}: length of {value!r} out of range")
        return value
    if otype in (INTEGER, NUMBER):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"option {name!r} is numeric, got {value!r}")
        if otype == INTEGER and int(value) != value:
            raise TypeError(f"option {name!r} is an integer, got {value!r}")
        lo, hi = opt.get("min_value"), opt.get("max_value")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ValueError(f"option {name!r}: {value} outside [{lo}, {hi}]")
        return int(value) if otype == INTEGER else float(value)
    if otype == BOOLEAN:
        if not isinstance(value, bool):
            raise TypeError(f"option {name!r} is a boolean, got {value!r}")
        return value
    if otype in (USER, MENTIONABLE) and isinstance(value, FakeAccount):
        resolved.setdefault("users", {})[str(value.id)] = value.payload()
        for guild in fake.guilds.values():
            if value.id in guild.members:
                member = guild.members[value.id].payload(user=False)
                resolved.setdefault("members", {})[str(value.id)] = member
                break
        return str(value.id)
    if otype in (ROLE, MENTIONABLE) and isinstance(value, FakeRole):
        resolved.setdefault("roles", {})[str(value.id)] = value.payload()
        return str(value.id)
    if otype == CHANNEL and isinstance(value, FakeChannel):
        data = value.payload()
        data["permissions"] = str(Perm.EVERYONE)
        resolved.setdefault("channels", {})[str(value.id)] = data
        return str(value.id)
    if otype == ATTACHMENT and isinstance(value, tuple):
        filename, blob = value
        att = fake.store_attachment(0, filename, blob, None)
        resolved.setdefault("attachments", {})[str(att.id)] = att.payload()
        return str(att.id)
    raise TypeError(f"option {name!r} (type {otype}) cannot take {value!r}")


def build_command_data(
    fake: FakeDiscord,
    command: Json,
    path: list[str],
    values: dict[str, Any],
    focused: str | None = None,
) -> Json:
    """Build ``data`` of an APPLICATION_COMMAND interaction for ``/name sub... key=value``."""
    data: Json = {
        "id": str(command["id"]),
        "name": command["name"],
        "type": command.get("type", 1),
    }
    if command.get("guild_id"):
        data["guild_id"] = str(command["guild_id"])
    defs: list[Json] = command.get("options", [])
    holder = data
    full = [command["name"]]
    for part in path:
        sub = next(
            (
                o
                for o in defs
                if o["name"] == part and o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)
            ),
            None,
        )
        if sub is None:
            subs = [o["name"] for o in defs if o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)]
            raise LookupError(f"/{' '.join(full)} has no subcommand {part!r}; has {subs}")
        full.append(part)
        node: Json = {"name": part, "type": sub["type"], "options": []}
        holder["options"] = [node]
        holder = node
        defs = sub.get("options", [])
    if any(o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in defs):
        subs = [o["name"] for o in defs]
        raise LookupError(f"/{' '.join(full)} is a group; choose one of {subs}")
    by_name = {o["name"]: o for o in defs}
    unknown = set(values) - set(by_name)
    if unknown:
        raise LookupError(
            f"/{' '.join(full)} has no option(s) {sorted(unknown)}; has {list(by_name)}"
        )
    resolved: Json = {}
    options: list[Json] = []
    for opt in defs:
        if opt["name"] not in values:
            if opt.get("required") and focused is None:
                raise ValueError(f"/{' '.join(full)}: required option {opt['name']!r} missing")
            continue
        value = values[opt["name"]]
        entry: Json = {"name": opt["name"], "type": opt["type"]}
        if opt["name"] == focused:
            entry["value"], entry["focused"] = str(value), True
        else:
            entry["value"] = _convert(opt, value, resolved, fake)
        options.append(entry)
    holder["options"] = options
    if resolved:
        data["resolved"] = resolved
    return data
