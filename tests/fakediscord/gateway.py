"""Fake gateway: HELLO / IDENTIFY / READY / heartbeats / RESUME with replay / op 7 / op 9.

Sharding as Discord does it: an IDENTIFY with ``shard: [i, n]`` makes a session of shard
``i`` of ``n``; a guild's events go only to the sessions of shard ``(guild_id >> 22) % n``,
events without a guild (DMs) only to shard 0, and READY lists the shard's guilds only. An
IDENTIFY without ``shard`` is shard ``[0, 1]``, which gets everything. A shard outside its
count is closed with 4010, as Discord does. Each session has its own connection, sequence,
heartbeats and RESUME, so a client's several shards live side by side.

Plain JSON text frames (discord.py asks for zlib-stream but decodes text frames as-is).
Each session keeps a bounded buffer of its dispatches so a RESUME can replay what the client
missed. Outgoing frames go through one queue per connection, so sequence order is kept.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections import deque
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

if TYPE_CHECKING:
    from .fake import FakeDiscord

log = logging.getLogger("fakediscord.gateway")
Json = dict[str, Any]

DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE, VOICE, RESUME, RECONNECT = 0, 1, 2, 3, 4, 6, 7
REQUEST_MEMBERS, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 8, 9, 10, 11
MESSAGE_CONTENT = 1 << 15
INVALID_SHARD = 4010


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard Discord sends a guild's events to; DMs (no guild) go to shard 0."""
    return ((guild_id or 0) >> 22) % shard_count


def _shard(value: Any) -> tuple[int, int] | None:
    """IDENTIFY's ``shard`` as ``(shard_id, shard_count)``; None if Discord would refuse it."""
    if value is None:
        return (0, 1)
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    shard_id, count = value
    if not (isinstance(shard_id, int) and isinstance(count, int)):
        return None
    return (shard_id, count) if 0 <= shard_id < count else None


class Connection:
    """One websocket. Frames are queued and written by a single writer task."""

    def __init__(self, ws: web.WebSocketResponse, request: web.Request) -> None:
        self.ws = ws
        self.request = request
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.session: Session | None = None
        self.closed = False

    @property
    def shard(self) -> tuple[int, int] | None:
        """``(shard_id, shard_count)`` of the session on this websocket (None before it)."""
        return self.session.shard if self.session is not None else None

    def send(self, frame: Json) -> None:
        if not self.closed:
            self.queue.put_nowait(json.dumps(frame, separators=(",", ":")))

    async def writer(self) -> None:
        while True:
            item = await self.queue.get()
            if item is None or self.ws.closed:
                return
            try:
                await self.ws.send_str(item)
            except (ConnectionError, RuntimeError):
                return

    async def close(self, code: int = 4000, *, hard: bool = False) -> None:
        self.closed = True
        self.queue.put_nowait(None)
        if hard:
            transport = self.request.transport
            if transport is not None:
                transport.abort()
            return
        await self.ws.close(code=code)


class Session:
    """A gateway session: survives its websocket until invalidated (for RESUME)."""

    def __init__(
        self, fake: FakeDiscord, intents: int, shard: tuple[int, int], buffer_size: int
    ) -> None:
        self.fake = fake
        self.id = secrets.token_hex(16)
        self.intents = intents
        self.shard = shard
        self.seq = 0
        self.buffer: deque[tuple[int, str]] = deque(maxlen=buffer_size)
        self.conn: Connection | None = None
        self.invalid = False

    def wants(self, guild_id: int | None, intent: int | None) -> bool:
        if self.invalid:
            return False
        if intent is not None and not self.intents & intent:
            return False
        shard_id, count = self.shard
        return shard_of(guild_id, count) == shard_id

    def dispatch(self, event: str, data: Json) -> None:
        self.seq += 1
        frame = json.dumps({"op": DISPATCH, "t": event, "s": self.seq, "d": data})
        self.buffer.append((self.seq, frame))
        if self.conn is not None and not self.conn.closed:
            self.conn.queue.put_nowait(frame)

    def can_resume_from(self, seq: int | None) -> bool:
        if self.invalid or seq is None:
            return False
        if seq >= self.seq:
            return True
        return bool(self.buffer) and self.buffer[0][0] <= seq + 1

    def attach(self, conn: Connection, from_seq: int | None) -> int:
        """Bind ``conn``; replay buffered dispatches after ``from_seq``. Returns count."""
        self.conn = conn
        conn.session = self
        replayed = 0
        if from_seq is not None:
            for seq, frame in self.buffer:
                if seq > from_seq:
                    conn.queue.put_nowait(frame)
                    replayed += 1
        return replayed


class Gateway:
    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.sessions: list[Session] = []
        self.connections: list[Connection] = []
        self.identifies = 0
        self.resumes = 0
        self.replayed = 0
        self.received: list[Json] = []  # every non-heartbeat frame the client sent
        self.queries: list[dict[str, str]] = []  # query string of every websocket connect
        self.ack_heartbeats = True

    # -- public controls ----------------------------------------------------------------------
    def live_sessions(self) -> list[Session]:
        return [s for s in self.sessions if not s.invalid]

    def connected(self) -> list[Connection]:
        return [c for c in self.connections if not c.closed and c.session is not None]

    def shard_connections(self, shard_id: int) -> list[Connection]:
        """The connected websockets whose session is shard ``shard_id`` (of any count)."""
        return [c for c in self.connected() if c.shard is not None and c.shard[0] == shard_id]

    async def drop(self, *, hard: bool = True, code: int = 4000) -> int:
        """Drop every connected websocket (abort the TCP stream, or close with ``code``)."""
        conns = self.connected()
        for conn in conns:
            await conn.close(code, hard=hard)
        return len(conns)

    def request_reconnect(self) -> int:
        """Send op 7 RECONNECT on every connection (the client closes and resumes)."""
        conns = self.connected()
        for conn in conns:
            conn.send({"op": RECONNECT, "d": None})
        return len(conns)

    def invalidate(self, *, resumable: bool = False) -> int:
        """Send op 9 INVALID_SESSION; with ``resumable=False`` the sessions are discarded."""
        conns = self.connected()
        for conn in conns:
            if not resumable and conn.session is not None:
                conn.session.invalid = True
            conn.send({"op": INVALID_SESSION, "d": resumable})
        return len(conns)

    def dispatch(
        self,
        event: str,
        data: Json,
        guild_id: int | None,
        intent: int | None,
        private_content: bool = False,
        shard: int | None = None,
    ) -> None:
        """``private_content``: strip content for sessions without the MESSAGE_CONTENT intent.
        ``shard``: to that shard's sessions instead of the ones Discord would pick (a test's
        way to have the same click reach another bot process)."""
        stripped: Json | None = None
        for session in self.sessions:
            if shard is not None:
                if session.invalid or session.shard[0] != shard:
                    continue
            elif not session.wants(guild_id, intent):
                continue
            if private_content and not session.intents & MESSAGE_CONTENT:
                if stripped is None:
                    stripped = {**data, "content": "", "embeds": [], "attachments": []}
                    stripped["components"] = []
                session.dispatch(event, stripped)
            else:
                session.dispatch(event, data)

    # -- websocket handler --------------------------------------------------------------------
    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        self.queries.append(dict(request.query))
        if request.query.get("encoding", "json") != "json":
            await ws.close(code=4002, message=b"Only encoding=json is supported")
            return ws
        if request.query.get("v", "10") not in ("9", "10"):
            await ws.close(code=4012, message=b"Invalid API version")
            return ws
        conn = Connection(ws, request)
        self.connections.append(conn)
        writer = asyncio.create_task(conn.writer())
        interval = int(self.fake.heartbeat_interval * 1000)
        conn.send({"op": HELLO, "d": {"heartbeat_interval": interval}})
        try:
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    await self._on_frame(conn, json.loads(msg.data))
                elif msg.type in (WSMsgType.ERROR, WSMsgType.CLOSE):
                    break
        except ConnectionError:
            pass
        finally:
            conn.closed = True
            conn.queue.put_nowait(None)
            if conn.session is not None and conn.session.conn is conn:
                conn.session.conn = None
            self.connections.remove(conn)
            writer.cancel()
        return ws

    async def _on_frame(self, conn: Connection, frame: Json) -> None:
        op, data = frame.get("op"), frame.get("d")
        if op == HEARTBEAT:
            if self.ack_heartbeats:  # False simulates a zombie connection
                conn.send({"op": HEARTBEAT_ACK})
            return
        self.received.append(frame)
        if op == IDENTIFY:
            await self._identify(conn, data)
        elif op == RESUME:
            await self._resume(conn, data)
        elif op == REQUEST_MEMBERS:
            self._members_chunk(conn, data)
        elif op in (PRESENCE, VOICE):
            pass
        else:
            log.warning("fake gateway: unknown op %s", op)

    async def _identify(self, conn: Connection, data: Json) -> None:
        fake = self.fake
        if data.get("token") != fake.token:
            await conn.close(4004)
            return
        shard = _shard(data.get("shard"))
        if shard is None:
            await conn.close(INVALID_SHARD)
            return
        # A re-IDENTIFY (e.g. a restarted bot process) retires disconnected old sessions of
        # its shard, and of every shard when the count changed (the bot was resharded).
        for old in self.sessions:
            if (old.shard[0] == shard[0] or old.shard[1] != shard[1]) and (
                old.conn is None or old.conn.closed
            ):
                old.invalid = True
        self.sessions = [s for s in self.sessions if not s.invalid]
        session = Session(fake, int(data.get("intents", 0)), shard, fake.buffer_size)
        self.sessions.append(session)
        session.attach(conn, None)
        self.identifies += 1
        guilds = [g for g in fake.guilds.values() if session.wants(g.id, None)]
        session.dispatch(
            "READY",
            {
                "v": 10,
                "user": fake.bot_user_payload(),
                "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
                "session_id": session.id,
                "resume_gateway_url": fake.gateway_url,
                "shard": list(shard),
                "application": {"id": str(fake.application_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "user_settings": {},
                "session_type": "normal",
                "auth_session_id_hash": "",
                "_trace": ["fakediscord"],
            },
        )
        for guild in guilds:
            session.dispatch("GUILD_CREATE", guild.create_payload())

    async def _resume(self, conn: Connection, data: Json) -> None:
        fake = self.fake
        session = next((s for s in self.sessions if s.id == data.get("session_id")), None)
        if (
            session is None
            or data.get("token") != fake.token
            or not session.can_resume_from(data.get("seq"))
        ):
            conn.send({"op": INVALID_SESSION, "d": False})
            return
        if session.conn is not None and session.conn is not conn:
            await session.conn.close(4000)
        self.resumes += 1
        self.replayed += session.attach(conn, data.get("seq"))
        session.dispatch("RESUMED", {"_trace": ["fakediscord"]})

    def _members_chunk(self, conn: Connection, data: Json) -> None:
        session = conn.session
        guild = self.fake.guilds.get(int(data["guild_id"]))
        if session is None or guild is None:
            return
        members = list(guild.members.values())
        query = data.get("query")
        if query:
            members = [m for m in members if m.account.name.startswith(query)]
        if data.get("user_ids"):
            wanted = {int(u) for u in data["user_ids"]}
            members = [m for m in members if m.account.id in wanted]
        limit = data.get("limit") or 0
        if limit:
            members = members[:limit]
        chunk: Json = {
            "guild_id": str(guild.id),
            "members": [m.payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    async def close_all(self) -> None:
        for conn in list(self.connections):
            await conn.close(1001)
