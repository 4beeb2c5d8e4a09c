-- 0008: a server's settings are one JSON object (guild_settings.settings), keyed by the
-- names of capsa/settings.py's SERVER_SETTINGS, plus "options": the table options the server
-- chose for each preset ({"chinese-poker": {"method": "2-4", ...}}). The repository checks
-- every value against capsa/settings.py when it writes and when it reads (data/common.py),
-- so a new setting needs no migration; a value it does not know reads as the default.
-- The existing columns' values move into the object, each under its setting's name.

ALTER TABLE guild_settings ADD COLUMN settings JSONB NOT NULL DEFAULT '{}';

UPDATE guild_settings SET settings = jsonb_build_object(
    'preset', preset,
    'rounds', rounds,
    'countdown', countdown,
    'bot_level', bot_level,
    'timeout_action', timeout_action,
    'language', language
);

ALTER TABLE guild_settings
    DROP COLUMN preset,
    DROP COLUMN rounds,
    DROP COLUMN countdown,
    DROP COLUMN bot_level,
    DROP COLUMN timeout_action,
    DROP COLUMN language;
