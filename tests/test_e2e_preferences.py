"""``/capsa me`` through the real bot and the fake Discord (issue 21): a person's own language
and deck style, kept in the database, used for everything only they read (their DM hand:
its text, select options and picture; their review), never for what the whole table reads;
and hands in the channel: no DM, the builder from "Show my hand"."""

from __future__ import annotations

import asyncio
import io

import numpy as np
from PIL import Image

from capsa.cards import DeckStyle, parse_cards
from capsa.i18n import t
from tests.e2e import make_bot, play_builder, warung
from tests.e2e_extra import open_started_table, shown_rows, wait_showdown
from tests.fakediscord import running_bot
from tests.fakediscord.state import FakeMessage


def pixels(message: FakeMessage) -> np.ndarray:
    (attachment,) = message.attachments
    return np.asarray(Image.open(io.BytesIO(attachment.data)).convert("RGB"), dtype=int)


def blue(image: np.ndarray) -> int:
    """Pixels of the four-colour deck's diamonds."""
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    return int(((b > 150) & (r < 60) & (g < 130)).sum())


def green(image: np.ndarray) -> int:
    """Pixels of the four-colour deck's clubs (the table's green is lighter and greyer)."""
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    return int(((g > 100) & (r < 30) & (b < 80) & (g - b > 60)).sum())


def option_labels(builder: FakeMessage, placeholder: str) -> dict[str, str]:
    select = builder.find_component(placeholder, (3,))
    return {o["value"]: o["label"] for o in select["options"]}


async def test_my_language_and_deck_for_what_only_i_read(fake_discord, tmp_path):
    fake = fake_discord
    guild = fake.add_guild("Warung")
    chan = guild.add_text_channel("capsa")
    bob = fake.add_user("bob", guild=guild)  # both on Discord in English
    alice = fake.add_user("alice", guild=guild)
    async with running_bot(fake, make_bot(fake, tmp_path / "db.sqlite3")):
        shown = await alice.slash("capsa me", channel=chan)
        answer = await shown.wait_response()
        assert answer.ephemeral and t("me.title", "en") in answer.text()
        assert t("choice.me_lang_auto", "en") in answer.text()
        assert "A♠ 10♦ Q♣ 7♥" in answer.text()  # the classic deck's sample

        saved = await alice.slash("capsa me", channel=chan, language="vi", deck="four_colour")
        answer = await saved.wait_response()
        text = answer.text()
        assert t("set.saved", "vi") in text and t("me.title", "vi") in text  # now in her choice
        assert t("choice.deck.four_colour", "vi") in text
        assert "A♠ 10🔷 Q☘\ufe0f 7♥\ufe0f" in text
        sample = pixels(answer)
        assert blue(sample) > 100 and green(sample) > 100

        status = await open_started_table(fake, chan, bob, [alice], seats=2, rounds=5)
        # the table reads its own language, whatever alice chose
        assert t("btn.show_hand", "en") in status.button_labels()

        hers = await alice.next_dm(lambda m: t("hand.title", "vi", k=1, n=5) in m.text())
        his = await bob.next_dm(lambda m: t("hand.title", "en", k=1, n=5) in m.text())
        labels = option_labels(hers, t("hand.back_ph", "vi"))
        cards = parse_cards(list(labels))
        assert all(labels[c.code] == c.label(DeckStyle.FOUR_COLOUR) for c in cards)
        assert all(label.count("\ufe0f") <= 1 and "♦" not in label for label in labels.values())
        assert any("🔷" in label or "☘" in label for label in labels.values())
        his_labels = option_labels(his, t("hand.back_ph", "en"))
        assert all(
            label == c.symbol
            for c, label in zip(parse_cards(list(his_labels)), his_labels.values(), strict=True)
        )
        diamonds_or_clubs = [c for c in cards if c.suit in (0, 1)]
        assert diamonds_or_clubs  # (13 cards of 52: a hand without either is 1 in 8,000)
        assert blue(pixels(hers)) + green(pixels(hers)) > 100
        assert blue(pixels(his)) + green(pixels(his)) == 0
        assert any(c.label(DeckStyle.FOUR_COLOUR) in hers.text() for c in diamonds_or_clubs)

        # back to her Discord's language; the deck stays
        auto = await (await alice.slash("capsa me", channel=chan, language="auto")).wait_response()
        assert t("choice.me_lang_auto", "en") in auto.text()
        assert t("choice.deck.four_colour", "en") in auto.text()

        await alice.click(hers, t("btn.auto", "vi"))
        await bob.click(his, "Auto-arrange")
        # her next redraw is in her Discord's language again, still in four colours
        assert t("hand.title", "en", k=1, n=5) in hers.text()
        assert any("🔷" in o or "☘" in o for o in option_labels(hers, "Back (5)").values())
        await alice.click(hers, "Submit")
        await bob.click(his, "Submit")
        showdown = await wait_showdown(fake, chan, 1, 5)
        assert "10🔷" not in showdown.text() and "☘" not in showdown.text()
        table = pixels(showdown)
        assert blue(table) + green(table) == 0  # the table's picture: the classic deck
        # her review (a picture only she sees) is drawn in her deck
        await alice.click(showdown, t("btn.review", "en"))
        title = t("rev.title", "en", k=1)
        review = await alice.wait_for_ephemeral(lambda m: title in m.text(), timeout=30)
        assert blue(pixels(review)) + green(pixels(review)) > 100


async def test_hands_in_the_channel_means_no_dm(fake_discord, tmp_path):
    """alice plays in the channel: no DM at the deal, no "couldn't DM you" notice; "Show my
    hand" on the round's status opens her builder there, in her deck, and she plays."""
    fake = fake_discord
    chan, (alice, bob) = warung(fake, "alice", "bob")
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        saved = await alice.slash("capsa me", channel=chan, hands="channel", deck="four_colour")
        answer = await saved.wait_response()
        assert t("choice.hands.channel", "en") in answer.text()

        status = await open_started_table(fake, chan, bob, [alice], seats=2, rounds=5)
        his = await bob.next_dm(lambda m: "round 1/5" in m.text(), timeout=10)
        match = await bot.repo.active_match_in_channel(chan.id)
        for _ in range(100):  # the deal finishes just after bob's DM
            rnd = await bot.repo.current_round(match.id)
            if rnd.status == "open":
                break
            await asyncio.sleep(0.05)
        assert rnd.status == "open"  # the deal is done: her DM was never coming
        assert alice.dms == [] and not fake.requests_to("POST", f"*/channels/{alice.dm.id}/*")
        assert not [m for m in chan.history if alice.mention in (m.content or "")]
        assert not (await bot.repo.current_round(match.id)).hands[1].dm_refused

        opened = await alice.click(status, t("btn.show_hand", "en"))
        builder = await alice.wait_for_ephemeral(lambda m: bool(m.selects()))
        assert opened.answered and builder.ephemeral_for is alice
        labels = option_labels(builder, "Back (5)")
        assert all(
            labels[c.code] == c.label(DeckStyle.FOUR_COLOUR) for c in parse_cards(list(labels))
        )
        back, middle, front = await play_builder(alice, builder)
        await play_builder(bob, his)
        showdown = await wait_showdown(fake, chan, 1, 5)
        rows = shown_rows(showdown)["alice"]
        assert [set(r) for r in rows] == [set(back), set(middle), set(front)]
        assert alice.dms == []
