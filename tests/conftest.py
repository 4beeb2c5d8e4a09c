"""Fixtures for the end-to-end tests: a fake Discord on 127.0.0.1 only."""

from __future__ import annotations

import pytest

from tests.fakediscord import FakeDiscord, only_localhost


@pytest.fixture
async def fake_discord():
    with only_localhost():
        async with FakeDiscord() as fake:
            fake.settle_deferred_updates = True  # the hand builder acknowledges first
            yield fake
