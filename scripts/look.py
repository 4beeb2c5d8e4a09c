"""Plays scripted scenes through the real bot against the fake Discord (tests/fakediscord)
and records every screen a person sees as a discord-look *snapshot*, so that the bot's
presentation can be looked at as PNGs.

    .venv/bin/python scripts/look.py [--snapshots /tmp/look-snap] [--out /tmp/look-out]
        [--render] [--only NAME_PART ...]

- Writes ``SNAPSHOTS/NAME.json`` per screen, with its attachments beside it
  (``NAME.FILENAME``), in the format of /work/shared/tools/discord-look (README.md there).
- ``--render``: then runs that renderer on every snapshot, at desktop width and with
  ``--mobile``, into ``--out`` (the DM builders also with ``--open-selects``). The renderer
  needs Chromium and a Python with Pillow (``--look-python``, default /tmp/look-venv/bin/python;
  ``--look-dir``, default /work/shared/tools/discord-look); see its README to set them up.

Screens, in English: ``/capsa me`` (bob picks the four-colour deck with letters, which
his DM hands then show), the lobby (open, started), the round status, a DM hand with its
builder (fresh, with rows placed, and holding a special), the locked DM, the showdown of a
4-player table (2 people + 2 computers), the final standings, "Review my hand", the
leaderboard, ``/capsa stats``, ``/capsa history``, a replay, ``/capsa settings``,
``/capsa rules`` and refusals (ephemeral answers). The showdown, the DM hand and the rules
also in Indonesian (id), Simplified Chinese (zh-CN) and Vietnamese (vi), and a vi player at a
table opened in zh-CN (her DM in Vietnamese, the table's status and showdown in Chinese).

Everything stays on 127.0.0.1 (``only_localhost``), with a temporary SQLite database; the
deals are rigged with fixed seeds (``tests.e2e_extra.rig_deal``), so the cards are the same
on every run (the clock, and so the relative times and message ids, are not).
It is a tool, not a test: nothing imports it, pytest does not collect it.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402  (MonkeyPatch, for rig_deal)

from capsa.cards import Card, parse_cards  # noqa: E402
from capsa.i18n import t  # noqa: E402
from capsa.presets import get_preset  # noqa: E402
from capsa.solver import arrange  # noqa: E402
from tests.e2e import hand_of, make_bot, play_builder  # noqa: E402
from tests.e2e_extra import rig_deal  # noqa: E402
from tests.fakediscord import (  # noqa: E402
    FakeChannel,
    FakeDiscord,
    FakeMessage,
    FakeUser,
    InteractionResult,
    only_localhost,
    running_bot,
)

# Bob holds a dragon in every English round (the builder's "Declare" button and its note).
DRAGON_ROWS = ("2C 3D 4H 5S 6C", "7D 8H 9S TC JD", "QH KS AC")
SEED = 11  # the other seats' cards (no special among them)
# (the table's language, its guest's): one table each, after the English story
TABLES = (("id", "id"), ("zh-CN", "zh-CN"), ("vi", "vi"), ("zh-CN", "vi"))


class Recorder:
    """Writes snapshots of fake messages into ``folder``."""

    def __init__(self, fake: FakeDiscord, folder: Path, only: Sequence[str] = ()) -> None:
        self.fake = fake
        self.folder = folder
        self.only = only
        self.names: list[str] = []
        folder.mkdir(parents=True, exist_ok=True)

    def _message(
        self, name: str, msg: FakeMessage, interaction: InteractionResult | None
    ) -> dict[str, Any]:
        author = msg.author
        attachments = []
        for att in msg.attachments:
            path = f"{name}.{att.filename}"
            (self.folder / path).write_bytes(att.data)
            attachments.append({"filename": att.filename, "path": path})
        out: dict[str, Any] = {
            "id": str(msg.id),
            "author": {"id": str(author.id), "username": author.name, "bot": author.bot},
            "content": msg.content,
            "embeds": msg.embeds,
            "components": msg.components,
            "attachments": attachments,
            "ephemeral": msg.ephemeral,
            "flags": msg.flags,
            "timestamp": _iso(msg.created_at),
        }
        if msg.edited_at is not None:
            out["edited_timestamp"] = _iso(msg.edited_at)
        if interaction is not None and interaction.type == 2:  # a slash command's answer
            user = interaction.user
            out["interaction"] = {
                "name": interaction.name,
                "user": {"id": str(user.id), "username": user.name},
            }
        elif msg.interaction_meta is not None and msg.interaction_meta.get("type") == 3:
            # a followup of a button's click (the channel's messages after Start or Next go
            # through its token): Discord shows it as a reply to the message with the button;
            # the renderer draws the interaction line, named by the button
            clicked = next(
                (
                    ix
                    for ix in self.fake.interactions.values()
                    if str(ix.id) == msg.interaction_meta["id"]
                ),
                None,
            )
            if clicked is not None:
                user = clicked.user
                out["interaction"] = {
                    "name": clicked.name.removeprefix("click "),
                    "user": {"id": str(user.id), "username": user.name},
                }
        return out

    def snap(
        self,
        name: str,
        msg: FakeMessage | InteractionResult,
        *,
        lang: str,
        viewer: FakeUser,
        ui_lang: str | None = None,
        more: Sequence[FakeMessage] = (),
    ) -> None:
        """One snapshot of one message, as ``viewer`` sees it now (``more``: the channel's
        messages before it, shown above it as the channel reads)."""
        if self.only and not any(part in name for part in self.only):
            return
        interaction = msg if isinstance(msg, InteractionResult) else None
        message = msg.answer if isinstance(msg, InteractionResult) else msg
        assert message is not None, f"{name}: no message"
        chan = message.channel
        earlier = [self._message(f"{name}.{i}", m, None) for i, m in enumerate(more)]
        snapshot: dict[str, Any] = {
            "name": name,
            "lang": lang,
            "viewer": viewer.name,
            "where": "DM" if chan.is_dm else f"#{chan.name}",
            "now": _iso(time.time()),
            "users": {str(a.id): a.name for a in self.fake.accounts.values()},
            "channels": {str(c.id): c.name for c in self.fake.channels.values() if not c.is_dm},
            "messages": [*earlier, self._message(name, message, interaction)],
        }
        if ui_lang and ui_lang != lang:
            snapshot["ui_lang"] = ui_lang
        path = self.folder / f"{name}.json"
        path.write_text(json.dumps(snapshot, ensure_ascii=False, indent=1))
        self.names.append(name)
        print(f"  {path}")


def _iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).isoformat()


def _lang(user: FakeUser) -> str:
    return {"en-US": "en", "id": "id", "zh-CN": "zh-CN", "vi": "vi"}[user.locale]


async def _open_table(
    fake: FakeDiscord,
    chan: FakeChannel,
    host: FakeUser,
    guests: Sequence[FakeUser],
    computers: int,
    *,
    rounds: int,
    lang: str,
    rec: Recorder | None = None,
    suffix: str = "",
) -> FakeMessage:
    """``/capsa new`` by ``host``, ``guests`` join, ``computers`` added, the host starts.
    Records the lobby open and started (if ``rec``). Returns the round-1 status message."""
    seats = 1 + len(guests) + computers
    opened = await host.slash("capsa new", channel=chan, seats=seats, rounds=rounds)
    assert opened.answered, opened.describe()
    join = t("btn.join", lang)
    lobby = await fake.wait_for_message(chan, lambda m: join in m.button_labels(), timeout=10)
    for guest in guests:
        assert (await guest.click(lobby, join)).answered
    for _ in range(computers):
        assert (await host.click(lobby, t("btn.add_bot", lang))).answered
    if rec is not None:
        rec.snap(f"lobby_open{suffix}", lobby, lang=lang, viewer=host)
    assert (await host.click(lobby, t("btn.start", lang))).answered
    if rec is not None:
        rec.snap(f"lobby_started{suffix}", lobby, lang=lang, viewer=host)
    show = t("btn.show_hand", lang)
    return await fake.wait_for_message(chan, lambda m: show in m.button_labels(), timeout=10)


async def _set_and_submit(user: FakeUser, builder: FakeMessage, lang: str) -> None:
    """The solver's ordinary rows, placed through the menus in ``lang``, then Submit."""
    choice = arrange(hand_of_in(builder, lang), get_preset("standard"), "normal", 3, seed=1)
    back, middle, _ = choice.ordinary
    await user.select(builder, t("hand.back_ph", lang), [c.code for c in back])
    await user.select(builder, t("hand.middle_ph", lang), [c.code for c in middle])
    assert (await user.click(builder, t("btn.submit", lang))).answered


def hand_of_in(builder: FakeMessage, lang: str) -> list[Card]:
    select = builder.find_component(t("hand.back_ph", lang), (3,))
    return parse_cards([o["value"] for o in select["options"]])


async def _settled(fake: FakeDiscord, chan: FakeChannel, status: FakeMessage, show: str) -> None:
    """Wait a little for the round's status to lose its "Show my hand" once every hand is
    in (it is edited after the hand that closed the round); say so if it never does."""
    try:
        await fake.wait_for_message(
            chan, lambda m: m is status and show not in m.button_labels(), timeout=5
        )
    except AssertionError:
        print(f"  ! the status message {status.id} still offers {show!r} after the showdown")


def _titled(text: str) -> Callable[[FakeMessage], bool]:
    return lambda m: text in m.text()


async def english(fake: FakeDiscord, rec: Recorder, db: Path, mp: pytest.MonkeyPatch) -> None:
    """The whole English story: a 5-round match of alice, bob and two computers, then the
    server's commands."""
    rig_deal(mp, {1: DRAGON_ROWS}, players=4, preset=get_preset("standard"), seed=SEED)
    guild = fake.add_guild("Warung")
    chan = guild.add_text_channel("capsa")
    alice = fake.add_user("alice", guild=guild, manage_guild=True)
    bob = fake.add_user("bob", guild=guild)
    eve = fake.add_user("eve", guild=guild)
    bot = make_bot(fake, db)
    async with running_bot(fake, bot):
        # bob reads his cards in four colours with letters (his DM hands below)
        me = await bob.slash("capsa me", channel=chan, deck="four_colour_letters")
        await me.wait_response(timeout=15)
        rec.snap("me_en", me, lang="en", viewer=bob)
        status = await _open_table(
            fake, chan, alice, [bob], 2, rounds=5, lang="en", rec=rec, suffix="_en"
        )
        rec.snap("status_en", status, lang="en", viewer=alice)
        refused = await eve.click(status, "Show my hand")
        rec.snap("refusal_en", refused, lang="en", viewer=eve)

        for number in range(1, 6):
            title = f"round {number}/5"
            dm_a = await alice.next_dm(_titled(title), timeout=15)
            dm_b = await bob.next_dm(_titled(title), timeout=15)
            if number == 1:
                rec.snap("dm_hand_en", dm_a, lang="en", viewer=alice)
                rec.snap("dm_special_en", dm_b, lang="en", viewer=bob)
                choice = arrange(hand_of(dm_a), get_preset("standard"), "normal", 3, seed=1)
                back, middle, _ = choice.ordinary
                await alice.select(dm_a, "Back (5)", [c.code for c in back])
                await alice.select(dm_a, "Middle (5)", [c.code for c in middle])
                rec.snap("dm_hand_set_en", dm_a, lang="en", viewer=alice)
                assert (await alice.click(dm_a, "Submit")).answered
                rec.snap("dm_locked_en", dm_a, lang="en", viewer=alice)
                edits = dm_b.edits
                await bob.click(dm_b, "Auto-arrange")
                await fake.wait_for_message(
                    bob.dm, lambda m, e=edits, d=dm_b: m is d and m.edits > e
                )
                rec.snap("dm_special_auto_en", dm_b, lang="en", viewer=bob)
                rec.snap("status_half_en", status, lang="en", viewer=alice)
                assert (await bob.click(dm_b, "Submit")).answered
            else:
                await play_builder(alice, dm_a)
                await play_builder(bob, dm_b)
            showdown = await fake.wait_for_message(
                chan, _titled(f"Showdown · round {number}/5"), timeout=20
            )
            if number == 1:
                await _settled(fake, chan, status, "Show my hand")
                rec.snap("status_done_en", status, lang="en", viewer=alice)
                rec.snap("showdown_en", showdown, lang="en", viewer=alice)
                await alice.click(showdown, "Review my hand")
                review = await alice.wait_for_ephemeral(_titled("the coach's review"), timeout=30)
                rec.snap("review_en", review, lang="en", viewer=alice)
                reviewed_dm = await fake.wait_for_message(
                    alice.dm,
                    lambda m, d=dm_a: m.id == d.id and "Review my hand" in m.button_labels(),
                    timeout=30,
                )
                rec.snap("dm_locked_review_en", reviewed_dm, lang="en", viewer=alice)
                refused = await eve.click(showdown, "Next round")
                rec.snap("refusal_next_en", refused, lang="en", viewer=eve)
            if number == 2:  # the channel after Start and one Next
                history = [m for m in chan.history if not m.ephemeral]
                rec.snap("channel_next_en", showdown, lang="en", viewer=alice, more=history[-5:-1])
            if number < 5:
                await alice.click(showdown, "Next round")
        final = await fake.wait_for_message(chan, _titled("final standings"), timeout=15)
        rec.snap("showdown_last_en", showdown, lang="en", viewer=alice)
        rec.snap("standings_en", final, lang="en", viewer=alice)
        # the channel as it reads after the last Next: the status, the showdown and the
        # standings, each a followup of a click (shown by Discord as a reply to its message)
        history = [m for m in chan.history if not m.ephemeral]
        rec.snap("channel_end_en", final, lang="en", viewer=alice, more=history[-4:-1])

        board = await alice.slash("capsa leaderboard", channel=chan)
        rec.snap("leaderboard_en", board, lang="en", viewer=alice)
        stats = await bob.slash("capsa stats", channel=chan)
        rec.snap("stats_en", stats, lang="en", viewer=bob)
        stats = await eve.slash("capsa stats", channel=chan)
        rec.snap("stats_never_en", stats, lang="en", viewer=eve)
        listed = await alice.slash("capsa history", channel=chan, timeout=15)
        rec.snap("history_en", listed, lang="en", viewer=alice)
        found = re.search(r"\*\*#(\d+)\*\*", listed.text())
        assert found, listed.text()
        replay = await alice.slash("capsa replay", channel=chan, match=int(found[1]), timeout=20)
        rec.snap("replay_en", replay, lang="en", viewer=alice)
        await alice.click(replay, "Last", timeout=20)
        rec.snap("replay_last_en", replay, lang="en", viewer=alice)
        refused = await alice.slash("capsa replay", channel=chan, match=999_999, timeout=15)
        rec.snap("refusal_replay_en", refused, lang="en", viewer=alice)
        shown = await alice.slash("capsa settings", channel=chan)
        rec.snap("settings_en", shown, lang="en", viewer=alice)
        saved = await alice.slash("capsa settings", channel=chan, countdown=60)
        rec.snap("settings_saved_en", saved, lang="en", viewer=alice)
        rules = await bob.slash("capsa rules", channel=chan)
        rec.snap("rules_en", rules, lang="en", viewer=bob)
    mp.undo()


async def abroad(
    fake: FakeDiscord,
    rec: Recorder,
    db: Path,
    mp: pytest.MonkeyPatch,
    lang: str,
    guest_lang: str,
) -> None:
    """A table opened in ``lang`` by a host whose Discord speaks it, with a guest whose
    Discord speaks ``guest_lang`` and two computers: round 1's DM hands, status and
    showdown, and the rules in both languages."""
    rig_deal(mp, {}, players=4, preset=get_preset("standard"), seed=SEED)
    names = {"id": ("budi", "siti"), "zh-CN": ("阿明", "小红"), "vi": ("Minh", "Lan")}
    guild = fake.add_guild(f"Meja {lang}")
    chan = guild.add_text_channel("capsa")
    host = fake.add_user(names[lang][0], guild=guild, locale=_locale(lang))
    guest_name = names[guest_lang][1] if guest_lang != lang else names[lang][1]
    guest = fake.add_user(guest_name, guild=guild, locale=_locale(guest_lang))
    tag = lang if guest_lang == lang else f"{guest_lang}_at_{lang}"
    bot = make_bot(fake, db)
    async with running_bot(fake, bot):
        status = await _open_table(
            fake, chan, host, [guest], 2, rounds=5, lang=lang, rec=rec, suffix=f"_{tag}"
        )
        rec.snap(f"status_{tag}", status, lang=lang, viewer=guest, ui_lang=guest_lang)
        mine = t("hand.title", lang, k=1, n=5)
        theirs = t("hand.title", guest_lang, k=1, n=5)
        dm_h = await host.next_dm(_titled(mine), timeout=15)
        dm_g = await guest.next_dm(_titled(theirs), timeout=15)
        if guest_lang == lang:
            rec.snap(f"dm_hand_{lang}", dm_h, lang=lang, viewer=host)
        else:
            rec.snap(f"dm_hand_{tag}", dm_g, lang=guest_lang, viewer=guest)
        await _set_and_submit(host, dm_h, lang)
        await _set_and_submit(guest, dm_g, guest_lang)
        if guest_lang != lang:
            rec.snap(f"dm_locked_{tag}", dm_g, lang=guest_lang, viewer=guest)
        else:
            rec.snap(f"dm_locked_{tag}", dm_h, lang=lang, viewer=host)
        title = t("sd.title", lang, k=1, n=5)
        showdown = await fake.wait_for_message(chan, _titled(title), timeout=20)
        viewer = guest if guest_lang != lang else host
        rec.snap(f"showdown_{tag}", showdown, lang=lang, viewer=viewer, ui_lang=guest_lang)
        if guest_lang != lang:
            await _settled(fake, chan, status, t("btn.show_hand", lang))
            rec.snap(f"status_done_{tag}", status, lang=lang, viewer=guest, ui_lang=guest_lang)
            await guest.click(showdown, t("btn.review", lang))
            review = await guest.wait_for_ephemeral(
                _titled(t("rev.title", guest_lang, k=1)), timeout=30
            )
            rec.snap(f"review_{tag}", review, lang=guest_lang, viewer=guest)
        else:
            rules = await host.slash("capsa rules", channel=chan)
            rec.snap(f"rules_{lang}", rules, lang=lang, viewer=host)
        await host.slash("capsa cancel", channel=chan)
    mp.undo()


def _locale(lang: str) -> str:
    return "en-US" if lang == "en" else lang


async def play(folder: Path, only: Sequence[str]) -> list[str]:
    with only_localhost(), tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord(bot_name="Capsa") as fake:
            fake.settle_deferred_updates = True  # a person waits to see what a click did
            rec = Recorder(fake, folder, only)
            mp = pytest.MonkeyPatch()
            try:
                print("English")
                await english(fake, rec, Path(tmp) / "en.sqlite3", mp)
                for lang, guest in (
                    ("id", "id"),
                    ("zh-CN", "zh-CN"),
                    ("vi", "vi"),
                    ("zh-CN", "vi"),
                ):
                    print(f"{lang} (a {guest} guest)")
                    db = Path(tmp) / f"{lang}-{guest}.sqlite3"
                    await abroad(fake, rec, db, mp, lang, guest)
            finally:
                mp.undo()
            return rec.names


def render(names: list[str], folder: Path, out: Path, look_python: str, look_dir: Path) -> None:
    files = [str(folder / f"{n}.json") for n in names]
    selects = [str(folder / f"{n}.json") for n in names if n.startswith(("dm_hand", "dm_special"))]
    renderer = [look_python, str(look_dir / "render.py")]
    for extra in ([], ["--mobile"]):
        subprocess.run([*renderer, *files, "--out", str(out), *extra], check=True)
        if selects:
            cmd = [*renderer, *selects, "--out", str(out), "--open-selects", *extra]
            subprocess.run(cmd, check=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--snapshots", type=Path, default=Path("/tmp/look-snap"))
    parser.add_argument("--out", type=Path, default=Path("/tmp/look-out"))
    parser.add_argument("--render", action="store_true", help="run the renderer afterwards")
    parser.add_argument("--only", nargs="*", default=[], help="only snapshots whose name has")
    parser.add_argument("--look-python", default="/tmp/look-venv/bin/python")
    parser.add_argument("--look-dir", type=Path, default=Path("/work/shared/tools/discord-look"))
    args = parser.parse_args(argv)
    names = asyncio.run(play(args.snapshots, args.only))
    print(f"{len(names)} snapshots in {args.snapshots}")
    if args.render:
        render(names, args.snapshots, args.out, args.look_python, args.look_dir)
        print(f"PNGs in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
