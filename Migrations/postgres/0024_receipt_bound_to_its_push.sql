-- A push receipt is bound to the push that claimed its key (docs/sync-protocol.md): the
-- device and a hash of the pushed changes are kept with it. Another device of the account, or
-- other changes, sent under a kept key are refused (the key was used), not answered with the
-- first push's receipt while their own changes are dropped; a receipt older than a day is no
-- receipt, whether or not a newer key was claimed since. Receipts kept before this file have
-- no hash: the device alone is checked for them.
ALTER TABLE prefs_push_receipt ADD COLUMN changes_hash bytea;
