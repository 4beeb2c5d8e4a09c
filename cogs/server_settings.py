"""A server's settings and a table's options, as the slash commands take them.

``/capsa settings`` has one option for each of capsa.settings' SERVER_SETTINGS, made here
from the table (``with_server_settings``: its type, choices or range, its name and
description from the catalogue), so a new setting needs no change to the command; then
``options``, which ``/capsa new`` has too: one choice for each set of a preset's table
options (capsa.presets' ``OPTION_SETS``, "chinese-poker · method 2-4 · no surrender"), picked
with a tap rather than typed. A set that is not the table's preset's is refused with the
sets that preset has.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Optional, TypeVar

import discord
from discord import app_commands
from discord.app_commands import Choice, Range

from capsa.i18n import t
from capsa.presets import OPTION_SETS, OptionSet, Preset, option_sets
from capsa.rules_text import allowed_options_text, option_set_label
from capsa.settings import SERVER_SETTINGS, TABLE_SETTINGS, TableSetting
from cogs.components import Refusal, RefusalCode
from cogs.replies import user_lang
from cogs.screens.settings import settings_screen
from cogs.translator import tr, tr_made
from data.repository import OPTIONS_KEY, Repository

F = TypeVar("F", bound=Callable[..., Any])

OPTIONS = "options"  # the commands' parameter that takes an option set's key
OPTIONS_OPTION = "opt.options"  # its name's catalogue key

# Every preset's option sets, as both commands offer them.
OPTION_SET_CHOICES: list[Choice[str]] = [
    Choice(name=tr_made(partial(option_set_label, option_set)), value=key)
    for key, option_set in OPTION_SETS.items()
]


def setting_choices(setting: TableSetting[Any]) -> list[Choice[Any]]:
    """The setting's choices as the command offers them, each named by its catalogue key
    (or as it is stored: a number, a preset's name)."""
    out: list[Choice[Any]] = []
    for value in setting.choices:
        key = setting.label_key(value)
        out.append(Choice(name=tr(key) if key is not None else str(value), value=value))
    return out


def _annotation(setting: TableSetting[Any]) -> Any:
    """The option's type: the setting's kind, a number as its range where it has one."""
    if setting.choices or setting.kind is not int:
        return Optional[setting.kind]  # noqa: UP045  # discord.py reads the typing form
    return Optional[Range[int, *setting.bounds]]  # noqa: UP045


def with_server_settings(func: F) -> F:
    """Give the command callback ``func(self, interaction, **chosen)`` an optional option
    for each of SERVER_SETTINGS, named as the setting, and ``options`` (a preset's table
    options); put it under ``@app_commands.command``. discord.py reads a callback's
    signature, so the signature is made here from the table."""
    head = list(inspect.signature(func).parameters.values())[:2]  # self, interaction
    settings = [TABLE_SETTINGS[name] for name in SERVER_SETTINGS]
    params = [
        inspect.Parameter(
            str(s.name), inspect.Parameter.KEYWORD_ONLY, default=None, annotation=_annotation(s)
        )
        for s in settings
    ]
    params.append(
        inspect.Parameter(
            OPTIONS,
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=Optional[str],  # noqa: UP045
        )
    )
    func.__signature__ = inspect.Signature([*head, *params])  # type: ignore[attr-defined]
    names = {str(s.name): s.option_name for s in settings} | {OPTIONS: OPTIONS}
    app_commands.rename(**{p: tr(f"opt.{o}") for p, o in names.items()})(func)
    app_commands.describe(**{p: tr(f"opt.{o}.desc") for p, o in names.items()})(func)
    choices = {str(s.name): setting_choices(s) for s in settings if s.choices}
    app_commands.choices(**choices, **{OPTIONS: OPTION_SET_CHOICES})(func)
    return func


def refuse_options(preset: Preset, lang: str) -> Refusal:
    """The refusal of table options ``preset`` does not have, naming those it has."""
    option = t(OPTIONS_OPTION, lang)
    if not option_sets(preset):
        return Refusal(RefusalCode.NO_OPTIONS, preset=preset.name, option=option)
    allowed = allowed_options_text(preset, lang)
    return Refusal(RefusalCode.BAD_OPTIONS, preset=preset.name, allowed=allowed, option=option)


def option_set(key: str) -> OptionSet | None:
    """The option set a command's ``options`` names (None: no such set)."""
    return OPTION_SETS.get(key)


def table_preset(preset: Preset, key: str | None, lang: str) -> Preset:
    """``preset`` with the option set ``key`` applied (none: as it is), or the refusal
    naming the sets ``preset`` has when ``key`` is not one of them."""
    if key is None:
        return preset
    chosen = option_set(key)
    if chosen is None or chosen.preset != preset.name:
        raise refuse_options(preset, lang)
    return preset.with_options(chosen.options)


async def show_settings(
    interaction: discord.Interaction, repo: Repository, chosen: Mapping[str, object]
) -> None:
    """``/capsa settings``: with options, a manager changes the server's defaults (an
    option set changes the defaults of its own preset); without, they are shown to them."""
    if interaction.guild_id is None:
        raise Refusal(RefusalCode.GUILD_ONLY)
    perms = interaction.permissions
    if not (perms and perms.manage_guild):
        raise Refusal(RefusalCode.SETTINGS_MANAGERS_ONLY)
    changes: dict[str, Any] = {k: v for k, v in chosen.items() if v is not None and k != OPTIONS}
    key = chosen.get(OPTIONS)
    if key is not None:
        picked = option_set(str(key))
        if picked is None:  # the command's choices keep this from people
            raise Refusal(RefusalCode.BAD_SETTING)
        changes[OPTIONS_KEY] = {picked.preset: picked.options}
    if changes:
        try:
            settings = await repo.update_guild_settings(interaction.guild_id, **changes)
        except ValueError as err:  # the command's choices and ranges keep this from people
            raise Refusal(RefusalCode.BAD_SETTING) from err
    else:
        settings = await repo.guild_settings(interaction.guild_id)
    lang = await user_lang(repo, interaction)  # after the change: a new language shows
    screen = settings_screen(settings, lang, saved=bool(changes))
    await interaction.response.send_message(**screen.send_kwargs(ephemeral=True))
