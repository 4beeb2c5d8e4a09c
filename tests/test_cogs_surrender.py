"""Surrender at a Discord table whose stored options allow it (issues 21/22): the builder's
Surrender button and its confirmation with the cost, the hand stored given up, scored,
shown and reviewed; the computers surrendering when their solver does; and no surrender
by accident (a table without it, the countdown, a confirmation after the round closed)."""

from __future__ import annotations

import time

from capsa.builder import Draft
from capsa.cards import DECK, format_cards, parse_cards
from capsa.coach import Origin, Review, review_hand
from capsa.i18n import number, t
from capsa.presets import get_preset
from capsa.solver import arrange
from tests.cog_helpers import (
    ALICE,
    ALICE_HAND,
    BOB,
    BOB_HAND,
    CAROL,
    CHANNEL,
    GUILD,
    cards,
    dealt_round,
    ephemeral,
    hand_of,
    make_ix,
    press_builder,
)
from tests.test_coach import HOPELESS

SURRENDER = {"surrender": True}
PRESET = get_preset("chinese-poker", SURRENDER)


def four_hands(first: str = HOPELESS) -> dict[int, str]:
    """``first`` in seat 0 and the rest of the deck, in order, in seats 1 to 3."""
    taken = set(first.split())
    rest = [c.code for c in DECK if c.code not in taken]
    return {0: first, **{seat: " ".join(rest[13 * (seat - 1) : 13 * seat]) for seat in (1, 2, 3)}}


async def surrender_round(repo, hands: dict[int, str], *, options=SURRENDER, countdown=120.0):
    """Round 1 of a started chinese-poker table with these ``options``: alice (seat 0,
    host), bob and carol, and a computer in seat 3, dealt ``hands``, open."""
    match = await repo.create_match(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=ALICE,
        preset="chinese-poker",
        options=options,
        rounds_total=5,
        countdown=120,
        bot_level="normal",
        timeout_action="auto",
        seats_count=4,
        language="en",
        lobby_expires_at=time.time() + 600,
        host_name="alice",
    )
    await repo.add_seat(match.id, BOB, "bob")
    await repo.add_seat(match.id, CAROL, "carol")
    await repo.add_seat(match.id, None, "Computer 1", "normal")
    assert await repo.start_match(match.id)
    dealt = {seat: hand.split() for seat, hand in hands.items()}
    rnd = await repo.start_round(match.id, 1, 777, time.time() + countdown, dealt)
    assert await repo.mark_round_open(rnd.id)
    return await repo.get_match(match.id), await repo.get_round(rnd.id)


def _labels(view) -> list[str]:
    return [getattr(c.item, "label", None) for c in view.children]


async def test_the_builder_offers_surrender_only_where_the_table_allows_it(fake_bot, repo) -> None:
    match, rnd = await surrender_round(repo, four_hands())
    draft_screen = await fake_bot.tables.display.screen(
        match, rnd, 0, _start(rnd.hands[0].cards), "en"
    )
    assert _labels(draft_screen.view)[-1] == "Surrender"
    await repo.cancel_match(match.id)
    plain, plain_round = await dealt_round(repo, {0: ALICE_HAND, 1: BOB_HAND})
    screen = await fake_bot.tables.display.screen(
        plain, plain_round, 0, _start(plain_round.hands[0].cards), "en"
    )
    assert "Surrender" not in _labels(screen.view)
    for act in ("g", "y"):  # a forged click on a table without surrender gives nothing up
        ix = make_ix(fake_bot, ALICE)
        await press_builder(fake_bot, ix, act, plain_round.id, 0, (0, 0), [])
        assert ephemeral(ix) == "This table does not allow surrender."
    assert not (await hand_of(repo, plain_round)).submitted


def _start(dealt) -> Draft:
    return Draft.start(parse_cards(dealt))


async def test_surrender_asks_first_with_its_cost_then_gives_the_hand_up(fake_bot, repo) -> None:
    match, rnd = await surrender_round(repo, four_hands())
    ix = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, ix, "g", rnd.id, 0, (0, 0), [])
    asked = ix.followup.send.await_args
    assert asked.kwargs["ephemeral"] is True
    assert asked.kwargs["content"] == t(
        "hand.confirm_surrender", "en", cost="3", total="9", players="3 opponents"
    )
    (confirm,) = asked.kwargs["view"].children
    assert confirm.item.label == "Yes, surrender"
    assert not (await hand_of(repo, rnd)).submitted  # nothing given up yet

    ix = make_ix(fake_bot, ALICE, message_id=999)
    await press_builder(fake_bot, ix, "y", rnd.id, 0, (0, 0), [])
    hand = await hand_of(repo, rnd)
    assert hand.submitted and hand.surrendered and not hand.auto
    assert (hand.back, hand.middle, hand.front, hand.declare) == (None, None, None, None)
    locked = ix.edit_original_response.await_args.kwargs["embed"]
    assert locked.description == t("hand.surrendered", "en", channel=CHANNEL)
    assert locked.fields[0].name == t("hand.cards", "en")  # the cards, no rows
    assert locked.fields[0].value == format_cards(cards(HOPELESS), symbols=True)

    # "Show my hand" afterwards shows the hand given up, not an error
    ix = make_ix(fake_bot, ALICE)
    await fake_bot.tables.builder.open(ix, match_id=match.id)
    shown = ix.followup.send.await_args.kwargs["embed"]
    assert shown.description == t("hand.surrendered", "en", channel=CHANNEL)
    # and a second confirmation is refused
    ix = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, ix, "y", rnd.id, 0, (0, 0), [])
    assert ephemeral(ix) == t("hand.already", "en")


async def test_no_surrender_by_the_countdown_nor_after_it(fake_bot, repo) -> None:
    """Alice's hand is one the solver surrenders, and her time ran out: she gets the best
    rows (only the person gives a hand up), and neither Surrender nor its confirmation
    works once the deadline is past."""
    match, rnd = await surrender_round(repo, four_hands(), countdown=-1)
    solver = arrange(cards(HOPELESS), PRESET, "normal", 3, seed=rnd.seed)
    assert solver.surrender, "the solver would give this hand up"
    for act in ("g", "y"):  # the deadline is past, the round not closed yet
        ix = make_ix(fake_bot, ALICE)
        await press_builder(fake_bot, ix, act, rnd.id, 0, (0, 0), [])
        assert ephemeral(ix) == t("hand.round_over", "en")
    assert not (await hand_of(repo, rnd)).submitted
    fake_bot.tables.flow.pause = 3600  # no next deal during the test
    await fake_bot.tables.rounds.close_round(match.id)
    scored = await repo.get_round(rnd.id)
    alice = scored.hands[0]
    assert alice.auto and not alice.surrendered and alice.back is not None
    rows = [sorted(c.code for c in row) for row in solver.ordinary]
    assert [sorted(r) for r in (alice.back, alice.middle, alice.front)] == rows
    ix = make_ix(fake_bot, ALICE)  # an old confirmation pressed after the showdown
    await press_builder(fake_bot, ix, "y", rnd.id, 0, (0, 0), [])
    assert ephemeral(ix) == t("hand.round_over", "en")


async def test_a_computer_surrenders_when_its_solver_says_so(fake_bot, repo) -> None:
    """The computer in seat 3 holds the hopeless hand: at the deal it gives it up, where
    the table allows surrender; at a table without surrender it plays rows."""
    hands = four_hands()
    hands[0], hands[3] = hands[3], hands[0]
    for options, surrenders in ((SURRENDER, True), ({}, False)):
        match, rnd = await surrender_round(repo, hands, options=options)
        preset = get_preset("chinese-poker", options)
        solver = arrange(cards(HOPELESS), preset, "normal", 3, seed=rnd.seed + 3)
        assert solver.surrender == surrenders
        await fake_bot.tables.rounds.prepare_round(match, rnd)
        computer = (await repo.get_round(rnd.id)).hands[3]
        assert computer.submitted and computer.surrendered == surrenders
        assert (computer.back is None) == surrenders
        await repo.cancel_match(match.id)


async def test_a_surrendered_hand_is_scored_shown_and_reviewed(fake_bot, repo) -> None:
    match, rnd = await surrender_round(repo, four_hands())
    tables = fake_bot.tables
    tables.flow.pause = 3600
    ix = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, ix, "y", rnd.id, 0, (0, 0), [])
    for seat in (1, 2, 3):
        played = arrange(cards(rnd.hands[seat].cards), get_preset("chinese-poker"), "easy", 3)
        codes = [[c.code for c in row] for row in played.ordinary]
        assert await repo.submit_hand(rnd.id, seat, *codes, None, fouled=False)
    await tables.rounds.close_round(match.id)
    await tables.scheduler.jobs_done()
    scored = await repo.get_round(rnd.id)
    assert scored.status == "shown"
    alice = scored.result["players"][0]
    assert alice["surrendered"] and alice["total"] == -9 and "back" not in alice
    # the showdown says who surrendered (the computer and bob, carol paid 3 each by alice)
    sent = [
        call.kwargs
        for call in fake_bot.get_partial_messageable(CHANNEL).send.await_args_list
        if call.kwargs.get("embeds")
    ]
    showdown = "\n".join(
        f"{f.name}\n{f.value}" for kw in sent for e in kw["embeds"] for f in e.fields
    )
    assert "alice (-9)\n🏳️ Surrendered" in showdown
    # the coach reviewed the surrender as surrendered, at the solver's value
    stored = Review.from_dict(await repo.hand_review(rnd.id, 0))
    expected = review_hand(cards(HOPELESS), PRESET, 3, None, surrendered=True)
    assert stored == expected
    assert stored.surrendered and stored.played is None and stored.origin == Origin.PLAYED
    assert stored.played_value == stored.surrender_value


async def test_auto_arrange_says_when_it_would_surrender_and_gives_nothing_up(
    fake_bot, repo
) -> None:
    """Auto-arrange fills in the best rows of a hand its solver would give up, and says so
    with both values; the hand stays the person's to surrender (or not)."""
    match, rnd = await surrender_round(repo, four_hands())
    solver = arrange(cards(HOPELESS), PRESET, "normal", 3, seed=rnd.seed)
    assert solver.surrender and solver.surrender_value is not None
    ix = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, ix, "a", rnd.id, 0, (0, 0), [])
    kwargs = ix.edit_original_response.await_args.kwargs
    note = next(f.value for f in kwargs["embed"].fields if f.name == "✨")
    advice = t(
        "hand.suggest_surrender",
        "en",
        surrender=number(solver.surrender_value, "en", sign=True),
        ordinary=number(solver.ordinary_expected, "en", sign=True),
    )
    assert note == f"{advice}\n{t('hand.estimate_note', 'en')}"
    (masks,) = {c.click.state for c in kwargs["view"].children}
    draft = Draft.decode(cards(HOPELESS), *masks)
    assert [set(row) for row in draft.setting] == [set(row) for row in solver.ordinary]
    assert not (await hand_of(repo, rnd)).submitted
