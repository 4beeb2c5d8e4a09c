"""Self-tests of tests/fakediscord: a real, unmodified commands.Bot against the fake over real
HTTP and a real websocket on 127.0.0.1 (any other address is refused by ``only_localhost``)."""

from __future__ import annotations

import asyncio
import io
import os
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import aiohttp
import discord
import discord.asset
import discord.gateway
import discord.http
import pytest
from discord import app_commands
from discord.ext import commands

from cogs.discord_endpoints import apply_endpoints
from tests.fakediscord import (
    FakeDiscord,
    FakeTimeout,
    InteractionResult,
    eventually,
    only_localhost,
    restored_endpoints,
    running_bot,
    spawn_bot,
)

ROOT = Path(__file__).resolve().parents[1]
CARDS = ["AS", "KS", "QS", "JS", "TS", "9S", "8S"]


# -- the throwaway bot under test ----------------------------------------------------------------
class TableView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.players: list[str] = []

    @discord.ui.button(label="Join", style=discord.ButtonStyle.primary, custom_id="table:join")
    async def join(self, inter: discord.Interaction, _: discord.ui.Button) -> None:
        self.players.append(inter.user.name)
        await inter.response.edit_message(content=f"Players: {', '.join(self.players)}", view=self)

    @discord.ui.select(
        placeholder="Seat",
        custom_id="table:seat",
        options=[discord.SelectOption(label=f"Seat {i}", value=str(i)) for i in range(1, 5)],
    )
    async def seat(self, inter: discord.Interaction, select: discord.ui.Select) -> None:
        await inter.response.send_message(
            f"{inter.user.name} took seat {select.values[0]}", ephemeral=True
        )

    @discord.ui.button(label="Announce", custom_id="table:announce")
    async def announce(self, inter: discord.Interaction, _: discord.ui.Button) -> None:
        await inter.response.defer()
        assert inter.channel is not None
        await inter.channel.send(f"{inter.user.name} announces!")  # type: ignore[union-attr]


class SecretView(discord.ui.View):
    @discord.ui.button(label="Reveal", custom_id="secret:reveal")
    async def reveal(self, inter: discord.Interaction, _: discord.ui.Button) -> None:
        await inter.response.edit_message(content="revealed", view=None)


class HandView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=60)
        self.back: list[str] = []

    @discord.ui.select(
        placeholder="Back",
        custom_id="hand:back",
        min_values=1,
        max_values=5,
        options=[discord.SelectOption(label=c, value=c) for c in CARDS],
    )
    async def pick(self, inter: discord.Interaction, select: discord.ui.Select) -> None:
        self.back = list(select.values)
        await inter.response.defer()

    @discord.ui.button(label="Submit", custom_id="hand:submit", style=discord.ButtonStyle.success)
    async def submit(self, inter: discord.Interaction, _: discord.ui.Button) -> None:
        await inter.response.edit_message(content=f"Back: {' '.join(self.back)}", view=None)


class NameModal(discord.ui.Modal, title="Your name"):
    name: discord.ui.TextInput = discord.ui.TextInput(label="Name", custom_id="form:name")

    async def on_submit(self, inter: discord.Interaction) -> None:
        await inter.response.send_message(f"Hello {self.name.value}")


def make_bot(guild_id: int, seen: dict[str, Any]) -> commands.Bot:
    bot = commands.Bot(
        command_prefix="!",
        intents=discord.Intents.default(),
        guild_ready_timeout=0.05,
        help_command=None,
    )
    game = app_commands.Group(name="game", description="Card game")
    seen.setdefault("errors", [])

    @game.command(name="new", description="Open a table")
    async def new(
        inter: discord.Interaction,
        seats: app_commands.Range[int, 2, 4],
        rounds: int = 3,
        mode: str = "classic",
    ) -> None:
        await inter.response.send_message(
            f"Table: {seats} seats, {rounds} rounds, {mode}", view=TableView()
        )

    @new.autocomplete("mode")
    async def mode_ac(inter: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        modes = ("classic", "fast", "fancy")
        return [app_commands.Choice(name=m, value=m) for m in modes if m.startswith(current)]

    @game.command(name="secret", description="Ephemeral with a button")
    async def secret(inter: discord.Interaction) -> None:
        await inter.response.send_message("hidden", view=SecretView(), ephemeral=True)

    @game.command(name="slow", description="Defer, follow up, edit")
    async def slow(inter: discord.Interaction) -> None:
        await inter.response.defer(thinking=True)
        await asyncio.sleep(0.05)
        await inter.followup.send("done")
        await inter.followup.send("psst", ephemeral=True)
        await inter.edit_original_response(content="done (edited)")

    @game.command(name="dm", description="DM me a hand")
    async def dm(inter: discord.Interaction) -> None:
        try:
            await inter.user.send("Arrange your hand", view=HandView())
        except discord.Forbidden as exc:
            seen["dm_error"] = exc.code
            await inter.response.send_message("I cannot DM you", ephemeral=True)
        else:
            await inter.response.send_message("Check your DMs", ephemeral=True)

    @game.command(name="upload", description="Attachment upload")
    async def upload(inter: discord.Interaction) -> None:
        await inter.response.send_message("here", file=discord.File(io.BytesIO(b"hello"), "a.txt"))
        assert inter.channel is not None
        await inter.channel.send("log", file=discord.File(io.BytesIO(b"log!"), "log.txt"))  # type: ignore[union-attr]
        original = await inter.original_response()
        seen["read"] = await original.attachments[0].read()

    @app_commands.command(name="admin", description="Managers only")
    @app_commands.default_permissions(manage_guild=True)
    async def admin(inter: discord.Interaction) -> None:
        perms, app = inter.permissions, inter.app_permissions
        text = f"manage={perms.manage_guild} bot_send={app.send_messages}"
        await inter.response.send_message(text, ephemeral=True)

    @game.command(name="whoami", description="Locale and permissions")
    async def whoami(inter: discord.Interaction) -> None:
        gl = inter.guild_locale.value if inter.guild_locale else None
        text = f"{inter.locale.value}|{gl}|manage={inter.permissions.manage_guild}"
        await inter.response.send_message(text, ephemeral=True)

    @game.command(name="form", description="Opens a modal")
    async def form(inter: discord.Interaction) -> None:
        await inter.response.send_modal(NameModal())

    @game.command(name="long", description="Sends an invalid message first")
    async def long(inter: discord.Interaction) -> None:
        try:
            await inter.response.send_message("x" * 2001)
        except discord.HTTPException as exc:
            seen["long"] = (exc.status, exc.code)
            await inter.response.send_message("too long", ephemeral=True)

    @bot.tree.command(name="ping", description="Global ping, usable in DMs")
    async def ping(inter: discord.Interaction) -> None:
        await inter.response.send_message("pong")

    @bot.tree.error
    async def on_error(inter: discord.Interaction, error: app_commands.AppCommandError) -> None:
        seen["errors"].append(error)

    async def setup_hook() -> None:
        bot.tree.add_command(game, guild=discord.Object(guild_id))
        bot.tree.add_command(admin, guild=discord.Object(guild_id))
        await bot.tree.sync(guild=discord.Object(guild_id))
        await bot.tree.sync()

    bot.setup_hook = setup_hook  # type: ignore[method-assign]
    return bot


# -- fixtures ----------------------------------------------------------------------------------
class World:
    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.guild = fake.add_guild("Test", locale="en-US")
        self.chan = self.guild.add_text_channel("capsa")
        self.alice = fake.add_user("alice", guild=self.guild, locale="en-US", manage_guild=True)
        self.budi = fake.add_user("budi", guild=self.guild, locale="id")
        self.seen: dict[str, Any] = {}


@pytest.fixture
async def fake() -> Any:
    with only_localhost():
        async with FakeDiscord() as fake:
            yield fake


@pytest.fixture
def world(fake: FakeDiscord) -> World:
    return World(fake)


@pytest.fixture
async def bot(fake: FakeDiscord, world: World) -> Any:
    async with running_bot(fake, make_bot(world.guild.id, world.seen)) as bot:
        yield bot


# -- endpoints ---------------------------------------------------------------------------------
def test_apply_endpoints_patches_everything_or_nothing() -> None:
    with restored_endpoints():
        before = discord.http.Route.BASE
        apply_endpoints(None, None)
        assert discord.http.Route.BASE == before
        with pytest.raises(ValueError):
            apply_endpoints("http://127.0.0.1:1/api/v10", None)
        with pytest.raises(ValueError):
            apply_endpoints(None, "ws://127.0.0.1:1/gateway")
        apply_endpoints("http://127.0.0.1:1/api/v10/", "ws://127.0.0.1:1/gateway")
        assert discord.http.Route.BASE == "http://127.0.0.1:1/api/v10"
        assert discord.http.Route("GET", "/users/@me").url == "http://127.0.0.1:1/api/v10/users/@me"
        assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == "ws://127.0.0.1:1/gateway"
        assert discord.asset.Asset.BASE == "http://127.0.0.1:1/cdn"
    assert discord.http.Route.BASE == "https://discord.com/api/v10"


async def test_raw_rest_contract(fake: FakeDiscord, world: World) -> None:
    auth = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{fake.api_base}/users/@me", headers=auth) as resp:
            assert resp.status == 200
            assert resp.headers["content-type"] == "application/json"
            assert (await resp.json())["id"] == str(fake.bot_user.id)
        async with http.get(f"{fake.api_base}/users/@me") as resp:
            assert resp.status == 401
        async with http.get(f"{fake.api_base}/nope/1", headers=auth) as resp:
            assert resp.status == 404
            assert resp.headers["content-type"] == "application/json"
            assert await resp.json() == {"code": 0, "message": "404: Not Found"}
        async with http.get(f"{fake.api_base}/channels/1/messages", headers=auth) as resp:
            assert (await resp.json()) == {"code": 10003, "message": "Unknown Channel"}
        async with http.get(f"{fake.api_base}/gateway/bot", headers=auth) as resp:
            assert (await resp.json())["url"] == fake.gateway_url
    assert [r.path for r in fake.unknown_requests] == ["/nope/1"]
    assert [r.status for r in fake.requests] == [200, 401, 404, 404, 200]


# -- startup, sync, slash with options, views --------------------------------------------------
async def test_startup_syncs_commands_and_sees_guild(
    fake: FakeDiscord, world: World, bot: commands.Bot
) -> None:
    paths = [(r.method, r.path) for r in fake.requests]
    assert ("GET", "/users/@me") in paths
    assert ("GET", "/oauth2/applications/@me") in paths
    assert ("PUT", f"/applications/{fake.application_id}/guilds/{world.guild.id}/commands") in paths
    assert ("PUT", f"/applications/{fake.application_id}/commands") in paths
    assert not fake.unknown_requests
    game = fake.find_command("game", world.guild)
    assert {o["name"] for o in game["options"]} >= {"new", "secret", "dm", "upload"}
    assert [c["name"] for c in fake.commands()] == ["ping"]
    guild = bot.get_guild(world.guild.id)
    assert guild is not None and guild.get_channel(world.chan.id) is not None
    assert guild.me is not None and guild.me.guild_permissions.send_messages
    assert bot.application_id == fake.application_id
    assert fake.gateway.queries[0]["v"] == "10" and fake.gateway.queries[0]["encoding"] == "json"
    identify = fake.gateway.received[0]
    assert identify["op"] == 2 and identify["d"]["intents"] == discord.Intents.default().value
    await eventually(lambda: bot.ws.sequence == fake.gateway.sessions[0].seq)


async def test_slash_group_with_options_view_buttons_and_select(
    fake: FakeDiscord, world: World, bot: commands.Bot
) -> None:
    alice, budi, chan = world.alice, world.budi, world.chan
    res = await alice.slash("game new", channel=chan, seats=4, rounds=5)
    assert res.callback_type == 4 and not res.ephemeral
    assert res.content == "Table: 4 seats, 5 rounds, classic"
    msg = await fake.wait_for_message(chan, lambda m: "Join" in m.button_labels())
    assert msg is res.message and msg in chan.history
    assert [s["placeholder"] for s in msg.selects()] == ["Seat"]

    click = await alice.click(msg, "Join")
    assert click.callback_type == 7 and msg.content == "Players: alice"
    await budi.click(msg, "table:join")  # by custom_id
    assert msg.content == "Players: alice, budi" and msg.edits == 2
    assert "Join" in msg.button_labels()  # the view was re-sent with the edit

    pick = await budi.select(msg, "Seat", ["Seat 2"])  # by option label
    assert pick.ephemeral and pick.content == "budi took seat 2"
    assert budi.ephemerals == [pick.message] and pick.message not in chan.history
    assert alice.ephemerals == []

    data = next(r for r in fake.requests_to("POST", "/interactions/*/callback"))
    assert data.json["type"] == 4 and data.query == {"with_response": "1"}


async def test_slash_option_checking(world: World, bot: commands.Bot) -> None:
    alice, chan = world.alice, world.chan
    with pytest.raises(TypeError):
        await alice.slash("game new", channel=chan, seats="4")
    with pytest.raises(ValueError):
        await alice.slash("game new", channel=chan, seats=9)  # Range[int, 2, 4]
    with pytest.raises(ValueError):
        await alice.slash("game new", channel=chan)  # seats is required
    with pytest.raises(LookupError):
        await alice.slash("game new", channel=chan, seats=2, colour="red")
    with pytest.raises(LookupError):
        await alice.slash("game", channel=chan)  # a group needs a subcommand
    choices = await alice.autocomplete("game new", "mode", "fa", channel=chan, seats=2)
    assert [c["value"] for c in choices] == ["fast", "fancy"]


async def test_locale_permissions_and_hidden_commands(world: World, bot: commands.Bot) -> None:
    alice, budi, chan = world.alice, world.budi, world.chan
    assert (await budi.slash("game whoami", channel=chan)).content == "id|en-US|manage=False"
    assert (await alice.slash("game whoami", channel=chan)).content == "en-US|en-US|manage=True"
    res = await alice.slash("admin", channel=chan)
    assert res.ephemeral and res.content == "manage=True bot_send=True"
    assert world.fake.find_command("admin", world.guild)["default_member_permissions"] == "32"
    with pytest.raises(PermissionError):
        await budi.slash("admin", channel=chan)  # default_member_permissions hides it


async def test_ephemeral_reply_with_view_is_clickable_by_owner_only(
    world: World, bot: commands.Bot
) -> None:
    res = await world.alice.slash("game secret", channel=world.chan)
    assert res.ephemeral and res.content == "hidden" and res.message not in world.chan.history
    with pytest.raises(PermissionError):
        await world.budi.click(res, "Reveal")
    click = await world.alice.click(res, "Reveal")
    assert click.callback_type == 7
    assert res.content == "revealed" and res.ephemeral and res.components == []


async def test_defer_followups_and_edit_original(
    fake: FakeDiscord, world: World, bot: commands.Bot
) -> None:
    res = await world.alice.slash("game slow", channel=world.chan)
    assert res.callback_type == 5
    await res.wait_until(lambda r: r.content == "done (edited)" and len(r.followups) == 1)
    assert not res.message.loading and res.message in world.chan.history
    assert res.followups[0].ephemeral and res.followups[0].content == "psst"
    assert world.alice.ephemerals == res.followups
    token = res.token
    assert fake.requests_to("POST", f"/webhooks/*/{token}")
    assert fake.requests_to("PATCH", f"/webhooks/*/{token}/messages/@original")


async def test_modal_round_trip(world: World, bot: commands.Bot) -> None:
    opened = await world.alice.slash("game form", channel=world.chan)
    assert opened.callback_type == 9 and opened.modal["title"] == "Your name"
    res = await world.alice.submit_modal(opened, {"Name": "Alice"})
    assert res.content == "Hello Alice"


async def test_validation_error_reaches_the_bot(world: World, bot: commands.Bot) -> None:
    res = await world.alice.slash("game long", channel=world.chan)
    assert world.seen["long"] == (400, 50035)
    assert res.content == "too long" and res.ephemeral


# -- DMs and attachments -----------------------------------------------------------------------
async def test_dm_with_select_and_submit(
    fake: FakeDiscord, world: World, bot: commands.Bot
) -> None:
    alice = world.alice
    res = await alice.slash("game dm", channel=world.chan)
    assert res.content == "Check your DMs"
    assert fake.requests_to("POST", "/users/@me/channels")
    dm = await alice.latest_dm(timeout=5)
    assert dm.content == "Arrange your hand" and dm.channel.is_dm
    await alice.select(dm, "Back", ["AS", "KS", "QS", "JS", "TS"])
    await alice.click(dm, "Submit")
    assert dm.content == "Back: AS KS QS JS TS" and dm.components == []
    pong = await alice.slash("ping")  # global command, invoked in the DM channel
    assert pong.content == "pong" and pong.message.channel is alice.dm


async def test_refused_dm_answers_50007(fake: FakeDiscord, world: World, bot: commands.Bot) -> None:
    world.budi.refuse_dms()
    res = await world.budi.slash("game dm", channel=world.chan)
    assert res.content == "I cannot DM you" and world.seen["dm_error"] == 50007
    refused = fake.requests_to("POST", f"/channels/{world.budi.dm.id}/messages")
    assert [(r.status, r.error_code) for r in refused] == [(403, 50007)]
    assert world.budi.dms == []


async def test_attachment_upload_and_download(
    fake: FakeDiscord, world: World, bot: commands.Bot
) -> None:
    res = await world.alice.slash("game upload", channel=world.chan)
    assert [a.filename for a in res.message.attachments] == ["a.txt"]
    log = await fake.wait_for_message(world.chan, lambda m: m.content == "log")
    assert log.attachments[0].data == b"log!"
    await eventually(lambda: "read" in world.seen)
    assert world.seen["read"] == b"hello"
    assert fake.requests_to("POST", f"/channels/{world.chan.id}/messages")[0].files == ["log.txt"]


# -- faults ------------------------------------------------------------------------------------
async def test_rate_limit_429_is_retried(
    fake: FakeDiscord, world: World, bot: commands.Bot
) -> None:
    table = await world.alice.slash("game new", channel=world.chan, seats=2)
    rule = fake.faults.rate_limit(
        f"/channels/{world.chan.id}/messages", method="POST", times=2, retry_after=0.05
    )
    click = await world.alice.click(table, "Announce")
    assert click.callback_type == 6
    await fake.wait_for_message(world.chan, lambda m: m.content == "alice announces!")
    posts = fake.requests_to("POST", f"/channels/{world.chan.id}/messages")
    assert [r.status for r in posts] == [429, 429, 200] and rule.hits == 2
    assert posts[0].response["retry_after"] == 0.05


async def test_500_is_retried(fake: FakeDiscord, world: World, bot: commands.Bot) -> None:
    table = await world.alice.slash("game new", channel=world.chan, seats=2)
    fake.faults.server_error("/channels/*/messages", method="POST", times=1)
    await world.alice.click(table, "Announce")
    await fake.wait_for_message(world.chan, lambda m: m.content == "alice announces!", timeout=8)
    posts = fake.requests_to("POST", f"/channels/{world.chan.id}/messages")
    assert [r.status for r in posts] == [500, 200]


async def test_slow_interaction_gets_10062(
    fake: FakeDiscord, world: World, bot: commands.Bot
) -> None:
    fake.faults.slow_interactions(1, user=world.alice)
    start = time.monotonic()
    res = await world.alice.slash("game new", channel=world.chan, seats=2, timeout=8)
    assert time.monotonic() - start >= 3.0
    assert res.expired and not res.answered and res.errors[0]["code"] == 10062
    await eventually(lambda: world.seen["errors"])
    original = world.seen["errors"][0].original
    assert isinstance(original, discord.NotFound) and original.code == 10062
    # the next interaction is fine again
    assert (await world.alice.slash("game new", channel=world.chan, seats=2)).answered


# -- gateway: drop / resume / reconnect / invalid session --------------------------------------
async def test_hard_drop_resumes_and_replays_missed_events(
    fake: FakeDiscord, world: World, bot: commands.Bot
) -> None:
    assert await fake.drop_gateway(hard=True) == 1
    # dispatched while the bot is disconnected: buffered, replayed after RESUME
    res = await world.alice.slash("game new", channel=world.chan, seats=3, wait=False)
    await res.wait(timeout=8)
    assert res.content.startswith("Table: 3 seats")
    assert fake.gateway.resumes == 1 and fake.gateway.identifies == 1
    assert fake.gateway.replayed >= 1
    await eventually(lambda: bot.ws.sequence == fake.gateway.sessions[0].seq)


async def test_op7_reconnect_resumes(fake: FakeDiscord, world: World, bot: commands.Bot) -> None:
    assert fake.request_reconnect() == 1
    await eventually(lambda: fake.gateway.resumes)
    assert fake.gateway.resumes == 1 and fake.gateway.identifies == 1
    assert (await world.alice.slash("game new", channel=world.chan, seats=2)).answered


async def test_invalid_session_reidentifies_via_default_gateway(
    fake: FakeDiscord, world: World, bot: commands.Bot
) -> None:
    fake.invalidate_session(resumable=False)
    await fake.wait_for_identify(2, timeout=10)  # discord.py waits 5 s before re-IDENTIFY
    assert len(fake.gateway.live_sessions()) == 1
    assert (await world.alice.slash("game whoami", channel=world.chan)).answered


# -- load and a real bot subprocess -----------------------------------------------------------
async def test_fifty_tables_concurrently(
    fake: FakeDiscord, world: World, bot: commands.Bot
) -> None:
    chans = [world.guild.add_text_channel(f"t{i}") for i in range(50)]
    users = [fake.add_user(f"p{i}", guild=world.guild) for i in range(50)]

    async def table(i: int) -> InteractionResult:
        res = await users[i].slash("game new", channel=chans[i], seats=2, timeout=15)
        return await users[i].click(res, "Join", timeout=15)

    start = time.monotonic()
    results = await asyncio.gather(*(table(i) for i in range(50)))
    assert all(r.message.content == f"Players: p{i}" for i, r in enumerate(results))
    assert time.monotonic() - start < 15


BOT_SCRIPT = """
import os, sys
sys.path.insert(0, {root!r})
import discord
from discord.ext import commands
from cogs.discord_endpoints import apply_endpoints

apply_endpoints(os.environ["DISCORD_API_BASE"], os.environ["DISCORD_GATEWAY_URL"])
bot = commands.Bot(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05)

@bot.tree.command(name="ping", description="ping")
async def ping(inter: discord.Interaction) -> None:
    await inter.response.send_message(f"pong from {{os.getpid()}}")

async def setup_hook() -> None:
    await bot.tree.sync()

bot.setup_hook = setup_hook
bot.run(os.environ["DISCORD_TOKEN"], log_handler=None)
"""


async def test_subprocess_bot_killed_and_restarted(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    script = tmp_path / "bot.py"
    script.write_text(textwrap.dedent(BOT_SCRIPT.format(root=str(ROOT))))
    procs = []
    try:
        for n in (1, 2):
            proc = await spawn_bot(fake, sys.executable, str(script))
            procs.append(proc)
            await fake.wait_for_identify(n, timeout=20)
            res = await world.alice.slash("ping", channel=world.chan)
            assert res.content == f"pong from {proc.pid}"
            proc.kill()
            await proc.wait()
        assert [m.content for m in world.chan.history] == [
            f"pong from {p.pid}" for p in procs
        ]  # state survives restarts
        assert fake.gateway.identifies == 2
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()


async def test_timeout_message_is_helpful(fake: FakeDiscord, world: World) -> None:
    with pytest.raises(FakeTimeout, match="capsa"):
        await fake.wait_for_message(world.chan, lambda m: False, timeout=0.05)
    assert (
        os.environ.get("DISCORD_API_BASE") is None or "127.0.0.1" in os.environ["DISCORD_API_BASE"]
    )


# -- shards ------------------------------------------------------------------------------------
GUILDS, GUILD_MESSAGES, DIRECT_MESSAGES = 1 << 0, 1 << 9, 1 << 12
GO = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "Go", "custom_id": "go"}]}]


class RawShard:
    """A bare websocket client of the fake's gateway: IDENTIFY (with ``shard`` or without),
    then ``flush`` returns every dispatch the fake sent it so far."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.events: list[dict[str, Any]] = []

    @classmethod
    async def identify(
        cls, http: aiohttp.ClientSession, fake: FakeDiscord, shard: list[int] | None
    ) -> RawShard:
        ws = await http.ws_connect(f"{fake.gateway_url}?v=10&encoding=json")
        assert (await ws.receive_json(timeout=5))["op"] == 10  # HELLO
        data: dict[str, Any] = {
            "token": fake.token,
            "intents": GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES,
            "properties": {},
        }
        if shard is not None:
            data["shard"] = shard
        await ws.send_json({"op": 2, "d": data})
        return cls(ws)

    async def flush(self) -> list[dict[str, Any]]:
        """A HEARTBEAT, and everything up to its ACK: the fake writes a connection's frames
        in order, so that is every dispatch it queued for this connection before."""
        await self.ws.send_json({"op": 1, "d": None})
        while (frame := await self.ws.receive_json(timeout=5))["op"] != 11:
            self.events.append(frame)
        return self.events

    async def take(self) -> list[tuple[str, int | None]]:
        """The dispatches since the last ``take``, as (event, guild id)."""
        await self.flush()
        got = [(f["t"], _guild_of(f["d"])) for f in self.events]
        self.events.clear()
        return got


def _guild_of(data: dict[str, Any]) -> int | None:
    gid = data.get("guild_id") or (data.get("id") if "channels" in data else None)
    return int(gid) if gid is not None else None


async def test_each_guilds_events_go_to_its_shard_and_dms_to_shard_0(fake: FakeDiscord) -> None:
    g0, g1 = fake.add_guild("Zero", shard=(0, 2)), fake.add_guild("One", shard=(1, 2))
    assert ((g0.id >> 22) % 2, (g1.id >> 22) % 2) == (0, 1)
    c0, c1 = g0.add_text_channel("capsa"), g1.add_text_channel("capsa")
    alice = fake.add_user("alice", guild=g0)
    fake.join(alice, g1)
    async with aiohttp.ClientSession() as http:
        s0 = await RawShard.identify(http, fake, [0, 2])
        s1 = await RawShard.identify(http, fake, [1, 2])
        every = await RawShard.identify(http, fake, None)  # unsharded: everything
        ready = {}
        for name, shard in (("s0", s0), ("s1", s1), ("every", every)):
            frames = await shard.flush()
            assert frames[0]["t"] == "READY"
            ready[name] = frames[0]["d"]
            assert [f["t"] for f in frames[1:]] == ["GUILD_CREATE"] * len(ready[name]["guilds"])
            shard.events.clear()
        assert [int(g["id"]) for g in ready["s0"]["guilds"]] == [g0.id]
        assert [int(g["id"]) for g in ready["s1"]["guilds"]] == [g1.id]
        assert {int(g["id"]) for g in ready["every"]["guilds"]} == {g0.id, g1.id}
        assert (ready["s0"]["shard"], ready["s1"]["shard"]) == ([0, 2], [1, 2])
        assert sorted(c.shard for c in fake.gateway.connected()) == [(0, 1), (0, 2), (1, 2)]
        assert {c.shard for c in fake.gateway.shard_connections(1)} == {(1, 2)}

        g2 = fake.add_guild("Two", shard=(1, 2))  # joined later: GUILD_CREATE to shard 1
        assert await s0.take() == []
        assert await s1.take() == [("GUILD_CREATE", g2.id)]
        assert await every.take() == [("GUILD_CREATE", g2.id)]

        m0 = fake.post_message(c0, fake.bot_user, {"content": "zero", "components": GO})
        m1 = fake.post_message(c1, fake.bot_user, {"content": "one", "components": GO})
        dm = fake.post_message(alice.dm, fake.bot_user, {"content": "dm", "components": GO})
        for message in (m1, m0, dm):
            await alice.click(message, "Go", wait=False)
        created = [("MESSAGE_CREATE", g0.id), ("MESSAGE_CREATE", None)]
        clicks = [("INTERACTION_CREATE", g0.id), ("INTERACTION_CREATE", None)]
        assert await s0.take() == created + clicks
        assert await s1.take() == [("MESSAGE_CREATE", g1.id), ("INTERACTION_CREATE", g1.id)]
        assert sorted(await every.take(), key=str) == sorted(
            [*created, ("MESSAGE_CREATE", g1.id), *clicks, ("INTERACTION_CREATE", g1.id)],
            key=str,
        )
        for shard in (s0, s1, every):
            await shard.ws.close()


@pytest.mark.parametrize("shard", [[2, 2], [0, 0], [-1, 2], [0], "0,1"])
async def test_identify_with_an_invalid_shard_is_closed_4010(fake: FakeDiscord, shard) -> None:
    async with aiohttp.ClientSession() as http:
        raw = await RawShard.identify(http, fake, shard)
        closed = await raw.ws.receive(timeout=5)
        assert closed.type is aiohttp.WSMsgType.CLOSE and closed.data == 4010
    assert fake.gateway.identifies == 0 and not fake.gateway.sessions


async def test_gateway_bot_recommends_the_configured_shard_count(fake: FakeDiscord) -> None:
    auth = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{fake.api_base}/gateway/bot", headers=auth) as resp:
            assert (await resp.json())["shards"] == 1  # the default
        fake.recommended_shards = 3
        async with http.get(f"{fake.api_base}/gateway/bot", headers=auth) as resp:
            body = await resp.json()
    assert body["shards"] == 3 and body["url"] == fake.gateway_url
    assert body["session_start_limit"]["max_concurrency"] == 1


async def test_an_auto_sharded_bot_runs_one_connection_a_shard(fake: FakeDiscord) -> None:
    """A real, unmodified AutoShardedBot without a shard count takes the fake's
    recommendation (2): one session a shard, each guild on its own, a DM on shard 0, and
    both shards resume after the connections drop."""
    fake.recommended_shards = 2
    g0, g1 = fake.add_guild("Zero", shard=(0, 2)), fake.add_guild("One", shard=(1, 2))
    c0, c1 = g0.add_text_channel("capsa"), g1.add_text_channel("capsa")
    alice = fake.add_user("alice", guild=g0)
    fake.join(alice, g1)
    bot = commands.AutoShardedBot(
        command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05
    )

    @bot.tree.command(name="where", description="The shard that answers")
    async def where(inter: discord.Interaction) -> None:
        shard = inter.guild.shard_id if inter.guild else None
        await inter.response.send_message(f"shard {shard}")

    async def setup_hook() -> None:
        await bot.tree.sync()

    bot.setup_hook = setup_hook  # type: ignore[method-assign]
    async with running_bot(fake, bot, timeout=30):
        assert bot.shard_count == 2 and sorted(bot.shards) == [0, 1]
        assert sorted(c.shard for c in fake.gateway.connected()) == [(0, 2), (1, 2)]
        assert {g.id: g.shard_id for g in bot.guilds} == {g0.id: 0, g1.id: 1}
        assert (await alice.slash("where", channel=c0)).content == "shard 0"
        assert (await alice.slash("where", channel=c1)).content == "shard 1"
        assert (await alice.slash("where", channel=alice.dm)).content == "shard None"
        by_shard = {s.shard: [e for _, e in s.buffer] for s in fake.gateway.sessions}
        dm_events = [e for e in by_shard[(0, 2)] if '"INTERACTION_CREATE"' in e]
        assert len(dm_events) == 2 and not any(str(g0.id) in e for e in by_shard[(1, 2)])

        assert await fake.drop_gateway(hard=True) == 2
        res = await alice.slash("where", channel=c1, wait=False)  # sent while disconnected
        await res.wait(timeout=15)
        assert res.content == "shard 1"
        await eventually(lambda: fake.gateway.resumes == 2, timeout=15)
        assert fake.gateway.identifies == 2


async def test_a_nonce_with_enforce_nonce_makes_one_message(
    fake: FakeDiscord, world: World
) -> None:
    """Discord returns the message already made for the same nonce (enforce_nonce), so a send
    repeated after a crash does not post twice; a nonce over 25 characters is refused."""
    auth = {"Authorization": f"Bot {fake.token}"}
    url = f"{fake.api_base}/channels/{world.chan.id}/messages"
    async with aiohttp.ClientSession() as http:

        async def post(nonce: str, enforce: bool = True) -> tuple[int, dict]:
            body = {"content": "hi", "nonce": nonce, "enforce_nonce": enforce}
            async with http.post(url, json=body, headers=auth) as resp:
                return resp.status, await resp.json()

        first, again, other = await post("d12s0"), await post("d12s0"), await post("d12s1")
        assert first[0] == again[0] == other[0] == 200
        assert first[1]["id"] == again[1]["id"] != other[1]["id"]
        plain = await post("d12s0", enforce=False)  # without enforce_nonce: a new message
        assert plain[1]["id"] != first[1]["id"]
        assert (await post("x" * 26))[0] == 400
    assert len([m for m in world.chan.history if m.content == "hi"]) == 3
