-- Fewer requests to Discord (issue 18).
--
-- The DM channel the bot opened with each person (data/sql.py remember_dm_channel,
-- dm_channel_of): opened once per person, whatever the process or restart, since opening
-- one is a request of its own to Discord with a small rate limit.
CREATE TABLE dm_channels (
    user_id    BIGINT PRIMARY KEY,
    channel_id BIGINT NOT NULL,
    opened_at  TIMESTAMPTZ NOT NULL
);

-- A channel's latest interaction token (a table's Start or Next; data/sql.py
-- keep_channel_token, channel_token) and the token each message was sent with
-- (keep_message_token, message_token): a table's channel messages go as that interaction's
-- followups, and their edits through the token that sent them, while it is valid (15
-- minutes; expires_at is a little earlier), since interaction routes are not bound by
-- Discord's global rate limit. Tokens are secrets: never logged.
CREATE TABLE channel_tokens (
    channel_id BIGINT PRIMARY KEY,
    token      TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE message_tokens (
    message_id BIGINT PRIMARY KEY,
    token      TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
