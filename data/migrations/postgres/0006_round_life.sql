-- 0006: a round's and a match's life stored as data, and a person's language at a table.
-- The same change as SQLite's 0006: from here on one change is one migration number in both
-- folders (data/schema.py), so PostgreSQL goes from 0003 to 0006.
--
-- rounds.status: 'dealing' (row and hands stored; the computers' rows, the status message
-- and the DMs not all done yet), 'open' (hands being set), 'scored' (result and ledger
-- stored; showdown not posted), 'shown' (showdown posted).
-- matches.status gains 'ended': 'finished' now means places stored, final standings not yet
-- posted; 'ended' that they are posted (matches.standings_message_id). The process posting
-- the standings holds matches.standings_claim_until, so they are posted once.
-- match_seats.language: the catalogue language of the person's Discord locale when they sat.

ALTER TABLE matches DROP CONSTRAINT matches_status_check;
ALTER TABLE matches ADD CONSTRAINT matches_status_check
    CHECK (status IN ('lobby', 'playing', 'finished', 'ended', 'cancelled'));
ALTER TABLE matches ADD COLUMN standings_message_id BIGINT;
ALTER TABLE matches ADD COLUMN standings_claim_until TIMESTAMPTZ;
UPDATE matches SET status = 'ended' WHERE status = 'finished';

ALTER TABLE rounds DROP CONSTRAINT rounds_status_check;
ALTER TABLE rounds ADD CONSTRAINT rounds_status_check
    CHECK (status IN ('dealing', 'open', 'scored', 'shown'));
ALTER TABLE rounds ALTER COLUMN status SET DEFAULT 'dealing';
UPDATE rounds SET status = 'shown' WHERE status = 'scored' AND showdown_message_id IS NOT NULL;
UPDATE rounds SET status = 'dealing' WHERE status = 'open' AND status_message_id IS NULL;

ALTER TABLE match_seats ADD COLUMN language TEXT;

-- A table's timers are now its clock and its watchdog (cogs/scheduler.py TimerKind); the
-- timers of the old kinds go, and each process gives its tables what they lack at start.
DELETE FROM timers WHERE kind NOT IN ('clock', 'watchdog');
