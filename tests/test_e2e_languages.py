"""A whole match in each newer language, Simplified Chinese and Vietnamese: two people
through the real bot and the fake Discord, pictures included.

A table speaks its host's Discord language unless the server sets one (cogs/replies.py
user_lang); a server can set any catalogue language.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image

from capsa.cards import parse_cards
from capsa.i18n import t
from capsa.presets import get_preset
from capsa.solver import arrange
from tests.e2e import make_bot
from tests.e2e_extra import field_points
from tests.fakediscord import running_bot
from tests.fakediscord.state import FakeMessage
from tests.fakediscord.users import FakeUser

ROUNDS = 5


def picture(message: FakeMessage) -> Image.Image:
    (attachment,) = message.attachments
    image = Image.open(io.BytesIO(attachment.data))
    image.load()
    return image


async def play(user: FakeUser, builder: FakeMessage, lang: str) -> None:
    """Set the solver's rows through the builder's menus, found by their words in ``lang``."""
    select = builder.find_component(t("hand.back_ph", lang), (3,))
    hand = parse_cards([o["value"] for o in select["options"]])
    choice = arrange(hand, get_preset("standard"), "normal", 3, seed=1)
    back, middle, _ = choice.ordinary
    await user.select(builder, t("hand.back_ph", lang), [c.code for c in back])
    await user.select(builder, t("hand.middle_ph", lang), [c.code for c in middle])
    result = await user.click(builder, t("btn.submit", lang))
    assert result.answered


async def play_match(fake, chan, host: FakeUser, guest: FakeUser, lang: str) -> None:
    """/capsa new by ``host``, ``guest`` joins, 5 rounds set through the builders; every
    message is checked in ``lang``."""
    opened = await host.slash("capsa new", channel=chan, seats=2, rounds=ROUNDS)
    assert opened.answered and t("btn.start", lang) in opened.text()
    join = t("btn.join", lang)
    lobby = await fake.wait_for_message(chan, lambda m: join in m.button_labels())
    assert t("lobby.title", lang) in lobby.text()
    await guest.click(lobby, join)
    await host.click(lobby, t("btn.start", lang))

    running: dict[str, float] = {}
    for number in range(1, ROUNDS + 1):
        mine = t("hand.title", lang, k=number, n=ROUNDS)
        dm_a = await host.next_dm(lambda m, s=mine: s in m.text(), timeout=10)
        dm_b = await guest.next_dm(lambda m, s=mine: s in m.text(), timeout=10)
        assert dm_a.attachments, "the hand picture comes with the builder"
        await play(host, dm_a, lang)
        await play(guest, dm_b, lang)
        title = t("sd.title", lang, k=number, n=ROUNDS)
        showdown = await fake.wait_for_message(chan, lambda m, s=title: s in m.text(), timeout=15)
        text = showdown.text()
        # the head-to-head lines name the rows in the language
        assert any(t(f"pos.{p}", lang) in text for p in ("back", "middle", "front"))
        shown = field_points(showdown, t("sd.round_points", lang))
        assert sum(shown.values()) == 0 and len(shown) == 2
        for name, points in shown.items():
            running[name] = running.get(name, 0) + points
        assert field_points(showdown, t("sd.totals", lang)) == running
        image = picture(showdown)
        assert image.format == "JPEG" and image.width > 300
        if number < ROUNDS:
            await host.click(showdown, t("btn.next", lang))

    final_title = t("sd.final_title", lang)
    final = await fake.wait_for_message(chan, lambda m: final_title in m.text(), timeout=10)
    best = max(running.values())
    winners = [name for name, total in running.items() if total == best]
    assert all(name in final.text() for name in winners)
    standings = picture(final)
    assert standings.format == "PNG" and standings.width == 640


@pytest.mark.parametrize("lang", ["zh-CN", "vi"])
async def test_a_match_in_the_hosts_language(fake_discord, tmp_path, lang: str):
    fake = fake_discord
    guild = fake.add_guild("Quán")
    chan = guild.add_text_channel("capsa")
    host = fake.add_user("阿明" if lang == "zh-CN" else "Minh", guild=guild, locale=lang)
    guest = fake.add_user("bob", guild=guild, locale=lang)
    async with running_bot(fake, make_bot(fake, tmp_path / "db.sqlite3")):
        await play_match(fake, chan, host, guest, lang)
        board = await guest.slash("capsa leaderboard", channel=chan)
        points, all_time = t("choice.points", lang), t("choice.all", lang)
        assert t("lb.title", lang, sort=points, period=all_time) in board.message.text()


@pytest.mark.parametrize("lang", ["zh-CN", "vi"])
async def test_the_server_language_can_be_set(fake_discord, tmp_path, lang: str):
    fake = fake_discord
    guild = fake.add_guild("Quán")
    chan = guild.add_text_channel("capsa")
    alice = fake.add_user("alice", guild=guild, manage_guild=True)  # Discord in English
    bob = fake.add_user("bob", guild=guild)
    async with running_bot(fake, make_bot(fake, tmp_path / "db.sqlite3")):
        saved = await alice.slash("capsa settings", channel=chan, language=lang)
        assert t("set.saved", lang) in saved.text()
        await play_match(fake, chan, alice, bob, lang)
