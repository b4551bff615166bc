-- Changes numbered without a hot row (README "Sync"). A push took the account's counter
-- row and updated it, so any writer of sync changes held that row to the end of its
-- transaction. Now a push takes one number from a sequence (no row, no row version) for all
-- the changes it stores, under a lock of the account that is no row either (an advisory lock
-- held to the end of the pushing transaction): an account's pushes still number one after
-- another and commit in that order, so a pull from a cursor never skips a change that
-- committed late, and it reads whole pushes.

-- The owner reads every account's rows while it numbers (forced row-level security applies
-- to it too); forced again at the end.
ALTER TABLE sync_change NO FORCE ROW LEVEL SECURITY;
ALTER TABLE prefs_account_state NO FORCE ROW LEVEL SECURITY;

-- Past every number given so far (cursors keep their meaning).
CREATE SEQUENCE prefs_sync_sequence AS bigint;
SELECT setval('prefs_sync_sequence', greatest(
    (SELECT coalesce(max(sequence), 0) FROM sync_change),
    (SELECT coalesce(max(sync_sequence), 0) FROM prefs_account_state),
    (SELECT coalesce(max(cursor), 0) FROM sync_device)) + 1, false);
GRANT USAGE ON SEQUENCE prefs_sync_sequence TO prefs_account, prefs_service;

ALTER TABLE prefs_account_state DROP COLUMN sync_sequence;

ALTER TABLE sync_change FORCE ROW LEVEL SECURITY;
ALTER TABLE prefs_account_state FORCE ROW LEVEL SECURITY;
