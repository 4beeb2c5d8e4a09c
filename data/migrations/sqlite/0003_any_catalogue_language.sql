-- 0003: a server's language may be any catalogue language (capsa.i18n.LANGS), checked by
-- the repository, so that adding a language needs no migration. SQLite cannot drop a CHECK,
-- so guild_settings is rebuilt without the one on language; nothing references it.

CREATE TABLE guild_settings_new (
    guild_id        INTEGER PRIMARY KEY,
    preset          TEXT    NOT NULL DEFAULT 'standard',
    rounds          INTEGER NOT NULL DEFAULT 10,
    countdown       INTEGER NOT NULL DEFAULT 120,
    bot_level       TEXT    NOT NULL DEFAULT 'normal'
                    CHECK (bot_level IN ('easy', 'normal', 'hard')),
    timeout_action  TEXT    NOT NULL DEFAULT 'auto' CHECK (timeout_action IN ('auto', 'foul')),
    language        TEXT    NOT NULL DEFAULT 'auto',
    updated_at      REAL
);

INSERT INTO guild_settings_new
    (guild_id, preset, rounds, countdown, bot_level, timeout_action, language, updated_at)
SELECT guild_id, preset, rounds, countdown, bot_level, timeout_action, language, updated_at
FROM guild_settings;

DROP TABLE guild_settings;
ALTER TABLE guild_settings_new RENAME TO guild_settings;
