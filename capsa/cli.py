"""The command line: ``score`` and ``rank`` are defined here; ``arrange`` (capsa.solver_cli)
and ``play`` (capsa.play) are imported, and ``COMMANDS`` lists them all.

Bad input always exits with status 2 and one line on stderr; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import NoReturn, TextIO

from capsa.cards import CapsaError, parse_cards
from capsa.commands import EXIT_BAD_INPUT, Command, command
from capsa.hands import evaluate
from capsa.i18n import DEFAULT_LANG, LANGS
from capsa.match import seat_from_dict
from capsa.names import row_name
from capsa.play import cmd_play
from capsa.presets import get_preset
from capsa.scoring import score_round
from capsa.solver_cli import cmd_arrange


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, status 2
        raise CapsaError(f"{message} (see '{self.prog} --help')")


def score_payload(payload: object) -> dict:
    """Score one ``score`` request (a decoded JSON object) and return the JSON answer."""
    if not isinstance(payload, dict):
        raise CapsaError("the input must be a JSON object with 'players'")
    options = payload.get("options")
    if options is not None and not isinstance(options, dict):
        raise CapsaError('\'options\' must be an object, e.g. {"method": "2-4"}')
    rules = payload.get("rules")
    if rules is not None and not isinstance(rules, str):
        raise CapsaError("'rules' must be a preset name")
    preset = get_preset(rules, options)
    players = payload.get("players")
    if not isinstance(players, list):
        raise CapsaError("'players' must be a list of 2 to 4 players")
    return score_round([seat_from_dict(p) for p in players], preset).to_dict()


def _decode(line: str) -> object:
    try:
        return json.loads(line)
    except json.JSONDecodeError as err:
        raise CapsaError(f"the input is not valid JSON ({err.msg} at column {err.colno})") from None
    except RecursionError:
        raise CapsaError("the input is not valid JSON (it is nested too deeply)") from None
    except ValueError as err:  # e.g. a number with more digits than Python converts
        raise CapsaError(f"the input is not valid JSON ({err})") from None


def cmd_score(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    if not args.batch:
        stdout.write(json.dumps(score_payload(_decode(stdin.read())), ensure_ascii=False) + "\n")
        return 0
    status = 0
    for number, line in enumerate(stdin, 1):
        if not line.strip():
            continue
        try:
            answer = score_payload(_decode(line))
        except CapsaError as err:
            status = EXIT_BAD_INPUT
            stderr.write(f"line {number}: {err}\n")
            answer = {"error": str(err)}
        stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    return status


def cmd_rank(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    cards = parse_cards(args.cards)
    row = evaluate(cards)
    lang = args.lang
    stdout.write(f"{row.category}\t{row_name(row, lang)}\n")
    return 0


SCORE = command(
    "score",
    "score a round given as JSON on stdin",
    lambda p: p.add_argument("--batch", action="store_true", help="one JSON object per line"),
)(cmd_score)


def _rank_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("cards", nargs="+", help="3 or 5 cards, e.g. AS KS QS JS TS")
    p.add_argument("--lang", choices=LANGS, default=DEFAULT_LANG)


RANK = command("rank", "name a 3- or 5-card row", _rank_args)(cmd_rank)

COMMANDS: dict[str, Command] = {c.name: c for c in (SCORE, RANK, cmd_play, cmd_arrange)}


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m capsa", description="Capsa Susun engine")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for c in COMMANDS.values():
        c.configure(sub.add_parser(c.name, help=c.help, description=c.help))
    return parser


def main(
    argv: Sequence[str] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args, stdin, stdout, stderr)
    except CapsaError as err:
        stderr.write(f"error: {err}\n")
        return EXIT_BAD_INPUT
    except UnicodeDecodeError as err:  # stdin that is not UTF-8 (where decoding is strict)
        stderr.write(f"error: the input is not UTF-8 text (byte {err.start})\n")
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly
        sys.stderr.close()
        return 141
    except KeyboardInterrupt:
        stderr.write("interrupted\n")
        return 130
