-- 0003: the tables' timers live here, not in one process's memory: the lobby's expiry, the
-- round's deadline, the pause before the next round, a deal to finish after a restart.
-- One row per table and kind; setting it again replaces it (a new version). Every process
-- claims due timers with FOR UPDATE SKIP LOCKED for a lease, on the database's clock; a
-- timer whose process died is claimed again once its lease has run out. Setting a timer
-- sends NOTIFY capsa_timers. rounds.showdown_claim_until: the process that posts a round's
-- showdown holds this claim, so the showdown is posted once.

CREATE TABLE timers (
    match_id     BIGINT  NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    kind         TEXT    NOT NULL,
    arg          BIGINT  NOT NULL DEFAULT 0,
    due_at       TIMESTAMPTZ NOT NULL,
    version      BIGINT  NOT NULL DEFAULT 1,
    attempts     INTEGER NOT NULL DEFAULT 0,
    lease_until  TIMESTAMPTZ,
    lease_owner  TEXT,
    PRIMARY KEY (match_id, kind)
);
CREATE INDEX timers_due ON timers (due_at);

ALTER TABLE rounds ADD COLUMN showdown_claim_until TIMESTAMPTZ;
