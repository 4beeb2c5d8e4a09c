-- Each bot process has a row while it lives (data/sql.py start_process, heartbeat,
-- stop_process): a process not seen for capsa/timings.py's PROCESS_DEAD_SECONDS is dead, and
-- whatever it held (a timer's lease, a held watchdog, a showdown's or the standings' claim)
-- is taken over at once by any live process. On PostgreSQL several processes share the
-- database; each renews its own row every PROCESS_HEARTBEAT_SECONDS.
CREATE TABLE processes (
    owner      TEXT PRIMARY KEY,
    shards     TEXT NOT NULL DEFAULT '',
    started_at TIMESTAMPTZ NOT NULL,
    seen_at    TIMESTAMPTZ NOT NULL
);

-- Who holds a post's claim: valid while that process lives (and its heartbeat renews it).
ALTER TABLE rounds ADD COLUMN showdown_claim_owner TEXT;
ALTER TABLE matches ADD COLUMN standings_claim_owner TEXT;
