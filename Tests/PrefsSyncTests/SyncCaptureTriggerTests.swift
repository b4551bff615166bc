import Foundation
import PrefsSync
import TestSupport
import Testing

@testable import PrefsKit
@testable import SQLiteCore

/// Sync's capture triggers exist only while a file syncs: a file that never synced compiles
/// none of them into its writes, and a file that syncs captures every write, across the
/// upgrade that took them out of other files and until the device leaves.
@Suite struct SyncCaptureTriggerTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// The capture triggers the file holds.
    func captureTriggers(_ path: String) throws -> [String] {
        let connection = try Connection(path: path)
        return try connection.rows(
            sql: """
                SELECT name FROM sqlite_schema WHERE type = 'trigger'
                    AND tbl_name IN ('preference', 'bookmark', 'bookmark_tag')
                    AND name LIKE 'sync%' ORDER BY name
                """
        ).compactMap { $0.get(0, as: String.self) }
    }

    /// Pending sync fields: the writes captured for the next push.
    func pending(_ path: String) throws -> Int {
        try Connection(path: path).scalar(
            Int.self, sql: "SELECT count(*) FROM sync_field WHERE pending = 1") ?? 0
    }

    /// A file made by the schema before this change (version 11), syncing or not.
    func fileOfVersion11(syncing: Bool) throws -> String {
        let path = folder.path(syncing ? "syncing.sqlite" : "alone.sqlite")
        let connection = try Connection(path: path)
        try connection.execute(sql: "PRAGMA journal_mode = WAL")
        let before = SQLiteEngine.migrations.filter { $0.version <= 11 }
        _ = try Migrator(migrations: before, applicationID: AppDatabase.applicationID).migrate(
            connection)
        if syncing {
            try connection.execute(
                sql:
                    "INSERT INTO sync_state (only, device_id, hub, account) VALUES (1, 'd1', 'h', 'a')"
            )
        }
        #expect(try captureTriggers(path).count == SyncCapture.triggerNames.count)
        return path
    }

    @Test func aFileThatNeverSyncedCompilesNoCaptureIntoItsWrites() throws {
        let path = folder.path("prefs.sqlite")
        let database = try AppDatabase(path: path)
        PreferenceStore(database: database).set(true, forKey: "hasViewedWalkthrough")
        try BookmarkStore(database: database).add(
            BookmarkDraft(kind: "trip", itemID: "london", title: "London", tags: ["uk"]))
        #expect(try captureTriggers(path) == [])
        #expect(try pending(path) == 0)
    }

    @Test func anUpgradedFileThatSyncsKeepsCapturingEveryWrite() throws {
        let path = try fileOfVersion11(syncing: true)
        let database = try AppDatabase(path: path)
        #expect(try captureTriggers(path).count == SyncCapture.triggerNames.count)
        PreferenceStore(database: database).set(true, forKey: "hasViewedWalkthrough")
        #expect(try pending(path) == 1)
        try BookmarkStore(database: database).add(
            BookmarkDraft(kind: "trip", itemID: "london", title: "London", tags: ["uk"]))
        // The bookmark's seven fields and its tag.
        #expect(try pending(path) == 1 + 7 + 1)
    }

    @Test func anUpgradedFileThatNeverSyncedLosesThem() throws {
        let path = try fileOfVersion11(syncing: false)
        let database = try AppDatabase(path: path)
        PreferenceStore(database: database).set(true, forKey: "hasViewedWalkthrough")
        #expect(try captureTriggers(path) == [])
        #expect(try pending(path) == 0)
    }

    /// A device that left keeps stamping its writes (not sending them): when it joins again,
    /// what changed meanwhile goes with the time it was made, and what it only pulled keeps
    /// the clock it came with.
    @Test func leavingKeepsThemSoTheWritesAfterGoWhenItJoinsAgain() throws {
        let path = try fileOfVersion11(syncing: true)
        let database = try AppDatabase(path: path)
        let store = PreferenceStore(database: database)
        store.set(1, forKey: "a")
        try DeviceSync.leave(database)
        #expect(try captureTriggers(path).count == SyncCapture.triggerNames.count)
        #expect(try DeviceSync.status(of: database) == nil)
        store.set(2, forKey: "a")
        #expect(try pending(path) == 1)
        #expect(store.integer(forKey: "a") == 2)
    }

    @Test func aSchemaCheckDoesNotCallASyncingFileDamaged() throws {
        // The damaged-schema check compares the file's schema with the migrations' own; the
        // capture triggers are not in the latter.
        let path = try fileOfVersion11(syncing: true)
        let database = try AppDatabase(path: path)
        let engine = try #require(database.state.withLock { $0.engine } as? SQLiteEngine)
        let error = SQLiteError(
            code: .error, extendedCode: 1, message: "no such column: x", sql: nil)
        #expect(
            engine.translate(error) as? DatabaseError
                != .notADatabase(path: path, detail: "its schema is damaged"))
    }
}
