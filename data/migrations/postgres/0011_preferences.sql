-- 0011: a person's own choices (/capsa me, cogs/preferences.py), the same in every server:
-- the language of what they read privately (NULL: their Discord client's, any catalogue
-- language otherwise, checked by the repository), their deck style (capsa.cards.DeckStyle)
-- and where their hands go (data/repository.py HandsIn): by DM, or in the channel only
-- ("Show my hand" on the round's status opens their builder there; no DM is sent).
CREATE TABLE preferences (
    user_id    BIGINT PRIMARY KEY,
    language   TEXT,
    deck       TEXT NOT NULL DEFAULT 'classic'
               CHECK (deck IN ('classic', 'four_colour', 'letters', 'four_colour_letters')),
    hands      TEXT NOT NULL DEFAULT 'dm' CHECK (hands IN ('dm', 'channel')),
    updated_at TIMESTAMPTZ NOT NULL
);
