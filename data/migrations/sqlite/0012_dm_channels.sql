-- The DM channel the bot opened with each person (data/sql.py remember_dm_channel,
-- dm_channel_of): opened once per person, whatever the process or restart, since opening
-- one is a request of its own to Discord with a small rate limit (issue 18).
CREATE TABLE dm_channels (
    user_id    INTEGER PRIMARY KEY,
    channel_id INTEGER NOT NULL,
    opened_at  REAL    NOT NULL
);
