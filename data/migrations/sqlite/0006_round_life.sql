-- 0006: a round's and a match's life stored as data, and a person's language at a table.
-- From here on one change is one migration number in both folders (data/schema.py).
--
-- rounds.status: 'dealing' (row and hands stored; the computers' rows, the status message
-- and the DMs not all done yet), 'open' (hands being set), 'scored' (result and ledger
-- stored; showdown not posted), 'shown' (showdown posted).
-- matches.status gains 'ended': 'finished' now means places stored, final standings not yet
-- posted; 'ended' that they are posted (matches.standings_message_id). The process posting
-- the standings holds matches.standings_claim_until, so they are posted once.
-- match_seats.language: the catalogue language of the person's Discord locale when they sat.
--
-- SQLite cannot change a CHECK, so matches and rounds are rebuilt (as 0003 rebuilt
-- guild_settings). data/sqlite_db.py applies migrations with foreign keys off, as SQLite's
-- procedure for this asks (a DROP would otherwise delete the children through ON DELETE
-- CASCADE), and checks them before the COMMIT; the children's REFERENCES name the table, so
-- they reach the rebuilt one. The indexes go with the old tables and are made again.

CREATE TABLE matches_new (
    id                     INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id               INTEGER NOT NULL,
    channel_id             INTEGER NOT NULL,
    host_id                INTEGER NOT NULL,
    preset                 TEXT    NOT NULL,
    options                TEXT    NOT NULL DEFAULT '{}',
    rounds_total           INTEGER NOT NULL CHECK (rounds_total > 0),
    countdown              INTEGER NOT NULL CHECK (countdown > 0),
    bot_level              TEXT    NOT NULL,
    timeout_action         TEXT    NOT NULL CHECK (timeout_action IN ('auto', 'foul')),
    seats_count            INTEGER NOT NULL CHECK (seats_count BETWEEN 2 AND 4),
    language               TEXT    NOT NULL DEFAULT 'auto',
    status                 TEXT    NOT NULL DEFAULT 'lobby'
                           CHECK (status IN ('lobby', 'playing', 'finished', 'ended', 'cancelled')),
    lobby_message_id       INTEGER,
    created_at             REAL    NOT NULL,
    started_at             REAL,
    finished_at            REAL,
    lobby_expires_at       REAL,
    standings_message_id   INTEGER,
    standings_claim_until  REAL
);
INSERT INTO matches_new
    (id, guild_id, channel_id, host_id, preset, options, rounds_total, countdown, bot_level,
     timeout_action, seats_count, language, status, lobby_message_id, created_at, started_at,
     finished_at, lobby_expires_at)
SELECT id, guild_id, channel_id, host_id, preset, options, rounds_total, countdown, bot_level,
       timeout_action, seats_count, language,
       CASE status WHEN 'finished' THEN 'ended' ELSE status END,
       lobby_message_id, created_at, started_at, finished_at, lobby_expires_at
FROM matches;
DROP TABLE matches;
ALTER TABLE matches_new RENAME TO matches;
CREATE UNIQUE INDEX matches_active_channel
    ON matches (channel_id) WHERE status IN ('lobby', 'playing');
CREATE INDEX matches_status ON matches (status, lobby_expires_at);
CREATE INDEX matches_guild_finished ON matches (guild_id, status, finished_at);

CREATE TABLE rounds_new (
    id                    INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id              INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    number                INTEGER NOT NULL CHECK (number > 0),
    seed                  TEXT    NOT NULL,   -- decimal integer of any size
    deadline              REAL    NOT NULL,
    status                TEXT    NOT NULL DEFAULT 'dealing'
                          CHECK (status IN ('dealing', 'open', 'scored', 'shown')),
    status_message_id     INTEGER,
    showdown_message_id   INTEGER,
    result                TEXT,              -- JSON, set when scored
    created_at            REAL    NOT NULL,
    scored_at             REAL,
    showdown_claim_until  REAL,
    UNIQUE (match_id, number)
);
INSERT INTO rounds_new
    (id, match_id, number, seed, deadline, status, status_message_id, showdown_message_id,
     result, created_at, scored_at, showdown_claim_until)
SELECT id, match_id, number, seed, deadline,
       CASE
           WHEN status = 'scored' AND showdown_message_id IS NOT NULL THEN 'shown'
           WHEN status = 'open' AND status_message_id IS NULL THEN 'dealing'
           ELSE status
       END,
       status_message_id, showdown_message_id, result, created_at, scored_at,
       showdown_claim_until
FROM rounds;
DROP TABLE rounds;
ALTER TABLE rounds_new RENAME TO rounds;

ALTER TABLE match_seats ADD COLUMN language TEXT;

-- A table's timers are now its clock and its watchdog (cogs/scheduler.py TimerKind); the
-- timers of the old kinds go, and each process gives its tables what they lack at start.
DELETE FROM timers WHERE kind NOT IN ('clock', 'watchdog');
