"""The ``arrange`` and ``review`` commands (capsa.cli lists them)."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from capsa.cards import CapsaError, check_setting, parse_cards
from capsa.coach import review_hand
from capsa.commands import command, run_batch
from capsa.play import rules_arguments, table_options
from capsa.presets import Preset, get_preset
from capsa.settings import BOT_LEVEL
from capsa.solver import arrange, keep_memory


def _preset(args: argparse.Namespace) -> Preset:
    """The --rules preset with the --option table options."""
    return get_preset(args.rules, table_options(args.option))


# --- arrange ------------------------------------------------------------------------------


def _arrange_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("cards", nargs="*", help="13 cards, e.g. AS KS QS ... (or --batch)")
    rules_arguments(p)
    p.add_argument("--level", default=BOT_LEVEL.default, choices=BOT_LEVEL.choices)
    p.add_argument("--opponents", type=int, default=3, help="1 to 3 (default 3)")
    p.add_argument("--seed", type=int, default=None, help="seed for hard/easy (optional)")
    p.add_argument("--batch", action="store_true", help="one hand of 13 cards per stdin line")


def _arrange_one(tokens, args, preset) -> dict:
    cards = parse_cards(tokens)  # arrange checks the 13 cards
    return arrange(cards, preset, args.level, args.opponents, args.seed).to_dict()


@command("arrange", "suggest a setting of 13 cards (JSON)", _arrange_args)
def cmd_arrange(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    preset = _preset(args)
    if not 1 <= args.opponents <= 3:
        raise CapsaError(f"--opponents must be 1 to 3, not {args.opponents}")
    if not args.batch:
        if not args.cards:
            raise CapsaError("give 13 cards, e.g. AS KS QS JS TS 9H 9D 9C 2H 2D 5C 6C 7C")
        stdout.write(json.dumps(_arrange_one(args.cards, args, preset)) + "\n")
        return 0
    if args.cards:
        raise CapsaError("with --batch the hands come from stdin, one per line")
    keep_memory()  # many hands in one process: as the bot's workers do

    def answer(line: str, number: int) -> dict:
        return _arrange_one(line.replace(",", " ").split(), args, preset)

    return run_batch(
        stdin, stdout, stderr, answer, blank="the line is blank (give 13 cards)", flush=True
    )


# --- review -------------------------------------------------------------------------------


def _value(value: object) -> object:
    """A value as ``arrange`` prints its ``expected``: four decimals."""
    return round(value, 4) if isinstance(value, float) else value


SURRENDER_WORD = "surrender"


def _review_args(p: argparse.ArgumentParser) -> None:
    rules_arguments(p)
    p.add_argument("--opponents", type=int, default=3, help="1 to 3 (default 3)")
    p.add_argument("--back", help="the back row played, 5 cards")
    p.add_argument("--middle", help="the middle row played, 5 cards")
    p.add_argument("--front", help="the front row played, 3 cards")
    p.add_argument("--declare", default=None, help="the special declared, if any")
    p.add_argument(
        "--surrender",
        action="store_true",
        help="the hand was surrendered (where the table allows it; the rows are its 13 cards)",
    )
    p.add_argument(
        "--batch",
        action="store_true",
        help="one hand a stdin line: BACK / MIDDLE / FRONT, then optionally / SPECIAL "
        f"(declared) or / {SURRENDER_WORD}",
    )


def _review_one(
    rows: tuple[str, str, str], choice: str | None, args: argparse.Namespace, preset: Preset
) -> dict:
    back, middle, front = (tuple(parse_cards(text.replace(",", " ").split())) for text in rows)
    check_setting(None, back, middle, front)  # a row of the wrong size is named
    cards = [*back, *middle, *front]
    surrendered = choice == SURRENDER_WORD
    declare = None if surrendered else choice
    if surrendered and not preset.surrender:
        raise CapsaError(f"surrender is not allowed with these rules ({preset.name})")
    if declare is not None and not preset.pays(declare):
        paid = ", ".join(preset.specials) or "none"
        raise CapsaError(f"--declare {declare}: not a special {preset.name} pays ({paid})")
    review = review_hand(
        cards, preset, args.opponents, (back, middle, front), declare, surrendered=surrendered
    )
    answer = review.to_dict() | {"best_choice": review.is_best}
    return {k: _value(v) for k, v in answer.items()}


def _review_line(line: str, args: argparse.Namespace, preset: Preset) -> dict:
    parts = [part.strip() for part in line.split("/")]
    if len(parts) not in (3, 4):
        raise CapsaError(
            "give BACK / MIDDLE / FRONT, then optionally / SPECIAL or / "
            f"{SURRENDER_WORD}, e.g. AS KS QS JS TS / 9H 9D 9C 2H 2D / 5C 6C 7C"
        )
    choice = parts[3] if len(parts) == 4 else None
    return _review_one((parts[0], parts[1], parts[2]), choice, args, preset)


@command(
    "review",
    "the coach: a played setting against the best one, valued as --level hard (JSON)",
    _review_args,
)
def cmd_review(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    preset = _preset(args)
    if not 1 <= args.opponents <= 3:
        raise CapsaError(f"--opponents must be 1 to 3, not {args.opponents}")
    if args.surrender and args.declare is not None:
        raise CapsaError("a surrendered hand declares nothing: give --surrender or --declare")
    rows = (args.back, args.middle, args.front)
    if args.batch:
        if any(r is not None for r in rows) or args.declare or args.surrender:
            raise CapsaError("with --batch the hands come from stdin, one per line")
        keep_memory()  # many hands in one process: as the bot's workers do
        return run_batch(
            stdin,
            stdout,
            stderr,
            lambda line, number: _review_line(line, args, preset),
            blank="the line is blank (give BACK / MIDDLE / FRONT)",
            flush=True,
        )
    if any(r is None for r in rows):
        raise CapsaError("give --back, --middle and --front (or --batch)")
    choice = SURRENDER_WORD if args.surrender else args.declare
    result = _review_one((args.back, args.middle, args.front), choice, args, preset)
    stdout.write(json.dumps(result) + "\n")
    return 0
