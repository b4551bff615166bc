import Foundation
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import PrefsTestSupport
import TestSupport
import Testing

/// A device's own login role (alice) attacking the hub with raw SQL through psql, directly
/// and through PgBouncer in transaction pooling: the sync tables, the session settings the
/// hub once relied on, and the hub's functions called for another account (bob). Each test
/// is named after its attack; after each, alice's and bob's devices still sync what their
/// users wrote.
@Suite(.serialized, .enabled(if: PgBouncer.isInstalled, "PgBouncer is not installed"))
struct HubRoleAttackTests {
    enum Route: String, CaseIterable, CustomTestStringConvertible {
        case direct, pooled
        var testDescription: String { rawValue }
    }

    let server: PostgresServer
    let database: String
    let folder: TemporaryFolder

    init() throws {
        server = try PostgresServer.start()
        database = try server.makePrefsDatabase(roles: [
            ("alice", "prefs_account"), ("bob", "prefs_account"),
        ])
        folder = try TemporaryFolder()
    }

    func target(_ route: Route, user: String) throws -> String {
        switch route {
        case .direct: server.target(database: database, user: user)
        case .pooled: try PgBouncer.start().target(database: database, user: user)
        }
    }

    /// Runs `sql` as `user` through `route`, as one psql session.
    func attack(_ sql: String, _ route: Route, as user: String = "alice") throws -> ProcessOutput {
        try runProcess(
            URL(fileURLWithPath: "/usr/bin/psql"),
            ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", try target(route, user: user)]
                + ["-c", sql])
    }

    /// A device of `user`'s account that has synced once through `route`.
    func device(_ user: String, _ route: Route) throws -> (PreferenceStore, DeviceSync) {
        var options = AppDatabase.Options()
        options.watchesForChanges = false
        let database = try AppDatabase(
            path: folder.path("\(user)-\(route).db"), options: options)
        var hubOptions = PostgreSQLOptions()
        hubOptions.isBehindTransactionPooler = route == .pooled
        let sync = try DeviceSync(
            database: database, hub: try target(route, user: user), hubOptions: hubOptions)
        try sync.sync()
        return (PreferenceStore(database: database), sync)
    }

    func count(_ sql: String) throws -> String {
        try server.psql(sql, database: database).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let forgedRow = """
        INSERT INTO sync_change (entity, ident, field, clock, device, present, sequence, suite,
            key)
        VALUES ('preference', upper(encode('standard', 'hex')) || '.'
            || upper(encode('theme', 'hex')), 'value', '000000000000001-000000-evil', 'evil',
            true, 1, 'standard', 'theme')
        """

    /// The row reached alice's devices but never the store's tables; a low number hid it
    /// from devices past that number. The role has no INSERT, UPDATE or DELETE there now.
    @Test(arguments: Route.allCases)
    func aRowWrittenIntoSyncChangeByADeviceRoleIsRefused(route: Route) throws {
        _ = try device("alice", route)
        for sql in [
            Self.forgedRow, "UPDATE sync_change SET sequence = 1",
            "DELETE FROM sync_change", "DELETE FROM sync_device",
            "INSERT INTO sync_misaligned (kind) VALUES ('trip')",
            "SELECT nextval('prefs_sync_sequence')",
        ] {
            let output = try attack(sql, route)
            #expect(output.status != 0, "\(sql)")
            #expect(output.stderr.contains("permission denied"), "\(sql): \(output.stderr)")
        }
        #expect(try count("SELECT count(*) FROM sync_change WHERE device = 'evil'") == "0")
    }

    /// Claiming to be a push applying once switched off the clock bound; the push's own
    /// function checks every row it stores, whoever calls it.
    @Test(arguments: Route.allCases)
    func aForgedClockPushedThroughTheHubsFunctionIsRefused(route: Route) throws {
        let document = """
            [{"n": 1, "entity": "preference", "ident": "7374616E64617264.7468656D65",
              "field": "value", "clock": "999999999999999-000000-evil", "device": "evil",
              "present": true, "type": "string", "value": "evil"}]
            """
        let output = try attack(
            "SELECT * FROM prefs_sync_push_store('alice', '\(document)'::jsonb, '{}')", route)
        #expect(output.status != 0)
        #expect(output.stderr.contains("ahead of the hub"), "\(output.stderr)")
        #expect(try count("SELECT count(*) FROM sync_change WHERE device = 'evil'") == "0")
    }

    /// A transaction's number was a setting: set low, the server write it numbered was never
    /// pulled by a device whose cursor was past it. Now it is the hub's own record.
    @Test(arguments: Route.allCases)
    func aLowNumberSetInTheSessionNumbersNothing(route: Route) throws {
        let (store, sync) = try device("alice", route)
        try store.setValue(.int(1), forKey: "before")
        try sync.sync()
        let output = try attack(
            """
            BEGIN;
            SELECT set_config('prefs.sync_number', '1 alice', true);
            INSERT INTO preference (suite, key, type, value, updated_at)
                VALUES ('standard', 'theme', 'string', 'dark', 0);
            COMMIT;
            """, route)
        #expect(output.status == 0, "\(output.stderr)")
        try sync.sync()
        #expect(try store.storedValue(forKey: "theme") == .string("dark"))
    }

    /// "A push is applying" was a setting: set by hand, the role's server writes were not
    /// stamped and never reached its devices. A setting is no token.
    @Test(arguments: Route.allCases)
    func aSessionClaimingAPushApplyingStillHasItsWritesStamped(route: Route) throws {
        let (store, sync) = try device("alice", route)
        let output = try attack(
            """
            BEGIN;
            SELECT set_config('prefs.sync_applying', 'on', true);
            INSERT INTO preference (suite, key, type, value, updated_at)
                VALUES ('standard', 'theme', 'string', 'dark', 0);
            COMMIT;
            BEGIN;
            SELECT set_config('prefs.sync_applying', replace(gen_random_uuid()::text, '-', ''),
                true);
            INSERT INTO preference (suite, key, type, value, updated_at)
                VALUES ('standard', 'volume', 'int', '3', 0);
            COMMIT;
            """, route)
        #expect(output.status == 0, "\(output.stderr)")
        try sync.sync()
        #expect(try store.storedValue(forKey: "theme") == .string("dark"))
        #expect(try store.storedValue(forKey: "volume") == .int(3))
    }

    /// A transaction that opened a push with the hub's own function (as every push does)
    /// and then wrote the account's tables directly: the token of "a push is applying" that
    /// prefs_sync_begin keeps turned stamping off, so the hub's store held a title and a
    /// preference no device would ever pull. What differs from the merged fields is stamped.
    @Test(arguments: Route.allCases)
    func aTransactionThatBeganAPushStillHasItsOwnWritesStamped(route: Route) throws {
        let (store, sync) = try device("alice", route)
        let bookmarks = BookmarkStore(database: store.database)
        try bookmarks.add(BookmarkDraft(kind: "trip", itemID: "london", title: "London"))
        try sync.sync()
        let output = try attack(
            """
            BEGIN;
            SELECT number FROM prefs_sync_begin('alice');
            UPDATE bookmark SET title = 'Londinium' WHERE item_id = 'london';
            INSERT INTO preference (suite, key, type, value, updated_at)
                VALUES ('standard', 'theme', 'string', 'dark', 0);
            COMMIT;
            """, route)
        #expect(output.status == 0, "\(output.stderr)")
        try sync.sync()
        #expect(try bookmarks.bookmark(kind: "trip", itemID: "london")?.title == "Londinium")
        #expect(try store.storedValue(forKey: "theme") == .string("dark"))
        // The device's own edits still go the other way, and a round after is quiet.
        try bookmarks.update(kind: "trip", itemID: "london") { $0.title = "London" }
        try sync.sync()
        #expect(
            try count("SELECT title FROM bookmark WHERE account = 'alice' AND item_id = 'london'")
                == "London")
        let quiet = try sync.sync()
        #expect(quiet.pushed == 0 && quiet.pulled == 0, "\(quiet)")
    }

    /// Turning the account's stamping off, or changing its channel (the secret of its lock
    /// and notifications), is the hub's alone.
    @Test(arguments: Route.allCases)
    func turningTheAccountsStampingOffIsRefused(route: Route) throws {
        _ = try device("alice", route)
        for sql in [
            "UPDATE prefs_account_state SET sync_on = false",
            "UPDATE prefs_account_state SET channel = 'prefs:known'",
            "DELETE FROM prefs_account_state",
        ] {
            let output = try attack(sql, route)
            #expect(output.stderr.contains("permission denied"), "\(sql): \(output.stderr)")
        }
        #expect(try count("SELECT count(*) FROM prefs_account_state WHERE sync_on") == "1")
    }

    /// The hub's functions run as the store's owner: called for bob by alice, each is
    /// refused, and the inner ones cannot be called at all.
    @Test(arguments: Route.allCases)
    func theHubsFunctionsActForTheCallersAccountOnly(route: Route) throws {
        let (bobsStore, bobsSync) = try device("bob", route)
        try bobsStore.setValue(.string("light"), forKey: "theme")
        try bobsSync.sync()
        for sql in [
            "SELECT * FROM prefs_sync_begin('bob')",
            "SELECT prefs_sync_number('bob')",
            "SELECT prefs_sync_device_forget('bob', 'x')",
            "SELECT prefs_sync_device_name('bob', 'x', 'Bob''s phone, says Alice')",
            "SELECT prefs_sync_device_pushed('bob', 'x', '999999999999999-000000-x')",
            "SELECT prefs_sync_rebuilt('bob')",
            "SELECT * FROM prefs_sync_push_store('bob', '[]'::jsonb, '{}')",
            "SELECT prefs_sync_stamp('bob', 'preference', 'AB.CD', 'value', false, NULL, NULL)",
        ] {
            let output = try attack(sql, route)
            #expect(output.status != 0, "\(sql)")
            #expect(
                output.stderr.contains("acts only for the account"), "\(sql): \(output.stderr)")
        }
        for sql in ["SELECT prefs_sync_take_number('alice')", "SELECT prefs_sync_acting('bob')"] {
            let output = try attack(sql, route)
            #expect(output.stderr.contains("permission denied"), "\(sql): \(output.stderr)")
        }
        // A group role set with SET ROLE acts for no account, in the hub's functions too.
        let grouped = try attack(
            "SET ROLE prefs_account; SELECT * FROM prefs_sync_begin('bob')", route)
        #expect(grouped.status != 0)
        try bobsStore.setValue(.string("dark"), forKey: "theme")
        #expect(try bobsSync.sync().pushed == 1)
        #expect(
            try count(
                "SELECT value FROM preference WHERE account = 'bob' AND key = 'theme'") == "dark")
    }

    /// A second `prefs_sync_begin` in one transaction answers from the transaction's row
    /// (migration 0031) without checking the account again: that row is the account's own.
    /// Begun for alice, the transaction is still refused for bob, and a token alice blanked
    /// between the two calls is set again (her writes after it are a push's, not stamped).
    @Test(arguments: Route.allCases)
    func aTransactionBegunForItsOwnAccountCannotBeginForAnother(route: Route) throws {
        let (bobsStore, bobsSync) = try device("bob", route)
        try bobsStore.setValue(.string("light"), forKey: "theme")
        try bobsSync.sync()
        let refused = try attack(
            """
            BEGIN;
            SELECT number FROM prefs_sync_begin('alice');
            SELECT number FROM prefs_sync_begin('bob');
            COMMIT;
            """, route)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("acts only for the account"), "\(refused.stderr)")
        let again = try attack(
            """
            BEGIN;
            SELECT number > 0 FROM prefs_sync_begin('alice');
            SELECT set_config('prefs.sync_applying', '', true) = '';
            SELECT number > 0 FROM prefs_sync_begin('alice');
            SELECT current_setting('prefs.sync_applying') <> '';
            COMMIT;
            """, route)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.split(separator: "\n") == ["t", "t", "t", "t"], "\(again.stdout)")
        #expect(
            try count("SELECT value FROM preference WHERE account = 'bob' AND key = 'theme'")
                == "light")
        try bobsStore.setValue(.string("dark"), forKey: "theme")
        #expect(try bobsSync.sync().pushed == 1)
    }

    /// The hub's functions run as the store's owner, under row-level security when the owner
    /// is no superuser (as docs/postgresql.md sets it up): a device's push, a server app's
    /// write and the pull that brings it all act for the caller's account there too.
    @Test(arguments: Route.allCases)
    func aStoreOwnedByAPlainRoleSyncsThroughItsFunctions(route: Route) throws {
        try server.makeLoginRoles([("service", "prefs_service")])
        let name = try server.makeDatabaseOfPlainOwner(prefix: "t_plain_")
        _ = try AppDatabase.postgreSQL(server.target(database: name, user: "plain_owner"))
        let hub: String
        switch route {
        case .direct: hub = server.target(database: name, user: "alice")
        case .pooled: hub = try PgBouncer.start().target(database: name, user: "alice")
        }
        var hubOptions = PostgreSQLOptions()
        hubOptions.isBehindTransactionPooler = route == .pooled
        let device = PreferenceStore(database: try AppDatabase(path: folder.path("plain.db")))
        try device.setValue(.string("dark"), forKey: "theme")
        let sync = try DeviceSync(database: device.database, hub: hub, hubOptions: hubOptions)
        #expect(try sync.sync().pushed == 1)
        var options = PostgreSQLOptions()
        options.account = "alice"
        options.watchesForChanges = false
        let app = PreferenceStore(
            database: try AppDatabase.postgreSQL(
                server.target(database: name, user: "service"), options: options))
        #expect(try app.storedValue(forKey: "theme") == .string("dark"))
        try app.setValue(.int(3), forKey: "launchCount")
        try sync.sync()
        #expect(try device.storedValue(forKey: "launchCount") == .int(3))
    }
}
