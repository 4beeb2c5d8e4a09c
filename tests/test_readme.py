"""Every command example in README.md runs as written.

The examples are read from the README itself (its fenced code blocks and its inline code),
so a changed example is tested, not a copy of it. An example is anything that runs
``python -m capsa``; each runs with bash in a scratch directory (the package importable,
``python`` being this interpreter, stdin empty unless the example gives it), and must exit
0 with nothing on stderr. An example that writes a file of the repository (the rules
documents) must write exactly the committed file.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from capsa.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

# Examples that are only shown, with the reason. Installing commands (make, pip, the lock
# script) never match EXAMPLE; these would.
NOT_RUN = {
    "python -m capsa.build_tables": (
        "rewrites capsa/solver/row_tables.npz and takes about 20 minutes on 2 cores"
    ),
}

PROGRAM = "python -m capsa"  # inline code that is only this names the program: no example
EXAMPLE = re.compile(r"\bpython -m capsa\b")
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
INLINE = re.compile(r"`([^`\n]+)`")
HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1")
REDIRECT = re.compile(r"(?<![<>&\d])>\s*(\S+)")


def split_commands(block: str) -> list[str]:
    """The shell commands of a code block: a line ending in a backslash goes on, a here
    document runs to its end word, blank and comment lines are not commands."""
    commands: list[str] = []
    current: list[str] = []
    end_word: str | None = None
    for line in block.splitlines():
        current.append(line)
        if end_word is not None:
            if line.strip() != end_word:
                continue
            end_word = None
        else:
            heredoc = HEREDOC.search(line)
            if heredoc:
                end_word = heredoc.group(2)
                continue
            if line.endswith("\\"):
                continue
        command = "\n".join(current).strip()
        current = []
        if command and not command.startswith("#"):
            commands.append(command)
    assert end_word is None and not current, f"an unfinished command in:\n{block}"
    return commands


def readme_examples(text: str) -> list[str]:
    """Every ``python -m capsa`` example in the README: block commands, then inline code."""
    blocks = FENCE.findall(text)
    prose = FENCE.sub("", text)
    examples = [c for block in blocks for c in split_commands(block) if EXAMPLE.search(c)]
    spans = INLINE.findall(prose)
    examples += [s for s in spans if EXAMPLE.search(s) and s.strip() != PROGRAM]
    return examples


EXAMPLES = readme_examples(README.read_text(encoding="utf-8"))
RUN = [e for e in EXAMPLES if e not in NOT_RUN]


def test_the_parser_finds_commands() -> None:
    block = (
        "# a comment\n"
        "python -m capsa rank AS KS QS JS TS  # trailing comment\n"
        "\n"
        "printf 'x' \\\n  | python -m capsa arrange --batch\n"
        "python -m capsa score <<'EOF'\n"
        '{"players": [\n'
        "]}\n"
        "EOF\n"
        "make test\n"
    )
    assert split_commands(block) == [
        "python -m capsa rank AS KS QS JS TS  # trailing comment",
        "printf 'x' \\\n  | python -m capsa arrange --batch",
        "python -m capsa score <<'EOF'\n" + '{"players": [\n]}\nEOF',
        "make test",
    ]
    text = (
        f"`python -m capsa`: see `python -m capsa rules`\n```bash\n{block}```\n"
        "and `make run`, `--batch`\n"
    )
    assert readme_examples(text) == [
        "python -m capsa rank AS KS QS JS TS  # trailing comment",
        "printf 'x' \\\n  | python -m capsa arrange --batch",
        "python -m capsa score <<'EOF'\n" + '{"players": [\n]}\nEOF',
        "python -m capsa rules",
    ]
    with pytest.raises(AssertionError, match="unfinished"):
        split_commands("python -m capsa score <<EOF\n{}\n")


def test_every_command_has_an_example() -> None:
    shown = {
        match.group(1)
        for example in RUN
        for match in re.finditer(r"\bpython -m capsa (\w+)", example)
    }
    assert shown >= set(COMMANDS), f"no README example for {sorted(set(COMMANDS) - shown)}"


def test_the_examples_not_run_are_in_the_readme() -> None:
    assert set(NOT_RUN) <= set(EXAMPLES), "NOT_RUN names an example the README no longer has"


@pytest.fixture(scope="module")
def shell_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """``python`` is this interpreter and ``capsa`` is importable from anywhere."""
    bin_dir = tmp_path_factory.mktemp("bin")
    (bin_dir / "python").symlink_to(sys.executable)
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT),
    }


@pytest.mark.parametrize("example", RUN, ids=[e.splitlines()[0] for e in RUN])
def test_readme_example_runs(example: str, shell_env: dict[str, str], tmp_path: Path) -> None:
    written = REDIRECT.findall(example)
    for target in written:
        (tmp_path / target).parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        ["bash", "-c", f"set -o pipefail\n{example}"],
        cwd=tmp_path,
        env=shell_env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"{example}\nexit {proc.returncode}\n{proc.stderr}"
    assert proc.stderr == "", f"{example}\n{proc.stderr}"
    if not written:
        assert proc.stdout.strip(), f"{example} printed nothing"
    if proc.stdout.startswith("{"):  # JSON out: one valid object a line, none an error
        for line in proc.stdout.splitlines():
            assert "error" not in json.loads(line), f"{example}\n{line}"
    for target in written:
        made = (tmp_path / target).read_text(encoding="utf-8")
        committed = ROOT / target
        assert committed.is_file(), f"{example} writes {target}, which the repository lacks"
        assert made == committed.read_text(encoding="utf-8"), (
            f"{target} is out of date: regenerate it with `{example}` (from the repository root)"
        )
