-- 0008: a server's settings are one JSON object (guild_settings.settings), keyed by the
-- names of capsa/settings.py's SERVER_SETTINGS, plus "options": the table options the server
-- chose for each preset ({"chinese-poker": {"method": "2-4", ...}}). The repository checks
-- every value against capsa/settings.py when it writes and when it reads (data/common.py),
-- so a new setting needs no migration; a value it does not know reads as the default.
-- The existing columns' values move into the object, each under its setting's name.
-- SQLite's DROP COLUMN cannot drop a column with a CHECK, so the table is rebuilt (as
-- 0003 rebuilt it); nothing references it.

CREATE TABLE guild_settings_new (
    guild_id    INTEGER PRIMARY KEY,
    settings    TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
    updated_at  REAL
);

INSERT INTO guild_settings_new (guild_id, settings, updated_at)
SELECT guild_id,
       json_object(
           'preset', preset,
           'rounds', rounds,
           'countdown', countdown,
           'bot_level', bot_level,
           'timeout_action', timeout_action,
           'language', language
       ),
       updated_at
FROM guild_settings;

DROP TABLE guild_settings;
ALTER TABLE guild_settings_new RENAME TO guild_settings;
