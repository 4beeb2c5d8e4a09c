"""A person's preferences (``/capsa me``) in the repository, on SQLite and PostgreSQL:
defaults, changes one field at a time, validation, kept across a restart (migration 0011)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from capsa.cards import DeckStyle
from data import Repository, open_repository
from data.repository import HandsIn, Preferences
from data.schema import POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS, discover_migrations

Opener = Callable[[], Awaitable[Repository]]


@pytest.fixture(params=["sqlite", "postgres"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Opener:
    """Opens the same database each time (a restart), on each backend."""
    if request.param == "postgres":
        url = request.getfixturevalue("pg_url")
        return lambda: open_repository(database_url=url)
    path = str(tmp_path / "capsa.sqlite3")
    return lambda: open_repository(path)


@pytest.fixture
async def repo(opener: Opener) -> AsyncIterator[Repository]:
    r = await opener()
    try:
        yield r
    finally:
        await r.close()


async def test_defaults_until_a_person_chooses(repo: Repository) -> None:
    assert await repo.preferences(42) == Preferences(42, None, DeckStyle.CLASSIC, HandsIn.DM)


async def test_each_field_changes_alone_and_survives_a_restart(opener: Opener) -> None:
    repo = await opener()
    try:
        after = await repo.update_preferences(7, deck="four_colour")
        assert after == Preferences(7, None, DeckStyle.FOUR_COLOUR)
        after = await repo.update_preferences(7, language="vi")
        assert after == Preferences(7, "vi", DeckStyle.FOUR_COLOUR)  # the deck kept
        assert await repo.preferences(8) == Preferences(8)  # nobody else's
    finally:
        await repo.close()
    repo = await opener()
    try:
        assert await repo.preferences(7) == Preferences(7, "vi", DeckStyle.FOUR_COLOUR)
        back = await repo.update_preferences(
            7, language=None, deck=DeckStyle.LETTERS, hands="channel"
        )
        assert back == Preferences(7, None, DeckStyle.LETTERS, HandsIn.CHANNEL)
        assert await repo.preferences(7) == back
        assert await repo.update_preferences(7) == back  # nothing to change
    finally:
        await repo.close()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"language": "klingon"}, "language 'klingon' is not one of en, id, zh-CN, vi"),
        ({"deck": "rainbow"}, "deck 'rainbow' is not one of classic, four_colour"),
        ({"hands": "pigeon"}, "hands 'pigeon' is not one of dm, channel"),
        ({"colour": "red"}, "unknown preference(s) colour: choose from language, deck, hands"),
    ],
)
async def test_wrong_values_are_named(repo: Repository, fields: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        await repo.update_preferences(1, **fields)
    assert await repo.preferences(1) == Preferences(1)  # nothing stored


def test_migration_0011_is_in_both_folders() -> None:
    for folder in (SQLITE_MIGRATIONS, POSTGRES_MIGRATIONS):
        names = {m.version: m.name for m in discover_migrations(folder)}
        assert names[11] == "preferences"
    for value in (*DeckStyle, *HandsIn):  # the CHECKs list every deck style and place
        for folder in (SQLITE_MIGRATIONS, POSTGRES_MIGRATIONS):
            assert f"'{value}'" in (folder / "0011_preferences.sql").read_text()
