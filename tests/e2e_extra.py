"""More shared pieces for the end-to-end scenarios 2-6 and 9 (beside tests/e2e.py).

Reading the showdown back into engine inputs, rigging a deal, and ending a countdown early.
Everything a test does that a real user could not do is in here, named for what it does.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Mapping, Sequence

import pytest

import cogs.rounds
from capsa.cards import DECK, Card, parse_cards, sort_hand
from capsa.names import special_name
from capsa.presets import SPECIALS, Preset
from capsa.scoring import RoundResult, Seat, score_round
from capsa.showdown import pair_line
from capsa.specials import available
from cogs.life import Clock, Step
from cogs.scheduler import TimerKind
from cogs.tables import tables_of
from tests.e2e import cards_in
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser

ROW_LINE = re.compile(r"^(Front|Middle|Back|Atas|Tengah|Bawah): (.*?) — ", re.M)
DECLARED = re.compile(r"^✨ (?:Declared|Menyatakan) \*\*(.+?)\*\*$", re.M)
POINTS_LINE = re.compile(r"^(.+?): \*\*([+-]?\d+(?:\.\d+)?)\*\*$", re.M)
_POSITION = {"Front": "front", "Middle": "middle", "Back": "back"}
_POSITION |= {"Atas": "front", "Tengah": "middle", "Bawah": "back"}

Rows = tuple[str, str, str]  # back, middle, front as card text, e.g. ("9S 9H 9D 9C 2C", ...)


# --- the table -------------------------------------------------------------------------------


def channel_posts(fake: FakeDiscord, chan: FakeChannel) -> re.Pattern[str]:
    """The routes of a new message in a table's channel: the channel's (the bot token) or
    an interaction token's followup (cogs/channel_posts.py: after Start or Next, while the
    token is valid), for a fault or stall on the table's next post."""
    return re.compile(rf"^(/channels/{chan.id}/messages|/webhooks/{fake.application_id}/[^/]+)$")


async def open_started_table(
    fake: FakeDiscord,
    chan: FakeChannel,
    host: FakeUser,
    joiners: Sequence[FakeUser] = (),
    **options: object,
) -> FakeMessage:
    """``/capsa new`` by ``host``, everyone in ``joiners`` presses Join, the host Starts.

    Returns the round-1 status message (the one with the "Show my hand" button)."""
    opened = await host.slash("capsa new", channel=chan, **options)
    lobby = await lobby_after(fake, chan, opened)
    for user in joiners:
        joined = await user.click(lobby, "Join")
        assert joined.answered and user.mention in lobby.text()
    started = await host.click(lobby, "Start")
    assert started.answered
    return await fake.wait_for_message(
        chan, lambda m: "Show my hand" in m.button_labels(), timeout=10
    )


async def lobby_after(fake: FakeDiscord, chan: FakeChannel, opened) -> FakeMessage:
    """The lobby a ``/capsa new`` just posted in ``chan`` (its answer to the host is private)."""
    assert opened.answered and opened.ephemeral, opened.describe()
    return await fake.wait_for_message(chan, is_open_lobby)


def is_open_lobby(message: FakeMessage) -> bool:
    """A lobby still taking players, in any language."""
    return any(b.get("custom_id", "").startswith("capsa:lobby:") for b in message.buttons())


async def wait_showdown(
    fake: FakeDiscord, chan: FakeChannel, number: int = 1, total: int = 5, timeout: float = 15
) -> FakeMessage:
    title = f"Showdown · round {number}/{total}"
    return await fake.wait_for_message(chan, lambda m: title in m.text(), timeout=timeout)


def player_fields(showdown: FakeMessage) -> dict[str, str]:
    """Each player's field of the showdown's first embed, by name (the "(+n)" cut off)."""
    return {f["name"].rsplit(" (", 1)[0]: f["value"] for f in showdown.embeds[0]["fields"]}


def shown_rows(showdown: FakeMessage) -> dict[str, tuple[list[Card], list[Card], list[Card]]]:
    """Each player's (back, middle, front) as the showdown shows them."""
    out = {}
    for name, value in player_fields(showdown).items():
        rows = {_POSITION[pos]: cards_in(cards) for pos, cards in ROW_LINE.findall(value)}
        out[name] = (rows["back"], rows["middle"], rows["front"])
    return out


def declared(showdown: FakeMessage) -> dict[str, str]:
    """Who declared which special (``✨ Declared **Six pairs**``), as engine keys."""
    keys = {special_name(key, lang): key for key in SPECIALS for lang in ("en", "id")}
    out = {}
    for name, value in player_fields(showdown).items():
        found = DECLARED.search(value)
        if found:
            out[name] = keys[found[1]]
    return out


def field_points(showdown: FakeMessage, field: str) -> dict[str, float]:
    """``name: **+n**`` lines of a field of the second embed ("Round points", "Match totals")."""
    value = next(f["value"] for f in showdown.embeds[1]["fields"] if f["name"] == field)
    return {name: float(points) for name, points in POINTS_LINE.findall(value)}


def h2h_lines(showdown: FakeMessage) -> list[str]:
    return showdown.embeds[1]["description"].split("\n")


def engine_result(
    showdown: FakeMessage,
    preset: Preset,
    *,
    declares: Mapping[str, str] | None = None,
    forced_fouls: Sequence[str] = (),
) -> RoundResult:
    """``score_round`` for the rows the showdown shows (in its player order), with the
    specials it shows as declared unless ``declares`` is given."""
    declares = declared(showdown) if declares is None else declares
    seats = [
        Seat(
            name,
            tuple(back),
            tuple(middle),
            tuple(front),
            declare=declares.get(name),
            foul=name in forced_fouls,
        )
        for name, (back, middle, front) in shown_rows(showdown).items()
    ]
    return score_round(seats, preset)


def assert_showdown_is_engines(showdown: FakeMessage, expected: RoundResult) -> None:
    """The round points and every head-to-head line are the engine's, for the shown rows."""
    assert field_points(showdown, "Round points") == {p.name: p.total for p in expected.players}
    assert h2h_lines(showdown) == [pair_line(expected, pair, "en") for pair in expected.pairs]


def pair_of(result: RoundResult, a: str, b: str):
    """The pair result of players ``a`` and ``b``, and the points from ``a``'s side."""
    names = [p.name for p in result.players]
    i, j = names.index(a), names.index(b)
    pair = next(p for p in result.pairs if set(p.players) == {i, j})
    return pair, pair.points_for(i)


# --- things a real user cannot do ------------------------------------------------------------


def rig_deal(
    monkeypatch: pytest.MonkeyPatch,
    settings: Mapping[int, Rows],
    *,
    players: int,
    preset: Preset,
    seed: int = 7,
) -> dict[int, list[Card]]:
    """Make the bot deal known hands: seat -> the 13 cards of ``settings[seat]`` (its rows
    as card text). Seats not given get the rest of the deck, shuffled with ``seed``; they
    must hold no special that ``preset`` pays, so computer players cannot declare one.

    This replaces ``cogs.rounds.deal_cards`` (the bot's ``capsa.cards.deal``) for the test:
    the bot still stores the deal, draws it, and scores it exactly as it would a random one.
    """
    hands: dict[int, list[Card]] = {}
    for seat, rows in settings.items():
        hands[seat] = sort_hand(parse_cards(" ".join(rows).split()))
        assert len(hands[seat]) == 13, f"seat {seat}: {len(hands[seat])} cards"
    used = [c for hand in hands.values() for c in hand]
    assert len(set(used)) == len(used), "a card is dealt twice"
    rest = [c for c in DECK if c not in used]
    random.Random(seed).shuffle(rest)
    for seat in range(players):
        if seat not in hands:
            hands[seat], rest = sort_hand(rest[:13]), rest[13:]
            assert not available(hands[seat], preset), f"filler seat {seat} holds a special"

    def deal(count: int, _seed: int | None = None) -> list[list[Card]]:
        assert count == players, f"the bot dealt to {count} players, rigged for {players}"
        return [list(hands[seat]) for seat in range(players)]

    monkeypatch.setattr(cogs.rounds, "deal_cards", deal)
    return hands


async def expire_countdown(bot, match_id: int, round_id: int) -> None:
    """Let the countdown of an open round run out now instead of in 30+ seconds: its
    deadline moves to now, and the table's clock is set for it, as the bot sets it."""
    tables = tables_of(bot)
    assert await bot.repo.set_round_deadline(round_id, time.time())
    rnd = await bot.repo.get_round(round_id)
    clock = Clock(Step.CLOSE, rnd.number).encode()
    await tables.scheduler.schedule(match_id, TimerKind.CLOCK, clock, 0)
