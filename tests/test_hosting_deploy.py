"""deploy/: the systemd units. ``systemd-analyze verify`` checks them where it is installed
(with the repository's paths in place of /opt/capsa); what they must say is checked here."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from dotenv import load_dotenv

from bot import Config

ROOT = Path(__file__).resolve().parent.parent
UNITS = {"capsa.service": "capsa.service", "capsa@.service": "capsa@1.service"}
INSTALL_DIR = "/opt/capsa"


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    parser.read_string((ROOT / "deploy" / name).read_text(encoding="utf-8"))
    return parser


@pytest.mark.parametrize("name", UNITS)
def test_each_unit_runs_the_bot_as_a_service_should(name):
    service = unit(name)["Service"]
    assert service["WorkingDirectory"] == INSTALL_DIR  # bot.py reads .env there
    assert service["ExecStart"] == f"{INSTALL_DIR}/.venv/bin/python bot.py"
    assert service["User"] not in ("", "root") and service["Group"] not in ("", "root")
    assert service["Restart"] == "on-failure"
    assert service["RestartPreventExitStatus"] == "2"  # a setting to fix: no restart loop
    assert service["KillSignal"] == "SIGINT"  # the bot's clean stop, as Ctrl-C
    assert unit(name)["Install"]["WantedBy"] == "multi-user.target"


def test_the_template_runs_the_shard_of_its_instance():
    assert unit("capsa@.service")["Service"]["Environment"] == "SHARD_IDS=%i"
    assert "%i" in unit("capsa@.service")["Unit"]["Description"]


def test_the_units_setting_wins_over_the_env_file(tmp_path, monkeypatch):
    """The template sets SHARD_IDS in the environment; .env (as .env.example has it) leaves
    it blank. bot.py's load_dotenv does not override the environment."""
    env = tmp_path / ".env"
    env.write_text("SHARD_IDS=\nSHARD_COUNT=2\nDATABASE_URL=postgresql://u@h:5432/d\n")
    # load_dotenv writes to os.environ: a copy of it, put back after the test
    monkeypatch.setattr(os, "environ", os.environ.copy())
    for name in ("SHARD_COUNT", "DATABASE_URL"):
        os.environ.pop(name, None)
    os.environ["SHARD_IDS"] = "1"
    load_dotenv(env)
    assert Config.from_env().shard_ids == (1,)


def test_systemd_analyze_verify_accepts_the_units(tmp_path):
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed (apt-get install systemd): not verified")
    for name, instance in UNITS.items():
        text = (ROOT / "deploy" / name).read_text(encoding="utf-8")
        text = text.replace(f"{INSTALL_DIR}/.venv/bin/python", sys.executable)
        (tmp_path / name).write_text(text.replace(INSTALL_DIR, str(ROOT)), encoding="utf-8")
        done = subprocess.run(
            [tool, "verify", "--man=no", str(tmp_path / instance)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        # a key it does not know or cannot parse is only a warning: any output fails too
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), name


def test_systemd_analyze_verify_catches_a_broken_unit(tmp_path):
    """The check above can fail: a wrong restart policy is reported."""
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed (apt-get install systemd): not verified")
    text = (ROOT / "deploy" / "capsa.service").read_text(encoding="utf-8")
    text = text.replace(f"{INSTALL_DIR}/.venv/bin/python", sys.executable)
    text = text.replace(INSTALL_DIR, str(ROOT)).replace("Restart=on-failure", "Restart=often")
    (tmp_path / "capsa.service").write_text(text, encoding="utf-8")
    done = subprocess.run(
        [tool, "verify", "--man=no", str(tmp_path / "capsa.service")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "restart specifier" in done.stderr
