"""A table's channel messages through interaction tokens, not the bot token.

Discord's global limit (50 requests a second) binds every bot-token request, but not the
interaction endpoints: an interaction's followups, and the edits of the messages its token
sent, for 15 minutes after it (``discord/discord-api-docs``,
``developers/topics/rate-limits.mdx``, ``developers/interactions/receiving-and-responding.mdx``).
So the click that moves a table on (Start, Next: ``keep``) leaves its token with the
channel, in the database (any process may use it; never logged), and the table's messages
in that channel (the round's status, the showdown, the standings, the notices) go as that
interaction's followups while it is valid; each message's edits go through the token that
sent it. Without a valid token (a countdown past 15 minutes, a timer after a long pause, a
token Discord no longer knows) the bot token sends them, as before.

``TableChannel`` has the two calls the tables make on a channel (``send``, and
``get_partial_message(id).edit``), so the cogs call it as they called discord.py's
``PartialMessageable``.

A person's DM (their hand's builder) is edited after a click through the token of the click
that came from it (``keep_for_source``): the DM is that interaction's original message, so
the edit goes by its "@original" route, exempt from the global limit like the others
(``DmMessage``); the bot token only once no such token is valid.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord.http import handle_message_parameters
from discord.webhook.async_ import async_context

from cogs.delivery import attempt
from data.repository import Repository

log = logging.getLogger(__name__)

TOKEN_SECONDS = 15 * 60.0  # Discord: an interaction token works this long after it is made
TOKEN_MARGIN_SECONDS = 60.0  # not used in its last minute (a long upload, a clock apart)
FIND_OWN_LIMIT = 25  # the last messages looked through for a post that landed unstored


class ChannelTokens:
    """The tables' channels, speaking through the latest interaction token of each."""

    def __init__(self, client: discord.Client, repo: Repository) -> None:
        self.client = client
        self.repo = repo

    async def keep(self, interaction: discord.Interaction) -> None:
        """A click or command moved the table in this channel on: its token is the one the
        channel's messages use from now on (the latest wins)."""
        if interaction.channel_id is None:
            return
        expires = interaction.created_at.timestamp() + TOKEN_SECONDS - TOKEN_MARGIN_SECONDS
        await self.repo.keep_channel_token(interaction.channel_id, interaction.token, expires)

    def channel(self, channel_id: int) -> TableChannel:
        return TableChannel(self, channel_id)

    async def keep_for_source(self, interaction: discord.Interaction, message_id: int) -> None:
        """A click came from the DM message ``message_id``: that message's later edits go
        through this click's token (the message is its original) while it is valid."""
        expires = interaction.created_at.timestamp() + TOKEN_SECONDS - TOKEN_MARGIN_SECONDS
        await self.repo.keep_message_token(message_id, interaction.token, expires)

    def dm_message(self, channel_id: int, message_id: int) -> DmMessage:
        return DmMessage(self, channel_id, message_id)

    async def edit_original(self, token: str, **kwargs: Any) -> None:
        """Edit the original message of the interaction ``token`` belongs to (what
        ``Interaction.edit_original_response`` does, from a stored token)."""
        app_id = getattr(self.client, "application_id", None)
        if not app_id:
            raise RuntimeError("the application's id is not known yet")
        http = self.client.http
        with handle_message_parameters(**kwargs) as params:
            await async_context.get().edit_original_interaction_response(
                app_id,
                token,
                session=http._HTTPClient__session,  # type: ignore[attr-defined]
                proxy=http.proxy,
                proxy_auth=http.proxy_auth,
                payload=params.payload,
                multipart=params.multipart,
                files=params.files,
            )

    def webhook(self, token: str) -> discord.Webhook | None:
        """The interaction's webhook (the application's id and the token), or None before
        the application's id is known."""
        app_id = getattr(self.client, "application_id", None)
        if not app_id:
            return None
        return discord.Webhook.partial(app_id, token, client=self.client)


class TableChannel:
    """A table's channel: ``send`` and ``get_partial_message(id).edit``, through the
    channel's interaction token while one is valid, else the bot token."""

    def __init__(self, tokens: ChannelTokens, channel_id: int) -> None:
        self.tokens = tokens
        self.id = channel_id

    def _bot(self) -> discord.PartialMessageable:
        return self.tokens.client.get_partial_messageable(self.id)

    async def send(self, content: str | None = None, **kwargs: Any) -> discord.Message:
        if content is not None:
            kwargs["content"] = content
        repo = self.tokens.repo
        kept = await repo.channel_token(self.id)
        hook = None if kept is None else self.tokens.webhook(kept[0])
        if kept is not None and hook is not None:
            token, expires = kept
            sent = await attempt(hook.send(wait=True, **kwargs))
            if sent.value is not None:
                await repo.keep_message_token(sent.value.id, token, expires)
                return sent.value
            if sent.error is not None and not sent.token_gone:
                raise sent.error
            log.info("channel %s: its interaction token is gone; the bot token sends", self.id)
            for file in kwargs.get("files") or ():  # read once already: from the start again
                file.reset()
        return await self._bot().send(**kwargs)

    def get_partial_message(self, message_id: int) -> TableMessage:
        return TableMessage(self, message_id)

    async def find_own(self, custom_id: str, limit: int = FIND_OWN_LIMIT) -> int | None:
        """The id of the bot's message with a component ``custom_id`` among the channel's
        last ``limit`` (a bot-token read, made only when a post taken over from a dead
        process may have landed); None if there is none or the channel cannot be read."""
        me = self.tokens.client.user
        if me is None:
            return None

        async def look() -> int | None:
            async for message in self._bot().history(limit=limit):
                if message.author.id == me.id and any(
                    getattr(item, "custom_id", None) == custom_id
                    for row in message.components
                    for item in getattr(row, "children", ())
                ):
                    return message.id
            return None

        found = await attempt(look(), "channel %s: could not read its last messages", self.id)
        return found.value


class TableMessage:
    """A message of a table's channel: edited through the token that sent it while it is
    valid, else with the bot token."""

    def __init__(self, channel: TableChannel, message_id: int) -> None:
        self.channel = channel
        self.id = message_id

    async def edit(self, **kwargs: Any) -> None:
        tokens = self.channel.tokens
        token = await tokens.repo.message_token(self.id)
        hook = None if token is None else tokens.webhook(token)
        if hook is not None:
            edited = await attempt(hook.edit_message(self.id, **kwargs))
            if edited.ok:
                return
            if edited.error is not None and not edited.token_gone:
                raise edited.error
            for file in kwargs.get("attachments") or ():
                if isinstance(file, discord.File):
                    file.reset()
        await self.channel._bot().get_partial_message(self.id).edit(**kwargs)


class DmMessage:
    """A person's DM message (their builder): edited through the token of the click that
    came from it while that is valid (its "@original" route), else with the bot token."""

    def __init__(self, tokens: ChannelTokens, channel_id: int, message_id: int) -> None:
        self.tokens = tokens
        self.channel_id = channel_id
        self.id = message_id

    async def edit(self, **kwargs: Any) -> None:
        tokens = self.tokens
        token = await tokens.repo.message_token(self.id)
        if token is not None and getattr(tokens.client, "application_id", None):
            edited = await attempt(tokens.edit_original(token, **kwargs))
            if edited.ok:
                return
            if edited.error is not None and not edited.token_gone:
                raise edited.error
            log.info("DM message %s: its click's token is gone; the bot token edits", self.id)
        dm = tokens.client.get_partial_messageable(
            self.channel_id, type=discord.ChannelType.private
        )
        await dm.get_partial_message(self.id).edit(**kwargs)
