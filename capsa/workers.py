"""Set-up for the bot's worker processes (importable by name, so any launcher works)."""

from __future__ import annotations

import ctypes
import ctypes.util
import signal

from capsa.cards import DECK
from capsa.render import render_hand
from capsa.solver import keep_memory
from capsa.solver.model import load_tables, prepare_availability


def init_worker() -> None:
    """End with the parent process, even when it is killed (Linux), keep the solver's
    memory between hands (capsa.solver.keep_memory), and load its tables before the first
    hand arrives (and the weights a hand holding trips reads)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: the pool's own shutdown still ends the workers on a normal exit
    keep_memory()
    load_tables()
    prepare_availability()
    render_hand(tuple(DECK[:13]), None, "en")  # fonts and card pictures, before the first deal


def ready() -> bool:
    """A no-op job: submitting it starts a worker process now rather than at the first deal."""
    return True
