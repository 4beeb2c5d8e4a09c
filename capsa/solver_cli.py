"""The ``arrange`` and ``play`` commands (registered with capsa.cli.command on import)."""

from __future__ import annotations

import argparse
import json
import random
from typing import TextIO

from capsa.cards import CapsaError, Card, check_setting, deal, format_cards, parse_cards, sort_hand
from capsa.cli import EXIT_BAD_INPUT, command
from capsa.hands import evaluate, is_fouled
from capsa.i18n import t
from capsa.match import Match
from capsa.names import position_name, row_name, special_name
from capsa.presets import POSITIONS, PRESETS, get_preset
from capsa.scoring import RoundResult, Seat
from capsa.solver import LEVELS, arrange

# --- arrange ------------------------------------------------------------------------------


def _arrange_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("cards", nargs="*", help="13 cards, e.g. AS KS QS ... (or --batch)")
    p.add_argument("--rules", default="standard", help=f"preset: {', '.join(PRESETS)}")
    p.add_argument("--level", default="normal", choices=LEVELS)
    p.add_argument("--opponents", type=int, default=3, help="1 to 3 (default 3)")
    p.add_argument("--seed", type=int, default=None, help="seed for hard/easy (optional)")
    p.add_argument("--batch", action="store_true", help="one hand of 13 cards per stdin line")


def _arrange_one(tokens, args, preset) -> dict:
    cards = parse_cards(tokens)
    if len(cards) != 13:
        raise CapsaError(f"a hand has 13 cards, not {len(cards)}")
    return arrange(cards, preset, args.level, args.opponents, args.seed).to_dict()


@command("arrange", "suggest a setting of 13 cards (JSON)", _arrange_args)
def cmd_arrange(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    preset = get_preset(args.rules)
    if not 1 <= args.opponents <= 3:
        raise CapsaError(f"--opponents must be 1 to 3, not {args.opponents}")
    if not args.batch:
        if not args.cards:
            raise CapsaError("give 13 cards, e.g. AS KS QS JS TS 9H 9D 9C 2H 2D 5C 6C 7C")
        stdout.write(json.dumps(_arrange_one(args.cards, args, preset)) + "\n")
        return 0
    if args.cards:
        raise CapsaError("with --batch the hands come from stdin, one per line")
    status = 0
    for number, line in enumerate(stdin, 1):
        if not line.strip():
            continue
        try:
            answer = _arrange_one(line.replace(",", " ").split(), args, preset)
        except CapsaError as err:
            status = EXIT_BAD_INPUT
            stderr.write(f"line {number}: {err}\n")
            answer = {"error": str(err)}
        stdout.write(json.dumps(answer) + "\n")
        stdout.flush()
    return status


# --- play ---------------------------------------------------------------------------------

AUTO_KEY = "a"
DECLARE_KEY = "d"


def _play_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", default="standard", help=f"preset: {', '.join(PRESETS)}")
    p.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--rounds", type=int, default=5, choices=(5, 10))
    p.add_argument("--level", default="normal", choices=LEVELS, help="computer players")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--lang", default="en", choices=("en", "id"))


class _EOF(Exception):
    pass


class _Terminal:
    def __init__(self, stdin: TextIO, stdout: TextIO):
        self.stdin, self.stdout = stdin, stdout
        try:
            self.echo = not stdin.isatty()  # piped input: show what was read
        except (AttributeError, ValueError):
            self.echo = True

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")

    def ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise _EOF
        if self.echo:
            self.stdout.write(line if line.endswith("\n") else line + "\n")
        return line.strip()


def _show(cards) -> str:
    return format_cards(cards, symbols=True)


def _describe_row(cards, lang: str) -> str:
    row = evaluate(cards)
    return f"{_show(row.cards)}  ({row_name(row, lang)})"


@command("play", "play a match in the terminal against computer players", _play_args)
def cmd_play(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    preset = get_preset(args.rules)
    lang = args.lang
    names = ("You", *(f"Computer {i}" for i in range(1, args.players)))
    match = Match(preset, names, args.rounds)
    rng = random.Random(args.seed)
    term = _Terminal(stdin, stdout)
    term.say(
        f"Capsa Susun, {preset.name} rules: {args.players} players, {args.rounds} rounds, "
        f"computers play '{args.level}'."
    )
    term.say(
        f"Set your rows: type the back row (5 cards), then the middle row (5 cards); the "
        f"front is the rest. Type '{AUTO_KEY}' to auto-arrange, 'q' to quit."
    )
    try:
        while not match.finished:
            round_seed = rng.randrange(2**32)
            hands = deal(args.players, seed=round_seed)
            term.say()
            term.say(f"=== Round {match.round_number} of {match.length} ===")
            mine = _human_seat(term, hands[0], preset, args.players - 1, lang)
            seats = [mine]
            for i in range(1, args.players):
                a = arrange(hands[i], preset, args.level, args.players - 1, seed=round_seed + i)
                seats.append(Seat(names[i], a.back, a.middle, a.front, declare=a.declare))
            result = match.play(seats)
            _show_result(term, result, match, lang)
    except _EOF:
        term.say()
        term.say("Input ended: the match stops here.")
    if match.results:
        term.say()
        term.say(f"=== Final standings after {len(match.results)} round(s) ===")
        for s in match.standings():
            term.say(f"{s.place}. {s.name}: {_points(s.total)}")
    return 0


def _points(value: float) -> str:
    if float(value).is_integer():
        return f"{int(value):+d}"
    return f"{value:+.2f}"


def _human_seat(term: _Terminal, hand: list[Card], preset, opponents: int, lang: str) -> Seat:
    hand = sort_hand(hand)
    term.say(f"Your cards: {_show(hand)}")
    suggestion = None
    while True:
        answer = term.ask(f"Back row (5 cards) or '{AUTO_KEY}': ")
        if answer.lower() in ("q", "quit", "exit"):
            raise _EOF
        if answer.lower() == AUTO_KEY:
            suggestion = suggestion or arrange(hand, preset, "normal", opponents)
            return _auto_seat(term, suggestion, preset, lang)
        try:
            back = _cards_of(answer, hand, 5, "back")
        except CapsaError as err:
            term.say(f"  {err}. Try again.")
            continue
        rest = [c for c in hand if c not in back]
        answer = term.ask(f"Middle row (5 of {_show(rest)}): ")
        if answer.lower() in ("q", "quit", "exit"):
            raise _EOF
        try:
            middle = _cards_of(answer, rest, 5, "middle")
        except CapsaError as err:
            term.say(f"  {err}. Start again from the back row.")
            continue
        front = tuple(c for c in rest if c not in middle)
        check_setting(hand, back, middle, front)
        rows = [evaluate(r) for r in (back, middle, front)]
        for position, cards in zip(POSITIONS, (back, middle, front), strict=True):
            term.say(f"  {position_name(position, lang)}: {_describe_row(cards, lang)}")
        if is_fouled(*rows):
            term.say("  This setting is fouled: the back must be >= the middle >= the front.")
            confirm = term.ask("  Play it anyway? (y/N): ")
            if confirm.lower() not in ("y", "yes"):
                continue
        return Seat("You", tuple(back), tuple(middle), front)


def _cards_of(text: str, allowed: list[Card], size: int, name: str) -> tuple[Card, ...]:
    cards = parse_cards(text)
    if len(cards) != size:
        raise CapsaError(f"the {name} row needs {size} cards, not {len(cards)}")
    for c in cards:
        if c not in allowed:
            raise CapsaError(f"'{c.code}' is not one of your remaining cards")
    return tuple(cards)


def _auto_seat(term: _Terminal, a, preset, lang: str) -> Seat:
    back, middle, front = a.ordinary
    term.say(f"  Auto-arranged (expected {a.ordinary_expected:+.1f} points):")
    for position, cards in zip(POSITIONS, (back, middle, front), strict=True):
        term.say(f"  {position_name(position, lang)}: {_describe_row(cards, lang)}")
    if a.special is not None:
        verdict = "declared" if a.declare else "not declared: playing the rows is worth more"
        term.say(
            f"  You hold {special_name(a.special, lang)} (worth {a.special_value:+.0f}): {verdict}."
        )
    return Seat("You", a.back, a.middle, a.front, declare=a.declare)


def _show_result(term: _Terminal, result: RoundResult, match: Match, lang: str) -> None:
    term.say("--- Showdown ---")
    for p in result.players:
        tag = ""
        if p.special:
            tag = f"  [{special_name(p.special, lang)}]"
        elif p.fouled:
            tag = f"  [{t('word.foul', lang)}]"
        term.say(f"{p.name}{tag}")
        if p.rows is not None:
            for position, row in zip(POSITIONS, p.rows, strict=True):
                term.say(
                    f"  {position_name(position, lang):<7} {_show(row.cards):<16} "
                    f"{row_name(row, lang)}"
                )
    for pair in result.pairs:
        a, b = (result.players[i].name for i in pair.players)
        parts = []
        for row in pair.rows:
            who = (
                result.players[row.winner].name if row.winner is not None else t("word.push", lang)
            )
            parts.append(f"{position_name(row.position, lang)} {who} {row.value}")
        detail = ", ".join(parts)
        if pair.special:
            detail = f"{special_name(pair.special, lang)} {abs(pair.points)}"
        if pair.table_sweep:
            detail += f"; {t('word.table_sweep', lang)} x{pair.multiplier}"
        elif pair.sweep is not None and pair.multiplier > 1:
            detail += f"; {t('word.sweep', lang)} x{pair.multiplier}"
        if pair.extra:
            detail += f"; +{pair.extra}"
        term.say(f"{a} vs {b}: {detail} -> {a} {_points(pair.points)}, {b} {_points(-pair.points)}")
    term.say("Round: " + ", ".join(f"{p.name} {_points(p.total)}" for p in result.players))
    totals = match.totals
    term.say("Totals: " + ", ".join(f"{n} {_points(v)}" for n, v in totals.items()))
