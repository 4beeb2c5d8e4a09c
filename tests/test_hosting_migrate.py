"""``python -m data.migrate --to`` defaults to ``DATABASE_URL`` as its help says, the one
of ``.env`` included (where the README has a newcomer put it)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def migrate(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    return subprocess.run(
        [sys.executable, "-m", "data.migrate", *args],
        cwd=cwd,
        env=clean | {"PYTHONPATH": str(ROOT)} | env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_target_is_the_database_url_of_env(tmp_path):
    sqlite3.connect(tmp_path / "capsa.sqlite3").close()
    # port 1 on the loopback: nothing answers, so the error names the database it tried
    (tmp_path / ".env").write_text("DATABASE_URL=postgresql://capsa:pw-in-env@127.0.0.1:1/c\n")
    done = migrate(tmp_path, "--from", "capsa.sqlite3")
    assert done.returncode == 2
    assert "127.0.0.1:1" in done.stderr and "required" not in done.stderr
    assert "pw-in-env" not in done.stderr


def test_without_any_database_url_to_is_asked_for(tmp_path):
    sqlite3.connect(tmp_path / "capsa.sqlite3").close()
    done = migrate(tmp_path, "--from", "capsa.sqlite3")
    assert done.returncode == 2 and "--to" in done.stderr


def test_the_help_says_where_the_default_comes_from(tmp_path):
    done = migrate(tmp_path, "--help")
    assert "default: DATABASE_URL, from the environment or .env" in " ".join(done.stdout.split())
