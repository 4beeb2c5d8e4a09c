-- 0004: the coach (capsa/coach.py). Each person's hand of a scored round is reviewed once,
-- after the showdown, and the review is kept here: the loss against the best setting, and
-- whether it counts toward the player's sharpness (not when the hand was submitted as
-- Auto-arrange suggested it, nor when the countdown set it). hands.arranged marks a hand
-- submitted as Auto-arrange suggested it.

ALTER TABLE hands ADD COLUMN arranged INTEGER NOT NULL DEFAULT 0;

CREATE TABLE hand_reviews (
    round_id     INTEGER NOT NULL REFERENCES rounds (id) ON DELETE CASCADE,
    seat         INTEGER NOT NULL,
    match_id     INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    guild_id     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    loss         REAL    NOT NULL CHECK (loss >= 0),
    counted      INTEGER NOT NULL,
    review       TEXT    NOT NULL,   -- capsa.coach.Review.to_dict(), as JSON
    scored_at    REAL    NOT NULL,   -- the round's, so reviews sort in the order played
    reviewed_at  REAL    NOT NULL,
    PRIMARY KEY (round_id, seat)
);
CREATE INDEX hand_reviews_player ON hand_reviews (guild_id, user_id, counted, scored_at);
