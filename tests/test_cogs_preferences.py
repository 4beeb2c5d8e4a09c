"""Who reads what, with ``/capsa me`` (cogs/replies.py ``language_for``, cogs/preferences.py
``deck_for``): a person's chosen language goes before the server's and their client's, for
what only they read; what the table reads never follows it."""

from __future__ import annotations

from capsa.cards import DeckStyle
from cogs.preferences import deck_for
from cogs.replies import language_for
from tests.cog_helpers import ALICE, BOB, EN, make_ix
from tests.test_cogs_languages import zh_table_with_a_vi_guest


async def test_a_chosen_language_goes_first_for_private_things_only(fake_bot, repo) -> None:
    match, _rnd = await zh_table_with_a_vi_guest(fake_bot, repo)
    ix = make_ix(fake_bot, BOB, locale=EN)
    await repo.update_guild_settings(match.guild_id, language="id")
    assert await language_for(repo, match, user_id=BOB) == "id"  # the server's, so far
    await repo.update_preferences(BOB, language="en")
    assert await language_for(repo, match, user_id=BOB) == "en"  # his DM
    assert await language_for(repo, match, interaction=ix) == "en"  # his private answers
    assert await language_for(repo, match) == "zh-CN"  # the table's stays the table's
    assert await language_for(repo, match, user_id=ALICE) == "id"  # nobody else's
    await repo.update_preferences(BOB, language=None)  # back to the server's
    assert await language_for(repo, match, user_id=BOB) == "id"


async def test_deck_for_a_person_and_a_computer(repo) -> None:
    assert await deck_for(repo, BOB) == DeckStyle.CLASSIC
    await repo.update_preferences(BOB, deck="letters")
    assert await deck_for(repo, BOB) == DeckStyle.LETTERS
    assert await deck_for(repo, None) == DeckStyle.CLASSIC  # a computer's seat
