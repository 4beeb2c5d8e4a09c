-- The daily hand (issue 21): each server's hand of a (UTC) day, made when someone first
-- opens it, and each member's one play of it, valued by the coach (capsa/daily.py,
-- cogs/daily.py). The days are UTC: there is no server time zone setting.

CREATE TABLE daily_hands (
    guild_id    INTEGER NOT NULL,
    day         TEXT    NOT NULL CHECK (length(day) = 10),  -- 'YYYY-MM-DD'
    preset      TEXT    NOT NULL,  -- the server's rules when the day's hand was first opened
    cards       TEXT    NOT NULL,  -- the 13 cards ("AS KD 2C ...")
    created_at  REAL    NOT NULL,
    PRIMARY KEY (guild_id, day)
);

CREATE TABLE daily_plays (
    guild_id    INTEGER NOT NULL,
    day         TEXT    NOT NULL,
    user_id     INTEGER NOT NULL,
    back        TEXT    NOT NULL,
    middle      TEXT    NOT NULL,
    front       TEXT    NOT NULL,
    declare     TEXT,
    fouled      INTEGER NOT NULL,
    value       REAL    NOT NULL,  -- expected points of the setting (the coach's values)
    best_value  REAL    NOT NULL,  -- of the coach's best setting
    loss        REAL    NOT NULL,
    review      TEXT    NOT NULL,  -- capsa.coach.Review.to_dict, as JSON
    played_at   REAL    NOT NULL,
    PRIMARY KEY (guild_id, day, user_id),  -- one try a day
    FOREIGN KEY (guild_id, day) REFERENCES daily_hands (guild_id, day) ON DELETE CASCADE
);
CREATE INDEX daily_plays_member ON daily_plays (guild_id, user_id, day);
