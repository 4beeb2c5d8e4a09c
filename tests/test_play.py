"""``python -m capsa play``: the terminal game, driven through its input and output.

Each test types what a person would type (a script on stdin) and reads what the game
printed; a few run the real command as a subprocess. Hands come from ``--seed``: the
helpers below derive a round's hand the way the command does.
"""

from __future__ import annotations

import io
import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from capsa.cards import CapsaError, Card, deal, format_cards, parse_card, parse_cards
from capsa.cli import build_parser, main
from capsa.hands import evaluate, is_fouled
from capsa.i18n import LANGS, catalog, count_of, number, t
from capsa.names import row_name
from capsa.play import EXIT_INTERRUPTED, ROUNDS_WORDS
from capsa.presets import get_preset
from capsa.solver import Arrangement, arrange
from capsa.specials import available, holds

ROOT = Path(__file__).resolve().parents[1]
# a terminal's Ctrl-C even where the test runner was started with SIGINT ignored
RUN = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from capsa.cli import main; sys.exit(main())"
)

# seeds whose first hand (seat 0) holds a special, checked in test_the_seeds_hold_specials
THREE_STRAIGHTS_SEED = 15
SIX_PAIRS_SEED = 103
DRAGON_SEED = 2439


def play(args: list[str], text: str) -> tuple[int, str, str]:
    """The game on piped input; a 5-round match unless ``args`` say otherwise."""
    out, err = io.StringIO(), io.StringIO()
    rounds = [] if "--rounds" in args else ["--rounds", "5"]
    status = main(["play", *rounds, *args], io.StringIO(text), out, err)
    return status, out.getvalue(), err.getvalue()


def round_seeds(seed: int, count: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(2**32) for _ in range(count)]


def hand_of(seed: int, players: int, round_number: int = 1) -> list[Card]:
    """The person's hand in a round for a given --seed (the same derivation as the command)."""
    return deal(players, seed=round_seeds(seed, round_number)[-1])[0]


def advice_of(
    seed: int, players: int, rules: str = "standard", level: str = "normal", options=None
) -> Arrangement:
    """What the game's auto-arrange computes for the person's first hand."""
    preset = get_preset(rules, options)
    return arrange(hand_of(seed, players), preset, level, players - 1, seed=round_seeds(seed, 1)[0])


def first_round(out: str, lang: str = "en") -> str:
    """What the game printed in round 1 (of a 5-round match)."""
    body = out.split(t("play.round", lang, k=1, n=5), 1)[1]
    return body.split(t("play.round", lang, k=2, n=5))[0]


def shown(key: str, lang: str = "en", **values: object) -> str:
    """A showdown line as the terminal prints it (without the bot's Markdown)."""
    return t(key, lang, **values).replace("**", "")


def codes(cards) -> str:
    return format_cards(cards)


def points(value: float, lang: str = "en") -> str:
    """Expected points as the game writes them in ``lang`` ("-0,2" in Indonesian)."""
    return number(value, lang, sign=True)


def test_the_seeds_hold_specials():
    standard = get_preset("standard")
    assert "three_straights" in available(hand_of(THREE_STRAIGHTS_SEED, 2), standard)
    assert available(hand_of(SIX_PAIRS_SEED, 2), standard) == ["six_pairs"]
    assert available(hand_of(DRAGON_SEED, 4), standard)[0] == "dragon"
    for seed in (1, 2, 3, 4):  # the plain hands below hold none
        assert available(hand_of(seed, 2), standard) == []


# --- a whole match ------------------------------------------------------------------------


def test_scripted_two_round_match_with_auto_arrange():
    status, out, err = play(["--players", "2", "--rounds", "5", "--seed", "1"], "a\ny\na\ny\n")
    assert status == 0 and err == ""
    assert "Round 1 of 5" in out and "Round 2 of 5" in out
    assert out.count("--- Showdown ---") == 2
    assert "Match totals" in out and "Final standings after 2 rounds" in out
    assert "Input ended" in out  # EOF at round 3 ends cleanly


def test_full_short_match_finishes():
    status, out, _ = play(
        ["--players", "3", "--rounds", "5", "--seed", "2", "--level", "easy"], "a\ny\n" * 5
    )
    assert status == 0 and "Final standings after 5 rounds" in out
    assert "Input ended" not in out


def test_eof_at_once_ends_cleanly():
    status, out, err = play(["--players", "4"], "")
    assert status == 0 and "Input ended" in out and err == ""
    assert "Final standings" not in out


def test_quit_letter_ends_the_match_with_the_standings():
    status, out, _ = play(["--players", "2", "--seed", "1"], "a\ny\nq\n")
    assert status == 0 and "You left the match." in out
    assert "Final standings after 1 round ===" in out and "Input ended" not in out


def test_play_subprocess_with_piped_stdin():
    proc = subprocess.run(
        [sys.executable, "-c", RUN, "play", "--players", "2", "--seed", "5"]
        + ["--rules", "indocapsa"],
        input="a\ny\na\ny\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("--- Showdown ---") == 2 and "Final standings" in proc.stdout


# --- typing rows ----------------------------------------------------------------------------


def test_typed_rows_bad_card_and_a_card_not_held():
    hand = hand_of(3, 2)
    a = advice_of(3, 2)
    back, middle = codes(a.ordinary[0]), codes(a.ordinary[1])
    not_held = next(c for c in parse_cards("AS KS QS JS TS 9S 2D") if c not in hand).code
    script = f"ZZ 1\n{not_held}\n{back}\n{middle}\ny\n"
    status, out, err = play(["--players", "2", "--seed", "3"], script)
    assert status == 0 and "Traceback" not in out + err
    assert "'ZZ' is not a card" in out and "Try again" in out
    assert f"'{not_held}' is not in your hand" in out
    assert out.count("Back row (5 cards") == 3 + 1  # three tries, then round 2's
    assert "--- Showdown ---" in out and "You vs Computer 1" in out


def test_a_bad_middle_row_keeps_the_back_row():
    a = advice_of(3, 2)
    back, middle = codes(a.ordinary[0]), codes(a.ordinary[1])
    # four cards, a card already in the back row, a card twice: the middle is asked again
    script = f"{back}\n{middle[:11]}\n{back[:2]}\n{middle} {middle[:2]}\n{middle}\ny\n"
    status, out, _ = play(["--players", "2", "--seed", "3"], script)
    assert status == 0
    round_1 = first_round(out)
    assert round_1.count("Back row (5 cards") == 1  # never asked again
    assert round_1.count("Middle row (5 of") == 4
    assert "the middle row takes 5 cards, you typed 4" in round_1
    assert f"'{back[:2]}' is already in your back row" in round_1
    assert f"'{middle[:2]}' appears twice" in round_1
    assert "--- Showdown ---" in round_1


def test_b_at_the_middle_row_types_the_back_row_again():
    a = advice_of(3, 2)
    back, middle = codes(a.ordinary[0]), codes(a.ordinary[1])
    script = f"{middle}\nb\n{back}\n{middle}\ny\n"
    _, out, _ = play(["--players", "2", "--seed", "3"], script)
    round_1 = first_round(out)
    assert round_1.count("Back row (5 cards") == 2 and "--- Showdown ---" in round_1


def test_rows_typed_with_symbols_and_lower_case():
    a = advice_of(3, 2)
    back = " ".join(c.symbol for c in a.ordinary[0])
    middle = codes(a.ordinary[1]).lower()
    status, out, _ = play(["--players", "2", "--seed", "3"], f"{back}\n{middle}\ny\n")
    assert status == 0 and "--- Showdown ---" in out


@pytest.mark.parametrize("lang", LANGS)
def test_an_empty_line_explains_what_to_type(lang: str):
    hand = hand_of(3, 2)
    a = advice_of(3, 2)
    back = codes(a.ordinary[0])
    rest = [c for c in hand if c not in a.ordinary[0]]
    _, out, _ = play(["--players", "2", "--seed", "3", "--lang", lang], f"\n{back}\n\n")
    help_back = t("play.help_back", lang, cards=format_cards(hand, True), example=codes(hand[:5]))
    assert help_back in out
    assert t("play.help_auto", lang, letter="a") in out
    assert t("play.help_quit", lang, letter="q") in out
    shown = format_cards(rest, True)
    assert t("play.help_middle", lang, cards=shown, example=codes(rest[:5]), back="b") in out
    assert "needs 5 cards" not in out and "not 0" not in out and "typed 0" not in out


# --- confirmation -----------------------------------------------------------------------


def test_the_whole_setting_is_shown_before_it_is_locked():
    a = advice_of(3, 2)
    back, middle, front = a.ordinary
    script = f"{codes(back)}\n{codes(middle)}\nn\na\nmaybe\ny\n"
    status, out, _ = play(["--players", "2", "--seed", "3"], script)
    assert status == 0
    round_1 = first_round(out)
    assert round_1.count("Your setting:") == 2  # typed, refused with n; auto, locked with y
    for position, row in zip(("Back:", "Middle:", "Front:"), (back, middle, front), strict=True):
        line = f"{position.ljust(7)} {format_cards(evaluate(row).cards, True)}"
        assert f"{line}  ({row_name(evaluate(row))})" in round_1
    assert round_1.count("Lock it in? (y/n)") == 3  # n, then "maybe" is asked again, then y
    assert "Please answer y/n." in round_1
    # n went back to setting: the back row was asked again
    assert round_1.count("Back row (5 cards") == 2
    assert round_1.index("Your setting:") < round_1.index("--- Showdown ---")


def test_a_fouled_setting_is_flagged_and_can_be_set_again():
    a = advice_of(4, 2)
    # put the middle in the back and the back in the middle: fouled unless equal
    back, middle = codes(a.ordinary[1]), codes(a.ordinary[0])
    assert is_fouled(*(evaluate(r) for r in (a.ordinary[1], a.ordinary[0], a.ordinary[2])))
    status, out, _ = play(["--players", "2", "--seed", "4"], f"{back}\n{middle}\nn\na\ny\n")
    assert status == 0
    round_1 = first_round(out)
    assert round_1.count("Fouled: the back must be") == 1  # the auto setting is not fouled
    assert "❌" not in round_1  # the fouled one was not played
    # locked in anyway, it is scored as fouled
    _, out, _ = play(["--players", "2", "--seed", "4"], f"{back}\n{middle}\ny\n")
    assert "❌ **Fouled**" in out or "❌ Fouled" in out


def test_yes_and_no_words_of_the_language():
    a = advice_of(3, 2)
    back, middle = codes(a.ordinary[0]), codes(a.ordinary[1])
    script = f"{back}\n{middle}\ntidak\n{back}\n{middle}\nya\n"
    _, out, _ = play(["--players", "2", "--seed", "3", "--lang", "id"], script)
    round_1 = first_round(out, "id")
    assert round_1.count("Susunanmu:") == 2 and "--- Adu kartu ---" in round_1
    # English words are not Indonesian answers
    _, out, _ = play(["--players", "2", "--seed", "3", "--lang", "id"], "a\nyes\nya\n")
    assert "Jawab y/n." in out


# --- specials -------------------------------------------------------------------------------


def _offer(lang: str, a: Arrangement, preset_name: str = "standard") -> str:
    assert a.special is not None and a.special_value is not None
    return t(
        "play.special_offer",
        lang,
        special=t(f"special.{a.special}", lang),
        value=get_preset(preset_name).specials[a.special],
        special_points=points(a.special_value, lang),
        rows_points=points(a.ordinary_expected, lang),
        letter="d",
    )


@pytest.mark.parametrize("lang", LANGS)
def test_a_special_is_offered_with_both_values_for_typed_rows(lang: str):
    a = advice_of(SIX_PAIRS_SEED, 2)
    assert a.special == "six_pairs"
    back, middle = codes(a.ordinary[0]), codes(a.ordinary[1])
    args = ["--players", "2", "--seed", str(SIX_PAIRS_SEED), "--lang", lang]
    status, out, _ = play(args, f"{back}\n{middle}\nd\ny\n")
    assert status == 0
    round_1 = first_round(out, lang)
    assert _offer(lang, a) in round_1
    choice = t(
        "play.rows_or_special",
        lang,
        special=t("special.six_pairs", lang),
        letter="d",
        special_points=points(a.special_value or 0, lang),
        rows_points=points(a.ordinary_expected, lang),
    )
    assert choice in round_1
    declared = t("play.declared", lang, special=t("special.six_pairs", lang), value=3, points="+3")
    assert declared in round_1
    assert shown("sd.special", lang, special=t("special.six_pairs", lang)) in round_1


def test_a_special_is_offered_after_auto_arrange_and_the_rows_can_be_played():
    a = advice_of(SIX_PAIRS_SEED, 2)
    args = ["--players", "2", "--seed", str(SIX_PAIRS_SEED)]
    _, out, _ = play(args, "a\ny\n")
    round_1 = first_round(out)
    assert _offer("en", a) in round_1
    assert "Play these rows (y), declare Six pairs with 'd'" in round_1
    assert "Declared:" not in round_1 and "Lock it in?" not in round_1  # y locked the rows
    assert "✨" not in round_1


def test_auto_arrange_never_declares_for_a_person():
    # a dragon at a 4-player indocapsa table: 78 from each player, the solver declares it
    args = ["--players", "4", "--seed", str(DRAGON_SEED), "--rules", "indocapsa"]
    a = advice_of(DRAGON_SEED, 4, "indocapsa")
    assert a.special == "dragon" and a.declare == "dragon"
    _, out, _ = play(args, "a\ny\n")
    round_1 = first_round(out)
    assert _offer("en", a, "indocapsa") in round_1
    assert "The solver would declare it." in round_1
    assert "Declared:" not in round_1 and "✨" not in round_1  # the person played the rows
    # and declared, every other player pays the dragon
    _, out, _ = play(args, "a\nd\ny\n")
    round_1 = first_round(out)
    assert "Declared: Dragon. Every other player pays you 78 (+234 in all)." in round_1
    assert "✨ Declared Dragon" in round_1 and "Round: +234" in round_1


def test_declaring_three_straights_sets_rows_that_hold_them():
    hand = hand_of(THREE_STRAIGHTS_SEED, 2)
    # rows that do not form three straights: the five highest cards in the back
    back, middle = hand[:5], hand[5:10]
    assert not holds("three_straights", (tuple(back), tuple(middle), tuple(hand[10:])))
    args = ["--players", "2", "--seed", str(THREE_STRAIGHTS_SEED)]
    status, out, err = play(args, f"{codes(back)}\n{codes(middle)}\nd\ny\n")
    assert status == 0 and "Traceback" not in out + err
    round_1 = first_round(out)
    shown = round_1.split("Declared: Three straights")[0].split("Your setting:")[-1]
    rows = [
        tuple(parse_cards(line.split(":", 1)[1].split("(")[0]))
        for line in shown.strip().splitlines()[:3]
    ]
    front, middle, back = rows  # listed as the showdown lists them
    assert holds("three_straights", (back, middle, front))
    assert "✨ Declared Three straights" in round_1


def test_a_declared_special_can_be_set_again():
    args = ["--players", "2", "--seed", str(SIX_PAIRS_SEED)]
    _, out, _ = play(args, "a\nd\nn\na\ny\n")
    round_1 = first_round(out)
    assert round_1.count("Declared: Six pairs") == 1 and "✨ Declared" not in round_1


# --- the table ----------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_auto_arrange_uses_the_level(level: str):
    seed = 2
    a = advice_of(seed, 2, level=level)
    normal = advice_of(seed, 2)
    if level == "easy":  # the check means something only if the levels disagree here
        assert a.ordinary != normal.ordinary
    _, out, _ = play(["--players", "2", "--seed", str(seed), "--level", level], "a\ny\n")
    round_1 = first_round(out)
    assert f"Auto-arranged at level '{level}' (expected about {points(a.ordinary_expected)}" in (
        round_1
    )
    for row in a.ordinary:
        assert format_cards(evaluate(row).cards, True) in round_1
    assert "the computers and auto-arrange play at level" in out


def test_table_options_are_accepted_as_in_score():
    args = ["--players", "3", "--seed", "1", "--rules", "chinese-poker", "--option"]
    status, out, err = play([*args, "method=2-4"], "a\ny\n")
    assert status == 0 and err == ""
    assert "Table options: scoring method 2-4." in out
    status, out, _ = play(
        [*args, "method=2-4", "--option", "surrender=true", "--lang", "id"], "a\ny\n"
    )
    assert status == 0
    assert "Opsi meja: metode hitungan 2-4, boleh menyerah (ketik 's' di baris bawah" in out
    status, out, _ = play(["--rules", "sayapoker", "--option", "room_fee", "--seed", "1"], "")
    assert status == 0 and "room fee 3% of each positive round total" in out


def test_a_room_fee_is_taken_from_the_winner():
    args = ["--players", "2", "--seed", "1", "--rules", "sayapoker", "--option", "room_fee=true"]
    _, out, _ = play(args, "a\ny\n")
    assert "(room fee " in out.split("=== Final")[0]


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        (["--option", "method=2-4"], "option 'method' does not exist for preset 'standard'"),
        (["--rules", "chinese-poker", "--option", "method=3-3"], "'1-6' or '2-4'"),
        (["--rules", "chinese-poker", "--option", "surrender=maybe"], "true or false"),
        (["--rules", "chinese-poker", "--option", "surender=true"], "allowed: method, surrender"),
        (["--rules", "chinese-poker", "--option", "=true"], "not KEY=VALUE"),
        (
            ["--rules", "chinese-poker", "--option", "surrender", "--option", "surrender=false"],
            "option 'surrender' is given twice",
        ),
        (["--players", "5"], "invalid choice"),
        (["--rounds", "7"], "invalid choice"),
        (["--rules", "nope"], "unknown preset 'nope'"),
        (["--lang", "fr"], "invalid choice"),
    ],
)
def test_bad_options_exit_2_with_one_line(options: list[str], needle: str):
    status, out, err = play(options, "a\ny\n")
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and needle in err, err


def test_the_languages_offered_are_the_catalogues():
    for lang in LANGS:
        assert build_parser().parse_args(["play", "--lang", lang]).lang == lang
    status, _, err = play(["--lang", "xx"], "")
    assert status == 2
    offered = err.split("choose from ")[1].split(")")[0]
    assert offered.split(", ") == list(LANGS)


@pytest.mark.parametrize("lang", LANGS)
def test_a_person_can_surrender_where_the_table_allows_it(lang: str):
    args = ["--players", "3", "--seed", "1", "--rules", "chinese-poker", "--lang", lang]
    args += ["--option", "surrender=true"]
    status, out, _ = play(args, "\ns\nn\ns\ny\n")
    assert status == 0
    round_1 = first_round(out, lang)
    assert t("play.help_surrender", lang, letter="s", cost=3) in round_1
    surrendering = t("play.surrendering", lang, cost=3, points="-6")
    assert round_1.count(surrendering) == 2  # refused with n, then locked in
    assert shown("sd.surrender", lang) in round_1
    assert shown("sd.points", lang, points="-6") in round_1


def test_no_surrender_where_the_table_does_not_allow_it():
    args = ["--players", "2", "--seed", "1", "--rules", "chinese-poker"]
    _, out, _ = play(args, "\ns\na\ny\n")
    assert "'s'" not in out.split("Your cards")[1].split("'s' is not a card")[0]
    assert "'s' is not a card" in out and "Surrendered" not in out


# --- Ctrl-C --------------------------------------------------------------------------------


class _CtrlC(io.StringIO):
    """Typed lines, then Ctrl-C at the next prompt (a terminal raises KeyboardInterrupt)."""

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        line = super().readline()
        if not line:
            raise KeyboardInterrupt
        return line


@pytest.mark.parametrize("lang", LANGS)
def test_ctrl_c_shows_the_standings_like_ctrl_d(lang: str):
    out, err = io.StringIO(), io.StringIO()
    args = ["play", "--players", "2", "--seed", "1", "--lang", lang]
    status = main(args, _CtrlC("a\ny\n"), out, err)
    assert status == EXIT_INTERRUPTED == 130
    text = out.getvalue()
    assert t("play.interrupted", lang) in text and err.getvalue() == ""
    final = t("play.final", lang, rounds=count_of(ROUNDS_WORDS, 1, lang))
    assert final in text
    # Ctrl-D at the same point gives the same standings, with status 0
    out_d = io.StringIO()
    assert main(args, io.StringIO("a\ny\n"), out_d, io.StringIO()) == 0
    standings = text.split(final)[1]
    assert standings == out_d.getvalue().split(final)[1]
    assert t("play.you", lang) in standings and t("seat.computer", lang, n=1) in standings


def test_ctrl_c_in_a_real_process():
    proc = subprocess.Popen(
        [sys.executable, "-c", RUN, "play", "--players", "2", "--seed", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"a\ny\n")
    proc.stdin.flush()
    seen = b""
    deadline = time.monotonic() + 120
    # wait for round 2's first prompt: the process is then blocked reading its input
    while b"Round 2 of" not in seen or not seen.rstrip().endswith(b"Enter = help):"):
        assert time.monotonic() < deadline, seen.decode()
        ready, _, _ = select.select([proc.stdout], [], [], 1)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 65536)
            assert chunk, seen.decode()
            seen += chunk
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=60)
    out = (seen + rest).decode()
    assert proc.returncode == 130, err.decode()
    assert "Traceback" not in err.decode() and err.decode() == ""
    assert "Interrupted: the match stops here." in out
    assert "Final standings after 1 round ===" in out


# --- every message in the chosen language --------------------------------------------------


def test_card_errors_carry_a_catalogue_code_and_keep_their_english_text():
    with pytest.raises(CapsaError) as info:
        parse_card("ZZ")
    assert str(info.value) == "'ZZ' is not a card: write rank then suit, e.g. AS, Td, 10h, 9♣"
    assert info.value.code == "card.not_a_card" and info.value.values == {"token": "ZZ"}
    assert t(info.value.code, "en", **info.value.values) == str(info.value)
    with pytest.raises(CapsaError) as info:
        parse_cards("AS 10h th")
    assert str(info.value) == "'th' appears twice: each card can be used only once"
    assert info.value.code == "card.twice" and info.value.values == {"token": "th"}
    assert t(info.value.code, "en", **info.value.values) == str(info.value)
    # an error without a translation
    assert CapsaError("plain").code is None and CapsaError("plain").values == {}


def test_a_coded_error_survives_pickling():
    import pickle

    err = pickle.loads(pickle.dumps(CapsaError("x", "card.twice", token="AS")))
    assert (str(err), err.code, err.values) == ("x", "card.twice", {"token": "AS"})


def test_the_cli_keeps_its_english_card_messages():
    out, err = io.StringIO(), io.StringIO()
    assert main(["rank", "ZZ", "AS", "KS"], io.StringIO(), out, err) == 2
    assert err.getvalue() == (
        "error: 'ZZ' is not a card: write rank then suit, e.g. AS, Td, 10h, 9♣\n"
    )


def test_indonesian_game_speaks_indonesian():
    hand = hand_of(3, 2)
    a = advice_of(3, 2)
    back, middle = codes(a.ordinary[0]), codes(a.ordinary[1])
    not_held = next(c for c in parse_cards("AS KS QS JS TS 9S 2D") if c not in hand).code
    script = (
        f"ZZ\n{back} {back[:2]}\n{not_held}\n{back}\n{middle[:11]}\n{back[:2]}\n"
        f"{middle}\n\nn\na\ny\nq\n"
    )
    status, out, _ = play(["--players", "2", "--seed", "3", "--lang", "id"], script)
    assert status == 0
    assert "'ZZ' bukan kartu: tulis angka lalu jenisnya" in out
    assert f"'{back[:2]}' muncul dua kali" in out
    assert f"'{not_held}' tidak ada di kartumu" in out
    assert "baris tengah isinya 5 kartu, kamu mengetik 4" in out
    assert f"'{back[:2]}' sudah ada di baris bawahmu" in out
    assert "Susunanmu:" in out and "Kunci susunan ini? (y/n)" in out and "Jawab y/n." in out
    assert "Disusun otomatis di level 'normal'" in out
    assert "Kamu keluar dari pertandingan." in out
    assert "Klasemen akhir setelah 1 ronde" in out
    # no English line of the game (or of the engine's errors) is left
    english = [
        text.strip().split("{")[0].strip()
        for key, text in catalog("en").items()
        if key.startswith(("play.", "card.")) and text.split("{")[0] not in catalog("id")[key]
    ]
    leftovers = [e for e in english if len(e) > 3 and e in out]
    assert leftovers == []
    for word in ("is not a card", "Try again", "Back row", "Your setting", "Lock it in"):
        assert word not in out


@pytest.mark.parametrize("lang", LANGS)
def test_size_errors_name_the_row_in_the_catalogue_s_own_words(lang: str):
    hand = hand_of(3, 2)
    a = advice_of(3, 2)
    rest = [c for c in hand if c not in a.ordinary[0]]
    script = f"{hand[0].code}\n{codes(a.ordinary[0])}\n{codes(rest[:6])}\n"
    _, out, _ = play(["--players", "2", "--seed", "3", "--lang", lang], script)
    assert t("play.retry", lang, error=t("play.back_size", lang, count=1)) in out
    assert t("play.retry", lang, error=t("play.middle_size", lang, count=6)) in out
    if lang == "en":
        assert "the back row takes 5 cards, you typed 1" in out
    elif lang == "id":
        assert "baris bawah isinya 5 kartu, kamu mengetik 1" in out


def test_play_messages_differ_between_languages():
    en, ind = catalog("en"), catalog("id")
    same = [
        k
        for k in en
        if k.startswith(("play.", "card."))
        and en[k] == ind[k]
        and k not in ("play.round", "play.place", "play.showdown", "play.setting_row")
    ]
    assert same == []
