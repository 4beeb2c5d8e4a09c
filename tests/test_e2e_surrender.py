"""A chinese-poker table (method 2-4) with surrender, through the real bot, to the end of its match.

The table is opened with ``/capsa new options: chinese-poker · method 2-4 · surrender``.
Alice is dealt a hopeless hand every round (``rig_deal``): in round 1 she presses
Surrender, is told what it costs, confirms, and her DM locks; the showdown shows her
surrendered, and its numbers are those of ``python -m capsa score`` for the same hands and
options. Every other round she and bob set rows. "Review my hand" reviews the surrender."""

from __future__ import annotations

import json
import re

from capsa.cards import Card, parse_cards
from capsa.i18n import t
from capsa.presets import get_preset
from capsa.scoring import Seat, score_round
from capsa.showdown import pair_line
from tests.e2e import cards_in, make_bot, play_builder, warung
from tests.e2e_extra import (
    field_points,
    h2h_lines,
    open_started_table,
    player_fields,
    rig_deal,
    wait_showdown,
)
from tests.fakediscord import FakeMessage, running_bot
from tests.test_cli import run
from tests.test_coach import HOPELESS

OPTIONS = {"method": "2-4", "surrender": True}
PRESET = get_preset("chinese-poker", OPTIONS)
SURRENDERED = t("sd.surrender", "en")
ROW = re.compile(r"^(Back|Middle|Front): (.+?) — ", re.MULTILINE)


def shown_seats(showdown: FakeMessage) -> list[tuple[str, dict[str, list[Card]] | None]]:
    """Each player as the showdown shows them: their rows, or None for a surrender."""
    seats = []
    for name, value in player_fields(showdown).items():
        if SURRENDERED in value:
            seats.append((name, None))
        else:
            seats.append((name, {pos.lower(): cards_in(c) for pos, c in ROW.findall(value)}))
    return seats


def score_request(showdown: FakeMessage) -> dict:
    """``python -m capsa score``'s input for the hands the showdown shows."""
    players: list[dict] = []
    for name, rows in shown_seats(showdown):
        if rows is None:
            players.append({"name": name, "surrender": True})
        else:
            players.append({"name": name} | {p: [c.code for c in rows[p]] for p in rows})
    return {"rules": "chinese-poker", "options": OPTIONS, "players": players}


def engine_seats(request: dict) -> list[Seat]:
    return [
        Seat(p["name"], surrender=True)
        if p.get("surrender")
        else Seat(p["name"], *(tuple(parse_cards(p[r])) for r in ("back", "middle", "front")))
        for p in request["players"]
    ]


async def test_a_person_surrenders_and_the_match_plays_to_the_end(
    fake_discord, tmp_path, monkeypatch
) -> None:
    fake = fake_discord
    rig_deal(monkeypatch, {0: (HOPELESS,)}, players=4, preset=PRESET)
    chan, (alice, bob) = warung(fake, "alice", "bob")
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        await open_started_table(
            fake,
            chan,
            alice,
            [bob],
            seats=4,
            rounds=5,
            rules="chinese-poker",
            countdown=120,
            options={"options": "chinese-poker method=2-4 surrender=true"},
        )
        running: dict[str, float] = {}
        for number in range(1, 6):
            mark = f"round {number}/5"
            dm_a = await alice.next_dm(lambda m, k=mark: k in m.text(), timeout=10)
            dm_b = await bob.next_dm(lambda m, k=mark: k in m.text(), timeout=10)
            assert "Surrender" in dm_a.button_labels() and "Surrender" in dm_b.button_labels()
            if number == 1:
                asked = await alice.click(dm_a, "Surrender")
                await asked.wait_until(lambda r: r.followups)
                confirm = asked.followups[0]
                assert confirm.flags & FakeMessage.EPHEMERAL
                assert "you pay **3** to each opponent" in confirm.content
                assert "at most **9** against 3 opponents" in confirm.content
                assert "Locked in" not in dm_a.text()  # nothing given up before the yes
                done = await alice.click(confirm, "Yes, surrender")
                assert done.answered
                locked = await fake.wait_for_message(
                    alice.dm, lambda m: "You surrendered this hand" in m.text()
                )
                assert locked.id == dm_a.id and not dm_a.selects()  # locked: no menus
            else:
                await play_builder(alice, dm_a, "chinese-poker")
            await play_builder(bob, dm_b, "chinese-poker")
            showdown = await wait_showdown(fake, chan, number)

            request = score_request(showdown)
            seats = engine_seats(request)
            if number == 1:
                assert player_fields(showdown)["alice"].startswith(SURRENDERED)
                assert seats[0].surrender
                assert "alice surrendered" in h2h_lines(showdown)[0]
            # the showdown's numbers are the score command's for the same hands and options
            scored = run("score", stdin=json.dumps(request))
            assert scored.returncode == 0, scored.stderr
            printed = json.loads(scored.stdout)
            shown = field_points(showdown, "Round points")
            assert shown == {p["name"]: p["total"] for p in printed["players"]}
            assert [p["surrendered"] for p in printed["players"]] == [s.surrender for s in seats]
            expected = score_round(seats, PRESET)
            assert h2h_lines(showdown) == [pair_line(expected, p, "en") for p in expected.pairs]
            for name, points in shown.items():
                running[name] = running.get(name, 0) + points
            assert field_points(showdown, "Match totals") == running
            if number == 1:  # the coach reviews the surrender
                review = await alice.click(showdown, "Review my hand")
                answer = await review.wait_response(timeout=30)
                assert "Surrendered" in answer.text()
                assert "Surrendering" in answer.text()  # the surrender note
            if number < 5:
                await alice.click(showdown, "Next round")
        final = await fake.wait_for_message(
            chan, lambda m: "final standings" in m.text(), timeout=10
        )
        best = max(running.values())
        assert all(name in final.text() for name, total in running.items() if total == best)
