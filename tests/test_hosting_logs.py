"""The bot's logs as a service manager keeps them: one line an event on stderr, as text or
``LOG_FORMAT=json``, and never a secret. A ``bot.py`` process at DEBUG on a PostgreSQL
URL with a password plays a round against the fake Discord (one interaction answer
rate-limited, one request failing with 500); its whole log is then searched for the bot
token, every interaction token and the password."""

from __future__ import annotations

import base64
import io
import json
import logging
import re

import pytest
import yarl

from bot import Config, LineFormatter, Redactor, secrets_of
from tests.e2e import play_builder, start_bot_process, stop_bot_process, warung
from tests.fakediscord import FakeDiscord

PASSWORD = "s3cret-Pa55word"


def realistic_token(application_id: int) -> str:
    """A token shaped as Discord's: the application id in base64, a timestamp, a HMAC."""
    first = base64.b64encode(str(application_id).encode()).decode().rstrip("=")
    return f"{first}.GhT2xQ.{'k' * 12}Zq9_-{'w' * 20}"


def with_password(url: str) -> tuple[str, str]:
    """The URL with a password (a server that trusts the user ignores it) and the password."""
    parsed = yarl.URL(url)
    if parsed.password:
        return url, parsed.password
    return str(parsed.with_password(PASSWORD)), PASSWORD


@pytest.mark.parametrize("log_format", ["text", "json"])
async def test_no_secret_in_any_log_line(fake_discord: FakeDiscord, pg_url, tmp_path, log_format):
    fake = fake_discord
    fake.token = realistic_token(fake.application_id)
    url, password = with_password(pg_url)
    chan, (alice, bob) = warung(fake, "alice", "bob")
    log = tmp_path / "bot.log"
    env = {"DATABASE_URL": url, "LOG_LEVEL": "DEBUG", "LOG_FORMAT": log_format}
    proc = await start_bot_process(fake, tmp_path / "unused.sqlite3", log, env=env, timeout=60)
    try:
        await alice.slash("capsa new", channel=chan, seats=4, rounds=5, timeout=60)
        lobby = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels(), timeout=60)
        # Discord answers one acknowledgement with 429 and one channel post with 500
        fake.faults.rate_limit(re.compile(r"/interactions/\d+/[^/]+/callback$"), times=1)
        fake.faults.server_error(re.compile(rf"/channels/{chan.id}/messages$"), times=1)
        await bob.click(lobby, "Join", timeout=30)
        await alice.click(lobby, "Start", timeout=30)
        await play_builder(alice, await alice.latest_dm(timeout=60))
        await play_builder(bob, await bob.latest_dm(timeout=60))
        await fake.wait_for_message(chan, lambda m: "Showdown · round 1/5" in m.text(), timeout=60)
    finally:
        await stop_bot_process(proc, grace=10)

    text = log.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) > 50, "DEBUG logs every request"
    assert fake.interactions, "the run had interactions"
    secrets = {"the bot token": fake.token, "the database password": password}
    secrets |= {f"interaction token {t[:10]}…": t for t in fake.interactions}
    for what, secret in secrets.items():
        assert secret not in text, f"{what} is in the log"
    # the parts of the token too: its HMAC part, and the id part's base64
    assert fake.token.split(".")[2] not in text
    assert "<redacted>" in text, "the requests with a token in their path were logged"
    if log_format == "json":
        entries = [json.loads(line) for line in lines]  # one JSON object a line
        assert {"time", "level", "logger", "message"} <= set(entries[0])
        messages = [e["message"] for e in entries]
    else:
        assert all(re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ [A-Z]+ ", ln) for ln in lines)
        messages = lines
    invite = f"client_id={fake.application_id}&scope=bot+applications.commands&permissions=52224"
    assert any(invite in m for m in messages), "the start-up line with the invite link"


def test_a_traceback_stays_on_one_line_and_redacted():
    config = Config(token="tok.en.value1234", database_url="postgresql://u:pw%40x@h:5432/db")
    assert secrets_of(config) == ["tok.en.value1234", "pw@x", "pw%40x"]
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(LineFormatter(Redactor(secrets_of(config))))
    logger = logging.getLogger("test_hosting_logs")
    logger.addHandler(handler)
    try:
        try:
            raise RuntimeError("connect to postgresql://u:pw%40x@h:5432/db with tok.en.value1234")
        except RuntimeError:
            logger.exception("failed for /interactions/123/aW50ZXJhY3Rpb24/callback")
    finally:
        logger.removeHandler(handler)
    out = stream.getvalue()
    assert out.count("\n") == 1
    assert "pw%40x" not in out and "tok.en.value1234" not in out and "aW50ZX" not in out
    assert "Traceback (most recent call last): | " in out
    assert "/interactions/123/<redacted>/callback" in out


def test_a_payloads_token_field_is_redacted():
    redact = Redactor([])
    assert redact("""{'id': '1', 'token': 'abcdef', "x": 1}""") == (
        """{'id': '1', 'token': '<redacted>', "x": 1}"""
    )
    assert redact('{"token": "abcdef"}') == '{"token": "<redacted>"}'


def test_a_bad_log_format_is_one_line(monkeypatch):
    monkeypatch.setenv("LOG_FORMAT", "xml")
    with pytest.raises(ValueError, match=r"^LOG_FORMAT='xml' must be one of text, json: "):
        Config.from_env()
    monkeypatch.setenv("LOG_FORMAT", "JSON")
    assert Config.from_env().log_format == "json"
