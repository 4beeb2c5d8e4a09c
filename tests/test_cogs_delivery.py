"""Best-effort delivery (cogs/delivery.py): a Discord refusal is logged once and handed
back, never raised; what the caller must act on (DMs closed) reads from the outcome."""

from __future__ import annotations

import ast
import logging
from pathlib import Path
from unittest.mock import AsyncMock, MagicMock

import discord
import pytest

from cogs.delivery import DM_CLOSED, attempt, send_to
from tests.cog_helpers import http_error


def forbidden(code: int) -> discord.Forbidden:
    response = MagicMock(status=403, reason="Forbidden")
    return discord.Forbidden(response, {"code": code, "message": "no"})


async def fails(error: Exception) -> None:
    raise error


async def test_a_delivered_message_is_the_outcomes_value(caplog) -> None:
    async def sent() -> str:
        return "message"

    with caplog.at_level(logging.DEBUG):
        outcome = await attempt(sent(), "table %s: not sent", 7)
    assert outcome.ok and outcome.value == "message" and outcome.error is None
    assert not caplog.records


async def test_a_refusal_is_logged_once_at_its_level_and_returned(caplog) -> None:
    error = http_error()
    with caplog.at_level(logging.DEBUG):
        outcome = await attempt(fails(error), "table %s: not sent", 7, level=logging.INFO)
    assert not outcome.ok and outcome.error is error and outcome.value is None
    (record,) = caplog.records
    assert record.levelno == logging.INFO and record.getMessage() == "table 7: not sent"
    assert record.exc_info is None
    with caplog.at_level(logging.DEBUG):
        caplog.clear()
        await attempt(fails(error), "table %s: lost", 8, level=logging.ERROR, trace=True)
    (record,) = caplog.records
    assert record.levelno == logging.ERROR and record.exc_info[1] is error


async def test_without_a_failure_text_the_caller_logs(caplog) -> None:
    with caplog.at_level(logging.DEBUG):
        outcome = await attempt(fails(forbidden(DM_CLOSED)))
    assert outcome.dm_refused and not caplog.records


@pytest.mark.parametrize(
    ("error", "refused"),
    [(forbidden(DM_CLOSED), True), (forbidden(50001), True), (http_error(), False)],
)
async def test_dms_refused_are_told_apart_from_other_failures(error, refused) -> None:
    assert (await attempt(fails(error))).dm_refused is refused


async def test_what_is_not_discords_answer_propagates() -> None:
    with pytest.raises(KeyError):
        await attempt(fails(KeyError("bug")), "never logged")


async def test_send_to_opens_the_channel_first_and_its_refusal_counts() -> None:
    channel = MagicMock()
    channel.send = AsyncMock(return_value="message")

    async def opened() -> MagicMock:
        return channel

    assert (await attempt(send_to(opened(), content="hi"))).value == "message"
    channel.send.assert_awaited_once_with(content="hi")

    async def refused() -> MagicMock:
        raise forbidden(DM_CLOSED)

    assert (await attempt(send_to(refused(), content="hi"))).dm_refused


# --- one place for each thing -----------------------------------------------------------------

COGS = sorted(Path(__file__).resolve().parent.parent.joinpath("cogs").rglob("*.py"))


def _found(node_test) -> list[str]:
    found = []
    for path in COGS:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [
            f"{path.parent.name}/{path.name}:{n.lineno}" for n in ast.walk(tree) if node_test(n)
        ]
    return found


def test_only_the_delivery_helper_catches_discords_refusals() -> None:
    def catches_http(node: ast.AST) -> bool:
        return isinstance(node, ast.ExceptHandler) and "HTTPException" in ast.unparse(
            node.type or ast.Constant(None)
        )

    found = _found(catches_http)
    assert any(f.startswith("cogs/delivery.py") for f in found)  # the scan sees them
    assert [f for f in found if not f.startswith("cogs/delivery.py")] == []


def test_only_the_screens_build_embeds_and_files() -> None:
    def builds(node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and ast.unparse(node.func) in (
            "discord.Embed",
            "discord.File",
        )

    found = _found(builds)
    assert any(f.startswith("screens/") for f in found)  # the scan sees them
    assert [f for f in found if not f.startswith("screens/")] == []
