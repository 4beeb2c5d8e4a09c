-- 0002: a refused DM gets its own column. Until now a hand whose DM was refused (the player
-- was told in the channel instead) stored 0 as its dm_message_id; such rows become
-- dm_refused = 1 with no DM message.

ALTER TABLE hands ADD COLUMN dm_refused INTEGER NOT NULL DEFAULT 0;

UPDATE hands SET dm_refused = 1, dm_message_id = NULL WHERE dm_message_id = 0;
