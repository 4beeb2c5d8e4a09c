"""The command line: ``score``, ``rank`` and ``rules`` are defined here; ``arrange`` and
``review`` (capsa.solver_cli) and ``play`` (capsa.play) are imported, and ``COMMANDS``
lists them all.

Bad input always exits with status 2 and one line on stderr; never a traceback. ``score``
refuses a key it does not know at every level (the request, its options, a player) rather
than ignoring it, since an ignored key would change the score silently.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from capsa.cards import CapsaError, parse_cards
from capsa.commands import EXIT_BAD_INPUT, Command, LocatedError, command, one_line, run_batch
from capsa.hands import evaluate
from capsa.i18n import DEFAULT_LANG, LANGS, t
from capsa.match import seat_from_dict
from capsa.names import row_name
from capsa.play import cmd_play
from capsa.presets import DEFAULT_PRESET, PRESETS, Preset, get_preset
from capsa.rules_text import TOPICS, RulesPage, rules_command, rules_page
from capsa.scoring import score_round
from capsa.solver_cli import cmd_arrange, cmd_review
from capsa.terminal import display_width, output_width, wrap

# The keys ``score`` reads; any other key is refused. A table's options are checked by
# the preset itself (Preset.with_options names the ones it allows).
REQUEST_KEYS = ("rules", "options", "players")
PLAYER_KEYS = ("name", "back", "middle", "front", "declare", "surrender", "foul")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, status 2
        raise CapsaError(f"{message} (see '{self.prog} --help')")

    def _check_value(self, action: argparse.Action, value: object) -> None:
        """A value outside the choices lists them as they are typed ("easy, normal, hard"),
        not as Python writes them."""
        choices = action.choices
        if choices is not None and value not in choices:
            shown = ", ".join(str(c) for c in choices)
            raise argparse.ArgumentError(action, f"invalid choice: '{value}' (choose from {shown})")


class _Help(argparse.HelpFormatter):
    """Choices as they are typed: {easy,normal,hard}, not Python's names for them."""

    def _metavar_formatter(
        self, action: argparse.Action, default_metavar: str
    ) -> Callable[[int], tuple[str, ...]]:
        if action.metavar is None and action.choices is not None:
            names = "{" + ",".join(str(c) for c in action.choices) + "}"
            return lambda size: (names,) * size
        return super()._metavar_formatter(action, default_metavar)


def _complete_help(parser: argparse.ArgumentParser) -> None:
    """Every option gets a line of help with its default: one without help text says its
    choices, and any default but none/false is added ("(default: normal)")."""
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or not action.option_strings:
            continue
        text = action.help or ""
        if not text and action.choices is not None:
            text = "one of " + ", ".join(str(c) for c in action.choices)
        default = action.default
        if default not in (None, False, [], argparse.SUPPRESS) and "default" not in text:
            text = f"{text} (default: %(default)s)" if text else "default: %(default)s"
        action.help = text or "optional"


def _check_keys(data: dict, allowed: Sequence[str], where: str) -> None:
    for key in data:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise CapsaError(f"{where}unknown key {key!r} (allowed: {', '.join(allowed)}){hint}")


def _check_player(player: object, number: int) -> None:
    """The player's keys; the rest is seat_from_dict's and score_round's to check."""
    if not isinstance(player, dict):
        return  # seat_from_dict says what a player must be
    name = player.get("name")
    label = name if isinstance(name, str) and name else f"player {number}"
    _check_keys(player, PLAYER_KEYS, f"{label}: ")
    if player.get("surrender") is True and player.get("declare"):
        raise CapsaError(
            f"{label}: a player who surrenders declares nothing: "
            "give 'surrender' or 'declare', not both"
        )


def score_payload(payload: object) -> dict:
    """Score one ``score`` request (a decoded JSON object) and return the JSON answer."""
    if not isinstance(payload, dict):
        raise CapsaError("the input must be a JSON object with 'players'")
    _check_keys(payload, REQUEST_KEYS, "")
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
    for number, player in enumerate(players, 1):
        _check_player(player, number)
    return score_round([seat_from_dict(p) for p in players], preset).to_dict()


# json.JSONDecodeError's messages, said plainly; its position is given separately.
_JSON_REASONS = {
    "Expecting value": "expected a value",
    "Expecting property name enclosed in double quotes": "expected a key in double quotes",
    "Expecting ':' delimiter": "expected ':'",
    "Expecting ',' delimiter": "expected ','",
    "Unterminated string starting at": "a string starts here and never ends",
    "Invalid control character at": "a control character (a tab or line break) in a string",
    "Invalid \\escape": "an invalid backslash escape",
    "Invalid \\uXXXX escape": "an invalid \\uXXXX escape",
    "Extra data": "more data after the JSON object",
}


def json_reason(msg: str) -> str:
    """A JSONDecodeError message without a dangling "at" (the position is given apart)."""
    if msg in _JSON_REASONS:
        return _JSON_REASONS[msg]
    msg = msg.removesuffix(" at").replace("Expecting", "expected")
    return msg[:1].lower() + msg[1:]


def decode_json(text: str, line: int | None = None) -> object:
    """``text`` decoded, or a CapsaError saying where and what is wrong ("line 5, column
    43: expected ','"). ``line`` is the input line ``text`` came from, if it was one line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        lineno, colno = err.lineno, err.colno
        lines = text.rstrip("\r\n").split("\n")
        if line is None and lineno > len(lines):  # ran off the end of the last line
            lineno, colno = len(lines), len(lines[-1].rstrip("\r")) + 1
        where = f"line {line or lineno}, column {colno}"
        extra = line is None and err.msg == "Extra data"  # several objects without --batch?
        hint = "; for one object a line, use --batch" if extra else ""
        raise LocatedError(f"{where}: {json_reason(err.msg)} (invalid JSON{hint})") from None
    except RecursionError:
        raise CapsaError("invalid JSON: it is nested too deeply") from None
    except ValueError as err:  # e.g. a number with more digits than Python converts
        raise CapsaError(f"invalid JSON: {err}") from None


def cmd_score(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    if not args.batch:
        text = stdin.read()
        if not text.strip():
            raise CapsaError("no input: give one JSON object on stdin")
        answer = score_payload(decode_json(text))
        stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        return 0
    return run_batch(
        stdin,
        stdout,
        stderr,
        lambda line, number: score_payload(decode_json(line.rstrip("\r\n"), number)),
        blank="the line is blank (give one JSON object a line)",
    )


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

# --- rules ---------------------------------------------------------------------------------

ALL = "all"  # as a topic: every topic; as --rules: every preset


def _plain(text: str) -> str:
    """Discord's emphasis (**bold**, *italic*) taken out for a terminal; `code` stays, it
    marks what to type."""
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text)
    return re.sub(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])", r"\1", text)


def page_text(page: RulesPage) -> str:
    """A rules page as the terminal shows it: the embed's title, intro and fields."""
    title = _plain(page.title)
    out = [title, "=" * display_width(title), _plain(page.intro)]
    for heading, body in page.sections:
        heading = _plain(heading)
        out += ["", heading, "-" * display_width(heading), _plain(body)]
    return "\n".join(out) + "\n"


_LIST_ITEM = re.compile(r"(?:\d+\.|•|-) ")


def markdown_body(text: str) -> str:
    """Embed text as Markdown. Every line break in an embed is meant, so each line becomes
    a paragraph, and lines of a list ("1. ", "• ") stay one list."""
    out: list[str] = []
    for line in text.split("\n"):
        item = _LIST_ITEM.match(line)
        if line.startswith("• "):
            line = "- " + line[2:]
        if out:
            out.append("\n" if item and _LIST_ITEM.match(out[-1]) else "\n\n")
        out.append(line)
    return "".join(out)


def page_markdown(page: RulesPage, level: int = 1) -> str:
    """A rules page in Markdown: the title at heading ``level``, each field one below."""
    out = [f"{'#' * level} {page.title}", "", markdown_body(page.intro)]
    for heading, body in page.sections:
        out += ["", f"{'#' * (level + 1)} {heading}", "", markdown_body(body)]
    return "\n".join(out) + "\n"


def _anchor(heading: str) -> str:
    """The id GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def rules_document(
    topics: Sequence[str], presets: Sequence[Preset], lang: str, command_line: str
) -> str:
    """Several pages as one Markdown document: a title and the command that made it, then
    the pages, under a heading for each preset when there are several."""
    out = [
        f"# {t('cli.rules.doc.title', lang)}",
        "",
        t("cli.rules.doc.made", lang, command=command_line, cmd_rules=rules_command(lang)),
    ]
    several = len(presets) > 1
    headings = {p.name: t("cli.rules.doc.preset", lang, preset=p.name) for p in presets}
    if several:
        links = " · ".join(f"[{name}](#{_anchor(h)})" for name, h in headings.items())
        out += ["", t("cli.rules.doc.presets", lang, list=links)]
    for preset in presets:
        if several:
            out += ["", f"## {headings[preset.name]}"]
        for topic in topics:
            page = rules_page(topic, preset, lang)
            out += ["", page_markdown(page, 3 if several else 2).rstrip("\n")]
    return "\n".join(out) + "\n"


def _rules_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "topic",
        nargs="?",
        default=TOPICS[0],
        help=f"{', '.join(TOPICS)}, or {ALL} (default {TOPICS[0]})",
    )
    p.add_argument(
        "--rules",
        default=DEFAULT_PRESET,
        choices=(*PRESETS, ALL),
        help=f"the preset (default {DEFAULT_PRESET}), or {ALL}",
    )
    p.add_argument("--lang", choices=LANGS, default=DEFAULT_LANG)
    p.add_argument("--markdown", action="store_true", help="write Markdown")


def rules_command_line(topic: str, preset: str, lang: str) -> str:
    """The shortest command that writes this Markdown document (the document names it)."""
    words = ["python -m capsa rules", topic]
    if preset != DEFAULT_PRESET:
        words.append(f"--rules {preset}")
    if lang != DEFAULT_LANG:
        words.append(f"--lang {lang}")
    return " ".join([*words, "--markdown"])


def rules_output(topic: str, preset: str, lang: str, markdown: bool) -> str:
    """What ``python -m capsa rules`` prints: a page, or with ``all`` every topic and/or
    preset (Markdown: one document)."""
    key = topic.strip().lower()
    if key not in (*TOPICS, ALL):
        raise CapsaError(t("rules.unknown", lang, topic=topic, topics=", ".join((*TOPICS, ALL))))
    topics = TOPICS if key == ALL else (key,)
    presets = tuple(PRESETS.values()) if preset == ALL else (get_preset(preset),)
    if not markdown:  # worded for a terminal: the table, and this program's rules command
        command = f"{program_name()} rules"
        pages = (rules_page(tp, p, lang, terminal=command) for p in presets for tp in topics)
        return "\n".join(page_text(page) for page in pages)
    if len(topics) == 1 and len(presets) == 1:
        return page_markdown(rules_page(topics[0], presets[0], lang))
    return rules_document(topics, presets, lang, rules_command_line(key, preset, lang))


def cmd_rules(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    text = rules_output(args.topic, args.rules, args.lang, args.markdown)
    # text wraps to the terminal's width; Markdown stays as written (its lines are meant)
    stdout.write(text if args.markdown else wrap(text, output_width(stdout)))
    return 0


RULES = command("rules", "print the rules pages of /capsa rules", _rules_args)(cmd_rules)

COMMANDS: dict[str, Command] = {
    c.name: c for c in (SCORE, RANK, RULES, cmd_play, cmd_arrange, cmd_review)
}


def program_name(argv0: str | None = None) -> str:
    """How the program was started: ``capsa`` (the installed command) or ``python -m capsa``."""
    name = Path(sys.argv[0] if argv0 is None else argv0).name
    return "capsa" if name == "capsa" else "python -m capsa"  # the console script, or -m


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = _Parser(
        prog=prog or program_name(), description="Capsa Susun engine", formatter_class=_Help
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for c in COMMANDS.values():
        command_parser = sub.add_parser(
            c.name, help=c.help, description=c.help, formatter_class=_Help
        )
        c.configure(command_parser)
        _complete_help(command_parser)
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
        stderr.write(f"error: {one_line(str(err))}\n")
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
