"""Which language a person reads: what is private to them (their DM hand, the builder, the
locked DM, the review) in their own; what the whole table reads (lobby, status, showdown)
in the table's. The defect this pins: at a table opened by a zh-CN person, a vi person's
DM hand, builder, locked DM and DM review were all in Chinese."""

from __future__ import annotations

import discord

from capsa.i18n import t
from cogs.components import BuilderAction, BuilderClick, LobbyAction, LobbyClick, ReviewClick
from cogs.replies import language_for
from cogs.table_base import round_result, round_scores
from tests.cog_helpers import (
    ALICE,
    BOB,
    CHANNEL,
    EN,
    embed_text,
    make_ix,
    press,
)

ZH, VI = discord.Locale.chinese, discord.Locale.vietnamese
BOB_DM = 90_000 + BOB  # the fake client's DM channel with bob


async def zh_table_with_a_vi_guest(fake_bot, repo):
    """Alice (zh-CN) opens a two-seat table, bob (vi) joins, alice starts: round 1 dealt
    with these hands."""
    host = make_ix(fake_bot, ALICE, name="阿明", locale=ZH)
    await fake_bot.tables.lobby.open_table(host, 2, 5, None, None, None)
    match = await repo.active_match_in_channel(CHANNEL)
    assert match is not None and match.language == "zh-CN"
    await press(
        fake_bot,
        make_ix(fake_bot, BOB, name="Minh", locale=VI),
        LobbyClick(match.id, LobbyAction.JOIN),
    )
    match = await repo.get_match(match.id)
    assert [s.language for s in match.seats] == ["zh-CN", "vi"]
    await press(
        fake_bot, make_ix(fake_bot, ALICE, locale=ZH), LobbyClick(match.id, LobbyAction.START)
    )
    await fake_bot.tables.scheduler.jobs_done()  # round 1 is dealt once the click is done
    return await repo.get_match(match.id), await repo.current_round(match.id)


async def test_a_vi_person_at_a_zh_table_reads_her_own_things_in_vietnamese(fake_bot, repo) -> None:
    match, rnd = await zh_table_with_a_vi_guest(fake_bot, repo)
    channel = fake_bot.channels[CHANNEL]

    # the deal: the table's status in Chinese, bob's DM hand in Vietnamese
    status = channel.send.await_args_list[-1].kwargs["embed"]
    assert status.title == t("round.title", "zh-CN", k=1, n=5)
    dm = fake_bot.channels[BOB_DM].send.await_args.kwargs
    assert dm["embed"].title == t("hand.title", "vi", k=1, n=5)
    labels = [getattr(c.item, "label", None) for c in dm["view"].children]
    assert t("btn.auto", "vi") in labels

    # a click in the DM: the builder redrawn in Vietnamese
    rnd = await repo.current_round(match.id)
    bob_hand = rnd.hands[1].cards
    dm_message = (await repo.get_round(rnd.id)).hands[1].dm_message_id
    click = make_ix(fake_bot, BOB, locale=VI, guild_id=None, channel_id=BOB_DM)
    click.message = discord.Object(dm_message)
    strong = " ".join(bob_hand[:5])
    await press(
        fake_bot,
        click,
        BuilderClick(BuilderAction.BACK, rnd.id, 1, (0, 0, False), tuple(strong.split())),
    )
    redrawn = click.edit_original_response.await_args.kwargs
    assert redrawn["embed"].title == t("hand.title", "vi", k=1, n=5)
    assert t("hand.cards", "vi") in embed_text(redrawn["embed"])

    # Auto-arrange then Submit: the DM locked in Vietnamese
    auto = make_ix(fake_bot, BOB, locale=VI, guild_id=None, channel_id=BOB_DM)
    auto.message = discord.Object(dm_message)
    await press(fake_bot, auto, BuilderClick(BuilderAction.AUTO, rnd.id, 1, (0, 0, False)))
    (state,) = {
        c.click.state for c in auto.edit_original_response.await_args.kwargs["view"].children
    }
    submit = make_ix(fake_bot, BOB, locale=VI, guild_id=None, channel_id=BOB_DM)
    submit.message = discord.Object(dm_message)
    await press(fake_bot, submit, BuilderClick(BuilderAction.SUBMIT, rnd.id, 1, state))
    locked = submit.edit_original_response.await_args.kwargs
    assert locked["view"] is None
    assert locked["embed"].description == t("hand.submitted", "vi", channel=CHANNEL)

    # the round scored and shown: the showdown in Chinese, at the table
    cards = rnd.hands[0].cards  # alice's rows, as dealt (the scoring sorts them out)
    back, middle, front = cards[:5], cards[5:10], cards[10:]
    assert await repo.submit_hand(rnd.id, 0, back, middle, front, None, fouled=False)
    rnd = await repo.get_round(rnd.id)
    result = round_result(match, rnd)
    assert await repo.score_round(rnd.id, result.to_dict() | {"auto": []}, round_scores(result))
    await fake_bot.tables.rounds.close_round(match.id)
    showdown = channel.send.await_args_list[-1].kwargs["embeds"]
    assert showdown[0].title == t("sd.title", "zh-CN", k=1, n=5)

    # the review: offered on her DM in Vietnamese, and shown in Vietnamese when she asks
    await fake_bot.tables.scheduler.jobs_done()
    dm_edit = fake_bot.channels[BOB_DM].get_partial_message(dm_message).edit
    offered = [c.kwargs["view"] for c in dm_edit.await_args_list if c.kwargs.get("view")]
    assert offered and offered[-1].children[0].item.label == t("btn.review", "vi")
    ask = make_ix(fake_bot, BOB, locale=VI, guild_id=None, channel_id=BOB_DM)
    await press(fake_bot, ask, ReviewClick(rnd.id))
    review = ask.followup.send.await_args.kwargs
    assert review["ephemeral"] is True
    assert review["embed"].title == t("rev.title", "vi", k=1)


async def test_the_person_s_language_without_an_interaction_is_the_one_stored_at_her_seat(
    fake_bot, repo
) -> None:
    match, _rnd = await zh_table_with_a_vi_guest(fake_bot, repo)
    assert await language_for(repo, match) == "zh-CN"  # what the table reads
    assert await language_for(repo, match, user_id=BOB) == "vi"
    assert await language_for(repo, match, user_id=ALICE) == "zh-CN"
    # with an interaction: its locale (she switched her Discord to English)
    ix = make_ix(fake_bot, BOB, locale=EN, guild_id=None)
    assert await language_for(repo, match, interaction=ix) == "en"
    # a server that sets its language sets it for its tables' DMs too
    await repo.update_guild_settings(match.guild_id, language="id")
    assert await language_for(repo, match, user_id=BOB) == "id"
    assert await language_for(repo, match, interaction=ix) == "id"


async def test_opening_the_builder_stores_the_persons_language_for_her_next_dms(
    fake_bot, repo
) -> None:
    match, _rnd = await zh_table_with_a_vi_guest(fake_bot, repo)
    ix = make_ix(fake_bot, BOB, locale=EN)
    await fake_bot.tables.builder.open(ix, match_id=match.id)
    assert ix.followup.send.await_args.kwargs["embed"].title == t("hand.title", "en", k=1, n=5)
    again = await repo.get_match(match.id)
    assert again.seat_of(BOB).language == "en"
    assert await language_for(repo, again, user_id=BOB) == "en"
