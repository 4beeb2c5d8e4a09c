-- 0001: initial schema. Applied inside one transaction by data/sqlite_db.py, which also records
-- it in schema_migrations. Do not put BEGIN/COMMIT in migration files.
-- Times are unix seconds (REAL). Card lists are space-separated codes ("AS KD 2C").
-- JSON columns hold TEXT. Booleans are 0/1 INTEGERs.

CREATE TABLE guild_settings (
    guild_id        INTEGER PRIMARY KEY,
    preset          TEXT    NOT NULL DEFAULT 'standard',
    rounds          INTEGER NOT NULL DEFAULT 10,
    countdown       INTEGER NOT NULL DEFAULT 120,
    bot_level       TEXT    NOT NULL DEFAULT 'normal'
                    CHECK (bot_level IN ('easy', 'normal', 'hard')),
    timeout_action  TEXT    NOT NULL DEFAULT 'auto' CHECK (timeout_action IN ('auto', 'foul')),
    language        TEXT    NOT NULL DEFAULT 'auto' CHECK (language IN ('auto', 'en', 'id')),
    updated_at      REAL
);

-- Last known display name of a player in a guild (for leaderboards).
CREATE TABLE players (
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    name        TEXT    NOT NULL,
    updated_at  REAL    NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);

CREATE TABLE matches (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id          INTEGER NOT NULL,
    channel_id        INTEGER NOT NULL,
    host_id           INTEGER NOT NULL,
    preset            TEXT    NOT NULL,
    options           TEXT    NOT NULL DEFAULT '{}',
    rounds_total      INTEGER NOT NULL CHECK (rounds_total > 0),
    countdown         INTEGER NOT NULL CHECK (countdown > 0),
    bot_level         TEXT    NOT NULL,
    timeout_action    TEXT    NOT NULL CHECK (timeout_action IN ('auto', 'foul')),
    seats_count       INTEGER NOT NULL CHECK (seats_count BETWEEN 2 AND 4),
    language          TEXT    NOT NULL DEFAULT 'auto',
    status            TEXT    NOT NULL DEFAULT 'lobby'
                      CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
    lobby_message_id  INTEGER,
    created_at        REAL    NOT NULL,
    started_at        REAL,
    finished_at       REAL,
    lobby_expires_at  REAL
);
-- One open table per channel, enforced by the database as well as by the code.
CREATE UNIQUE INDEX matches_active_channel
    ON matches (channel_id) WHERE status IN ('lobby', 'playing');
CREATE INDEX matches_status ON matches (status, lobby_expires_at);
-- wins / matches leaderboards: finished matches of a guild, by finish time.
CREATE INDEX matches_guild_finished ON matches (guild_id, status, finished_at);

CREATE TABLE match_seats (
    match_id  INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat      INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    user_id   INTEGER,                       -- NULL: computer player
    name      TEXT    NOT NULL,
    is_bot    INTEGER NOT NULL DEFAULT 0,
    level     TEXT,
    place     INTEGER,
    PRIMARY KEY (match_id, seat)
);
CREATE UNIQUE INDEX match_seats_user
    ON match_seats (match_id, user_id) WHERE user_id IS NOT NULL;
CREATE INDEX match_seats_user_id ON match_seats (user_id) WHERE user_id IS NOT NULL;

CREATE TABLE rounds (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id             INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    number               INTEGER NOT NULL CHECK (number > 0),
    seed                 TEXT    NOT NULL,   -- decimal integer of any size
    deadline             REAL    NOT NULL,
    status               TEXT    NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'scored')),
    status_message_id    INTEGER,
    showdown_message_id  INTEGER,
    result               TEXT,              -- JSON, set when scored
    created_at           REAL    NOT NULL,
    scored_at            REAL,
    UNIQUE (match_id, number)
);

CREATE TABLE hands (
    round_id       INTEGER NOT NULL REFERENCES rounds (id) ON DELETE CASCADE,
    seat           INTEGER NOT NULL,
    cards          TEXT    NOT NULL,
    back           TEXT,
    middle         TEXT,
    front          TEXT,
    declare        TEXT,
    fouled         INTEGER NOT NULL DEFAULT 0,
    auto           INTEGER NOT NULL DEFAULT 0,
    submitted_at   REAL,
    points         REAL,
    dm_channel_id  INTEGER,
    dm_message_id  INTEGER,
    PRIMARY KEY (round_id, seat)
);

-- The ledger behind leaderboards and stats: one row per seat of a scored round, written in
-- the same transaction that flips the round to 'scored'. The primary key is a second guard
-- against counting a round twice. guild_id, user_id and scored_at are copied here so the
-- leaderboard queries read one indexed table.
CREATE TABLE round_scores (
    round_id       INTEGER NOT NULL REFERENCES rounds (id) ON DELETE CASCADE,
    seat           INTEGER NOT NULL,
    match_id       INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    guild_id       INTEGER NOT NULL,
    user_id        INTEGER,                 -- NULL: computer player
    points         REAL    NOT NULL,
    fouled         INTEGER NOT NULL DEFAULT 0,
    special        TEXT,
    sweeps_given   INTEGER NOT NULL DEFAULT 0,
    sweeps_taken   INTEGER NOT NULL DEFAULT 0,
    table_sweep    INTEGER NOT NULL DEFAULT 0,
    best_strength  INTEGER,
    best_row       TEXT,                    -- JSON
    scored_at      REAL    NOT NULL,
    PRIMARY KEY (round_id, seat)
);
CREATE INDEX round_scores_guild_time ON round_scores (guild_id, scored_at, user_id);
CREATE INDEX round_scores_guild_user ON round_scores (guild_id, user_id, best_strength);
CREATE INDEX round_scores_match ON round_scores (match_id, seat);
