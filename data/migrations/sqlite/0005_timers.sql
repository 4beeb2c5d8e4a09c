-- 0005: the tables' timers live here, not in one process's memory: the lobby's expiry, the
-- round's deadline, the pause before the next round, a deal to finish after a restart.
-- One row per table and kind; setting it again replaces it (a new version). A process
-- claims a due timer for a lease; a timer whose process died is claimed again once its lease
-- has run out. rounds.showdown_claim_until: the process that posts a round's showdown holds
-- this claim, so the showdown is posted once.

CREATE TABLE timers (
    match_id     INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    kind         TEXT    NOT NULL,
    arg          INTEGER NOT NULL DEFAULT 0,
    due_at       REAL    NOT NULL,
    version      INTEGER NOT NULL DEFAULT 1,
    attempts     INTEGER NOT NULL DEFAULT 0,
    lease_until  REAL,
    lease_owner  TEXT,
    PRIMARY KEY (match_id, kind)
);
CREATE INDEX timers_due ON timers (due_at);

ALTER TABLE rounds ADD COLUMN showdown_claim_until REAL;
