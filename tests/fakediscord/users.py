"""Scripted users: a story-like API that produces real INTERACTION_CREATE / MESSAGE_CREATE."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .interactions import (
    APP_COMMAND,
    AUTOCOMPLETE,
    COMPONENT,
    DEFERRED_MESSAGE,
    DEFERRED_UPDATE,
    MODAL_SUBMIT,
    InteractionResult,
    build_command_data,
)
from .state import FakeAccount, FakeChannel, FakeMessage, FakeRole, Json, Perm
from .waiting import FakeTimeout

if TYPE_CHECKING:
    from .fake import FakeDiscord

MessageLike = FakeMessage | InteractionResult
MsgPredicate = Callable[[FakeMessage], bool]


def _msg(target: MessageLike) -> FakeMessage:
    if isinstance(target, InteractionResult):
        if target.answer is None:
            raise LookupError(f"{target!r} has no message (yet)")
        return target.answer
    return target


class FakeUser(FakeAccount):
    """A scripted human. Create with :meth:`FakeDiscord.add_user`."""

    def __init__(self, fake: FakeDiscord, uid: int, name: str, *, locale: str = "en-US") -> None:
        super().__init__(uid, name, bot=False, locale=locale)
        self._fake = fake
        self.ephemerals: list[FakeMessage] = []
        self.interactions: list[InteractionResult] = []
        self._dm_seen = 0

    # -- DMs ----------------------------------------------------------------------------------
    @property
    def dm(self) -> FakeChannel:
        """The DM channel between this user and the bot."""
        return self._fake.dm_channel(self)

    @property
    def dms(self) -> list[FakeMessage]:
        """DMs the bot sent to this user, oldest first."""
        return [m for m in self.dm.history if m.author is self._fake.bot_user]

    def refuse_dms(self, refuse: bool = True) -> None:
        """Bot DMs to this user answer 403 / 50007 (like "allow DMs" turned off)."""
        self._fake.faults.refuse_dms(self, refuse)

    def refuse_dm_channel(self, status: int | None = 400) -> None:
        """Opening a DM channel with this user answers ``status`` / 50007 (None: allowed)."""
        self._fake.faults.refuse_dm_channel(self, status)

    async def latest_dm(
        self, predicate: MsgPredicate | None = None, timeout: float = 5.0
    ) -> FakeMessage:
        """Newest DM from the bot matching ``predicate``; waits if there is none yet."""
        msg = await self._fake.wait_for_message(self.dm, self._from_bot(predicate), timeout)
        self._dm_seen = max(self._dm_seen, msg.id)
        return msg

    async def next_dm(
        self, predicate: MsgPredicate | None = None, timeout: float = 5.0
    ) -> FakeMessage:
        """First DM from the bot newer than the last one returned by latest_dm/next_dm."""
        floor = self._dm_seen
        pred = self._from_bot(predicate)

        def newer(m: FakeMessage) -> bool:
            return m.id > floor and pred(m)

        found = [m for m in self.dm.history if newer(m)]
        msg = found[0] if found else await self._fake.wait_for_message(self.dm, newer, timeout)
        self._dm_seen = msg.id
        return msg

    def _from_bot(self, predicate: MsgPredicate | None) -> MsgPredicate:
        bot = self._fake.bot_user
        return lambda m: m.author is bot and (predicate is None or predicate(m))

    async def wait_for_ephemeral(
        self,
        predicate: MsgPredicate | None = None,
        timeout: float = 5.0,
        *,
        after: FakeMessage | None = None,
    ) -> FakeMessage:
        """Newest ephemeral message to this user matching ``predicate`` (existing or future)."""
        floor = after.id if after else 0

        def pred(m: FakeMessage) -> bool:
            return not m.deleted and m.id > floor and (predicate is None or predicate(m))

        return await self._fake.watch.wait(
            ("eph", self.id), pred, timeout, reversed(self.ephemerals),
            lambda: f"ephemerals: {[m.text()[:60] for m in self.ephemerals[-5:]]}",
        )  # fmt: skip

    # -- interactions ------------------------------------------------------------------------
    async def slash(
        self,
        command: str,
        *,
        channel: FakeChannel | None = None,
        options: dict[str, Any] | None = None,
        timeout: float = 5.0,
        wait: bool = True,
        **kwargs: Any,
    ) -> InteractionResult:
        """Invoke ``/command [group] [sub]`` with typed options from the synced command tree.

        Options go as keyword arguments (or ``options=`` for names that clash/aren't
        identifiers). Values: str/int/float/bool, FakeUser, FakeChannel, FakeRole,
        (filename, bytes) for attachments, or a choice's name/value.
        """
        cmd, path, chan = self._resolve(command, channel)
        data = build_command_data(self._fake, cmd, path, {**(options or {}), **kwargs})
        ix = InteractionResult(self._fake, APP_COMMAND, self, chan, data, name=command)
        return await self._send(ix, wait, timeout)

    async def autocomplete(
        self,
        command: str,
        focused: str,
        value: Any,
        *,
        channel: FakeChannel | None = None,
        options: dict[str, Any] | None = None,
        timeout: float = 5.0,
        **kwargs: Any,
    ) -> list[Json]:
        """Type ``value`` into option ``focused``; returns the bot's choices."""
        cmd, path, chan = self._resolve(command, channel)
        values = {**(options or {}), **kwargs, focused: value}
        data = build_command_data(self._fake, cmd, path, values, focused=focused)
        ix = InteractionResult(self._fake, AUTOCOMPLETE, self, chan, data, name=command)
        await self._send(ix, True, timeout)
        return ix.choices or []

    async def click(
        self,
        message: MessageLike,
        button: str,
        *,
        timeout: float = 5.0,
        wait: bool = True,
        shard: int | None = None,
    ) -> InteractionResult:
        """Click a button found by label, custom_id or emoji name. ``shard``: deliver the
        click to that shard's session rather than the one Discord would pick."""
        msg = self._clickable(message)
        comp = msg.find_component(button, (2,))
        self._enabled(comp, button)
        if not comp.get("custom_id"):
            raise ValueError(f"button {button!r} is a link/premium button, not clickable")
        data = {"custom_id": comp["custom_id"], "component_type": 2}
        ix = InteractionResult(
            self._fake, COMPONENT, self, msg.channel, data, source=msg, name=f"click {button}"
        )
        return await self._send(ix, wait, timeout, shard)

    async def select(
        self,
        message: MessageLike,
        select: str,
        values: list[Any] | str,
        *,
        timeout: float = 5.0,
        wait: bool = True,
    ) -> InteractionResult:
        """Pick ``values`` (option value or label; users/roles/channels for entity selects)
        in the select found by placeholder or custom_id."""
        msg = self._clickable(message)
        comp = msg.find_component(select, (3, 5, 6, 7, 8))
        self._enabled(comp, select)
        chosen, resolved = _select_values(comp, [values] if isinstance(values, str) else values)
        data: Json = {
            "custom_id": comp["custom_id"],
            "component_type": comp["type"],
            "values": chosen,
        }
        if resolved:
            data["resolved"] = resolved
        ix = InteractionResult(
            self._fake, COMPONENT, self, msg.channel, data, source=msg, name=f"select {select}"
        )
        return await self._send(ix, wait, timeout)

    async def submit_modal(
        self,
        opened: InteractionResult,
        values: dict[str, str | list[str]],
        *,
        timeout: float = 5.0,
        wait: bool = True,
    ) -> InteractionResult:
        """Fill the modal the bot opened in answer to ``opened`` (fields by label or custom_id)."""
        modal = opened.modal
        if modal is None:
            raise LookupError(f"{opened!r} did not open a modal: {opened.describe()}")
        remaining = dict(values)
        comps = [c for c in (_modal_answer(c, remaining) for c in modal["components"]) if c]
        if remaining:
            raise LookupError(f"modal {modal.get('title')!r} has no field(s) {list(remaining)}")
        data = {"custom_id": modal["custom_id"], "components": comps}
        ix = InteractionResult(
            self._fake, MODAL_SUBMIT, self, opened.channel, data,
            source=opened.source, name=f"modal {modal['custom_id']}",
        )  # fmt: skip
        return await self._send(ix, wait, timeout)

    # -- internals ----------------------------------------------------------------------------
    def _resolve(
        self, command: str, channel: FakeChannel | None
    ) -> tuple[Json, list[str], FakeChannel]:
        name, *path = command.strip().lstrip("/").split()
        chan = channel or self.dm
        guild = chan.guild
        cmd = self._fake.find_command(name, guild)
        if guild is not None:
            member = guild.members.get(self.id)
            if member is None:
                raise PermissionError(f"{self.name} is not in guild {guild.name}")
            needed = cmd.get("default_member_permissions")
            perms = member.permissions_in(chan)
            if needed is not None and (perms & int(needed)) != int(needed):
                raise PermissionError(f"{self.name} cannot see /{name} (needs perms {needed})")
            if not perms & Perm.USE_APPLICATION_COMMANDS:
                raise PermissionError(f"{self.name} cannot use commands in #{chan.name}")
        elif cmd.get("dm_permission") is False or 1 not in (cmd.get("contexts") or [0, 1]):
            raise PermissionError(f"/{name} is not available in DMs")
        return cmd, path, chan

    def _clickable(self, message: MessageLike) -> FakeMessage:
        msg = _msg(message)
        if msg.deleted:
            raise LookupError(f"message {msg.id} was deleted")
        if msg.ephemeral_for is not None and msg.ephemeral_for is not self:
            raise PermissionError(f"{self.name} cannot see {msg.ephemeral_for.name}'s ephemeral")
        return msg

    @staticmethod
    def _enabled(comp: Json, key: str) -> None:
        if comp.get("disabled"):
            raise PermissionError(f"component {key!r} is disabled")

    async def _send(
        self, ix: InteractionResult, wait: bool, timeout: float, shard: int | None = None
    ) -> InteractionResult:
        fake = self._fake
        ix.slow = fake.faults.take_slow(self)
        fake.interactions[ix.token] = ix
        self.interactions.append(ix)
        if ix.source is not None:
            fake.link(ix, ix.source)
        fake.dispatch("INTERACTION_CREATE", ix.payload(), guild=ix.channel.guild, shard=shard)
        if not wait:
            return ix
        edits_before = ix.source.edits if ix.source is not None else 0
        try:
            await ix.wait(timeout)
        except FakeTimeout:
            raise FakeTimeout(
                f"bot did not answer {ix.name!r} by {self.name} within {timeout}s: {ix.describe()}"
            ) from None
        if fake.settle_deferred_updates and ix.callback_type == DEFERRED_UPDATE and ix.source:
            # A person waits to see what the click did: the message edited, or a follow-up.
            await ix.wait_until(
                lambda r: r.source.edits > edits_before or bool(r.followups), timeout
            )
        elif fake.settle_deferred_updates and ix.callback_type == DEFERRED_MESSAGE:
            await ix.wait_response(timeout)  # "thinking…" until the answer replaces it
        return ix


def _select_values(comp: Json, values: list[Any]) -> tuple[list[str], Json]:
    resolved: Json = {}
    out: list[str] = []
    if comp["type"] == 3:
        options = comp.get("options") or []
        for value in values:
            opt = next((o for o in options if value in (o.get("value"), o.get("label"))), None)
            if opt is None:
                known = [(o.get("label"), o.get("value")) for o in options]
                raise LookupError(f"select {comp['custom_id']!r} has no option {value!r}; {known}")
            out.append(opt["value"])
    else:
        for value in values:
            if isinstance(value, FakeAccount):
                resolved.setdefault("users", {})[str(value.id)] = value.payload()
            elif isinstance(value, FakeRole):
                resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            elif isinstance(value, FakeChannel):
                chan = {**value.payload(), "permissions": str(Perm.EVERYONE)}
                resolved.setdefault("channels", {})[str(value.id)] = chan
            else:
                raise TypeError(f"entity select needs FakeUser/FakeRole/FakeChannel, got {value!r}")
            out.append(str(value.id))
    lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
    if not lo <= len(out) <= hi:
        raise ValueError(f"select {comp['custom_id']!r} takes {lo}..{hi} values, got {len(out)}")
    return out, resolved


def _modal_answer(comp: Json, remaining: dict[str, Any]) -> Json | None:
    """Build the submitted form of one modal component, consuming values from ``remaining``."""
    ctype = comp.get("type")
    if ctype == 1:
        children = [c for c in (_modal_answer(c, remaining) for c in comp["components"]) if c]
        return {"type": 1, "components": children}
    if ctype == 18:
        inner = dict(comp["component"])
        inner.setdefault("label", comp.get("label"))
        answer = _modal_answer(inner, remaining)
        return {"type": 18, "component": answer} if answer else None
    keys = [comp.get("custom_id"), comp.get("label")]
    key = next((k for k in keys if k in remaining), None)
    if ctype == 4:
        value = remaining.pop(key) if key else comp.get("value") or ""
        if comp.get("required", True) and not value:
            raise ValueError(f"modal field {comp.get('label') or comp['custom_id']!r} is required")
        return {"type": 4, "custom_id": comp["custom_id"], "value": value}
    if ctype in (3, 5, 6, 7, 8):
        raw = remaining.pop(key) if key else []
        values, _ = _select_values(comp, [raw] if isinstance(raw, str) else list(raw))
        return {"type": ctype, "custom_id": comp["custom_id"], "values": values}
    return None
