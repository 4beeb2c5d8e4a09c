"""REST route handlers. Each takes a :class:`Req` and returns ``(status, json_or_None)``."""

from __future__ import annotations

import asyncio
import re
import time
from typing import TYPE_CHECKING, Any

from . import interactions as ixmod
from .state import FakeAttachment, FakeChannel, FakeMessage, Json, Perm
from .validate import (
    ALREADY_ACKED,
    CANNOT_DM,
    MISSING_ACCESS,
    MISSING_PERMISSIONS,
    UNKNOWN_CHANNEL,
    UNKNOWN_COMMAND,
    UNKNOWN_GUILD,
    UNKNOWN_INTERACTION,
    UNKNOWN_MEMBER,
    UNKNOWN_MESSAGE,
    UNKNOWN_USER,
    UNKNOWN_WEBHOOK,
    ApiError,
    _Errors,
    unknown,
    validate_message,
)

# Discord: a nonce is at most 25 characters; with enforce_nonce, a message sent with a nonce
# already used "in the past few minutes" by the same author is not made again: the first one
# is returned.
NONCE_LENGTH = 25
NONCE_SECONDS = 300.0

if TYPE_CHECKING:
    from .server import Req, Router

Result = tuple[int, Any]


# -- helpers ---------------------------------------------------------------------------------
def _channel(req: Req) -> FakeChannel:
    chan = req.fake.channels.get(req.int_param("channel_id"))
    if chan is None:
        raise unknown("Channel", UNKNOWN_CHANNEL)
    return chan


def _bot_perms(req: Req, chan: FakeChannel) -> int:
    if chan.guild is None:
        return Perm.ALL
    member = chan.guild.members.get(req.fake.bot_user.id)
    return member.permissions_in(chan) if member else 0


def _require(req: Req, chan: FakeChannel, perm: int) -> None:
    perms = _bot_perms(req, chan)
    if not perms & Perm.VIEW_CHANNEL:
        raise ApiError(403, MISSING_ACCESS, "Missing Access")
    if perms & perm != perm:
        raise ApiError(403, MISSING_PERMISSIONS, "Missing Permissions")


def _message(req: Req, chan: FakeChannel) -> FakeMessage:
    msg = chan.messages.get(req.int_param("message_id"))
    if msg is None or msg.deleted:
        raise unknown("Message", UNKNOWN_MESSAGE)
    return msg


def _uploads(req: Req, channel_id: int, body: Json) -> list[FakeAttachment]:
    meta = {str(a.get("id")): a for a in (body.get("attachments") or [])}
    out = []
    for up in req.uploads:
        att = req.fake.store_attachment(channel_id, up.filename, up.data, up.content_type)
        att.description = (meta.get(str(up.index)) or {}).get("description")
        out.append(att)
    return out


def _snowflake(req: Req, name: str) -> int | None:
    value = req.query.get(name)
    return int(value) if value else None


# -- users, application, gateway --------------------------------------------------------------
async def me(req: Req) -> Result:
    return 200, req.fake.bot_user_payload()


async def get_user(req: Req) -> Result:
    account = req.fake.accounts.get(req.int_param("user_id"))
    if account is None:
        raise unknown("User", UNKNOWN_USER)
    return 200, account.payload()


async def create_dm(req: Req) -> Result:
    rid = int((req.body or {}).get("recipient_id", 0))
    account = req.fake.accounts.get(rid)
    if account is None or account is req.fake.bot_user:
        raise ApiError(400, 50033, "Invalid Recipient(s)")
    refused = req.fake.faults.refused_dm_channels.get(rid)
    if refused is not None:
        raise ApiError(refused, CANNOT_DM, "Cannot send messages to this user")
    return 200, req.fake.dm_channel(account).payload()


async def app_info(req: Req) -> Result:
    fake = req.fake
    return 200, {
        "id": str(fake.application_id),
        "name": fake.bot_user.name,
        "icon": None,
        "description": "",
        "summary": "",
        "type": None,
        "hook": True,
        "bot_public": True,
        "bot_require_code_grant": False,
        "verify_key": "0" * 64,
        "flags": 0,
        "owner": fake.developer.payload(),
        "team": None,
        "rpc_origins": [],
        "redirect_uris": [],
        "interactions_endpoint_url": None,
        "approximate_guild_count": len(fake.guilds),
        "bot": fake.bot_user_payload(),
        "tags": [],
        "integration_types_config": {"0": {}},
    }


async def gateway(req: Req) -> Result:
    return 200, {"url": req.fake.gateway_url}


async def gateway_bot(req: Req) -> Result:
    limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
    shards = req.fake.recommended_shards
    return 200, {"url": req.fake.gateway_url, "shards": shards, "session_start_limit": limit}


# -- application commands ----------------------------------------------------------------------
NAME_RE = re.compile(r"^[-_'\w]{1,32}$")


def _validate_command(err: _Errors, base: list[str | int], cmd: Json) -> None:
    """Add what is wrong with the command ``cmd`` to ``err``, under the path ``base``."""

    def bad(path: list[str | int], code: str, msg: str) -> None:
        err.add([*base, *path], code, msg)

    def check_opts(path: list[str | int], opts: list[Json]) -> None:
        if len(opts) > 25:
            bad([*path, "options"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        seen_optional = False
        for k, opt in enumerate(opts):
            here = [*path, "options", k]
            if not NAME_RE.match(opt.get("name", "")) or opt["name"] != opt["name"].lower():
                bad([*here, "name"], "APPLICATION_COMMAND_INVALID_NAME", "Invalid name")
            if not 1 <= len(opt.get("description", "")) <= 100:
                bad([*here, "description"], "BASE_TYPE_BAD_LENGTH", "Must be 1-100 long.")
            if opt.get("required") and seen_optional:
                bad([*here, "required"], "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID", "Order")
            seen_optional |= not opt.get("required") and opt.get("type") not in (1, 2)
            if len(opt.get("choices") or []) > 25:
                bad([*here, "choices"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer.")
            check_opts(here, opt.get("options") or [])

    ctype = cmd.get("type", 1)
    name = cmd.get("name", "")
    if not NAME_RE.match(name) or (ctype == 1 and name != name.lower()):
        bad(["name"], "APPLICATION_COMMAND_INVALID_NAME", "Invalid application command name")
    if ctype == 1 and not 1 <= len(cmd.get("description", "")) <= 100:
        bad(["description"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
    check_opts([], cmd.get("options") or [])


def _scope(req: Req) -> int | None:
    if req.int_param("app_id") != req.fake.application_id:
        raise ApiError(403, MISSING_ACCESS, "Missing Access")
    if "guild_id" not in req.params:
        return None
    gid = req.int_param("guild_id")
    if gid not in req.fake.guilds:
        raise ApiError(403, MISSING_ACCESS, "Missing Access")
    return gid


def _pool(req: Req, gid: int | None) -> list[Json]:
    if gid is None:
        return req.fake.global_commands
    return req.fake.guild_commands.setdefault(gid, [])


def _store(req: Req, gid: int | None, cmd: Json, old: Json | None) -> Json:
    fake = req.fake
    out = dict(cmd)
    out.setdefault("type", 1)
    out.setdefault("description", "")
    out.setdefault("options", [])
    out.setdefault("default_member_permissions", None)
    out.setdefault("dm_permission", True)
    out.setdefault("nsfw", False)
    if out["default_member_permissions"] is not None:
        out["default_member_permissions"] = str(int(out["default_member_permissions"]))
    out["id"] = old["id"] if old else str(fake.ids.next())
    out["application_id"] = str(fake.application_id)
    out["version"] = str(fake.ids.next())
    if gid is not None:
        out["guild_id"] = str(gid)
    return out


async def list_commands(req: Req) -> Result:
    return 200, _pool(req, _scope(req))


async def put_commands(req: Req) -> Result:
    gid = _scope(req)
    cmds = req.body or []
    err = _Errors()
    seen: set[tuple[str, int]] = set()
    for i, cmd in enumerate(cmds):
        _validate_command(err, [i], cmd)
        key = (cmd.get("name", ""), cmd.get("type", 1))
        if key in seen:
            err.add([i], "APPLICATION_COMMANDS_DUPLICATE_NAME", "Duplicate name")
        seen.add(key)
    if err.tree:
        raise ApiError(400, 50035, "Invalid Form Body", err.tree)
    old = {(c["name"], c["type"]): c for c in _pool(req, gid)}
    new = [_store(req, gid, c, old.get((c["name"], c.get("type", 1)))) for c in cmds]
    if gid is None:
        req.fake.global_commands = new
    else:
        req.fake.guild_commands[gid] = new
    return 200, new


async def upsert_command(req: Req) -> Result:
    gid = _scope(req)
    cmd = req.body or {}
    err = _Errors()
    _validate_command(err, [], cmd)
    if err.tree:
        raise ApiError(400, 50035, "Invalid Form Body", err.tree)
    pool = _pool(req, gid)
    key = (cmd.get("name"), cmd.get("type", 1))
    for i, old in enumerate(pool):
        if (old["name"], old["type"]) == key:
            pool[i] = _store(req, gid, cmd, old)
            return 200, pool[i]
    pool.append(_store(req, gid, cmd, None))
    return 201, pool[-1]


def _command(req: Req) -> tuple[list[Json], int]:
    pool = _pool(req, _scope(req))
    cid = req.params["command_id"]
    for i, cmd in enumerate(pool):
        if cmd["id"] == cid:
            return pool, i
    raise unknown("application command", UNKNOWN_COMMAND)


async def get_command(req: Req) -> Result:
    pool, i = _command(req)
    return 200, pool[i]


async def edit_command(req: Req) -> Result:
    pool, i = _command(req)
    pool[i] = {**pool[i], **(req.body or {}), "version": str(req.fake.ids.next())}
    return 200, pool[i]


async def delete_command(req: Req) -> Result:
    pool, i = _command(req)
    del pool[i]
    return 204, None


async def command_permissions(req: Req) -> Result:
    _scope(req)
    return 200, []


# -- guilds ------------------------------------------------------------------------------------
def _guild(req: Req) -> Any:
    guild = req.fake.guilds.get(req.int_param("guild_id"))
    if guild is None:
        raise unknown("Guild", UNKNOWN_GUILD)
    return guild


async def get_guild(req: Req) -> Result:
    guild = _guild(req)
    data = guild.payload()
    if req.query.get("with_counts") in ("true", "1"):
        data["approximate_member_count"] = len(guild.members)
        data["approximate_presence_count"] = 0
    return 200, data


async def guild_channels(req: Req) -> Result:
    return 200, [c.payload() for c in _guild(req).channels.values()]


async def guild_roles(req: Req) -> Result:
    return 200, [r.payload() for r in _guild(req).roles.values()]


async def guild_members(req: Req) -> Result:
    guild = _guild(req)
    after = _snowflake(req, "after") or 0
    limit = int(req.query.get("limit", 1))
    members = sorted(guild.members.values(), key=lambda m: m.account.id)
    return 200, [m.payload() for m in members if m.account.id > after][:limit]


async def guild_member(req: Req) -> Result:
    member = _guild(req).members.get(req.int_param("user_id"))
    if member is None:
        raise unknown("Member", UNKNOWN_MEMBER)
    return 200, member.payload()


# -- channels & messages ----------------------------------------------------------------------
async def get_channel(req: Req) -> Result:
    chan = _channel(req)
    _require(req, chan, Perm.VIEW_CHANNEL)
    return 200, chan.payload()


async def create_message(req: Req) -> Result:
    fake, chan = req.fake, _channel(req)
    body = req.body or {}
    if chan.is_dm:
        assert chan.recipient is not None
        if chan.recipient.id in fake.faults.refused_dms:
            raise ApiError(403, CANNOT_DM, "Cannot send messages to this user")
    else:
        _require(req, chan, Perm.VIEW_CHANNEL | Perm.SEND_MESSAGES)
        if req.uploads:
            _require(req, chan, Perm.ATTACH_FILES)
    validate_message(body, len(req.uploads), creating=True)
    nonce = body.get("nonce")
    if nonce is not None and len(str(nonce)) > NONCE_LENGTH:
        raise ApiError(
            400,
            50035,
            "Invalid Form Body",
            {"nonce": {"_errors": [{"code": "NONCE_TYPE_INVALID"}]}},
        )
    key = (chan.id, str(nonce))
    if nonce is not None and body.get("enforce_nonce"):  # the same send again: the same message
        seen = fake.nonces.get(key)
        if seen is not None and not seen.deleted and time.time() - seen.created_at < NONCE_SECONDS:
            return 200, seen.payload()
    body = {**body, "flags": (body.get("flags") or 0) & ~FakeMessage.EPHEMERAL}
    atts = _uploads(req, chan.id, body)
    mtype = 19 if body.get("message_reference") else 0
    msg = fake.post_message(chan, fake.bot_user, body, atts, mtype=mtype)
    if nonce is not None and body.get("enforce_nonce"):
        fake.nonces[key] = msg
    return 200, msg.payload()


async def history(req: Req) -> Result:
    chan = _channel(req)
    _require(req, chan, Perm.VIEW_CHANNEL | Perm.READ_MESSAGE_HISTORY)
    limit = max(1, min(100, int(req.query.get("limit", 50))))
    msgs = chan.history
    before, after, around = (_snowflake(req, k) for k in ("before", "after", "around"))
    if around is not None:
        older = [m for m in msgs if m.id <= around][-(limit // 2 + 1) :]
        newer = [m for m in msgs if m.id > around][: limit - len(older)]
        msgs = older + newer
    elif after is not None:
        msgs = [m for m in msgs if m.id > after][:limit]
    else:
        if before is not None:
            msgs = [m for m in msgs if m.id < before]
        msgs = msgs[-limit:]
    return 200, [m.payload() for m in reversed(msgs)]


async def get_message(req: Req) -> Result:
    chan = _channel(req)
    _require(req, chan, Perm.VIEW_CHANNEL | Perm.READ_MESSAGE_HISTORY)
    return 200, _message(req, chan).payload()


async def edit_message(req: Req) -> Result:
    chan = _channel(req)
    msg = _message(req, chan)
    if msg.author is not req.fake.bot_user:
        raise ApiError(403, 50005, "Cannot edit a message authored by another user")
    body = req.body or {}
    validate_message(body, len(req.uploads), creating=False)
    req.fake.edit_message(msg, body, _uploads(req, chan.id, body))
    return 200, msg.payload()


async def delete_message(req: Req) -> Result:
    chan = _channel(req)
    msg = _message(req, chan)
    if msg.author is not req.fake.bot_user:
        _require(req, chan, Perm.MANAGE_MESSAGES)
    req.fake.delete_message(msg)
    return 204, None


async def bulk_delete(req: Req) -> Result:
    chan = _channel(req)
    _require(req, chan, Perm.MANAGE_MESSAGES)
    for mid in (req.body or {}).get("messages", []):
        msg = chan.messages.get(int(mid))
        if msg is not None and not msg.deleted:
            req.fake.delete_message(msg)
    return 204, None


async def no_content(req: Req) -> Result:
    _channel(req)
    return 204, None


# -- interactions ------------------------------------------------------------------------------
def _unknown_interaction(ix: ixmod.InteractionResult | None) -> ApiError:
    err = ApiError(404, UNKNOWN_INTERACTION, "Unknown interaction")
    if ix is not None:
        ix.expired = True
        ix.errors.append(err.body())
        ix.changed()
    return err


async def callback(req: Req) -> Result:
    fake = req.fake
    ix = fake.interactions.get(req.params["token"])
    if ix is None or str(ix.id) != req.params["interaction_id"]:
        raise _unknown_interaction(None)
    deadline = fake.interaction_deadline
    if ix.slow:
        wait = (deadline or 3.0) + 0.05 - (time.monotonic() - ix.created_at)
        await asyncio.sleep(max(0.0, wait))
        raise _unknown_interaction(ix)
    if (
        ix.callback_type is None
        and deadline is not None
        and time.monotonic() - ix.created_at > deadline
    ):
        raise _unknown_interaction(ix)
    if ix.callback_type is not None:
        ix.errors.append({"code": ALREADY_ACKED})
        raise ApiError(400, ALREADY_ACKED, "Interaction has already been acknowledged.")
    body = req.body or {}
    ctype, data = body.get("type"), body.get("data") or {}
    if ctype not in ixmod.ALLOWED_CALLBACKS[ix.type] or (
        ctype == ixmod.UPDATE_MESSAGE and ix.source is None
    ):
        errors = {
            "type": {
                "_errors": [{"code": "INTERACTION_RESPONSE_TYPE_INVALID", "message": "Invalid"}]
            }
        }
        raise ApiError(400, 50035, "Invalid Form Body", errors)
    if ctype in (ixmod.CHANNEL_MESSAGE, ixmod.UPDATE_MESSAGE):
        validate_message(data, len(req.uploads), creating=ctype == ixmod.CHANNEL_MESSAGE)
    bot = fake.bot_user
    mtype = 20 if ix.type == ixmod.APP_COMMAND else 0
    if ctype == ixmod.CHANNEL_MESSAGE:
        atts = _uploads(req, ix.channel.id, data)
        ix.message = fake.post_message(
            ix.channel, bot, data, atts, webhook=True, interaction=ix, mtype=mtype
        )
    elif ctype == ixmod.DEFERRED_MESSAGE:
        flags = FakeMessage.LOADING | ((data.get("flags") or 0) & FakeMessage.EPHEMERAL)
        ix.message = fake.post_message(
            ix.channel, bot, {}, [], webhook=True, interaction=ix, extra_flags=flags, mtype=mtype
        )
    elif ctype == ixmod.UPDATE_MESSAGE:
        assert ix.source is not None
        fake.edit_message(ix.source, data, _uploads(req, ix.channel.id, data))
    elif ctype == ixmod.AUTOCOMPLETE_RESULT:
        ix.choices = data.get("choices", [])
    elif ctype == ixmod.MODAL:
        ix.modal = data
    ix.callback_type, ix.callback_data = ctype, data
    if ix.message is not None:
        fake.link(ix, ix.message)
    ix.changed()
    if req.query.get("with_response") not in ("1", "true", "True"):
        return 204, None
    msg = ix.message if ctype in (4, 5, 7) else None
    resource: Json = {"type": ctype}
    if msg is not None:
        resource["message"] = msg.payload()
    return 200, {
        "interaction": {
            "id": str(ix.id),
            "type": ix.type,
            "activity_instance_id": None,
            "response_message_id": str(msg.id) if msg else None,
            "response_message_loading": ctype == ixmod.DEFERRED_MESSAGE,
            "response_message_ephemeral": bool(msg and msg.ephemeral),
        },
        "resource": resource,
    }


def _webhook_ix(req: Req) -> ixmod.InteractionResult:
    ix = req.fake.interactions.get(req.params["token"])
    if ix is None or req.int_param("app_id") != req.fake.application_id or ix.callback_type is None:
        raise unknown("Webhook", UNKNOWN_WEBHOOK)
    return ix


def _webhook_message(req: Req, ix: ixmod.InteractionResult) -> FakeMessage:
    mid = req.params["message_id"]
    if mid == "@original":
        msg = ix.message
    else:
        wanted = req.int_param("message_id")
        candidates = ([ix.message] if ix.message else []) + ix.followups
        msg = next((m for m in candidates if m.id == wanted), None)
    if msg is None or msg.deleted:
        raise unknown("Message", UNKNOWN_MESSAGE)
    return msg


async def followup(req: Req) -> Result:
    fake, ix = req.fake, _webhook_ix(req)
    body = req.body or {}
    validate_message(body, len(req.uploads), creating=True)
    atts = _uploads(req, ix.channel.id, body)
    original = ix.message
    if ix.callback_type == ixmod.DEFERRED_MESSAGE and original is not None and original.loading:
        # Discord: the first follow-up after a "thinking" defer replaces the loading message.
        msg = fake.edit_message(original, body, atts)
    else:
        msg = fake.post_message(ix.channel, fake.bot_user, body, atts, webhook=True, interaction=ix)
        ix.followups.append(msg)
    fake.link(ix, msg)
    ix.changed()
    if req.query.get("wait") in ("true", "1", "True"):
        return 200, msg.payload()
    return 204, None


async def webhook_get(req: Req) -> Result:
    return 200, _webhook_message(req, _webhook_ix(req)).payload()


async def webhook_edit(req: Req) -> Result:
    ix = _webhook_ix(req)
    msg = _webhook_message(req, ix)
    body = req.body or {}
    validate_message(body, len(req.uploads), creating=False)
    req.fake.edit_message(msg, body, _uploads(req, msg.channel.id, body))
    return 200, msg.payload()


async def webhook_delete(req: Req) -> Result:
    msg = _webhook_message(req, _webhook_ix(req))
    req.fake.delete_message(msg)
    return 204, None


def register(r: Router) -> None:
    r.add("GET", "/users/@me", me)
    r.add("POST", "/users/@me/channels", create_dm)
    r.add("GET", "/users/{user_id}", get_user)
    r.add("GET", "/oauth2/applications/@me", app_info)
    r.add("GET", "/applications/@me", app_info)
    r.add("GET", "/gateway", gateway, auth=False)
    r.add("GET", "/gateway/bot", gateway_bot)
    for scope in (
        "/applications/{app_id}/commands",
        "/applications/{app_id}/guilds/{guild_id}/commands",
    ):
        r.add("GET", f"{scope}/permissions", command_permissions)
        r.add("GET", scope, list_commands)
        r.add("PUT", scope, put_commands)
        r.add("POST", scope, upsert_command)
        r.add("GET", scope + "/{command_id}", get_command)
        r.add("PATCH", scope + "/{command_id}", edit_command)
        r.add("DELETE", scope + "/{command_id}", delete_command)
    r.add("GET", "/guilds/{guild_id}", get_guild)
    r.add("GET", "/guilds/{guild_id}/channels", guild_channels)
    r.add("GET", "/guilds/{guild_id}/roles", guild_roles)
    r.add("GET", "/guilds/{guild_id}/members", guild_members)
    r.add("GET", "/guilds/{guild_id}/members/{user_id}", guild_member)
    r.add("GET", "/channels/{channel_id}", get_channel)
    r.add("GET", "/channels/{channel_id}/messages", history)
    r.add("POST", "/channels/{channel_id}/messages", create_message)
    r.add("POST", "/channels/{channel_id}/messages/bulk-delete", bulk_delete)
    r.add("GET", "/channels/{channel_id}/messages/{message_id}", get_message)
    r.add("PATCH", "/channels/{channel_id}/messages/{message_id}", edit_message)
    r.add("DELETE", "/channels/{channel_id}/messages/{message_id}", delete_message)
    r.add("POST", "/channels/{channel_id}/typing", no_content)
    reaction = "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/{who}"
    r.add("PUT", reaction, no_content)
    r.add("DELETE", reaction, no_content)
    r.add("POST", "/interactions/{interaction_id}/{token}/callback", callback, auth=False)
    r.add("POST", "/webhooks/{app_id}/{token}", followup, auth=False)
    hook_msg = "/webhooks/{app_id}/{token}/messages/{message_id}"
    r.add("GET", hook_msg, webhook_get, auth=False)
    r.add("PATCH", hook_msg, webhook_edit, auth=False)
    r.add("DELETE", hook_msg, webhook_delete, auth=False)
