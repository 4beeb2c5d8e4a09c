"""aiohttp app: the REST API under /api/v10, the gateway at /gateway, attachment downloads.

Every API request is recorded (``FakeDiscord.requests``). Route faults are applied before
routing; the rate limits (``limits.py``) after it, before the route's handler. Unknown
routes answer 404 JSON and are recorded with ``unknown_route=True``.
Responses carry ``Content-Type: application/json`` exactly (discord.py compares it verbatim).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import BodyPartReader, web

from . import rest
from .validate import ApiError

if TYPE_CHECKING:
    from .fake import FakeDiscord

Json = dict[str, Any]


@dataclass(eq=False)
class Upload:
    field: str
    filename: str
    data: bytes
    content_type: str | None

    @property
    def index(self) -> int:
        match = re.search(r"\[(\d+)\]", self.field)
        return int(match.group(1)) if match else 0


@dataclass(eq=False)
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    json: Any
    files: list[str]
    at: float
    status: int = 0
    response: Any = None
    unknown_route: bool = False
    fault: str | None = None
    limited: str | None = None  # refused by the rate limits: "user" (a route's) or "global"
    headers: dict[str, str] = field(default_factory=dict)  # the rate limits' answer headers

    @property
    def error_code(self) -> int | None:
        return self.response.get("code") if isinstance(self.response, dict) else None


@dataclass(eq=False)
class Req:
    fake: FakeDiscord
    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    body: Any
    uploads: list[Upload] = field(default_factory=list)

    def int_param(self, name: str) -> int:
        try:
            return int(self.params[name])
        except ValueError:
            raise ApiError(404, 0, "404: Not Found") from None


Handler = Callable[[Req], Awaitable[tuple[int, Any]]]


class Router:
    def __init__(self) -> None:
        self._routes: dict[str, list[tuple[re.Pattern[str], Handler, bool]]] = {}

    def add(self, method: str, pattern: str, handler: Handler, *, auth: bool = True) -> None:
        regex = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern)
        self._routes.setdefault(method, []).append((re.compile(f"^{regex}$"), handler, auth))

    def match(self, method: str, path: str) -> tuple[Handler, dict[str, str], bool] | None:
        for regex, handler, auth in self._routes.get(method, []):
            m = regex.match(path)
            if m:
                return handler, m.groupdict(), auth
        return None


def json_response(status: int, data: Any, headers: dict[str, str] | None = None) -> web.Response:
    if status == 204 or data is None:
        return web.Response(status=204 if status < 300 else status, headers=headers)
    hdrs = {"Content-Type": "application/json"}
    hdrs.update(headers or {})
    return web.Response(status=status, body=json.dumps(data).encode(), headers=hdrs)


async def _read_body(request: web.Request) -> tuple[Any, list[Upload]]:
    if not request.body_exists:
        return None, []
    # the raw header: aiohttp's content_type property parses it with the (slow) email package
    if request.headers.get("Content-Type", "").startswith("multipart/"):
        payload: Any = None
        uploads: list[Upload] = []
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader):
                continue
            if part.name == "payload_json":
                payload = json.loads(await part.text())
            elif part.filename is not None:
                blob = bytes(await part.read())
                ctype = part.headers.get("Content-Type")
                uploads.append(Upload(part.name or "", part.filename, blob, ctype))
        return payload, uploads
    raw = await request.read()
    return (json.loads(raw) if raw else None), []


def build_app(fake: FakeDiscord) -> web.Application:
    router = Router()
    rest.register(router)
    app = web.Application(client_max_size=64 * 1024 * 1024)

    async def api(request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        method = request.method
        try:
            body, uploads = await _read_body(request)
        except ValueError:
            return json_response(
                400, {"code": 50109, "message": "The request body contains invalid JSON."}
            )
        rec = RecordedRequest(
            method, path, dict(request.query), body, [u.filename for u in uploads], time.time()
        )
        fake.requests.append(rec)
        stall = fake.faults.take_stall(method, path)
        if stall is not None and not stall.landed:  # in flight (a test kills the bot meanwhile)
            rec.fault = "stall"
            if not await stall.hold():
                rec.status, rec.response = 500, {"code": 0, "message": "dropped in flight"}
                return json_response(500, rec.response)
        fault = fake.faults.take_route_fault(method, path)
        if fault is not None:
            status, data, headers = fault.response()
            rec.status, rec.response, rec.fault = status, data, f"{status}"
            return json_response(status, data, headers)
        found = router.match(method, path)
        if found is None:
            rec.unknown_route = True
            rec.status, rec.response = 404, {"code": 0, "message": "404: Not Found"}
            return json_response(404, rec.response)
        handler, params, auth = found
        bot_token = request.headers.get("Authorization") == f"Bot {fake.token}"
        if auth and not bot_token:
            rec.status, rec.response = 401, {"code": 0, "message": "401: Unauthorized"}
            return json_response(401, rec.response)
        verdict = fake.limiter.check(method, path, bot_token)
        rec.headers = verdict.headers
        if verdict.refused is not None:
            rec.status, rec.response, rec.limited = 429, verdict.refused, verdict.scope
            return json_response(429, rec.response, verdict.headers)
        req = Req(fake, method, path, params, dict(request.query), body, uploads)
        try:
            status, data = await handler(req)
        except ApiError as exc:
            status, data = exc.status, exc.body()
        rec.status, rec.response = status, data
        if stall is not None and stall.landed:  # done; its answer is what stays in flight
            rec.fault = "stall"
            if not await stall.hold():
                return json_response(500, {"code": 0, "message": "dropped in flight"})
        return json_response(status, data, verdict.headers)

    async def attachment(request: web.Request) -> web.StreamResponse:
        att = fake.attachments.get(int(request.match_info["aid"]))
        if att is None:
            return json_response(404, {"code": 0, "message": "404: Not Found"})
        ctype = att.content_type or "application/octet-stream"
        return web.Response(body=att.data, headers={"Content-Type": ctype})

    async def cdn(request: web.Request) -> web.Response:
        return json_response(404, {"code": 0, "message": "404: Not Found"})

    app.router.add_route("*", r"/api/v{version:\d+}/{tail:.*}", api)
    app.router.add_get("/gateway", fake.gateway.handle)
    app.router.add_get("/attachments/{cid}/{aid}/{name}", attachment)
    app.router.add_get("/cdn/{tail:.*}", cdn)
    return app
