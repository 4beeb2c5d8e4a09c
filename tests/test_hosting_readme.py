"""The README a newcomer follows: every slash command, every setting, the rules documents
in every language, the PromQL lines naming metrics the bot has, and no path out of the
repository in the README or ARCHITECTURE."""

from __future__ import annotations

import re
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from capsa.i18n import DEFAULT_LANG, LANGS
from cogs.capsa import Capsa
from cogs.metrics import Metrics

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
ARCHITECTURE = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")


def test_every_slash_command_is_in_the_readme():
    names = [command.name for command in Capsa.__cog_app_commands__]
    assert {"new", "history", "replay", "settings"} <= set(names)
    for name in names:
        assert f"| `/capsa {name}` |" in README, f"/capsa {name} is not in the README's table"


def test_every_setting_of_env_example_is_in_the_readme_and_read_by_the_bot():
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    settings = re.findall(r"^([A-Z_]+)=", example, re.M)
    bot = (ROOT / "bot.py").read_text(encoding="utf-8")
    assert {"APPLICATION_ID", "LOG_FORMAT", "METRICS_PORT", "METRICS_HOST"} <= set(settings)
    for name in settings:
        assert f"`{name}`" in README, f"{name} is not in the README"
        assert f'"{name}"' in bot, f"bot.py does not read {name}"


def test_python_means_the_venvs_and_the_hosting_steps_say_so():
    assert "`python` means the virtual environment's" in README
    assert ".venv/bin/python bot.py --invite" in README
    assert ".venv/bin/python -m data.backup --to" in README


def test_the_rules_documents_of_every_language_are_listed():
    for lang in LANGS:
        name = "rules.md" if lang == DEFAULT_LANG else f"rules.{lang}.md"
        assert (ROOT / "docs" / name).is_file()
        assert f"[docs/{name}](docs/{name})" in README, name
        if lang != DEFAULT_LANG:
            assert f"--lang {lang} --markdown > docs/{name}" in README, name


def test_the_promql_lines_name_metrics_the_bot_serves():
    block = README.split("The figures that matter, in PromQL", 1)[1].split("```")[1]
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) == 3
    metrics = Metrics()
    metrics.showdown_seconds.observe(0.1)
    metrics.ack_seconds.observe(0.1)
    metrics.rest_request("GET", "/api/v10/gateway/bot", "429")
    from prometheus_client import generate_latest

    served = {
        sample.name
        for family in text_string_to_metric_families(generate_latest(metrics.registry).decode())
        for sample in family.samples
    }
    for line in lines:
        for name in re.findall(r"\bcapsa_\w+", line):
            assert name in served, f"{name} in the README is not a metric"


def test_no_document_sends_readers_out_of_the_repository():
    for name, text in (("README.md", README), ("docs/ARCHITECTURE.md", ARCHITECTURE)):
        assert "../" not in text.replace("](docs/", ""), f"{name} points out of the repository"
        for target in re.findall(r"\]\(([^)#]+)\)", text):
            if not target.startswith(("http://", "https://")):
                base = ROOT if name == "README.md" else ROOT / "docs"
                assert (base / target).exists(), f"{name} links to {target}, which is missing"
