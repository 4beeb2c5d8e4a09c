-- 0002: the coach (capsa/coach.py). Each person's hand of a scored round is reviewed once,
-- after the showdown, and the review is kept here: the loss against the best setting, and
-- whether it counts toward the player's sharpness (not when the hand was submitted as
-- Auto-arrange suggested it, nor when the countdown set it). hands.arranged marks a hand
-- submitted as Auto-arrange suggested it.

ALTER TABLE hands ADD COLUMN arranged BOOLEAN NOT NULL DEFAULT FALSE;

CREATE TABLE hand_reviews (
    round_id     BIGINT  NOT NULL REFERENCES rounds (id) ON DELETE CASCADE,
    seat         INTEGER NOT NULL,
    match_id     BIGINT  NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    guild_id     BIGINT  NOT NULL,
    user_id      BIGINT  NOT NULL,
    loss         DOUBLE PRECISION NOT NULL CHECK (loss >= 0),
    counted      BOOLEAN NOT NULL,
    review       JSONB   NOT NULL,   -- capsa.coach.Review.to_dict()
    scored_at    TIMESTAMPTZ NOT NULL,  -- the round's, so reviews sort in the order played
    reviewed_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (round_id, seat)
);
CREATE INDEX hand_reviews_player ON hand_reviews (guild_id, user_id, counted, scored_at);
