"""Point discord.py at another Discord API (e.g. the test fake) instead of discord.com.

bot.py calls ``apply_endpoints(os.getenv("DISCORD_API_BASE"), os.getenv("DISCORD_GATEWAY_URL"))``
before it creates the client. With both unset nothing changes (production).

Where discord.py 2.7 finds its endpoints, and what is replaced:

* REST: every request, including interaction callbacks and webhook follow-ups, builds its URL
  from the class attribute ``discord.http.Route.BASE`` when the ``Route`` is created.
* Gateway: ``Client.connect`` first dials ``DiscordWebSocket.DEFAULT_GATEWAY`` (it does not
  ask ``GET /gateway/bot``), resumes on READY's ``resume_gateway_url`` (served by the API we
  point at) and falls back to ``DEFAULT_GATEWAY`` after an INVALID_SESSION.
  ``AutoShardedClient`` asks ``GET /gateway/bot``, which also goes to ``Route.BASE``.
* CDN: ``discord.asset.Asset.BASE`` builds avatar/icon URLs; it is moved to ``<origin>/cdn``
  so even ``Asset.read()`` stays on the replacement host.

Setting only one of the two would leave the other half talking to the real Discord, so that
is refused with ``ValueError``.
"""

from __future__ import annotations

import discord.asset
import discord.gateway
import discord.http
import yarl


def apply_endpoints(api_base: str | None, gateway_url: str | None) -> None:
    """Use ``api_base`` (e.g. ``http://127.0.0.1:8080/api/v10``) for REST and
    ``gateway_url`` (e.g. ``ws://127.0.0.1:8080/gateway``) for the websocket."""
    if not api_base and not gateway_url:
        return
    if not api_base or not gateway_url:
        raise ValueError("set both DISCORD_API_BASE and DISCORD_GATEWAY_URL, or neither")
    base = yarl.URL(api_base.rstrip("/"))
    gateway = yarl.URL(gateway_url)
    if base.scheme not in ("http", "https") or gateway.scheme not in ("ws", "wss"):
        raise ValueError(f"bad endpoints: {api_base!r}, {gateway_url!r}")
    discord.http.Route.BASE = str(base)
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway
    discord.asset.Asset.BASE = str(base.origin() / "cdn")
