"""The invite link: scopes ``bot`` and ``applications.commands``, the permissions integer
made from the names the lobby checks, the application id from the token (``APPLICATION_ID``
overrides it), and ``bot.py --invite`` printing it without connecting anywhere."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import discord

from bot import application_id_from_token, invite_permissions, invite_url
from cogs.lobby import LOBBY_PERMISSIONS

ROOT = Path(__file__).resolve().parent.parent
APP_ID = 1180245538429874236


def token_for(app_id: int) -> str:
    first = base64.b64encode(str(app_id).encode()).decode().rstrip("=")
    return f"{first}.GhT2xQ.abcdefghijklmnopqrstuvwxyz0123456789AB"


def test_the_application_id_is_the_tokens_first_part():
    assert application_id_from_token(token_for(APP_ID)) == APP_ID
    assert application_id_from_token(token_for(81384788765712384)) == 81384788765712384
    assert application_id_from_token("not a token") is None
    assert application_id_from_token("") is None
    assert application_id_from_token(base64.b64encode(b"abc").decode() + ".x.y") is None


def test_the_permissions_are_the_lobbys_and_nothing_more():
    perms = invite_permissions()
    assert all(getattr(perms, name) for name in LOBBY_PERMISSIONS)
    # View Channel 1024 + Send Messages 2048 + Embed Links 16384 + Attach Files 32768
    assert perms.value == 52224
    assert perms.value == sum(getattr(discord.Permissions, n).flag for n in LOBBY_PERMISSIONS)


def test_the_link_has_both_scopes_and_the_integer():
    query = parse_qs(urlsplit(invite_url(APP_ID)).query)
    assert query == {
        "client_id": [str(APP_ID)],
        "scope": ["bot applications.commands"],
        "permissions": ["52224"],
    }
    assert invite_url(APP_ID).startswith("https://discord.com/oauth2/authorize?")


def run_bot(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``bot.py`` in a directory without .env, its Discord pointed at a closed port (so a
    connection attempt would fail loudly)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "APPLICATION"))}
    clean |= {"DISCORD_API_BASE": "http://127.0.0.1:9/api/v10", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, str(ROOT / "bot.py"), *args],
        env=clean | env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_invite_prints_the_link_without_connecting(tmp_path):
    done = run_bot(tmp_path, "--invite", DISCORD_TOKEN=token_for(APP_ID))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == invite_url(APP_ID) + "\n"


def test_application_id_overrides_the_token(tmp_path):
    done = run_bot(tmp_path, "--invite", DISCORD_TOKEN=token_for(APP_ID), APPLICATION_ID="42")
    assert done.stdout == invite_url(42) + "\n"
    done = run_bot(tmp_path, "--invite", APPLICATION_ID="42")  # no token needed
    assert (done.returncode, done.stdout) == (0, invite_url(42) + "\n")


def test_invite_without_an_id_says_where_to_find_one(tmp_path):
    done = run_bot(tmp_path, "--invite", DISCORD_TOKEN="garbage")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "APPLICATION_ID" in done.stderr and "Traceback" not in done.stderr


def test_help_names_the_option(tmp_path):
    done = run_bot(tmp_path, "--help")
    assert done.returncode == 0 and "--invite" in done.stdout
