import Foundation
import PostgresCore
import PrefsSync
import PrefsTestSupport
import Synchronization
import TestSupport
import Testing

@testable import PrefsKit
@testable import PrefsPostgreSQL

/// The hub is the account's store: a server app that opens the account on the hub's
/// database reads what the devices pushed, and what it writes reaches them.
@Suite struct SyncHubStoreTests {
    let server: PostgresServer
    let hub: String
    let hubDatabase: String
    let folder: TemporaryFolder

    init() throws {
        server = try PostgresServer.start()
        hubDatabase = try server.makeDatabase()
        hub = server.target(database: hubDatabase)
        folder = try TemporaryFolder()
    }

    private func device(_ name: String) throws -> AppDatabase {
        try AppDatabase(path: folder.path(name + ".db"))
    }

    /// The server app's store of the account, as `AppDatabase` opens it.
    private func serverApp(account: String = "alice") throws -> AppDatabase {
        var options = PostgreSQLOptions()
        options.account = account
        options.watchesForChanges = false
        return try AppDatabase.postgreSQL(hub, options: options)
    }

    @discardableResult
    private func sync(_ database: AppDatabase, account: String = "alice") throws -> SyncReport {
        try DeviceSync(database: database, hub: hub, account: account).sync()
    }

    private func hubCount(_ sql: String) throws -> String {
        let result = try server.psql(sql, database: hubDatabase)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aServerAppReadsWhatTheDevicesPushed() throws {
        let phone = try device("phone")
        try PreferenceStore(database: phone).set(true, for: .hasViewedWalkthrough)
        try PreferenceStore(database: phone).setValue(.string("dark"), forKey: "theme")
        try BookmarkStore(database: phone).add(
            BookmarkDraft(
                kind: "article", itemID: "a1", title: "Swift", category: "Reading",
                tags: ["lang"]))
        try sync(phone)
        let app = try serverApp()
        let preferences = PreferenceStore(database: app)
        #expect(preferences[.hasViewedWalkthrough] == true)
        #expect(try preferences.value(forKey: "theme") == .string("dark"))
        let bookmarks = try BookmarkStore(database: app).list()
        #expect(bookmarks.map(\.itemID) == ["a1"])
        #expect(bookmarks.first?.title == "Swift")
        #expect(bookmarks.first?.tags == ["lang"])
        // Its history holds the change too.
        let history = try preferences.history(forKey: "theme")
        #expect(history.first?.value == .string("dark"))
        // No second copy of a preference's value on the hub.
        #expect(
            try hubCount(
                "SELECT count(*) FROM sync_change WHERE entity = 'preference' AND value IS NOT NULL"
            ) == "0")
    }

    @Test func aServerWriteReachesEveryDevice() throws {
        let phone = try device("phone")
        let laptop = try device("laptop")
        try PreferenceStore(database: phone).setValue(.int(1), forKey: "launchCount")
        try PreferenceStore(database: phone).setValue(.string("x"), forKey: "gone")
        try sync(phone)
        try sync(laptop)
        let app = try serverApp()
        try PreferenceStore(database: app).transaction { edit in
            try edit.setValue(.int(2), forKey: "launchCount")
            try edit.setValue(nil, forKey: "gone")
            try edit.setValue(.string("server"), forKey: "fromServer")
        }
        try BookmarkStore(database: app).add(
            BookmarkDraft(kind: "movie", itemID: "m1", title: "Heat", tags: ["crime"]))
        for database in [phone, laptop] {
            let report = try sync(database)
            #expect(report.pushed == 0)
            let preferences = PreferenceStore(database: database)
            #expect(try preferences.value(forKey: "launchCount") == .int(2))
            #expect(try preferences.storedValue(forKey: "gone") == nil)
            #expect(try preferences.value(forKey: "fromServer") == .string("server"))
            let bookmark = try BookmarkStore(database: database).bookmark(
                kind: "movie", itemID: "m1")
            #expect(bookmark?.title == "Heat")
            #expect(bookmark?.tags == ["crime"])
        }
        // The server's deletion of a bookmark, and of a tag, reach them too.
        try BookmarkStore(database: app).add(
            BookmarkDraft(kind: "movie", itemID: "m2", title: "Ran", tags: ["war", "drama"]))
        try sync(phone)
        #expect(try BookmarkStore(database: phone).bookmark(kind: "movie", itemID: "m2") != nil)
        #expect(try BookmarkStore(database: app).remove(kind: "movie", itemID: "m1"))
        try BookmarkStore(database: app).add(
            BookmarkDraft(kind: "movie", itemID: "m2", title: "Ran", tags: ["war"]))
        try sync(phone)
        #expect(try BookmarkStore(database: phone).bookmark(kind: "movie", itemID: "m1") == nil)
        #expect(
            try BookmarkStore(database: phone).bookmark(kind: "movie", itemID: "m2")?.tags
                == ["war"])
    }

    @Test func whatTheServerHeldBeforeAnyDeviceReachesTheFirstOne() throws {
        let app = try serverApp()
        try PreferenceStore(database: app).setValue(.bool(true), forKey: "beta")
        try BookmarkStore(database: app).add(
            BookmarkDraft(kind: "article", itemID: "welcome", title: "Welcome", tags: ["new"]))
        // Before any device, the server's writes are not stamped: no cost for accounts that
        // do not sync.
        #expect(try hubCount("SELECT count(*) FROM sync_change") == "0")
        let phone = try device("phone")
        let report = try sync(phone)
        #expect(report.pulled >= 2)
        #expect(try PreferenceStore(database: phone).value(forKey: "beta") == .bool(true))
        let bookmark = try BookmarkStore(database: phone).bookmark(
            kind: "article", itemID: "welcome")
        #expect(bookmark?.tags == ["new"])
    }

    @Test func aServerWriteLaterThanADevicesAheadClockStillWins() throws {
        let phone = try device("phone")
        try sync(phone)
        // The phone's clock runs two minutes ahead (within the bound).
        try DeviceSync(database: phone, hub: hub, account: "alice").setClockSkew(
            milliseconds: 120_000)
        try PreferenceStore(database: phone).setValue(.string("phone"), forKey: "theme")
        try sync(phone)
        // The server writes after it: its value is the newest in its table, and it must be
        // the newest by clock too, or the phone would keep its own.
        try PreferenceStore(database: try serverApp()).setValue(
            .string("server"), forKey: "theme")
        try sync(phone)
        #expect(try PreferenceStore(database: phone).value(forKey: "theme") == .string("server"))
    }

    @Test func aKeyTheServerDeclaresDeviceLocalIsNotSynced() throws {
        let phone = try device("phone")
        try sync(phone)
        let app = try serverApp()
        try PreferenceStore(database: app).declare(
            PreferenceDeclaration(key: "serverOnly", type: .int, isDeviceLocal: true))
        try PreferenceStore(database: app).setValue(.int(7), forKey: "serverOnly")
        try sync(phone)
        #expect(try PreferenceStore(database: phone).storedValue(forKey: "serverOnly") == nil)
    }

    @Test func aServerTransactionAndAPushOfTheSameAccountBothCommit() throws {
        let phone = try device("phone")
        try sync(phone)
        // A server transaction in flight holds the account's sync lock to its commit.
        let app = try PGConnection(hub)
        _ = try app.execute("BEGIN")
        _ = try app.execute("SELECT set_config('prefs.account', 'alice', true)")
        _ = try app.execute(
            """
            INSERT INTO preference (suite, key, type, value, updated_at)
            VALUES ('standard', 'inFlight', 'int', '1', 0)
            """)
        try PreferenceStore(database: phone).setValue(.int(5), forKey: "fromPhone")
        let done = Atomic<Bool>(false)
        let pushing = Thread {
            _ = try? DeviceSync(database: phone, hub: hub, account: "alice").sync()
            done.store(true, ordering: .releasing)
        }
        pushing.start()
        Thread.sleep(forTimeInterval: 0.3)
        let finishedEarly = done.load(ordering: .acquiring)
        #expect(!finishedEarly)
        // The server goes on writing (no deadlock with the waiting push), and commits.
        _ = try app.execute(
            """
            UPDATE preference SET value = '2' WHERE suite = 'standard' AND key = 'inFlight'
            """)
        _ = try app.execute("COMMIT")
        let deadline = Date().addingTimeInterval(10)
        while !done.load(ordering: .acquiring) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let finished = done.load(ordering: .acquiring)
        #expect(finished)
        #expect(try DeviceSync.status(of: phone)?.pending == 0)
        try sync(phone)
        #expect(try PreferenceStore(database: phone).value(forKey: "inFlight") == .int(2))
        #expect(
            try PreferenceStore(database: try serverApp()).value(forKey: "fromPhone") == .int(5))
    }

    @Test func aServerWriteToAnotherAccountReachesNoDeviceOfThisOne() throws {
        let phone = try device("phone")
        try sync(phone)
        let other = try device("other")
        try sync(other, account: "bob")
        try PreferenceStore(database: try serverApp(account: "bob")).setValue(
            .int(1), forKey: "bobsOnly")
        try sync(phone)
        #expect(try PreferenceStore(database: phone).storedValue(forKey: "bobsOnly") == nil)
        try sync(other, account: "bob")
        #expect(try PreferenceStore(database: other).value(forKey: "bobsOnly") == .int(1))
    }

    /// A server app that connects as a role that bypasses row-level security (a superuser,
    /// as here, or BYPASSRLS) still reads only its account's tags: bookmark ids are per
    /// account, so a join by id alone would show another account's tags on its bookmark.
    @Test func aRoleThatBypassesRowSecurityReadsOnlyItsAccountsTags() throws {
        let alice = BookmarkStore(database: try serverApp(account: "alice"))
        let bob = BookmarkStore(database: try serverApp(account: "bob"))
        let mine = try alice.add(BookmarkDraft(kind: "movie", itemID: "m", title: "A", tags: ["a"]))
        let theirs = try bob.add(
            BookmarkDraft(kind: "movie", itemID: "m", title: "B", tags: ["secret"]))
        #expect(mine.id == theirs.id)
        #expect(try alice.list().map(\.tags) == [["a"]])
        #expect(try alice.list(BookmarkQuery(tag: "secret")).isEmpty)
        #expect(try alice.search("secret").isEmpty)
    }

    /// A hub from before the account's tables were its store (schema version 9): what its
    /// devices synced lived in sync_change only, apart from the server's own rows. Migrated,
    /// the synced values are in the account's tables (sync's winning where both had a key),
    /// no value stays in sync_change, the server's other rows reach the devices, and the
    /// synced bookmarks are built at the next contact of a device.
    @Test func aHubFromBeforeKeepsWhatItsDevicesSynced() throws {
        let old = try PGConnection(hub)
        try old.executeScript(
            """
            CREATE TABLE prefs_schema_migration (version integer PRIMARY KEY, name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now())
            """)
        for migration in PostgreSQLEngine.migrations where migration.version <= 9 {
            try old.executeScript(migration.sql)
            _ = try old.execute(
                "INSERT INTO prefs_schema_migration (version, name) VALUES ($1, $2)",
                [String(migration.version), migration.name])
        }
        let oldDevice = "0a1b2c3d4e5f6071"
        let clock = HybridClock(
            milliseconds: Int64(Date().timeIntervalSince1970 * 1000) - 60_000, counter: 0,
            device: oldDevice
        ).text
        func row(
            _ entity: String, _ names: [String], _ field: String, present: Bool = true,
            type: String? = nil, value: String? = nil
        ) -> String {
            "('alice', '\(entity)', '\(SyncIdent.make(names))', '\(field)', '\(clock)', '\(oldDevice)',"
                + " \(present), \(type.map { "'\($0)'" } ?? "NULL"),"
                + " \(value.map { "'\($0)'" } ?? "NULL"), nextval('prefs_sync_sequence'))"
        }
        let rows = [
            row("preference", ["standard", "theme"], "value", type: "string", value: "dark"),
            row("preference", ["standard", "gone"], "value", present: false),
            row("bookmark", ["movie", "m1"], "exists"),
            row("bookmark", ["movie", "m1"], "title", type: "string", value: "Heat"),
            row("bookmark", ["movie", "m1"], "position", type: "int", value: "0"),
            row("tag", ["movie", "m1", "crime"], "present"),
        ]
        let planted = try server.psql(
            """
            INSERT INTO sync_change (account, entity, ident, field, clock, device, present, type,
                value, sequence) VALUES \(rows.joined(separator: ",\n"));
            INSERT INTO sync_device (account, device, cursor, seen_at)
            VALUES ('alice', '\(oldDevice)', 0, extract(epoch FROM now()) - 978307200);
            INSERT INTO preference (account, suite, key, type, value, updated_at) VALUES
                ('alice', 'standard', 'theme', 'string', 'light', 0),
                ('alice', 'standard', 'gone', 'int', '1', 0),
                ('alice', 'standard', 'serverOnly', 'int', '7', 0);
            """, database: hubDatabase)
        try #require(planted.status == 0, "\(planted.stderr)")
        // The server app opens it: migrated.
        let app = try serverApp()
        let preferences = PreferenceStore(database: app)
        #expect(try preferences.value(forKey: "theme") == .string("dark"))
        #expect(try preferences.storedValue(forKey: "gone") == nil)
        #expect(try preferences.value(forKey: "serverOnly") == .int(7))
        #expect(
            try hubCount(
                "SELECT count(*) FROM sync_change WHERE entity = 'preference' AND value IS NOT NULL"
            ) == "0")
        // A new device gets all of it; the server's view has the bookmark once a device came.
        let phone = try device("phone")
        try sync(phone)
        let onPhone = PreferenceStore(database: phone)
        #expect(try onPhone.value(forKey: "theme") == .string("dark"))
        #expect(try onPhone.value(forKey: "serverOnly") == .int(7))
        #expect(try onPhone.storedValue(forKey: "gone") == nil)
        let bookmark = try BookmarkStore(database: phone).bookmark(kind: "movie", itemID: "m1")
        #expect(bookmark?.title == "Heat")
        #expect(bookmark?.tags == ["crime"])
        let onServer = try BookmarkStore(database: app).bookmark(kind: "movie", itemID: "m1")
        #expect(onServer?.title == "Heat")
        #expect(onServer?.tags == ["crime"])
        #expect(try hubCount("SELECT count(*) FROM prefs_account_state WHERE sync_rebuild") == "0")
    }
}
