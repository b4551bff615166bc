-- Sync's capture triggers exist only while the file syncs (Sources/PrefsKit/SQLite/
-- SyncCapture.swift): every statement writing preference, bookmark or bookmark_tag compiled
-- them when prepared, in files that never synced too. They are dropped here; the same
-- transaction makes them again where a sync_state row says the file syncs.
DROP TRIGGER sync_preference_inserted;
DROP TRIGGER sync_preference_updated;
DROP TRIGGER sync_preference_deleted;
DROP TRIGGER sync_bookmark_inserted;
DROP TRIGGER sync_bookmark_updated;
DROP TRIGGER sync_bookmark_deleted;
DROP TRIGGER sync_tag_inserted;
DROP TRIGGER sync_tag_deleted;
DROP TRIGGER sync_bookmark_tags_deleted;
DROP TRIGGER sync_bookmark_align_inserted;
DROP TRIGGER sync_bookmark_align_moved;
DROP TRIGGER sync_bookmark_align_deleted;
