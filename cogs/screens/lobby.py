"""The lobby message: the table's settings and seats, with Join / Leave / Add computer /
Start / Cancel while it is open; closed (started, cancelled, expired) without buttons."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

import discord

from capsa.i18n import t
from capsa.rules_text import preset_label
from cogs.screens.base import GREEN, GREY, Screen, relative
from cogs.table_base import preset_of
from cogs.views import lobby_view
from data.repository import MatchRecord


class LobbyClosed(StrEnum):
    """Why a lobby message has no buttons any more (the value: what it says)."""

    STARTED = "lobby.started"
    CANCELLED = "lobby.cancelled"
    EXPIRED = "lobby.expired"


def lobby_embed(match: MatchRecord, lang: str, closed: LobbyClosed | None = None) -> discord.Embed:
    host = match.seat_of(match.host_id)
    expires = match.lobby_expires_at
    embed = discord.Embed(
        title=t("lobby.title", lang),
        colour=GREY if closed else GREEN,
        description=t(
            "lobby.desc",
            lang,
            host=host.name if host is not None else "?",
            preset=preset_label(preset_of(match), lang),  # with its table options
            rounds=match.rounds_total,
            countdown=match.countdown,
            level=t(f"choice.{match.bot_level}", lang),
            expires=relative(expires) if expires is not None else "?",
        )
        if not closed
        else t(closed.value, lang),
    )
    taken = {s.seat: s for s in match.seats}
    lines = []
    for seat in range(match.seats_count):
        record = taken.get(seat)
        if record is None:
            lines.append(f"{seat + 1}. {t('lobby.empty', lang)}")
        elif record.is_bot:
            lines.append(f"{seat + 1}. 🤖 {record.name}")
        else:
            lines.append(f"{seat + 1}. <@{record.user_id}>")
    embed.add_field(name=t("lobby.seats", lang), value="\n".join(lines), inline=False)
    return embed


def lobby_screen(
    match: MatchRecord,
    lang: str,
    closed: LobbyClosed | None = None,
    *,
    rematch_host: str | None = None,
    ping: Sequence[int] = (),
) -> Screen:
    """The lobby in the table's language. A rematch's lobby (``rematch_host`` opened it)
    mentions the other players of the match (``ping``) so they can join."""
    content = mentions = None
    if rematch_host is not None and ping:
        players = " ".join(f"<@{user_id}>" for user_id in ping)
        content = t("lobby.rematch", lang, host=rematch_host, players=players)
        mentions = discord.AllowedMentions(users=[discord.Object(user_id) for user_id in ping])
    return Screen(
        embeds=(lobby_embed(match, lang, closed),),
        view=None if closed else lobby_view(match.id, lang),
        content=content,
        mentions=mentions,
    )
