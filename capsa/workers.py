"""The bot's worker processes: their set-up, and the jobs that need a wrapper to cross the
process boundary (importable by name, so any launcher works)."""

from __future__ import annotations

import ctypes
import ctypes.util
import signal
from collections.abc import Sequence

from capsa.cards import DECK, Card
from capsa.presets import get_preset
from capsa.specials import available


def init_worker() -> None:
    """End with the parent process, even when it is killed (Linux), and load the solver's
    tables before the first hand arrives."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: the pool's own shutdown still ends the workers on a normal exit
    from capsa.render import render_hand
    from capsa.solver_model import load_tables

    load_tables()
    render_hand(tuple(DECK[:13]), None, "en")  # fonts and card pictures, before the first deal


def specials_of(cards: Sequence[Card], preset: str, options: dict | None) -> list[str]:
    """``capsa.specials.available`` for a preset given by name (a Preset does not pickle)."""
    return available(cards, get_preset(preset, options))


def ready() -> bool:
    """A no-op job: submitting it starts a worker process now rather than at the first deal."""
    return True
