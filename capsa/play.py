"""``python -m capsa play``: a match in the terminal against computer players.

It shows the same showdown text as the bot (capsa.showdown), in English or Indonesian.
"""

from __future__ import annotations

import argparse
import random
from typing import TextIO

from capsa.cards import CapsaError, Card, check_setting, deal, format_cards, parse_cards, sort_hand
from capsa.commands import command
from capsa.hands import evaluate, is_fouled
from capsa.i18n import DEFAULT_LANG, LANGS, t
from capsa.match import MATCH_LENGTHS, Match
from capsa.names import position_name, row_name, special_name
from capsa.presets import POSITIONS, PRESETS, get_preset
from capsa.scoring import Seat
from capsa.settings import LEVELS
from capsa.showdown import showdown_text, signed
from capsa.solver import Arrangement, arrange

AUTO_KEY = "a"
QUIT_KEYS = ("q", "quit", "exit")


def _play_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", default="standard", help=f"preset: {', '.join(PRESETS)}")
    p.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--rounds", type=int, default=5, choices=MATCH_LENGTHS)
    p.add_argument("--level", default="normal", choices=LEVELS, help="computer players")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--lang", default=DEFAULT_LANG, choices=LANGS)


class _EOF(Exception):
    pass


class _Terminal:
    def __init__(self, stdin: TextIO, stdout: TextIO, lang: str):
        self.stdin, self.stdout, self.lang = stdin, stdout, lang
        try:
            self.echo = not stdin.isatty()  # piped input: show what was read
        except (AttributeError, ValueError):
            self.echo = True

    def say(self, key: str | None = None, **values: object) -> None:
        self.stdout.write((t(key, self.lang, **values) if key else "") + "\n")

    def ask(self, key: str, **values: object) -> str:
        self.stdout.write(t(key, self.lang, **values))
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise _EOF
        if self.echo:
            self.stdout.write(line if line.endswith("\n") else line + "\n")
        answer = line.strip()
        if answer.lower() in QUIT_KEYS:
            raise _EOF
        return answer


@command("play", "play a match in the terminal against computer players", _play_args)
def cmd_play(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    preset = get_preset(args.rules)
    term = _Terminal(stdin, stdout, args.lang)
    you = t("play.you", args.lang)
    names = (you, *(t("seat.computer", args.lang, n=i) for i in range(1, args.players)))
    match = Match(preset, names, args.rounds)
    rng = random.Random(args.seed)
    term.say(
        "play.intro", preset=preset.name, players=args.players, rounds=args.rounds, level=args.level
    )
    term.say("play.howto", auto=AUTO_KEY)
    try:
        while not match.finished:
            round_seed = rng.randrange(2**32)
            hands = deal(args.players, seed=round_seed)
            term.say()
            term.say("play.round", k=match.round_number, n=match.length)
            seats = [_human_seat(term, you, hands[0], preset, args.players - 1)]
            for i in range(1, args.players):
                a = arrange(hands[i], preset, args.level, args.players - 1, seed=round_seed + i)
                seats.append(Seat(names[i], a.back, a.middle, a.front, declare=a.declare))
            result = match.play(seats)
            term.say("play.showdown")
            text = showdown_text(result, match.totals, len(match.results), match.length, args.lang)
            stdout.write(text + "\n")
    except _EOF:
        term.say()
        term.say("play.eof")
    if match.results:
        term.say()
        term.say("play.final", count=len(match.results))
        for s in match.standings():
            term.say("play.place", place=s.place, name=s.name, total=signed(s.total))
    return 0


def _rows_text(term: _Terminal, rows) -> None:
    for position, cards in zip(POSITIONS, rows, strict=True):
        row = evaluate(cards)
        shown = format_cards(row.cards, symbols=True)
        term.stdout.write(
            f"  {position_name(position, term.lang)}: {shown}  ({row_name(row, term.lang)})\n"
        )


def _human_seat(term: _Terminal, name: str, hand: list[Card], preset, opponents: int) -> Seat:
    hand = sort_hand(hand)
    term.say("play.cards", cards=format_cards(hand, symbols=True))
    while True:
        answer = term.ask("play.ask_back", auto=AUTO_KEY)
        if answer.lower() == AUTO_KEY:
            return _auto_seat(term, name, arrange(hand, preset, "normal", opponents), preset)
        try:
            back = _cards_of(term.lang, answer, hand, 5, "back")
        except CapsaError as err:
            term.say("play.retry", error=err)
            continue
        rest = [c for c in hand if c not in back]
        answer = term.ask("play.ask_middle", cards=format_cards(rest, symbols=True))
        try:
            middle = _cards_of(term.lang, answer, rest, 5, "middle")
        except CapsaError as err:
            term.say("play.restart", error=err)
            continue
        front = tuple(c for c in rest if c not in middle)
        check_setting(hand, back, middle, front)
        _rows_text(term, (back, middle, front))
        if is_fouled(*(evaluate(r) for r in (back, middle, front))):
            term.say("play.fouled")
            if term.ask("play.confirm").lower() not in ("y", "yes", "ya"):
                continue
        return Seat(name, back, middle, front)


def _cards_of(lang: str, text: str, allowed: list[Card], size: int, row: str) -> tuple[Card, ...]:
    cards = parse_cards(text)
    if len(cards) != size:
        name = position_name(row, lang).lower()
        raise CapsaError(t("play.wrong_size", lang, row=name, size=size, count=len(cards)))
    for card in cards:
        if card not in allowed:
            raise CapsaError(t("play.not_left", lang, card=card.code))
    return tuple(cards)


def _auto_seat(term: _Terminal, name: str, a: Arrangement, preset) -> Seat:
    term.say("play.auto", points=f"{a.ordinary_expected:+.1f}")
    _rows_text(term, a.ordinary)
    if a.special is not None:
        key = "play.special_yes" if a.declare else "play.special_no"
        term.say(key, special=special_name(a.special, term.lang), value=preset.specials[a.special])
    return Seat(name, a.back, a.middle, a.front, declare=a.declare)
