-- The opening of a push's transaction alone: prefs_sync_begin called twice for the account
-- :account, as a push calls it (prefs-server's opening call, then prefs_sync_push's own).
BEGIN;
SELECT set_config('prefs.account', :account, true);
SELECT b.number, b.rebuild FROM prefs_sync_begin(:account) AS b;
SELECT b.number, b.rebuild FROM prefs_sync_begin(:account) AS b;
COMMIT;
