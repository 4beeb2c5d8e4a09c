"""What every screen is made of: a :class:`Screen` (text, embeds, components, pictures),
the colours, and Discord's relative timestamps."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import discord

GREEN = discord.Colour(0x1F8B4C)
GOLD = discord.Colour(0xE2B53E)
GREY = discord.Colour(0x7F8C8D)


def relative(ts: float) -> str:
    return f"<t:{int(ts)}:R>"


@dataclass(frozen=True)
class Picture:
    """An attached picture: its file name (which the embed's image names) and its bytes."""

    filename: str
    data: bytes

    @property
    def url(self) -> str:
        return f"attachment://{self.filename}"

    def file(self) -> discord.File:
        return discord.File(io.BytesIO(self.data), filename=self.filename)


def with_picture(embed: discord.Embed, picture: Picture | None) -> discord.Embed:
    """The embed shows the picture (built by a screen, before anyone sends it)."""
    if picture is not None:
        embed.set_image(url=picture.url)
    return embed


@dataclass(frozen=True)
class Screen:
    """A message as a person sees it. ``pictures`` None: an edit leaves the message's
    attachments as they are; ``replaces``: an edit replaces the whole message (its text and
    attachments go unless given); ``listed``: the embeds go as a list even when there is
    one (a family of screens that may have several). ``mentions``: who may be pinged by
    ``content``."""

    embeds: tuple[discord.Embed, ...] = ()
    view: discord.ui.View | None = None
    pictures: tuple[Picture, ...] | None = None
    content: str | None = None
    mentions: discord.AllowedMentions | None = None
    replaces: bool = False
    listed: bool = False  # sent as a list of embeds even when there is one (showdowns)

    @property
    def embed(self) -> discord.Embed:
        return self.embeds[0]

    def files(self) -> list[discord.File]:
        """Fresh files (a ``discord.File`` can be sent once)."""
        return [p.file() for p in self.pictures or ()]

    def _embeds(self) -> dict[str, Any]:
        if len(self.embeds) == 1 and not self.listed:
            return {"embed": self.embeds[0]}
        return {"embeds": list(self.embeds)} if self.embeds else {}

    def send_kwargs(self, *, ephemeral: bool = False) -> dict[str, Any]:
        """For ``channel.send`` or ``followup.send``."""
        kwargs: dict[str, Any] = self._embeds()
        if self.content is not None:
            kwargs["content"] = self.content
        if self.view is not None:
            kwargs["view"] = self.view
        if self.pictures is not None:
            kwargs["files"] = self.files()
        if self.mentions is not None:
            kwargs["allowed_mentions"] = self.mentions
        if ephemeral:
            kwargs["ephemeral"] = True
        return kwargs

    def edit_kwargs(self) -> dict[str, Any]:
        """For ``message.edit``, ``edit_original_response`` or ``response.edit_message``:
        the components are always replaced (None: taken off)."""
        kwargs: dict[str, Any] = self._embeds()
        kwargs["view"] = self.view
        if self.content is not None or self.replaces:
            kwargs["content"] = self.content
        if self.pictures is not None or self.replaces:
            kwargs["attachments"] = self.files()
        if self.mentions is not None:
            kwargs["allowed_mentions"] = self.mentions
        return kwargs
