"""Scenario 9: ``/capsa rules``, ``/capsa settings`` (and its refusal) and ``/capsa cancel``,
each in English and in Indonesian, chosen by the interaction's locale (``id``).

The command names a user types are the same for both (Discord sends the default names);
only the answers change language. A server setting can force the language for everyone.
"""

from __future__ import annotations

from capsa.presets import get_preset
from capsa.rules_text import rules_page
from capsa.settings import COUNTDOWN, ROUNDS
from cogs.tables import tables_of
from tests.e2e import make_bot, play_builder
from tests.e2e_extra import lobby_after, wait_showdown
from tests.fakediscord import eventually, running_bot


def _embed_page(message) -> tuple[str, str, list[tuple[str, str]]]:
    embed = message.embeds[0]
    fields = [(f["name"], f["value"]) for f in embed.get("fields", [])]
    return embed["title"], embed.get("description", ""), fields


def _field(message, name: str) -> str:
    return next(f["value"] for f in message.embeds[0]["fields"] if f["name"] == name)


async def test_rules_in_the_readers_language_for_the_servers_preset(fake_discord, tmp_path):
    fake = fake_discord
    guild = fake.add_guild("Warung")
    chan = guild.add_text_channel("capsa")
    alice = fake.add_user("alice", guild=guild, manage_guild=True)
    siti = fake.add_user("siti", guild=guild, locale="id")
    async with running_bot(fake, make_bot(fake, tmp_path / "db.sqlite3")):
        for user, lang, footer in ((alice, "en", "Rules preset"), (siti, "id", "Aturan")):
            shown = await user.slash("capsa rules", channel=chan)
            page = rules_page("overview", get_preset("standard"), lang)
            assert _embed_page(shown.message) == (
                page.title,
                page.intro,
                [tuple(s) for s in page.sections],
            )
            assert shown.message.embeds[0]["footer"]["text"].startswith(f"{footer}: standard")
        english = rules_page("overview", get_preset("standard"), "en")
        assert english.title != rules_page("overview", get_preset("standard"), "id").title

        # The server's preset changes the bonus tables shown (they come from the preset).
        await alice.slash("capsa settings", channel=chan, rules="indocapsa")
        for user, lang in ((alice, "en"), (siti, "id")):
            shown = await user.slash("capsa rules", channel=chan, topic="bonuses")
            page = rules_page("bonuses", get_preset("indocapsa"), lang)
            title, _, fields = _embed_page(shown.message)
            assert title == page.title and "indocapsa" in title
            assert fields == [tuple(s) for s in page.sections]
            assert fields != [
                tuple(s) for s in rules_page("bonuses", get_preset("standard"), lang).sections
            ]


async def test_settings_and_refusal_in_both_languages(fake_discord, tmp_path):
    fake = fake_discord
    guild = fake.add_guild("Warung")
    chan = guild.add_text_channel("capsa")
    alice = fake.add_user("alice", guild=guild, manage_guild=True)
    bob = fake.add_user("bob", guild=guild)
    siti = fake.add_user("siti", guild=guild, locale="id", manage_guild=True)
    budi = fake.add_user("budi", guild=guild, locale="id")
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        shown = await alice.slash("capsa settings", channel=chan)
        assert shown.ephemeral and shown.message.embeds[0]["title"] == "Server settings"
        assert _field(shown.message, "Rules") == "standard"
        assert _field(shown.message, "On timeout") == "auto-arrange"
        assert "Saved." not in shown.text(), "nothing was changed"

        shown = await siti.slash("capsa settings", channel=chan, rounds=5, countdown=60)
        assert shown.ephemeral and shown.message.embeds[0]["title"] == "Pengaturan server"
        assert "Tersimpan." in shown.text()
        assert _field(shown.message, "Ronde") == "5"
        assert _field(shown.message, "Waktu") == "60 detik"  # the unit in her language
        assert _field(shown.message, "Saat waktu habis") == "susun otomatis"

        before = await bot.repo.guild_settings(guild.id)
        assert (before.get(ROUNDS), before.get(COUNTDOWN)) == (5, 60)
        for user, text in (
            (bob, "Only members with the Manage Server permission can change these settings."),
            (budi, "Hanya anggota dengan izin Kelola Server yang bisa mengubah pengaturan ini."),
        ):
            refused = await user.slash("capsa settings", channel=chan, rounds=10)
            assert refused.ephemeral and refused.text() == text
            assert not refused.message.embeds
        assert await bot.repo.guild_settings(guild.id) == before

        # Forcing the language: English-speaking alice now reads Indonesian, and back.
        forced = await alice.slash("capsa settings", channel=chan, language="id")
        assert "Tersimpan." in forced.text() and _field(forced.message, "Bahasa") == "Indonesia"
        refused = await bob.slash("capsa settings", channel=chan)
        assert refused.text().startswith("Hanya anggota")
        back = await alice.slash("capsa settings", channel=chan, language="auto")
        assert "Saved." in back.text()
        assert _field(back.message, "Language") == "follow each user's Discord language"


async def test_cancel_in_both_languages(fake_discord, tmp_path):
    fake = fake_discord
    guild = fake.add_guild("Warung")
    chan = guild.add_text_channel("capsa")
    meja = guild.add_text_channel("meja")
    alice = fake.add_user("alice", guild=guild)
    bob = fake.add_user("bob", guild=guild)
    siti = fake.add_user("siti", guild=guild, locale="id")
    budi = fake.add_user("budi", guild=guild, locale="id")
    mod = fake.add_user("mod", guild=guild, manage_guild=True)
    bot = make_bot(fake, tmp_path / "db.sqlite3")
    async with running_bot(fake, bot):
        nothing = await alice.slash("capsa cancel", channel=chan)
        assert nothing.ephemeral and nothing.text() == "There is no open table in this channel."
        nothing = await siti.slash("capsa cancel", channel=meja)
        assert nothing.ephemeral and nothing.text() == "Tidak ada meja terbuka di channel ini."

        # English: a lobby, refused for bob, cancelled by its host.
        lobby_en = await lobby_after(
            fake, chan, await alice.slash("capsa new", channel=chan, seats=2, rounds=5)
        )
        assert "Capsa Susun table" in lobby_en.text()
        refused = await bob.slash("capsa cancel", channel=chan)
        assert refused.ephemeral
        assert refused.text() == "Only the host or a member with Manage Server can do that."
        done = await alice.slash("capsa cancel", channel=chan)
        announced = "alice cancelled the table. Completed rounds stay recorded."
        assert done.ephemeral and done.text() == announced  # the canceller's own answer
        await fake.wait_for_message(chan, lambda m: m.content == announced)  # and the channel's
        await fake.wait_for_message(
            chan, lambda m: m.id == lobby_en.id and "This table was cancelled." in m.text()
        )
        assert not lobby_en.buttons()

        # Indonesian: the lobby is in the host's language, and so are the answers.
        lobby_id = await lobby_after(
            fake, meja, await siti.slash("capsa new", channel=meja, seats=2, rounds=5)
        )
        assert "Meja Capsa Susun" in lobby_id.text() and "Gabung" in lobby_id.button_labels()
        refused = await budi.slash("capsa cancel", channel=meja)
        assert refused.ephemeral
        assert refused.text() == (
            "Hanya tuan rumah atau anggota dengan izin Kelola Server yang bisa."
        )
        done = await siti.slash("capsa cancel", channel=meja)
        assert done.text() == "siti membatalkan meja. Ronde yang sudah selesai tetap tercatat."
        await fake.wait_for_message(
            meja, lambda m: m.id == lobby_id.id and "Meja ini dibatalkan." in m.text()
        )
        assert (await bot.repo.active_match_in_channel(meja.id)) is None

        # In the middle of a match (cancelled by a manager who is not the host): the
        # completed round stays recorded, the open one is not counted, old buttons refuse.
        lobby = await lobby_after(
            fake, chan, await alice.slash("capsa new", channel=chan, seats=2, rounds=5)
        )
        await alice.click(lobby, "Start")
        await play_builder(alice, await alice.latest_dm(lambda m: "round 1/5" in m.text()))
        showdown = await wait_showdown(fake, chan)
        await alice.click(showdown, "Next round")
        dm_2 = await alice.next_dm(lambda m: "round 2/5" in m.text(), timeout=10)
        match = await bot.repo.active_match_in_channel(chan.id)

        done = await mod.slash("capsa cancel", channel=chan)
        assert done.text() == "mod cancelled the table. Completed rounds stay recorded."
        assert (await bot.repo.get_match(match.id)).status == "cancelled"
        pending = await tables_of(bot).scheduler.pending(match.id)
        assert pending == {}, "the round-2 countdown is stopped"
        late = await alice.click(dm_2, "Submit")
        assert late.ephemeral and late.text() == "This round is already over."
        stats = await bot.repo.player_stats(guild.id, alice.id)
        assert stats.rounds == 1
        shown = await alice.slash("capsa stats", channel=chan)
        assert "Points per round" in shown.text()
        board = await alice.slash("capsa leaderboard", channel=chan)
        assert alice.mention in board.text()
        again = await alice.slash("capsa new", channel=chan, seats=2, rounds=5)
        assert again.text() == "Your table is open. Friends press Join; you press Start when ready."

        lobby = await lobby_after(fake, chan, again)

        async def lobby_recorded() -> bool:
            table = await bot.repo.active_match_in_channel(chan.id)
            return table.lobby_message_id == lobby.id

        await eventually(lobby_recorded)


async def test_rules_setting_page_tells_this_servers_timeout(fake_discord, tmp_path):
    """The "setting" page names the server's own countdown and timeout action."""
    fake = fake_discord
    guild = fake.add_guild("Warung")
    chan = guild.add_text_channel("capsa")
    alice = fake.add_user("alice", guild=guild, manage_guild=True)
    siti = fake.add_user("siti", guild=guild, locale="id")
    async with running_bot(fake, make_bot(fake, tmp_path / "db.sqlite3")):
        await alice.slash("capsa settings", channel=chan, countdown=60, options={"timeout": "foul"})
        for user, lang in ((alice, "en"), (siti, "id")):
            shown = await user.slash("capsa rules", channel=chan, topic="setting")
            page = rules_page(
                "setting", get_preset("standard"), lang, turn_seconds=60, timeout_action="foul"
            )
            assert _embed_page(shown.message)[2] == [tuple(s) for s in page.sections]
