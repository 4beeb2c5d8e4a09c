"""The hand builder's clicks (``HandBuilder.action``): whose seat, which round, selects,
clear, Auto-arrange, declare, submit and the fouled-setting confirmation.
"""

from __future__ import annotations

import time

import discord
import pytest

from capsa.builder import Draft
from capsa.cards import format_cards
from capsa.hands import evaluate
from capsa.i18n import number, t
from capsa.names import row_name
from capsa.presets import get_preset
from capsa.solver import arrange
from capsa.specials import available
from cogs import views
from cogs.components import BuilderAction
from cogs.hand_builder import STEPS
from data import RoundScore
from tests.cog_helpers import (
    ALICE,
    ALICE_HAND,
    BOB,
    BOB_HAND,
    CAROL,
    CHANNEL,
    DRAGON,
    EN,
    EVE,
    ID,
    NOT_YOUR_SEAT,
    OTHER_CHANNEL,
    OTHER_DRAGON,
    PAIRS,
    STRONG,
    cards,
    dealt_round,
    draft_of,
    edited,
    embed_text,
    ephemeral,
    hand_of,
    make_ix,
    new_lobby,
    playing_round,
    press_builder,
)


def test_fixture_hands_are_what_the_tests_assume() -> None:
    standard = get_preset("standard")
    assert available(cards(ALICE_HAND), standard) == []
    assert not draft_of(ALICE_HAND, STRONG, PAIRS).fouled
    assert draft_of(ALICE_HAND, PAIRS, STRONG).fouled
    assert not set(ALICE_HAND.split()) & set(BOB_HAND.split())


async def test_builder_refuses_other_users_clicks(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    masks = draft_of(ALICE_HAND, STRONG, PAIRS).state
    for act, values in [
        ("b", STRONG.split()),
        ("m", PAIRS.split()),
        ("a", []),
        ("d", []),
        ("c", []),
        ("s", []),
        ("f", []),
    ]:
        for intruder, locale, text in ((BOB, EN, NOT_YOUR_SEAT), (EVE, ID, "Ini bukan kursimu.")):
            ix = make_ix(fake_bot, intruder, locale=locale, manage_guild=True)
            await press_builder(fake_bot, ix, act, rnd.id, 0, masks, values)
            assert ephemeral(ix) == text, act
            ix.edit_original_response.assert_not_awaited()
    assert not (await hand_of(repo, rnd)).submitted


async def test_builder_on_a_scored_or_cancelled_round_is_over(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    masks = draft_of(ALICE_HAND, STRONG, PAIRS).state
    assert await repo.score_round(rnd.id, {}, [RoundScore(0, 3.0), RoundScore(1, -3.0)])
    for act in ("s", "b", "a"):
        ix = make_ix(fake_bot, ALICE)
        values = STRONG.split() if act == "b" else []
        await press_builder(fake_bot, ix, act, rnd.id, 0, masks, values)
        assert ephemeral(ix) == "This round is already over."
    assert not (await hand_of(repo, rnd)).submitted

    match2 = await new_lobby(repo, host=CAROL, seats=2, channel=OTHER_CHANNEL)
    await repo.add_seat(match2.id, None, "Computer 1", "normal")
    await repo.start_match(match2.id)
    rnd2 = await repo.start_round(
        match2.id, 1, 1, time.time() + 99, {0: ALICE_HAND.split(), 1: BOB_HAND.split()}
    )
    await repo.cancel_match(match2.id)
    ix = make_ix(fake_bot, CAROL, locale=ID)
    await press_builder(fake_bot, ix, "s", rnd2.id, 0, masks, [])
    assert ephemeral(ix) == "Ronde ini sudah selesai."


async def test_builder_after_a_submission_says_already_submitted(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    assert await repo.submit_hand(
        rnd.id, 0, STRONG.split(), PAIRS.split(), ["2C", "7D", "8C"], None, False
    )
    before = await hand_of(repo, rnd)
    fouled_masks = draft_of(ALICE_HAND, PAIRS, STRONG).state
    for act, values in (("s", []), ("f", []), ("b", PAIRS.split()), ("c", []), ("a", [])):
        ix = make_ix(fake_bot, ALICE)
        await press_builder(fake_bot, ix, act, rnd.id, 0, fouled_masks, values)
        assert ephemeral(ix) == "You already submitted this round."
    assert await hand_of(repo, rnd) == before


async def test_builder_on_an_unknown_round_is_stale(fake_bot, repo) -> None:
    ix = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, ix, "s", 424242, 0, (0, 0), [])
    assert ephemeral(ix) == "This table is no longer open."


@pytest.mark.parametrize("back,middle", [("", ""), (STRONG, ""), ("", PAIRS)])
@pytest.mark.parametrize("act", ["s", "f"])
async def test_submit_with_an_incomplete_draft_is_refused(
    fake_bot, repo, act, back, middle
) -> None:
    match, rnd = await playing_round(repo)
    masks = draft_of(ALICE_HAND, back, middle).state
    ix = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, ix, act, rnd.id, 0, masks, [])
    assert ephemeral(ix) == "Pick the back and the middle first (5 cards each)."
    ix = make_ix(fake_bot, ALICE, locale=ID)
    await press_builder(fake_bot, ix, act, rnd.id, 0, masks, [])
    assert ephemeral(ix) == t("hand.incomplete", "id")
    assert not (await hand_of(repo, rnd)).submitted


async def test_submit_of_a_fouled_draft_asks_first(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    draft = draft_of(ALICE_HAND, PAIRS, STRONG)
    ix = make_ix(fake_bot, ALICE, locale=ID, message_id=4000)
    await press_builder(fake_bot, ix, "s", rnd.id, 0, draft.state, [])
    kwargs = ix.followup.send.await_args.kwargs
    assert kwargs["content"] == t("hand.confirm_foul", "id")
    assert kwargs["ephemeral"] is True
    (button,) = kwargs["view"].children
    assert isinstance(button, views.BuilderButton)
    assert (button.click.act, button.click.round_id, button.click.seat, button.click.state) == (
        "f",
        rnd.id,
        0,
        draft.state,
    )
    assert button.item.label == "Tetap kirim (salah susun)"
    assert button.item.style is discord.ButtonStyle.danger
    assert not (await hand_of(repo, rnd)).submitted


async def test_confirmed_foul_is_stored_fouled_and_locks_the_dm_builder(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    await repo.set_dm_message(rnd.id, 0, 600, 601)
    await repo.set_round_messages(rnd.id, status_message_id=700)
    draft = draft_of(ALICE_HAND, PAIRS, STRONG)
    ix = make_ix(fake_bot, ALICE, message_id=4000)  # the ephemeral confirm message
    await press_builder(fake_bot, ix, "f", rnd.id, 0, draft.state, [])
    hand = await hand_of(repo, rnd)
    assert hand.submitted and hand.fouled and not hand.auto and hand.declare is None
    assert set(hand.back) == set(PAIRS.split()) and set(hand.middle) == set(STRONG.split())
    assert set(hand.front) == {"2C", "7D", "8C"}
    kwargs = edited(ix)
    assert kwargs["view"] is None and "Locked in" in kwargs["embed"].description
    dm = fake_bot.channels[600].get_partial_message(601)
    dm.edit.assert_awaited_once()
    assert dm.edit.await_args.kwargs["view"] is None
    assert "Locked in" in dm.edit.await_args.kwargs["embed"].description
    await fake_bot.tables.scheduler.jobs_done()  # the status is edited beside the click
    status = fake_bot.channels[CHANNEL].get_partial_message(700)
    text = embed_text(status.edit.await_args.kwargs["embed"])
    assert "✅ alice" in text and "⏳ bob" in text
    assert not (await hand_of(repo, rnd, 1)).submitted


async def test_submit_of_a_valid_draft_stores_it_unfouled(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    draft = draft_of(ALICE_HAND, STRONG, PAIRS)
    ix = make_ix(fake_bot, ALICE, locale=ID, message_id=None)
    await press_builder(fake_bot, ix, "s", rnd.id, 0, draft.state, [])
    hand = await hand_of(repo, rnd)
    assert hand.submitted and not hand.fouled
    assert set(hand.back) == set(STRONG.split())
    kwargs = edited(ix)
    assert kwargs["view"] is None and kwargs["embed"].description.startswith("🔒 Terkunci")
    again = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, again, "s", rnd.id, 0, draft.state, [])
    assert ephemeral(again) == "You already submitted this round."


@pytest.mark.parametrize(
    "act,masks_of,values,expected",
    [
        ("m", (STRONG, ""), "AS 9H 9D 5C 5D", "A♠ is already in another row"),
        ("b", ("", PAIRS), "AS KS QS JS 3H", "3♥ is already in another row"),
        ("b", ("", ""), "AS KS QS JS", "The back row needs exactly 5 cards; you picked 4."),
        ("m", ("", ""), "AS KS QS JS TS 9H", "The middle row needs exactly 5 cards; you picked 6"),
        ("b", ("", ""), "AS KS QS JS 2H", "2♥ is not in your hand"),  # not in the hand
    ],
)
async def test_bad_select_values_get_a_clear_error(
    fake_bot, repo, act, masks_of, values, expected
) -> None:
    match, rnd = await playing_round(repo)
    masks = draft_of(ALICE_HAND, *masks_of).state
    ix = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, ix, act, rnd.id, 0, masks, values.split())
    assert expected in ephemeral(ix)
    assert not (await hand_of(repo, rnd)).submitted


async def test_bad_select_values_in_indonesian(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    masks = draft_of(ALICE_HAND, STRONG, "").state
    ix = make_ix(fake_bot, ALICE, locale=ID)
    await press_builder(fake_bot, ix, "m", rnd.id, 0, masks, "KS 9H 9D 5C 5D".split())
    assert ephemeral(ix) == t("builder.clash", "id", card="K♠")


async def test_selects_and_clear_redraw_the_builder_with_new_masks(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    ix = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, ix, "b", rnd.id, 0, (0, 0), STRONG.split())
    kwargs = edited(ix)
    after_back = draft_of(ALICE_HAND, STRONG, "")
    assert {c.click.state for c in kwargs["view"].children} == {after_back.state}
    royal = row_name(evaluate(cards(STRONG)), "en")
    assert f"{format_cards(cards(STRONG), symbols=True)} — {royal}" in embed_text(kwargs["embed"])
    assert len(kwargs["attachments"]) == 1  # the hand picture

    ix = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, ix, "m", rnd.id, 0, after_back.state, PAIRS.split())
    complete = draft_of(ALICE_HAND, STRONG, PAIRS)
    assert {c.click.state for c in edited(ix)["view"].children} == {complete.state}
    assert t("builder.ok", "en") in embed_text(edited(ix)["embed"])

    ix = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, ix, "c", rnd.id, 0, complete.state, [])
    assert {c.click.state for c in edited(ix)["view"].children} == {(0, 0, False)}
    assert not (await hand_of(repo, rnd)).submitted


async def test_auto_arrange_fills_a_valid_setting_without_submitting(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    ix = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, ix, "a", rnd.id, 0, (0, 0), [])
    ix.response.defer.assert_awaited_once()
    kwargs = ix.edit_original_response.await_args.kwargs
    (masks,) = {c.click.state for c in kwargs["view"].children}
    draft = Draft.decode(cards(ALICE_HAND), *masks)
    assert draft.complete and not draft.fouled and draft.arranged
    assert not (await hand_of(repo, rnd)).submitted


async def test_a_submitted_suggestion_is_marked_arranged_and_a_changed_one_is_not(
    fake_bot, repo
) -> None:
    """Auto-arrange then Submit: the hand is stored as arranged (the coach leaves it out of
    the player's sharpness); a row picked after Auto-arrange makes the rows the person's."""
    match, rnd = await playing_round(repo)
    ix = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, ix, "a", rnd.id, 0, (0, 0), [])
    (state,) = {c.click.state for c in ix.edit_original_response.await_args.kwargs["view"].children}
    assert state[2]
    changed = Draft.decode(cards(ALICE_HAND), *state).place("back", cards(STRONG))
    assert not changed.arranged
    await press_builder(fake_bot, make_ix(fake_bot, ALICE), "s", rnd.id, 0, state, [])
    hand = await hand_of(repo, rnd)
    assert hand.submitted and hand.arranged and not hand.auto


async def test_declare_without_a_special_is_refused(fake_bot, repo) -> None:
    match, rnd = await playing_round(repo)
    ix = make_ix(fake_bot, ALICE, locale=ID)
    masks = draft_of(ALICE_HAND, STRONG, PAIRS).state
    await press_builder(fake_bot, ix, "d", rnd.id, 0, masks, [])
    assert ephemeral(ix) == t("hand.no_special", "id")
    assert not (await hand_of(repo, rnd)).submitted


# --- a hand that holds a special: the person chooses ----------------------------------------


def _labels(view) -> list[str]:
    return [getattr(getattr(child, "item", child), "label", None) for child in view.children]


def _note(embed) -> str:
    notes = [f.value for f in embed.fields if f.name == "✨"]
    assert len(notes) == 1, embed.fields
    return notes[0]


@pytest.mark.parametrize("locale,lang", [(EN, "en"), (ID, "id")])
async def test_auto_arrange_shows_both_choices_and_declares_nothing(
    fake_bot, repo, locale, lang
) -> None:
    """Auto-arrange fills in the best ordinary rows and shows what they and the special are
    expected to bring; the hand stays undeclared and unsubmitted until the person picks."""
    match, rnd = await dealt_round(repo, {0: DRAGON, 1: BOB_HAND})
    preset = get_preset("standard")
    solver = arrange(cards(DRAGON), preset, "normal", 1, seed=rnd.seed)
    assert solver.special == "dragon" and solver.special_value is not None
    ix = make_ix(fake_bot, ALICE, locale=locale)
    await press_builder(fake_bot, ix, "a", rnd.id, 0, (0, 0), [])
    kwargs = ix.edit_original_response.await_args.kwargs
    (masks,) = {c.click.state for c in kwargs["view"].children}
    draft = Draft.decode(cards(DRAGON), *masks)
    assert draft.complete and not draft.fouled
    assert [set(row) for row in draft.setting] == [set(row) for row in solver.ordinary]
    dragon = t("special.dragon", lang)
    assert t("btn.declare", lang, special=dragon) in _labels(kwargs["view"])
    assert t("btn.submit", lang) in _labels(kwargs["view"])
    note = _note(kwargs["embed"])
    declared = number(solver.special_value, lang, sign=True)  # "+12,5" in Indonesian
    ordinary = number(solver.ordinary_expected, lang, sign=True)
    choice = t("hand.special", lang, special=dragon, value=13, declared=declared, ordinary=ordinary)
    # the estimate is said to be Auto-arrange's, not the coach's (issue 20)
    assert note == f"{choice}\n{t('hand.estimate_note', lang)}"
    assert declared in note and ordinary in note
    hand = await hand_of(repo, rnd)
    assert not hand.submitted and hand.declare is None


async def test_a_hand_with_a_special_is_told_the_choice_is_theirs(fake_bot, repo) -> None:
    match, rnd = await dealt_round(repo, {0: DRAGON, 1: BOB_HAND})
    screen = await fake_bot.tables.display.screen(match, rnd, 0, Draft.start(cards(DRAGON)), "en")
    embed, view = screen.embed, screen.view
    note = _note(embed)
    assert "**Dragon**" in note and "13 from each opponent" in note
    assert "never declared for you" in note
    assert "Declare Dragon" in _labels(view)
    # A hand without a special gets no such note.
    screen = await fake_bot.tables.display.screen(match, rnd, 1, Draft.start(cards(BOB_HAND)), "en")
    embed, view = screen.embed, screen.view
    assert not [f for f in embed.fields if f.name == "✨"]
    assert not any(str(label).startswith("Declare") for label in _labels(view))


async def test_declare_is_the_persons_own_press(fake_bot, repo) -> None:
    """Pressing Declare (after Auto-arrange) declares: the rows shown are submitted with the
    special."""
    match, rnd = await dealt_round(repo, {0: DRAGON, 1: OTHER_DRAGON})
    ix = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, ix, "a", rnd.id, 0, (0, 0), [])
    (masks,) = {c.click.state for c in ix.edit_original_response.await_args.kwargs["view"].children}
    ix = make_ix(fake_bot, ALICE)
    await press_builder(fake_bot, ix, "d", rnd.id, 0, masks, [])
    hand = await hand_of(repo, rnd)
    assert hand.submitted and hand.declare == "dragon" and not hand.auto


def test_every_builder_action_has_one_step_and_a_place() -> None:
    """A builder button is its BuilderAction member (code, label, style, place) and its
    step: nothing else dispatches on the action."""
    assert set(STEPS) == set(BuilderAction)
    codes = [a.value for a in BuilderAction]
    assert len(codes) == len(set(codes)) and all(len(code) == 1 for code in codes)
    draft = Draft.start(cards(ALICE_HAND))
    shown = {
        c.click.act
        for c in views.builder_view(1, 0, draft, "en", "dragon", surrender=True).children
    }
    foul = {c.click.act for c in views.confirm_foul_view(1, 0, draft, "en").children}
    gave_up = {c.click.act for c in views.confirm_surrender_view(1, 0, draft, "en").children}
    assert shown | foul | gave_up == set(BuilderAction)
    assert len(shown) + len(foul) + len(gave_up) == len(BuilderAction)
    for act in BuilderAction:
        assert t(act.key, "vi", special="x") != t(act.key, "en", special="x"), act
