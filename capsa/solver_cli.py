"""The ``arrange`` and ``review`` commands (capsa.cli lists them)."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from capsa.cards import CapsaError, check_setting, parse_cards
from capsa.coach import review_hand
from capsa.commands import command, run_batch
from capsa.presets import get_preset
from capsa.settings import BOT_LEVEL, PRESET
from capsa.solver import arrange, keep_memory


def _rules_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", default=PRESET.default, help=f"preset: {', '.join(PRESET.choices)}")


# --- arrange ------------------------------------------------------------------------------


def _arrange_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("cards", nargs="*", help="13 cards, e.g. AS KS QS ... (or --batch)")
    _rules_arg(p)
    p.add_argument("--level", default=BOT_LEVEL.default, choices=BOT_LEVEL.choices)
    p.add_argument("--opponents", type=int, default=3, help="1 to 3 (default 3)")
    p.add_argument("--seed", type=int, default=None, help="seed for hard/easy (optional)")
    p.add_argument("--batch", action="store_true", help="one hand of 13 cards per stdin line")


def _arrange_one(tokens, args, preset) -> dict:
    cards = parse_cards(tokens)  # arrange checks the 13 cards
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


def _review_args(p: argparse.ArgumentParser) -> None:
    _rules_arg(p)
    p.add_argument("--opponents", type=int, default=3, help="1 to 3 (default 3)")
    p.add_argument("--back", required=True, help="the back row played, 5 cards")
    p.add_argument("--middle", required=True, help="the middle row played, 5 cards")
    p.add_argument("--front", required=True, help="the front row played, 3 cards")
    p.add_argument("--declare", default=None, help="the special declared, if any")


@command(
    "review",
    "the coach: a played setting against the best one, valued as --level hard (JSON)",
    _review_args,
)
def cmd_review(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    preset = get_preset(args.rules)
    if not 1 <= args.opponents <= 3:
        raise CapsaError(f"--opponents must be 1 to 3, not {args.opponents}")
    back, middle, front = (
        tuple(parse_cards(text.replace(",", " ").split()))
        for text in (args.back, args.middle, args.front)
    )
    check_setting(None, back, middle, front)  # a row of the wrong size is named
    cards = [*back, *middle, *front]
    if args.declare is not None and not preset.pays(args.declare):
        paid = ", ".join(preset.specials) or "none"
        raise CapsaError(f"--declare {args.declare}: not a special {preset.name} pays ({paid})")
    review = review_hand(cards, preset, args.opponents, (back, middle, front), args.declare)
    answer = review.to_dict() | {"best_choice": review.is_best}
    stdout.write(json.dumps({k: _value(v) for k, v in answer.items()}) + "\n")
    return 0
