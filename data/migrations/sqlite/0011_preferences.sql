-- 0011: a person's own choices (/capsa me, cogs/preferences.py), the same in every server:
-- the language of what they read privately (NULL: their Discord client's, any catalogue
-- language otherwise, checked by the repository) and their deck style (capsa.cards.DeckStyle).
CREATE TABLE preferences (
    user_id    INTEGER PRIMARY KEY,
    language   TEXT,
    deck       TEXT NOT NULL DEFAULT 'classic'
               CHECK (deck IN ('classic', 'four_colour', 'letters', 'four_colour_letters')),
    updated_at REAL NOT NULL
);
