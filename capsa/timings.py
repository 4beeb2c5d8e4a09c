"""Every timing of the tables and the bot, in one place: pauses, leases, retries, watchdogs.

A table's countdown (how long people have to set their rows) is a table option, chosen within
``capsa.settings``'s range; everything else that waits is here. Seconds throughout.
"""

from __future__ import annotations

# --- a table's life ----------------------------------------------------------------------
LOBBY_SECONDS = 600.0  # a lobby nobody starts closes after this
NEXT_ROUND_SECONDS = 30.0  # the pause after a showdown before the next deal
# A step a person asked for (Next) waits this long for the step before it that another
# process is finishing (the showdown it was pressed on, marked shown just after it is out),
# looking again this often.
ASKED_WAIT_SECONDS = 5.0
ASKED_POLL_SECONDS = 0.1

# --- timers (cogs/scheduler.py) ----------------------------------------------------------
# A timer set to fire sooner than this wakes every process that watches the timers; each of
# them looks for due timers at least this often anyway (the poll), so no later timer needs a
# wake-up, and a busy bot does not wake every process at every timer it sets.
TIMER_WAKE_SECONDS = 1.0
POLL_SECONDS = TIMER_WAKE_SECONDS
LEASE_SECONDS = 60.0  # a claimed timer is its process's for this long (renewed while it lives)
RETRY_SECONDS = (5.0, 20.0, 60.0)  # a failed timer runs again after these pauses (then 60 s)
# Every process renews its row (and its leases and claims) this often; one not seen for
# PROCESS_DEAD_SECONDS is dead, and what it held is taken over at once by another process.
PROCESS_HEARTBEAT_SECONDS = 2.0
PROCESS_DEAD_SECONDS = 10.0
# An outage is not a death: a process whose own contact with the database broke (a call
# failed, or its beats came further apart than this) judges no other process dead until it
# has been in touch PROCESS_DEAD_SECONDS again, since nobody else could beat meanwhile
# either; and a process counts as unseen only from the database server's start on.
PROCESS_CUT_OFF_SECONDS = 2 * PROCESS_HEARTBEAT_SECONDS
PROCESSES_KEPT_SECONDS = 86400.0  # a dead process's row is forgotten after this
# A step a process does now (a deal, a Start) holds the table's timer as its watchdog: should
# the process die, another takes the step over at this long after it began, or once the dead
# process's lease has run out, whichever is later.
WATCHDOG_SECONDS = 30.0

# --- once-only posts ---------------------------------------------------------------------
SHOWDOWN_CLAIM_SECONDS = 60.0  # the process posting a showdown holds it this long
STANDINGS_CLAIM_SECONDS = 60.0  # the process posting the final standings holds them this long
# A process that stops (SIGTERM) lets a post under way (a showdown, the standings) finish and
# be stored as posted for at most this long before it cuts it: cut in flight, it could land
# and be posted again by the next process.
POST_GRACE_SECONDS = 10.0
# A post that is out is stored as posted (its claim let go, if it failed) however long the
# database is out of reach: tried again this often (cogs/rounds.py until_stored).
OUTAGE_RETRY_SECONDS = 1.0

# --- Discord -------------------------------------------------------------------------
# A round's status message is edited at most once in this long: the asks that come within it
# (hands submitted together) are one edit, drawn from the latest state (Discord allows 5
# edits per 5 s in a channel).
STATUS_EDIT_SECONDS = 1.0

# --- the bot's process -----------------------------------------------------------------
# How long a thread holds the interpreter's lock (the GIL) while another waits for it
# (``sys.setswitchinterval``; Python's default is 5 ms). The event loop hands every job to the
# worker processes with a write to a pipe, which lets the lock go, and the pool's feeder
# thread, woken by that job, takes it to pickle the job: with the default the loop then waited
# up to 5 ms for it back, about 1.5 ms a job on average under load (cProfile, 200 tables, the
# time in those writes: 10.8 s of the loop's 75.5 s; with this value 1.1 s of 51.8 s).
GIL_SWITCH_SECONDS = 0.0005

# --- the database ----------------------------------------------------------------------
DATABASE_CONNECT_SECONDS = 10.0  # how long to wait for the PostgreSQL server to answer
# SQLite's thread hands results back to the event loop together while more calls wait
# (data/sqlite_db.py): a result waits for others this long at most once it is done, besides
# the one call that runs meanwhile.
SQLITE_HAND_BACK_SECONDS = 0.001
