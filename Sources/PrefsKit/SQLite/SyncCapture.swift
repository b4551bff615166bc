internal import SQLiteCore

/// The triggers that capture local writes for sync, on `preference`, `bookmark` and
/// `bookmark_tag`. They exist only while the file syncs (a `sync_state` row): made when sync
/// starts, in its transaction, and dropped when the device leaves. A statement that writes
/// those tables compiles every trigger on them when it is prepared, so while they existed in
/// every file, each set and bookmark insert of a file that never synced paid to compile
/// them (the preference upsert took about twice as long to prepare, a bookmark insert ten
/// times: `prefs-bench --only set`).
///
/// What they do is `Migrations/0008_sync.sql`'s account; the `sync_capture` and `sync_align`
/// views they write through stay in the schema.
package enum SyncCapture {
    /// Their names, in the order they are made (which is the order SQLite fires triggers of
    /// one event in: the newest first).
    static let triggerNames = [
        "sync_preference_inserted",
        "sync_preference_updated",
        "sync_preference_deleted",
        "sync_bookmark_inserted",
        "sync_bookmark_updated",
        "sync_bookmark_deleted",
        "sync_tag_inserted",
        "sync_tag_deleted",
        "sync_bookmark_tags_deleted",
        "sync_bookmark_align_inserted",
        "sync_bookmark_align_moved",
        "sync_bookmark_align_deleted",
    ]

    /// Makes the triggers that are missing.
    static func create(_ connection: Connection) throws {
        try connection.execute(sql: createSQL)
    }

    /// Drops them.
    static func drop(_ connection: Connection) throws {
        try connection.execute(
            sql: triggerNames.map { "DROP TRIGGER IF EXISTS \($0);" }.joined(separator: "\n"))
    }

    /// Makes them when the file syncs: run by the migration that took them out of every file
    /// (`Migrations/0012_sync_capture_while_syncing.sql`), in its transaction, so that a
    /// syncing file never has a moment without them.
    static func createIfSyncing(_ connection: Connection) throws {
        if try connection.scalar(Int.self, sql: "SELECT count(*) FROM sync_state") ?? 0 > 0 {
            try create(connection)
        }
    }

    /// Stamps a write that changed no row: a set of the value stored, a removal of what is
    /// not there, a bookmark field or tag given again. It is still the user's latest decision
    /// (docs/sync.md, "Stamping"): while the file syncs (or has left), stamped now as the
    /// triggers stamp a change; before it ever synced, noted with its time for the first
    /// round, as the triggers of `Migrations/0013_sync_loses_nothing.sql` note changes. Not
    /// while a pull applies, nor for a key declared device-local (`preference`: its suite
    /// and key). `value`: a bookmark field's (a preference's is read when pushed).
    static func restate(
        _ connection: Connection, entity: String, ident: String, field: String,
        present: Bool, value: SQLiteValue = .null, preference: (suite: String, key: String)? = nil
    ) throws {
        let deviceLocal = """
            NOT EXISTS (SELECT 1 FROM preference_declaration
                WHERE suite = ?6 AND key = ?7 AND device_local = 1)
            """
        let arguments: StatementArguments = [
            entity, ident, field, present, value, preference?.suite, preference?.key,
        ]
        try connection.cachedStatement(
            sql: """
                INSERT INTO sync_capture (entity, ident, field, present, value)
                SELECT ?1, ?2, ?3, ?4, ?5 FROM sync_state WHERE applying = 0 AND \(deviceLocal)
                """
        ).execute(arguments: arguments)
        let now = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
        try connection.cachedStatement(
            sql: """
                INSERT INTO sync_written_early (entity, ident, field, written_ms)
                SELECT ?1, ?2, ?3, \(now)
                WHERE ?4 = 1 AND NOT EXISTS (SELECT 1 FROM sync_state) AND \(deviceLocal)
                    AND ?5 IS ?5
                ON CONFLICT (entity, ident, field) DO UPDATE SET written_ms = excluded.written_ms
                """
        ).execute(arguments: arguments)
        try connection.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO sync_removed_early (entity, ident, field, removed_ms)
                SELECT ?1, ?2, ?3, \(now)
                WHERE ?4 = 0 AND NOT EXISTS (SELECT 1 FROM sync_state) AND \(deviceLocal)
                    AND ?5 IS ?5
                """
        ).execute(arguments: arguments)
    }

    /// The ident of bookmark `row` (`NEW` or `OLD`), as ``SyncIdent`` makes it.
    private static func bookmarkIdent(_ row: String) -> String {
        "hex(\(row).kind) || '.' || hex(\(row).item_id)"
    }

    /// A bookmark added: it exists, with every field of ``SyncFields/bookmark``.
    private static let bookmarkInserted: String = {
        let rows =
            [(SyncFields.bookmarkExists, "NULL")]
            + SyncFields.bookmark.map { ($0.name, $0.value ?? "NULL") }
        return """
            CREATE TRIGGER IF NOT EXISTS sync_bookmark_inserted AFTER INSERT ON bookmark
            WHEN (SELECT applying FROM sync_state) = 0
            BEGIN
                INSERT INTO sync_capture VALUES
            \(rows.map { "        ('bookmark', \(bookmarkIdent("NEW")), '\($0.0)', 1, \($0.1))" }
                .joined(separator: ",\n"));
            END;
            """
    }()

    /// A bookmark changed: each field of ``SyncFields/bookmark`` that changed.
    private static let bookmarkUpdated: String = {
        let inserts = SyncFields.bookmark.map { field in
            """
                    INSERT INTO sync_capture
                    SELECT 'bookmark', \(bookmarkIdent("NEW")), '\(field.name)', 1, \(field.value ?? "NULL")
                    WHERE \(field.changed);
            """
        }
        return """
            CREATE TRIGGER IF NOT EXISTS sync_bookmark_updated AFTER UPDATE ON bookmark
            WHEN (SELECT applying FROM sync_state) = 0
            BEGIN
            \(inserts.joined(separator: "\n"))
            END;
            """
    }()

    /// The script that makes them (`IF NOT EXISTS`); the benchmark runs it too.
    package static let createSQL = """
            CREATE TRIGGER IF NOT EXISTS sync_preference_inserted AFTER INSERT ON preference
            WHEN (SELECT applying FROM sync_state) = 0 AND NOT EXISTS (
                SELECT 1 FROM preference_declaration
                WHERE suite = NEW.suite AND key = NEW.key AND device_local = 1)
            BEGIN
                INSERT INTO sync_capture VALUES
                    ('preference', hex(NEW.suite) || '.' || hex(NEW.key), 'value', 1, NULL);
            END;

            -- Every update is the user's write, also one of the value's version alone.
            CREATE TRIGGER IF NOT EXISTS sync_preference_updated AFTER UPDATE ON preference
            WHEN (SELECT applying FROM sync_state) = 0 AND NOT EXISTS (
                    SELECT 1 FROM preference_declaration
                    WHERE suite = NEW.suite AND key = NEW.key AND device_local = 1)
            BEGIN
                INSERT INTO sync_capture VALUES
                    ('preference', hex(NEW.suite) || '.' || hex(NEW.key), 'value', 1, NULL);
            END;

            CREATE TRIGGER IF NOT EXISTS sync_preference_deleted AFTER DELETE ON preference
            WHEN (SELECT applying FROM sync_state) = 0 AND NOT EXISTS (
                SELECT 1 FROM preference_declaration
                WHERE suite = OLD.suite AND key = OLD.key AND device_local = 1)
            BEGIN
                INSERT INTO sync_capture VALUES
                    ('preference', hex(OLD.suite) || '.' || hex(OLD.key), 'value', 0, NULL);
            END;

            \(bookmarkInserted)

            \(bookmarkUpdated)

            -- The tombstone, then the newest removal (after the tags' tombstones too).
            CREATE TRIGGER IF NOT EXISTS sync_bookmark_deleted AFTER DELETE ON bookmark
            WHEN (SELECT applying FROM sync_state) = 0
            BEGIN
                INSERT INTO sync_capture VALUES
                    ('bookmark', hex(OLD.kind) || '.' || hex(OLD.item_id), 'exists', 0, NULL),
                    ('bookmark', hex(OLD.kind) || '.' || hex(OLD.item_id), '\(SyncFields.bookmarkRemoved)', 1,
                        NULL);
            END;

            -- Not a tag sync has already (present, at or after the bookmark's newest removal):
            -- one merged into a bookmark added here again (BookmarkStore.withSyncedTags).
            CREATE TRIGGER IF NOT EXISTS sync_tag_inserted AFTER INSERT ON bookmark_tag
            WHEN (SELECT applying FROM sync_state) = 0
            BEGIN
                INSERT INTO sync_capture
                SELECT 'tag', hex(b.kind) || '.' || hex(b.item_id) || '.' || hex(NEW.tag), 'present',
                    1, NULL
                FROM bookmark AS b WHERE b.id = NEW.bookmark_id AND NOT EXISTS (
                    SELECT 1 FROM sync_field AS t
                    WHERE t.entity = 'tag' AND t.field = 'present' AND t.present = 1
                        AND t.ident = hex(b.kind) || '.' || hex(b.item_id) || '.' || hex(NEW.tag)
                        AND t.clock >= coalesce((SELECT r.clock FROM sync_field AS r
                            WHERE r.entity = 'bookmark' AND r.field = '\(SyncFields.bookmarkRemoved)'
                                AND r.ident = hex(b.kind) || '.' || hex(b.item_id)), ''));
            END;

            -- A tag removed with its bookmark needs no tombstone of its own: the bookmark's has it.
            CREATE TRIGGER IF NOT EXISTS sync_tag_deleted AFTER DELETE ON bookmark_tag
            WHEN (SELECT applying FROM sync_state) = 0
            BEGIN
                INSERT INTO sync_capture
                SELECT 'tag', hex(kind) || '.' || hex(item_id) || '.' || hex(OLD.tag), 'present', 0, NULL
                FROM bookmark WHERE id = OLD.bookmark_id;
            END;

            -- A bookmark deleted takes its tags with it, and their sync fields with them: without a
            -- tombstone per tag, a tag of the deleted bookmark stayed present in sync, and came back on
            -- the other devices when the bookmark was added again without it. BEFORE: the tags are
            -- still there to be read.
            CREATE TRIGGER IF NOT EXISTS sync_bookmark_tags_deleted BEFORE DELETE ON bookmark
            WHEN (SELECT applying FROM sync_state) = 0
            BEGIN
                INSERT INTO sync_capture
                SELECT 'tag', hex(OLD.kind) || '.' || hex(OLD.item_id) || '.' || hex(tag), 'present', 0,
                    NULL
                FROM bookmark_tag WHERE bookmark_id = OLD.id;
            END;

            CREATE TRIGGER IF NOT EXISTS sync_bookmark_align_inserted BEFORE INSERT ON bookmark
            WHEN (SELECT applying FROM sync_state) = 0
                AND EXISTS (SELECT 1 FROM sync_misaligned WHERE kind = NEW.kind)
            BEGIN
                INSERT INTO sync_align VALUES (NEW.kind);
            END;

            CREATE TRIGGER IF NOT EXISTS sync_bookmark_align_moved BEFORE UPDATE OF position ON bookmark
            WHEN (SELECT applying FROM sync_state) = 0
                AND EXISTS (SELECT 1 FROM sync_misaligned WHERE kind = OLD.kind)
            BEGIN
                INSERT INTO sync_align VALUES (OLD.kind);
            END;

            CREATE TRIGGER IF NOT EXISTS sync_bookmark_align_deleted BEFORE DELETE ON bookmark
            WHEN (SELECT applying FROM sync_state) = 0
                AND EXISTS (SELECT 1 FROM sync_misaligned WHERE kind = OLD.kind)
            BEGIN
                INSERT INTO sync_align VALUES (OLD.kind);
            END;
        """
}
