"""The pieces of history, replay and rematch (cogs/history.py, Lobby.rematch) on a real
SQLite repository with fake interactions (tests/cog_helpers.py)."""

from __future__ import annotations

import dataclasses
import sqlite3
from types import SimpleNamespace

from capsa.i18n import t
from cogs.components import HistoryClick, PageDirection, Refusal, RematchClick
from cogs.history import replay_round, show_replay
from cogs.items import HistoryButton, ReplayButton
from cogs.replies import refuse
from cogs.screens.history import history_line, replay_screen
from cogs.views import history_view, replay_view
from tests.cog_helpers import ALICE, BOB, CAROL, GUILD, embed_text, ephemeral, make_ix, new_lobby
from tests.test_e2e_history import seed_match

ANI, BUDI = SimpleNamespace(id=ALICE, name="ani"), SimpleNamespace(id=BOB, name="budi")


def replay_embeds(match, frame, last, lang):
    return list(replay_screen(match, frame, last, lang).embeds)


def db_file(tmp_path) -> str:
    return str(tmp_path / "capsa.sqlite3")  # the conftest ``repo`` fixture's file


async def test_replay_totals_add_up_round_by_round_to_the_ledger(repo) -> None:
    match = await seed_match(repo, GUILD, 10, [ANI, BUDI], rounds=5)
    rounds = await repo.completed_rounds(match.id)
    running = {0: 0.0, 1: 0.0, 2: 0.0}
    for rnd in rounds:
        frame = replay_round(match, rounds, rnd.number)
        assert frame.result is not None and not frame.rescored
        assert frame.points == {h.seat: h.points for h in rnd.hands}
        assert [p.total for p in frame.result.players] == [h.points for h in rnd.hands]
        for seat, points in frame.points.items():
            running[seat] += points
        assert frame.totals == running
    assert running == await repo.match_totals(match.id)


async def test_an_old_round_without_its_rows_or_missing_says_so_and_keeps_the_totals(
    repo, fake_bot, tmp_path
) -> None:
    match = await seed_match(repo, GUILD, 10, [ANI, BUDI], rounds=5)
    totals = await repo.match_totals(match.id)
    with sqlite3.connect(db_file(tmp_path)) as conn:  # as an older bot may have left it
        ids = [r for (r,) in conn.execute("SELECT id FROM rounds ORDER BY number")]
        conn.execute(
            "UPDATE hands SET back = NULL, middle = NULL, front = NULL WHERE round_id = ?",
            (ids[1],),
        )
        conn.execute("UPDATE rounds SET result = NULL WHERE id = ?", (ids[1],))
        conn.execute("DELETE FROM rounds WHERE id = ?", (ids[4],))
    rounds = await repo.completed_rounds(match.id)
    kept = next(r for r in rounds if r.number == 2)

    frame = replay_round(match, rounds, 2)
    assert frame.result is None and frame.points == {h.seat: h.points for h in kept.hands}
    ix = make_ix(fake_bot, ALICE)
    await show_replay(ix, fake_bot.tables.services, match.id, 2)
    shown = ix.edit_original_response.await_args.kwargs
    text = embed_text(shown["embeds"][0])
    assert t("rp.missing", "en") in text and "Showdown · round 2/5" in text
    assert shown["attachments"] == []
    assert [c.item.disabled for c in shown["view"].children] == [False, False, False, False]

    # Round 5 is gone: said so, and the totals are those of the rounds that are stored.
    ix = make_ix(fake_bot, ALICE)
    await show_replay(ix, fake_bot.tables.services, match.id, 99)  # past the end: the last
    shown = ix.edit_original_response.await_args.kwargs
    text = embed_text(shown["embeds"][0])
    assert "Showdown · round 5/5" in text and t("rp.missing", "en") in text
    last = replay_round(match, rounds, 5)
    assert last.result is None and last.points == {}
    assert sum(last.totals.values()) == 0 and last.totals != totals  # round 5 not counted
    assert [c.item.disabled for c in shown["view"].children] == [False, False, True, True]

    # A whole round still shows with its picture, rendered in the worker pool.
    ix = make_ix(fake_bot, ALICE)
    await show_replay(ix, fake_bot.tables.services, match.id, 1)
    shown = ix.edit_original_response.await_args.kwargs
    assert [f.filename for f in shown["attachments"]] == ["replay.jpg"]
    assert shown["embeds"][0].image.url == "attachment://replay.jpg"


async def test_a_round_the_rules_now_score_differently_is_flagged(repo) -> None:
    match = await seed_match(repo, GUILD, 10, [ANI, BUDI], rounds=5)
    rounds = await repo.completed_rounds(match.id)
    first = rounds[0]
    shift = {0: 1.0, 1: -1.0}  # the stored points differ from what the rules give now
    hands = tuple(
        dataclasses.replace(h, points=(h.points or 0) + shift.get(h.seat, 0)) for h in first.hands
    )
    changed = [dataclasses.replace(first, hands=hands), *rounds[1:]]
    frame = replay_round(match, changed, 1)
    assert frame.rescored and frame.totals[0] == frame.points[0]
    found = replay_embeds(match, frame, 5, "en")
    assert t("rp.rescored", "en") in embed_text(found[-1])
    assert t("rp.rescored", "en") not in embed_text(
        replay_embeds(match, replay_round(match, rounds, 1), 5, "en")[-1]
    )


async def test_replay_refuses_what_is_not_a_finished_match_of_this_server(repo, fake_bot) -> None:
    finished = await seed_match(repo, GUILD, 10, [ANI, BUDI], rounds=5)
    lobby = await new_lobby(repo, host=CAROL, channel=12)
    for guild, number, key in (
        (GUILD + 1, finished.id, "rp.unknown"),
        (GUILD, 424242, "rp.unknown"),
        (GUILD, 2**63, "rp.unknown"),  # more than any id
        (GUILD, lobby.id, "rp.playing"),
    ):
        ix = make_ix(fake_bot, ALICE, guild_id=guild)
        try:
            await show_replay(ix, fake_bot.tables.services, number, 1)
        except Refusal as refusal:  # told where the answer is sent
            await refuse(repo, ix, refusal)
        assert ephemeral(ix) == t(key, "en", id=number)
        assert not ix.edit_original_response.await_args_list


async def test_history_line_names_everyone_with_totals_and_the_winner(repo) -> None:
    await seed_match(repo, GUILD, 10, [ANI, BUDI], rounds=5)
    (summary,) = await repo.finished_matches(GUILD)
    line = history_line(summary, "en")
    head, players = line.split("\n")
    assert head.startswith(f"**#{summary.match.id}** · <t:") and "standard · 5 rounds" in head
    ordered = sorted(summary.totals.items(), key=lambda kv: (-kv[1], kv[0]))
    labels = {0: f"<@{ALICE}>", 1: f"<@{BOB}>", 2: "🤖 Computer 1"}
    positions = [players.index(labels[seat]) for seat, _ in ordered]
    assert positions == sorted(positions)
    winners = [labels[s.seat] for s in summary.match.seats if s.place == 1]
    assert players.split("🏆 ")[1] == ", ".join(winners)


def test_the_buttons_keep_their_state_in_the_custom_id() -> None:
    view = replay_view(7, 3, 5, "en")
    ids = [c.custom_id for c in view.children]
    assert ids == ["capsa:rp:7:1:f", "capsa:rp:7:2:p", "capsa:rp:7:4:n", "capsa:rp:7:5:l"]
    assert all(ReplayButton.__discord_ui_compiled_template__.fullmatch(i) for i in ids)
    assert [c.item.label for c in view.children] == ["First", "◀ Previous", "Next ▶", "Last"]
    first = replay_view(7, 1, 5, "id")
    assert [c.item.disabled for c in first.children] == [True, True, False, False]
    assert first.children[0].item.label == t("btn.first", "id")
    assert HistoryButton.__discord_ui_compiled_template__.fullmatch("capsa:hist:0:2:n")
    (prev, _next) = history_view(42, 2, 5, "en").children
    assert prev.custom_id == "capsa:hist:42:1:p"
    assert prev.click == HistoryClick(42, 1, PageDirection.PREV)


async def test_rematch_refusals(repo, fake_bot) -> None:
    finished = await seed_match(repo, GUILD, 10, [ANI, BUDI], rounds=5)

    outsider = make_ix(fake_bot, CAROL)
    await fake_bot.tables.router.dispatch(outsider, RematchClick(finished.id))
    assert ephemeral(outsider) == t("ans.rematch_players_only", "en")

    # budi already sits at another open table: refused like /capsa new refuses him
    other = await new_lobby(repo, host=CAROL, channel=12)
    await repo.add_seat(other.id, BOB, "budi")
    busy = make_ix(fake_bot, BOB)
    await fake_bot.tables.router.dispatch(busy, RematchClick(finished.id))
    assert ephemeral(busy) == t("ans.already_seated", "en")

    # a match that is not finished (or of another server) has no rematch
    for ix, match_id in (
        (make_ix(fake_bot, CAROL), other.id),
        (make_ix(fake_bot, ALICE, guild_id=GUILD + 1), finished.id),
    ):
        await fake_bot.tables.router.dispatch(ix, RematchClick(match_id))
        assert ephemeral(ix) == t("ans.stale", "en")
    assert await repo.active_match_in_channel(10) is None
