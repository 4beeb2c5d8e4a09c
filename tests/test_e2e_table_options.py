"""Every table option of the presets, in Discord (issue 21): ``/capsa new`` and ``/capsa
settings`` take a preset's table options (one choice per set of them), a set that is not the
table's preset's is refused naming the sets it has, and a table plays with its options.

A chinese-poker table with method 2-4 and a sayapoker table with the room fee each play a
whole match through the fake Discord: every showdown's numbers (each player's round points
and each pair's points) are ``python -m capsa score``'s for the hands the showdown shows and
the table's options. The lobby, the status message, the history and the Rematch's lobby show
the options, and the rematch keeps them.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from capsa.presets import OPTION_SETS
from cogs.tables import tables_of
from tests.e2e import make_bot, play_builder, warung
from tests.e2e_extra import declared, field_points, h2h_lines, is_open_lobby, shown_rows
from tests.fakediscord import running_bot

ROOT = Path(__file__).resolve().parents[1]
PAIR_POINTS = re.compile(r"→ (.+?) ([+-]?\d+(?:\.\d+)?), (.+?) ([+-]?\d+(?:\.\d+)?)$")

# rules, the option set picked, the options scored with, and the words the lobby shows
TABLES = {
    "chinese-poker": (
        "chinese-poker method=2-4 surrender=false",
        {"method": "2-4", "surrender": False},
        "chinese-poker · method 2-4 · no surrender",
    ),
    "sayapoker": (
        "sayapoker room_fee=true",
        {"room_fee": True},
        "sayapoker · room fee 3%",
    ),
}


async def capsa_score(requests: Sequence[dict]) -> list[dict]:
    """``python -m capsa score --batch`` for the requests, one answer each."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "capsa",
        "score",
        "--batch",
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    lines = "".join(json.dumps(r) + "\n" for r in requests).encode()
    out, err = await proc.communicate(lines)
    assert proc.returncode == 0, err.decode()
    return [json.loads(line) for line in out.decode().splitlines()]


def score_request(showdown, rules: str, options: dict) -> dict:
    """The hands a showdown shows, as ``score`` takes them."""
    specials = declared(showdown)
    players = []
    for name, rows in shown_rows(showdown).items():
        back, middle, front = (" ".join(c.code for c in row) for row in rows)
        player: dict = {"name": name, "back": back, "middle": middle, "front": front}
        if name in specials:
            player["declare"] = specials[name]
        players.append(player)
    return {"rules": rules, "options": options, "players": players}


def shown_pair_points(showdown) -> dict[tuple[str, str], float]:
    """Each head-to-head line's points: (player, opponent) -> the player's points."""
    out = {}
    for line in h2h_lines(showdown):
        found = PAIR_POINTS.search(line)
        assert found, line
        a, pa, b, pb = found.groups()
        out[a, b], out[b, a] = float(pa), float(pb)
    return out


@pytest.mark.parametrize("rules", list(TABLES))
async def test_a_table_with_options_plays_to_the_end_as_score_scores_it(
    fake_discord, tmp_path, rules
):
    key, options, label = TABLES[rules]
    fake = fake_discord
    chan, (alice, bob) = warung(fake, "alice", "bob")
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        opened = await alice.slash(
            "capsa new", channel=chan, seats=2, rounds=5, rules=rules, options={"options": key}
        )
        assert opened.answered and opened.ephemeral
        lobby = await fake.wait_for_message(chan, is_open_lobby)
        assert f"Rules: **{label}**" in lobby.text()
        await bob.click(lobby, "Join")
        await alice.click(lobby, "Start")
        status = await fake.wait_for_message(
            chan, lambda m: "Show my hand" in m.button_labels(), timeout=10
        )
        assert status.embeds[0]["footer"]["text"] == f"Rules: {label}"

        showdowns = []
        for number in range(1, 6):
            for user in (alice, bob):
                dm = await user.next_dm(lambda m, n=number: f"round {n}/5" in m.text(), timeout=10)
                await play_builder(user, dm, rules)
            title = f"Showdown · round {number}/5"
            showdown = await fake.wait_for_message(
                chan, lambda m, t=title: t in m.text(), timeout=15
            )
            showdowns.append(showdown)
            if number < 5:
                await alice.click(showdown, "Next round")
        final = await fake.wait_for_message(
            chan, lambda m: "final standings" in m.text(), timeout=15
        )

        answers = await capsa_score([score_request(s, rules, options) for s in showdowns])
        running: dict[str, float] = {}
        for showdown, answer in zip(showdowns, answers, strict=True):
            assert answer["options"] == options
            totals = {p["name"]: p["total"] for p in answer["players"]}
            assert field_points(showdown, "Round points") == pytest.approx(totals)
            pairs = {
                (name, other): points
                for p in answer["pairs"]
                for name, points in p["points"].items()
                for other in p["players"]
                if other != name
            }
            assert shown_pair_points(showdown) == pytest.approx(pairs)
            for name, points in totals.items():
                running[name] = running.get(name, 0) + points
            assert field_points(showdown, "Match totals") == pytest.approx(running)
        # the option counts: the preset's own options score the same hands otherwise
        plain = await capsa_score([score_request(s, rules, {}) for s in showdowns])
        assert [a["players"] for a in plain] != [a["players"] for a in answers]
        fees = [p["fee"] for a in answers for p in a["players"]]
        if rules == "sayapoker":  # the fee was taken from every positive round total
            assert any(fees) and all(
                p["fee"] == pytest.approx(round(p["points"] * 0.03, 2))
                for a in answers
                for p in a["players"]
                if p["points"] > 0
            )
        else:
            assert not any(fees)

        history = await bob.slash("capsa history", channel=chan)
        assert label in history.message.text()

        asked = await bob.click(final, "Rematch", timeout=15)
        assert asked.answered
        again = await fake.wait_for_message(chan, is_open_lobby, timeout=10)
        assert again is not lobby and f"Rules: **{label}**" in again.text()
        repo = tables_of(bot).services.repo
        first, second = [await repo.get_match(i) for i in (1, 2)]
        assert first.options == second.options == options


async def test_options_of_another_preset_are_refused_naming_those_it_has(fake_discord, tmp_path):
    fake = fake_discord
    guild = fake.add_guild("Warung")
    chan = guild.add_text_channel("capsa")
    alice = fake.add_user("alice", guild=guild)
    siti = fake.add_user("siti", guild=guild, locale="id")
    async with running_bot(fake, make_bot(fake, tmp_path / "db.sqlite3")):
        fee = {"options": "sayapoker room_fee=true"}
        refused = await alice.slash("capsa new", channel=chan, rules="chinese-poker", options=fee)
        assert refused.ephemeral, refused.describe()
        text = refused.text()
        assert "**chinese-poker** has these table options:" in text
        for option_set in [s for s in OPTION_SETS.values() if s.preset == "chinese-poker"]:
            method = option_set.options["method"]
            assert f"chinese-poker · method {method}" in text
        assert "sayapoker" not in text.replace("chinese-poker", "")

        two_four = {"options": "chinese-poker method=2-4 surrender=true"}
        refused = await siti.slash("capsa new", channel=chan, rules="standard", options=two_four)
        assert refused.ephemeral
        assert refused.text() == "**standard** nggak punya opsi meja: kosongkan saja `opsi`."
        assert not any(is_open_lobby(m) for m in chan.history)

        # left out, the rules are the option set's own
        opened = await siti.slash("capsa new", channel=chan, options=two_four)
        assert opened.answered
        lobby = await fake.wait_for_message(chan, is_open_lobby)
        assert "chinese-poker · metode 2-4 · boleh menyerah (3 unit)" in lobby.text()


async def test_a_server_sets_its_default_options_for_each_preset(fake_discord, tmp_path):
    fake = fake_discord
    guild = fake.add_guild("Warung")
    chan = guild.add_text_channel("capsa")
    alice = fake.add_user("alice", guild=guild, manage_guild=True)
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        shown = await alice.slash(
            "capsa settings",
            channel=chan,
            rules="chinese-poker",
            options={"options": "chinese-poker method=2-4 surrender=true"},
        )
        fields = {f["name"]: f["value"] for f in shown.message.embeds[0]["fields"]}
        assert fields["Rules"] == "chinese-poker"
        assert fields["Table options · chinese-poker"] == "method 2-4 · surrender (3 units)"
        assert fields["Table options · sayapoker"] == "no room fee"  # the preset's own
        shown = await alice.slash(
            "capsa settings", channel=chan, options={"options": "sayapoker room_fee=true"}
        )
        fields = {f["name"]: f["value"] for f in shown.message.embeds[0]["fields"]}
        assert fields["Table options · sayapoker"] == "room fee 3%"
        assert fields["Table options · chinese-poker"] == "method 2-4 · surrender (3 units)"

        # the rules pages read the server's preset with its options
        page = await alice.slash("capsa rules", channel=chan, topic="scoring")
        assert "This table uses **2-4**" in page.message.text()

        # a table opened without options plays the server's options for its preset
        opened = await alice.slash("capsa new", channel=chan, rules="sayapoker")
        assert opened.answered
        lobby = await fake.wait_for_message(chan, is_open_lobby)
        assert "Rules: **sayapoker · room fee 3%**" in lobby.text()
        match = await tables_of(bot).services.repo.active_match_in_channel(chan.id)
        assert match is not None and match.options == {"room_fee": True}
