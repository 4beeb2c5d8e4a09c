"""What the table's channel reads about a round: its status (who is still setting, with
"Show my hand" while it is open), and the notices (a DM refused, a table cancelled)."""

from __future__ import annotations

import discord

from capsa.i18n import t
from capsa.rules_text import preset_label
from cogs.screens.base import GREEN, GREY, Screen, relative
from cogs.table_base import preset_of
from cogs.views import status_view
from data.repository import DEALT_STATUSES, MatchRecord, RoundRecord


def _done(rnd: RoundRecord, cancelled: bool) -> bool:
    """Nobody is setting any more: the table was cancelled, the round scored, or every
    hand is in."""
    return cancelled or rnd.status not in DEALT_STATUSES or rnd.all_submitted


def status_embed(
    match: MatchRecord, rnd: RoundRecord, lang: str, *, cancelled: bool = False
) -> discord.Embed:
    done = _done(rnd, cancelled)
    if cancelled:
        description = t("lobby.cancelled", lang)
    elif done:
        description = t("round.done", lang)
    else:
        description = t("round.desc", lang, when=relative(rnd.deadline))
    embed = discord.Embed(
        title=t("round.title", lang, k=rnd.number, n=match.rounds_total),
        colour=GREY if done else GREEN,
        description=description,
    )
    names = {s.seat: s.name for s in match.seats}
    lines = [
        t("round.ready" if h.submitted else "round.waiting", lang, name=names[h.seat])
        for h in rnd.hands
    ]
    embed.add_field(name=t("round.players", lang), value="\n".join(lines), inline=False)
    embed.set_footer(text=t("round.rules", lang, rules=preset_label(preset_of(match), lang)))
    return embed


def status_screen(
    match: MatchRecord, rnd: RoundRecord, lang: str, *, cancelled: bool = False
) -> Screen:
    """A round's status; "Show my hand" while people are still setting."""
    return Screen(
        embeds=(status_embed(match, rnd, lang, cancelled=cancelled),),
        view=None if _done(rnd, cancelled) else status_view(match.id, lang),
    )


def dm_closed_screen(user_id: int, lang: str) -> Screen:
    """A person's DMs refused their hand: "Show my hand" opens the same builder here."""
    return Screen(
        content=t("round.dm_closed", lang, mention=f"<@{user_id}>"),
        mentions=discord.AllowedMentions(users=True),
    )


def cancelled_notice(name: str, lang: str) -> str:
    """Who cancelled the table (the channel's message, and the canceller's answer)."""
    return t("ans.cancelled", lang, name=name)
