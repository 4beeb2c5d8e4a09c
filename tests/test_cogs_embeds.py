"""Embeds fit Discord's limits with the longest names, rules and languages, and cut nothing."""

from __future__ import annotations

import random
import time
from types import SimpleNamespace

import discord
import pytest

from capsa.builder import Draft
from capsa.cards import DECK
from capsa.hands import evaluate, is_fouled
from capsa.i18n import t
from capsa.match import standings
from capsa.names import position_name, special_name
from capsa.presets import PRESETS, get_preset
from capsa.scoring import Seat, score_round
from capsa.showdown import pair_line, player_lines
from capsa.solver import arrange
from cogs.screens import showdown
from cogs.screens.base import Picture, Screen
from cogs.screens.builder import builder_screen, locked_screen
from cogs.screens.lobby import LobbyClosed, lobby_screen
from cogs.screens.status import status_screen
from cogs.table_base import seat_names
from tests.cog_helpers import (
    ALICE,
    ALICE_HAND,
    BOB,
    BOB_HAND,
    CAROL,
    CHANNEL,
    GUILD,
    PAIRS,
    STRONG,
    cards,
    draft_of,
    embed_text,
)

LONG_NAMES = [
    "Alexandria Wilhelmina Kusumawati",
    "Bartholomew Maximilian Santosooo",
    "Alexandria Wilhelmina Kusumawati",  # a repeated name gets its seat number
    "Wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww",
]


def check_embed(embed: discord.Embed) -> int:
    assert len(embed.title or "") <= 256
    assert len(embed.description or "") <= 4096
    assert len(embed.fields) <= 25
    for field in embed.fields:
        assert 1 <= len(field.name) <= 256, field.name
        assert 1 <= len(field.value) <= 1024, field.value
    assert len(embed.footer.text or "") <= 2048
    return len(embed)


def four_player_result(preset_name: str, scenario: str):
    """Four long (one repeated) names. ``special``: a dragon declared, one fouled setting, two
    solver settings. ``bonuses``: a royal flush, quads and front trips sweep three opponents."""
    preset = get_preset(preset_name)
    if scenario == "special":
        strong = [DECK[(r * 4) + (r % 4)] for r in range(13)]  # one of each rank
    else:
        strong = cards("AS KS QS JS TS 9S 9H 9D 9C 2D 8S 8H 8D")
    rest = [c for c in DECK if c not in strong]
    random.Random(7).shuffle(rest)
    hands = [strong, rest[:13], rest[13:26], rest[26:]]
    fake = SimpleNamespace(
        seats=[SimpleNamespace(seat=i, name=n) for i, n in enumerate(LONG_NAMES)]
    )
    names = seat_names(fake)
    seats = []
    for index, hand in enumerate(hands):
        if scenario == "bonuses" and index == 0:
            seats.append(Seat(names[0], tuple(hand[:5]), tuple(hand[5:10]), tuple(hand[10:])))
            continue
        choice = arrange(hand, preset, "normal", 3, seed=index)
        back, middle, front = choice.back, choice.middle, choice.front
        declare = choice.declare
        if scenario == "special" and index == 1:  # fouled: swap the back and the middle
            back, middle, front = choice.ordinary[1], choice.ordinary[0], choice.ordinary[2]
            declare = None
            assert is_fouled(evaluate(back), evaluate(middle), evaluate(front))
        seats.append(Seat(names[index], back, middle, front, declare=declare))
    assert (seats[0].declare == "dragon") is (scenario == "special")
    return score_round(seats, preset), names


@pytest.mark.parametrize("scenario", ["special", "bonuses"])
@pytest.mark.parametrize("lang", ["en", "id"])
@pytest.mark.parametrize("preset_name", list(PRESETS))
def test_showdown_embeds_fit_discord_limits(preset_name, lang, scenario) -> None:
    result, names = four_player_result(preset_name, scenario)
    assert names[2] == f"{LONG_NAMES[2]} (3)"
    totals = {p.name: -1234.5 + i for i, p in enumerate(result.players)}
    auto = {2, 3}
    screen = showdown.showdown_screen(
        result,
        totals,
        match_id=2**63 - 1,
        round_id=2**63 - 1,
        number=10,
        rounds_total=10,
        lang=lang,
        auto=auto,
        next_at=2e9,
        picture=b"jpeg",
    )
    embed_list = list(screen.embeds)
    assert embed_list[-1].fields[-1].value == t("sd.next_at", lang, when="<t:2000000000:R>")
    assert embed_list[0].image.url == "attachment://showdown.jpg"
    total = sum(check_embed(e) for e in embed_list)
    assert total <= 6000, total
    assert len(embed_list) <= 10
    rows_text = embed_text(embed_list[0])
    assert all(name in rows_text for name in names.values())
    assert t("sd.auto", lang) in rows_text
    for index, field in enumerate(embed_list[0].fields[: len(result.players)]):
        full = "\n".join(player_lines(result, index, lang, auto=index in auto))
        assert field.value == full, "a player's rows were cut"
    full = "\n".join(pair_line(result, pair, lang) for pair in result.pairs)
    assert embed_list[1].description == full, "the head-to-head text was cut"
    assert embed_list[1].footer.text == t("sd.round_footer", lang, k=10, n=10, preset=result.preset)
    final = showdown.standings_screen(standings(totals), 1, lang, None).embed
    assert check_embed(final) <= 6000
    assert all(name in final.description for name in names.values())


@pytest.mark.parametrize("lang", ["en", "id"])
@pytest.mark.parametrize("preset_name", list(PRESETS))
def test_player_blocks_and_head_to_head_list_rows_in_one_order(preset_name, lang) -> None:
    result, _ = four_player_result(preset_name, "bonuses")
    order = [position_name(p, lang) for p in ("front", "middle", "back")]
    for index in range(len(result.players)):
        heads = [line.split(":")[0] for line in player_lines(result, index, lang)]
        assert [h for h in heads if h in order] == order
    lines = [pair_line(result, pair, lang) for pair in result.pairs if pair.kind == "rows"]
    assert lines
    for line in lines:
        at = [line.index(f" {name}: ") for name in order]
        assert at == sorted(at), line


@pytest.mark.parametrize("lang", ["en", "id"])
async def test_lobby_status_builder_and_locked_embeds_fit(repo, lang) -> None:
    long = "W" * 32
    match = await repo.create_match(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=ALICE,
        preset="chinese-poker",
        options={},
        rounds_total=10,
        countdown=300,
        bot_level="hard",
        timeout_action="auto",
        seats_count=4,
        language=lang,
        lobby_expires_at=time.time() + 600,
        host_name=long,
    )
    await repo.add_seat(match.id, BOB, long + "b")
    await repo.add_seat(match.id, None, t("seat.computer", lang, n=1), "hard")
    match = await repo.get_match(match.id)
    for key in (None, *LobbyClosed):
        embed = lobby_screen(match, lang, key).embed
        assert check_embed(embed) <= 6000
        assert embed.fields[0].value.count("\n") == 3  # four seats listed
    lobby = lobby_screen(match, lang).embed
    assert long in lobby.description and t(f"choice.{match.bot_level}", lang) in lobby.description
    assert t("lobby.empty", lang) in lobby.fields[0].value

    await repo.add_seat(match.id, CAROL, long + "c")
    await repo.start_match(match.id)
    match = await repo.get_match(match.id)
    deal = {0: ALICE_HAND.split(), 1: BOB_HAND.split()}
    leftover = [c.code for c in DECK if c.code not in ALICE_HAND.split() + BOB_HAND.split()]
    deal |= {2: leftover[:13], 3: leftover[13:26]}
    rnd = await repo.start_round(match.id, 10, 1, time.time() + 300, deal)
    status = status_screen(match, rnd, lang).embed
    assert check_embed(status) <= 6000 and status.title == t("round.title", lang, k=10, n=10)
    assert status.fields[0].value.count("⏳") == 4

    dragon = special_name("dragon", lang)
    choice = t("hand.special", lang, special=dragon, value=78, declared="+233.9", ordinary="+12.5")
    held = t("hand.special_held", lang, special=dragon, value=78)
    for draft, note in (
        (Draft.start(cards(ALICE_HAND)), held),
        (draft_of(ALICE_HAND, STRONG, ""), choice),
        (draft_of(ALICE_HAND, PAIRS, STRONG), choice),
    ):
        builder = builder_screen(match, rnd, 0, draft, lang, special=None, note=note).embed
        assert check_embed(builder) <= 6000
        assert note in embed_text(builder)
    fouled = builder_screen(
        match, rnd, 0, draft_of(ALICE_HAND, PAIRS, STRONG), lang, special=None
    ).embed
    assert t("builder.fouled", lang) in embed_text(fouled)
    locked = locked_screen(match, rnd, draft_of(ALICE_HAND, STRONG, PAIRS), lang, "dragon").embed
    assert check_embed(locked) <= 6000
    assert special_name("dragon", lang) in locked.description


def test_a_screen_sends_and_edits_as_it_is() -> None:
    """What a send and an edit carry: an edit always replaces the components; the text and
    the attachments only when the screen says so; a picture becomes a fresh file each time."""
    one = discord.Embed(title="a")
    plain = Screen(embeds=(one,))
    assert plain.send_kwargs() == {"embed": one}
    assert plain.edit_kwargs() == {"embed": one, "view": None}
    drawn = Screen(embeds=(one,), pictures=(Picture("p.jpg", b"x"),), listed=True)
    sent = drawn.send_kwargs(ephemeral=True)
    assert sent["embeds"] == [one] and sent["ephemeral"] is True
    (first,) = sent["files"]
    (second,) = drawn.edit_kwargs()["attachments"]
    assert first is not second and first.filename == second.filename == "p.jpg"
    locked = Screen(embeds=(one,), replaces=True).edit_kwargs()
    assert locked == {"embed": one, "view": None, "content": None, "attachments": []}
    assert Screen(content="hi").send_kwargs() == {"content": "hi"}
