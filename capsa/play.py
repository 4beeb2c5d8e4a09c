"""``python -m capsa play``: a match in the terminal against computer players.

Every message comes from the catalogue of the language chosen with ``--lang``
(capsa/locales, one file per language in capsa.i18n.LANGS), the showdown included: it is
the bot's text (capsa.showdown). Errors from the engine are shown through their catalogue
code (``CapsaError.code``), so a mistyped card is explained in that language too.

A hand is set in three steps: the rows (typed back then middle, the front is the rest; or
auto-arranged by the solver at ``--level``; or a surrender where the table allows it),
then the whole setting is shown, with the special the hand holds and both values (the
special's points and the best ordinary setting's expected points), and the person locks
it in, declares the special instead, or sets again. Nothing is ever declared for them.
End of input (Ctrl-D) and Ctrl-C both stop the match and show the standings so far.

After each showdown the coach's review of the person's hand (capsa.coach: their setting
against the best one, valued as the ``hard`` level values settings) is a letter away:
typed at the next round's first prompt, or answered at the offer after the last round.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO, TypeVar

from capsa.cards import CapsaError, Card, check_setting, deal, format_cards, parse_cards, sort_hand
from capsa.coach import Origin, review_hand, review_text
from capsa.commands import command
from capsa.hands import evaluate, is_fouled
from capsa.i18n import DEFAULT_LANG, LANGS, count_of, has, number, t
from capsa.match import Match
from capsa.names import position_name, row_name, special_name
from capsa.presets import POSITIONS, PRESETS, Preset, get_preset
from capsa.scoring import Seat
from capsa.settings import BOT_LEVEL, PRESET, ROUNDS, SEATS
from capsa.showdown import ROW_ORDER, showdown_text, signed
from capsa.solver import Arrangement, Rows, arrange
from capsa.specials import find_setting, holds
from capsa.terminal import display_width, output_width, wrap

# The letters a person types instead of cards: the same in every language (the prompts
# and the help name them).
AUTO_KEY = "a"
SURRENDER_KEY = "s"
DECLARE_KEY = "d"
BACK_KEY = "b"  # at the middle row: type the back row again
QUIT_KEY = "q"
REVIEW_KEY = "r"  # the coach's review of the hand of the round before
QUIT_WORDS = (QUIT_KEY, "quit", "exit")
ROUNDS_WORDS = ("play.rounds.one", "play.rounds.other")  # "1 round", "2 rounds"
EXIT_INTERRUPTED = 130  # Ctrl-C: the standings are shown, then the shell's usual status

# A row's size error in the catalogue, by row: each language names its own row its own way.
_SIZE_ERRORS = {"back": "play.back_size", "middle": "play.middle_size"}
_BOOLEAN_WORDS = {"true": True, "false": False}
_T = TypeVar("_T")


def _option(text: str) -> tuple[str, object]:
    """One ``--option KEY=VALUE`` as ``score`` takes it in JSON: ``true``/``false`` are
    booleans, anything else is text (``method=2-4``); a bare ``KEY`` means ``KEY=true``."""
    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not key:
        raise argparse.ArgumentTypeError(f"'{text}' is not KEY=VALUE, e.g. method=2-4")
    if not sep:
        return key, True
    return key, _BOOLEAN_WORDS.get(raw.lower(), raw)


def rules_arguments(p: argparse.ArgumentParser) -> None:
    """``--rules`` and ``--option``: the table's preset and options, as every command that
    plays, solves or reviews a hand takes them."""
    p.add_argument("--rules", default=PRESET.default, help=f"preset: {', '.join(PRESETS)}")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        type=_option,
        metavar="KEY=VALUE",
        help="a table option, as in score: method=2-4, surrender=true, room_fee=true "
        "(repeat for several)",
    )


def _play_args(p: argparse.ArgumentParser) -> None:
    rules_arguments(p)
    low, high = SEATS.bounds
    p.add_argument(
        "--players",
        type=int,
        default=SEATS.default,
        choices=range(low, high + 1),
        help="players at the table, you and the computers",
    )
    # the same default as the bot's tables and the rules pages (capsa.settings)
    p.add_argument(
        "--rounds",
        type=int,
        default=ROUNDS.default,
        choices=ROUNDS.choices,
        help="rounds in the match",
    )
    p.add_argument(
        "--level",
        default=BOT_LEVEL.default,
        choices=BOT_LEVEL.choices,
        help="computer players and auto-arrange",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the same seed deals the same match (default: a new deal every time)",
    )
    p.add_argument(
        "--lang", default=DEFAULT_LANG, choices=LANGS, help="the language of every message"
    )


def table_options(pairs: Sequence[tuple[str, object]]) -> dict[str, object]:
    """The ``--option`` pairs as the options mapping of ``score``; a key given twice is refused."""
    options: dict[str, object] = {}
    for key, value in pairs:
        if key in options:
            raise CapsaError(f"option '{key}' is given twice")
        options[key] = value
    return options


class _EOF(Exception):
    """The input ended (Ctrl-D or a closed pipe)."""


class _Quit(Exception):
    """The person typed the quit letter."""


class _Terminal:
    def __init__(self, stdin: TextIO, stdout: TextIO, lang: str):
        self.stdin, self.stdout, self.lang = stdin, stdout, lang
        try:
            self.interactive = stdin.isatty()
        except (AttributeError, ValueError):
            self.interactive = False
        self.echo = not self.interactive  # piped input: show what was read
        self.width = output_width(stdout)  # None: not a terminal, nothing is wrapped
        self.numbers_explained = False

    def text(self, msg: str, /, **values: object) -> str:
        return t(msg, self.lang, **values)

    def say(self, msg: str | None = None, /, **values: object) -> None:
        self.write(self.text(msg, **values) if msg else "")

    def write(self, line: str) -> None:
        self.stdout.write(wrap(line, self.width) + "\n")

    def points(self, value: float) -> str:
        """Expected points as this language writes them: "+1.5", "-0,8"."""
        return number(value, self.lang, sign=True)

    def explain_numbers(self) -> None:
        """Once a match: why the values shown here and the coach's differ a little."""
        if not self.numbers_explained:
            self.numbers_explained = True
            self.say("play.numbers_note")

    def ask(self, msg: str, /, **values: object) -> str:
        prompt = self.text(msg, **values)
        wrapped = wrap(prompt, self.width)
        if wrapped != prompt and prompt.endswith(" ") and not wrapped.endswith(" "):
            wrapped += " "
        self.stdout.write(wrapped)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise _EOF
        if self.echo:
            self.stdout.write(line if line.endswith("\n") else line + "\n")
        answer = line.strip()
        if answer.lower() in QUIT_WORDS:
            raise _Quit
        return answer

    def words(self, key: str) -> set[str]:
        """A catalogue list of accepted answers ("y yes"), lower case."""
        return set(self.text(key).lower().split())

    def error(self, err: CapsaError) -> str:
        """An engine error in this language: its catalogue text when it has a code."""
        if err.code is not None and has(err.code):
            return self.text(err.code, **err.values)
        return str(err)


@command("play", "play a match in the terminal against computer players", _play_args)
def cmd_play(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    preset = get_preset(args.rules, table_options(args.option))
    term = _Terminal(stdin, stdout, args.lang)
    you = term.text("play.you")
    names = (you, *(term.text("seat.computer", n=i) for i in range(1, args.players)))
    match = Match(preset, names, args.rounds)
    rng = random.Random(args.seed)
    level = term.text(f"choice.{args.level}")
    term.say(
        "play.intro", preset=preset.name, players=args.players, rounds=args.rounds, level=level
    )
    options = _options_text(term, preset)
    if options:
        term.say("play.options", options=options)
    term.say("play.howto", auto=AUTO_KEY, quit=QUIT_KEY)
    status = 0
    last: _Played | None = None
    try:
        while not match.finished:
            round_seed = rng.randrange(2**32)
            hands = deal(args.players, seed=round_seed)
            opponents = args.players - 1
            term.say()
            term.say("play.round", k=match.round_number, n=match.length)
            advice = arrange(hands[0], preset, args.level, opponents, seed=round_seed)
            hand = _Hand(you, sort_hand(hands[0]), preset, opponents, args.level, advice, last)
            played = _human_seat(term, hand)
            seats = [played.seat]
            for i in range(1, args.players):
                a = arrange(hands[i], preset, args.level, opponents, seed=round_seed + i)
                if a.surrender:  # the solver gives the hand up where the table allows it
                    seats.append(Seat(names[i], surrender=True))
                else:
                    seats.append(Seat(names[i], a.back, a.middle, a.front, declare=a.declare))
            result = match.play(seats)
            term.say("play.showdown")
            text = showdown_text(result, match.totals, len(match.results), match.length, args.lang)
            term.write(text)
            last = played
            if term.interactive:  # the showdown stays on the screen until Enter
                _pause(term, last, match.finished)
            elif not match.finished:
                term.say("play.review_hint", letter=REVIEW_KEY)
            elif _offer_review(term):
                _show_review(term, last)
    except _EOF:
        term.say()
        term.say("play.eof")
    except _Quit:
        term.say("play.quit")
    except KeyboardInterrupt:
        term.say()
        term.say("play.interrupted")
        status = EXIT_INTERRUPTED
    if match.results:
        term.say()
        term.say("play.final", rounds=count_of(ROUNDS_WORDS, len(match.results), args.lang))
        for s in match.standings():
            term.say("play.place", place=s.place, name=s.name, total=signed(s.total, args.lang))
    return status


def _options_text(term: _Terminal, preset: Preset) -> str:
    """The table options in play, e.g. "method 2-4, surrender allowed (3 to each player)"."""
    parts = []
    if preset.method is not None:
        parts.append(term.text("play.opt.method", method=preset.method))
    if preset.room_fee:
        rate = number(preset.room_fee_rate * 100, term.lang, digits=2)
        parts.append(term.text("play.opt.room_fee", rate=rate))
    if preset.surrender:
        parts.append(
            term.text("play.opt.surrender", letter=SURRENDER_KEY, cost=preset.surrender_cost)
        )
    return ", ".join(parts)


# --- one person's hand --------------------------------------------------------------------


@dataclass(frozen=True)
class _Hand:
    name: str
    cards: list[Card]  # highest first
    preset: Preset
    opponents: int
    level: str  # --level
    advice: Arrangement  # the solver's, at --level: auto-arrange and both values
    previous: _Played | None = None  # the person's hand of the round before, for a review


@dataclass(frozen=True)
class _Played:
    """A hand as the person locked it in: what the coach reviews."""

    hand: _Hand
    seat: Seat
    origin: Origin


def _human_seat(term: _Terminal, hand: _Hand) -> _Played:
    term.say("play.cards", cards=format_cards(hand.cards, symbols=True))
    special = hand.advice.special
    if special is not None:
        _offer_special(term, hand, special)
    while True:
        rows, arranged = _ask_rows(term, hand)
        origin = Origin.AUTO if arranged else Origin.PLAYED
        seat = Seat(hand.name, surrender=True) if rows is None else Seat(hand.name, *rows)
        _show_setting(term, hand, seat)
        if rows is not None and special is not None:
            # these rows, or the special instead: the person chooses, never the solver
            choice = _ask_choice(
                term,
                "play.rows_or_special",
                {"y": "rows", DECLARE_KEY: "declare", "n": "again"},
                special=special_name(special, term.lang),
                letter=DECLARE_KEY,
                special_points=term.points(hand.advice.special_value or 0.0),
                rows_points=term.points(hand.advice.ordinary_expected),
            )
            if choice == "rows":
                return _Played(hand, seat, origin)
            if choice == "again":
                continue
            seat = Seat(hand.name, *_declared_rows(hand, special, rows), declare=special)
            origin = Origin.PLAYED  # declaring is the person's own choice
            _show_setting(term, hand, seat)
        if _ask_choice(term, "play.lock", {"y": True, "n": False}):
            return _Played(hand, seat, origin)


def _offer_special(term: _Terminal, hand: _Hand, special: str) -> None:
    a = hand.advice
    term.say(
        "play.special_offer",
        special=special_name(special, term.lang),
        value=hand.preset.specials[special],
        special_points=term.points(a.special_value or 0.0),
        rows_points=term.points(a.ordinary_expected),
        letter=DECLARE_KEY,
    )
    term.say("play.advice_declare" if a.declare else "play.advice_rows")
    term.explain_numbers()


def _declared_rows(hand: _Hand, special: str, rows: Rows) -> Rows:
    """Rows that hold the special: the person's own if they do (always, for a dragon or six
    pairs), else the solver's, else a setting built for it (three straights/flushes)."""
    a = hand.advice
    for candidate in (rows, (a.back, a.middle, a.front), a.ordinary):
        if holds(special, candidate):
            return candidate
    found = find_setting(hand.cards, special)
    if found is None:  # the solver found the special, so a setting exists
        raise CapsaError(f"no setting of this hand forms '{special}'")
    return found


def _ask_rows(term: _Terminal, hand: _Hand) -> tuple[Rows | None, bool]:
    """The person's rows, typed or auto-arranged (then True); None for a surrender."""
    while True:
        answer = term.ask("play.ask_back", auto=AUTO_KEY)
        key = answer.lower()
        if not answer:
            _help_back(term, hand)
            continue
        if key == REVIEW_KEY and hand.previous is not None:
            _show_review(term, hand.previous)
            continue
        if key == AUTO_KEY:
            level = term.text(f"choice.{hand.level}")
            term.say("play.auto", level=level, points=term.points(hand.advice.ordinary_expected))
            term.explain_numbers()
            return hand.advice.ordinary, True
        if key == SURRENDER_KEY and hand.preset.surrender:
            return None, False
        try:
            back = _cards_of(answer, hand.cards, hand.cards, "back")
        except CapsaError as err:
            term.say("play.retry", error=term.error(err))
            continue
        rest = [c for c in hand.cards if c not in back]
        middle = _ask_middle(term, hand, rest)
        if middle is None:
            continue
        front = tuple(c for c in rest if c not in middle)
        check_setting(hand.cards, back, middle, front)
        return (back, middle, front), False


def _ask_middle(term: _Terminal, hand: _Hand, rest: list[Card]) -> tuple[Card, ...] | None:
    """The middle row from the cards left; a mistake asks again for the middle only.
    None: the person wants to type the back row again."""
    shown = format_cards(rest, symbols=True)
    while True:
        answer = term.ask("play.ask_middle", cards=shown)
        if not answer:
            term.say(
                "play.help_middle",
                cards=shown,
                example=format_cards(rest[:5]),
                back=BACK_KEY,
            )
            continue
        if answer.lower() == BACK_KEY:
            return None
        try:
            return _cards_of(answer, rest, hand.cards, "middle")
        except CapsaError as err:
            term.say("play.retry", error=term.error(err))


def _help_back(term: _Terminal, hand: _Hand) -> None:
    term.say(
        "play.help_back",
        cards=format_cards(hand.cards, symbols=True),
        example=format_cards(hand.cards[:5]),
    )
    term.say("play.help_auto", letter=AUTO_KEY)
    if hand.preset.surrender:
        term.say("play.help_surrender", letter=SURRENDER_KEY, cost=hand.preset.surrender_cost)
    if hand.previous is not None:
        term.say("play.help_review", letter=REVIEW_KEY)
    term.say("play.help_quit", letter=QUIT_KEY)


def _cards_of(text: str, allowed: list[Card], hand: list[Card], row: str) -> tuple[Card, ...]:
    """The cards typed for ``row``: 5 of ``allowed`` (the cards not in a row yet)."""
    cards = parse_cards(text)
    for card in cards:
        if card not in hand:
            raise CapsaError(f"'{card.code}' is not in your hand", "play.not_held", card=card.code)
        if card not in allowed:
            raise CapsaError(
                f"'{card.code}' is already in your back row", "play.in_back", card=card.code
            )
    if len(cards) != 5:
        raise CapsaError(
            f"the {row} row takes 5 cards, not {len(cards)}", _SIZE_ERRORS[row], count=len(cards)
        )
    return tuple(cards)


def _show_setting(term: _Terminal, hand: _Hand, seat: Seat) -> None:
    """The whole setting as it will be locked in: rows and their names, the special or the
    surrender, a foul warning."""
    if seat.surrender:
        cost = hand.preset.surrender_cost
        term.say("play.surrendering", cost=cost, points=signed(-cost * hand.opponents, term.lang))
        return
    term.say("play.setting")
    names = {p: position_name(p, term.lang) for p in POSITIONS}
    width = max(display_width(n) for n in names.values())
    rows = dict(zip(POSITIONS, seat.setting, strict=True))
    for position in ROW_ORDER:  # as the showdown lists them
        row = evaluate(rows[position])
        label = names[position] + ":"
        term.say(
            "play.setting_row",
            row=label + " " * (width + 1 - display_width(label)),
            cards=format_cards(row.cards, symbols=True),
            hand=row_name(row, term.lang),
        )
    if seat.declare is not None:
        value = hand.preset.specials[seat.declare]
        term.say(
            "play.declared",
            special=special_name(seat.declare, term.lang),
            value=value,
            points=signed(value * hand.opponents, term.lang),
        )
    elif is_fouled(*(evaluate(r) for r in seat.setting)):
        term.say("play.fouled")


def _ask_choice(term: _Terminal, msg: str, answers: dict[str, _T], /, **values: object) -> _T:
    """Ask until the answer is one of ``answers``' letters (or a yes/no word of the language)."""
    yes, no = term.words("play.yes_words"), term.words("play.no_words")
    while True:
        answer = term.ask(msg, **values).lower()
        if answer in yes:
            answer = "y"
        elif answer in no:
            answer = "n"
        if answer in answers:
            return answers[answer]
        term.say("play.answer", choices="/".join(answers))


# --- the coach ----------------------------------------------------------------------------


def _pause(term: _Terminal, played: _Played, last_round: bool) -> None:
    """At a terminal, after a showdown: Enter goes on (to the next round, or after the last
    to the standings); the review letter shows the coach's review first."""
    key = "play.next_last" if last_round else "play.next"
    while True:
        try:
            answer = term.ask(key, letter=REVIEW_KEY).lower()
        except _EOF:
            if last_round:
                term.say()
                return
            raise
        if answer == REVIEW_KEY:
            _show_review(term, played)
        elif not answer:
            return


def _offer_review(term: _Terminal) -> bool:
    """After the last round: does the person want the review? End of input means no."""
    try:
        return term.ask("play.review_offer", letter=REVIEW_KEY).lower() == REVIEW_KEY
    except _EOF:
        term.say()
        return False


def _show_review(term: _Terminal, played: _Played) -> None:
    """The coach's review of a locked-in hand, as the bot's "Review my hand" gives it."""
    hand, seat = played.hand, played.seat
    review = review_hand(
        hand.cards,
        hand.preset,
        hand.opponents,
        None if seat.surrender else seat.setting,
        seat.declare,
        surrendered=seat.surrender,
        origin=played.origin,
    )
    text = review_text(review, term.lang)
    term.say()
    for block in (text.yours_title, text.yours, text.best_title, text.best):
        for line in block.splitlines():
            term.write("  " + line)
    for line in (text.verdict, *text.notes, text.how):
        term.write("  " + line)
    term.say()
