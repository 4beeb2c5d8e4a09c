"""Discord API errors and message-body validation (limits that real Discord enforces)."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]


class ApiError(Exception):
    """An error answer with Discord's JSON shape ``{"code", "message"[, "errors"]}``."""

    def __init__(self, status: int, code: int, message: str, errors: Json | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status, self.code, self.message, self.errors = status, code, message, errors

    def body(self) -> Json:
        data: Json = {"code": self.code, "message": self.message}
        if self.errors:
            data["errors"] = self.errors
        return data


def unknown(what: str, code: int) -> ApiError:
    return ApiError(404, code, f"Unknown {what}")


UNKNOWN_CHANNEL, UNKNOWN_MESSAGE, UNKNOWN_USER, UNKNOWN_WEBHOOK = 10003, 10008, 10013, 10015
UNKNOWN_GUILD, UNKNOWN_MEMBER, UNKNOWN_INTERACTION, UNKNOWN_COMMAND = 10004, 10007, 10062, 10063
MISSING_ACCESS, CANNOT_DM, MISSING_PERMISSIONS, ALREADY_ACKED = 50001, 50007, 50013, 40060


class _Errors:
    def __init__(self) -> None:
        self.tree: Json = {}

    def add(self, path: list[str | int], code: str, message: str) -> None:
        node = self.tree
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def max_len(self, path: list[str | int], value: Any, limit: int) -> None:
        if isinstance(value, str) and len(value) > limit:
            self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def _check_embed(err: _Errors, i: int, emb: Json) -> int:
    base: list[str | int] = ["embeds", i]
    total = 0
    for key, limit in (("title", 256), ("description", 4096)):
        err.max_len([*base, key], emb.get(key), limit)
        total += len(emb.get(key) or "")
    fields = emb.get("fields") or []
    if len(fields) > 25:
        err.add([*base, "fields"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    for j, fld in enumerate(fields):
        for key, limit in (("name", 256), ("value", 1024)):
            val = fld.get(key)
            if not val:
                err.add([*base, "fields", j, key], "BASE_TYPE_REQUIRED", "This field is required")
            err.max_len([*base, "fields", j, key], val, limit)
            total += len(val or "")
    footer = (emb.get("footer") or {}).get("text")
    err.max_len([*base, "footer", "text"], footer, 2048)
    author = (emb.get("author") or {}).get("name")
    err.max_len([*base, "author", "name"], author, 256)
    return total + len(footer or "") + len(author or "")


def _check_components(err: _Errors, comps: list[Json]) -> None:
    seen: set[str] = set()

    def visit(path: list[str | int], comp: Json) -> None:
        ctype = comp.get("type")
        cid = comp.get("custom_id")
        if cid is not None:
            err.max_len([*path, "custom_id"], cid, 100)
            if cid in seen:
                err.add([*path, "custom_id"], "COMPONENT_CUSTOM_ID_DUPLICATED", "Duplicate")
            seen.add(cid)
        if ctype == 2:
            err.max_len([*path, "label"], comp.get("label"), 80)
            if not comp.get("label") and not comp.get("emoji"):
                err.add(path, "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED", "Label or emoji needed")
        if ctype == 3:
            opts = comp.get("options") or []
            if not 1 <= len(opts) <= 25:
                err.add([*path, "options"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 25.")
            for k, opt in enumerate(opts):
                err.max_len([*path, "options", k, "label"], opt.get("label"), 100)
                err.max_len([*path, "options", k, "value"], opt.get("value"), 100)
        if ctype == 1:
            children = comp.get("components") or []
            if not 1 <= len(children) <= 5:
                err.add([*path, "components"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5.")
        for k, child in enumerate(comp.get("components") or []):
            visit([*path, "components", k], child)
        if "accessory" in comp:
            visit([*path, "accessory"], comp["accessory"])

    for i, comp in enumerate(comps):
        visit(["components", i], comp)


def validate_message(body: Json, n_files: int, *, creating: bool) -> None:
    """Raise ApiError 50006/50035 like Discord does for bad message bodies."""
    err = _Errors()
    err.max_len(["content"], body.get("content"), 2000)
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        err.add(["embeds"], "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    total = sum(_check_embed(err, i, e) for i, e in enumerate(embeds))
    if total > 6000:
        err.add(["embeds"], "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")
    comps = body.get("components") or []
    v2 = bool((body.get("flags") or 0) & (1 << 15))
    if len(comps) > (40 if v2 else 5):
        err.add(["components"], "BASE_TYPE_MAX_LENGTH", "Too many components.")
    _check_components(err, comps)
    if err.tree:
        raise ApiError(400, 50035, "Invalid Form Body", err.tree)
    if creating and not (
        body.get("content")
        or embeds
        or comps
        or n_files
        or body.get("sticker_ids")
        or body.get("poll")
    ):
        raise ApiError(400, 50006, "Cannot send an empty message")
