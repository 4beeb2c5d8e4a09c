-- 0013: surrender (RULES §5, chinese-poker's table option). A seat that gives its hand up
-- before the reveal is stored with hands.surrendered set and no rows: it pays each player
-- still in the preset's surrender cost, and its cards are never shown.

ALTER TABLE hands ADD COLUMN surrendered BOOLEAN NOT NULL DEFAULT FALSE;
