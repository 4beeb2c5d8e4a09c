-- Ratings (issue 21): each server's rating of each player, updated once per finished match
-- from its final places by capsa/rating.py, in the transaction that finishes the match
-- (data/sql.py finish_match), or at start for the matches finished before this migration
-- (rate_finished_matches, from rating_queue). A player is `member:<user id>` or `computer:<level>`.

-- A server's rating state: locked while a match is rated (one at a time, in order).
CREATE TABLE rating_guilds (
    guild_id  BIGINT PRIMARY KEY,
    rated     INTEGER NOT NULL DEFAULT 0      -- matches rated so far: the last seq
);

-- The finished matches waiting to be rated: finish_match queues its match and rates the
-- server's queue in the same transaction; the matches finished before this migration are
-- queued here, and rated (in the order they finished) when the bot starts.
CREATE TABLE rating_queue (
    match_id  BIGINT  PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    guild_id  BIGINT  NOT NULL
);
CREATE INDEX rating_queue_guild ON rating_queue (guild_id);
INSERT INTO rating_queue (match_id, guild_id)
    SELECT id, guild_id FROM matches WHERE status IN ('finished', 'ended');

-- Each rated match once, in the order it was rated (seq counts from 1 in each server).
CREATE TABLE rated_matches (
    match_id  BIGINT PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    guild_id  BIGINT  NOT NULL,
    seq       INTEGER NOT NULL,
    rated_at  TIMESTAMPTZ NOT NULL,
    UNIQUE (guild_id, seq)
);

-- Each player's rating now; `rating` is the conservative value capsa.rating ranks by.
CREATE TABLE ratings (
    guild_id  BIGINT  NOT NULL,
    player    TEXT    NOT NULL,
    user_id   BIGINT,                           -- NULL: the computers of one level
    mu        DOUBLE PRECISION NOT NULL,
    sigma     DOUBLE PRECISION NOT NULL,
    rating    DOUBLE PRECISION NOT NULL,
    matches   INTEGER NOT NULL,
    PRIMARY KEY (guild_id, player)
);
CREATE INDEX ratings_member ON ratings (guild_id, user_id) WHERE user_id IS NOT NULL;

-- What each rated match changed, for "its change in the last match".
CREATE TABLE rating_changes (
    match_id      BIGINT  NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    player        TEXT    NOT NULL,
    guild_id      BIGINT  NOT NULL,
    user_id       BIGINT,
    seq           INTEGER NOT NULL,
    rating_before DOUBLE PRECISION NOT NULL,
    rating_after  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (match_id, player)
);
CREATE INDEX rating_changes_member ON rating_changes (guild_id, user_id, seq)
    WHERE user_id IS NOT NULL;
