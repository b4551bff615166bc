-- Sync stamps what the user decided, and tags merge (docs/sync.md, "Stamping" and "Tags").
--
-- 1. A bookmark's newest removal is a field of its own, `removed` (present, no value, the
--    clock of the removal): a bookmark has the tags stamped at or after it. The rule before
--    read the tags stamped at or after the bookmark's newest addition (its `exists`), so the
--    same bookmark added on two devices kept only the later addition's tags. A deletion
--    stamps `exists` (absent) and `removed`; an addition stamps `exists` only, so the clock
--    of the newest removal outlives it.
-- 2. What every replica shows stays what it shows: each bookmark's `removed` starts at the
--    clock of its `exists`, which hides what the old rule hid. The hub's migration
--    (`Migrations/postgres/0023_sync_stamps_intent.sql`) does the same to its rows, so a
--    device and its hub agree without a round; what is added from now on merges by the new
--    rule.
-- 3. Three capture triggers are made again for a file that syncs, in this migration's
--    transaction (SyncCapture.createIfSyncing): a deletion's stamps `removed` too; an
--    update of a preference is stamped whatever it changed (a write of the value held is
--    the user's latest decision; a write that changes no row is stamped by the store); a
--    tag sync has already (merged into a bookmark added here again) is not stamped.

INSERT OR IGNORE INTO sync_field (entity, ident, field, clock, present, value, pending)
SELECT 'bookmark', ident, 'removed', clock, 1, NULL, pending
FROM sync_field WHERE entity = 'bookmark' AND field = 'exists';

DROP TRIGGER IF EXISTS sync_bookmark_deleted;
DROP TRIGGER IF EXISTS sync_preference_updated;
DROP TRIGGER IF EXISTS sync_tag_inserted;
