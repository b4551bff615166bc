import Foundation
import PostgresCore
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import PrefsTestSupport
import TestSupport
import Testing

/// A device's own login role attacking the hub by raw SQL (libpq and psql), not through
/// PrefsKit. Each test is named after its attack.
@Suite struct SyncAttackTests {
    let server: PostgresServer
    let database: String

    init() throws {
        server = try PostgresServer.start()
        database = try server.makePrefsDatabase(roles: [
            ("mallory", "prefs_account"), ("victor", "prefs_account"),
        ])
    }

    /// Victor's device, syncing through his own role.
    func victorsDevice(_ folder: TemporaryFolder) throws -> (AppDatabase, DeviceSync) {
        let device = try AppDatabase(path: folder.path("victor.db"))
        let sync = try DeviceSync(
            database: device, hub: server.target(database: database, user: "victor"))
        try sync.sync()
        return (device, sync)
    }

    /// The lock's key was a hash of the account's name: mallory computed it and held it, and
    /// victor's rounds and server writes waited until they timed out (exit 75). Its key is
    /// now secret to the account.
    @Test func holdingAnotherAccountsSyncLockStopsNothing() throws {
        let folder = try TemporaryFolder()
        let (device, sync) = try victorsDevice(folder)
        let mallory = try PGConnection(server.target(database: database, user: "mallory"))
        _ = try mallory.execute("BEGIN")
        _ = try mallory.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended('prefs sync ' || 'victor', 0))")
        // What mallory can compute with the new key's own function is her own account's.
        _ = try mallory.execute("SELECT pg_advisory_xact_lock(prefs_sync_lock_key('victor'))")
        defer { _ = try? mallory.execute("ROLLBACK") }
        var options = PostgreSQLOptions()
        options.busyTimeoutMilliseconds = 2_000
        options.watchesForChanges = false
        let server = try AppDatabase.postgreSQL(
            self.server.target(database: database, user: "victor"), options: options)
        try PreferenceStore(database: server).setValue(.string("dark"), forKey: "theme")
        try PreferenceStore(database: device).setValue(.int(3), forKey: "launchCount")
        let report = try sync.sync()
        #expect(report.pushed == 1)
        #expect(
            try PreferenceStore(database: device).storedValue(forKey: "theme") == .string("dark"))
    }

    /// Mallory's own device role claimed to be a push applying (a session setting) and wrote
    /// a change stamped in the year 33658 straight into the hub's table: it would have won
    /// every later write of that key on every device. The role can no longer write the table
    /// at all (``HubRoleAttackTests`` tries the rest, directly and through the pooler).
    @Test func aForgedClockFarAheadIsRefusedEvenAsAPushApplying() throws {
        let output = try server.psql(
            """
            BEGIN;
            SELECT set_config('prefs.sync_applying', 'on', true);
            INSERT INTO sync_change (entity, ident, field, clock, device, present, sequence,
                suite, key)
            VALUES ('preference', upper(encode('standard', 'hex')) || '.'
                || upper(encode('theme', 'hex')), 'value', '999999999999999-000000-evil', 'evil',
                true, 1, 'standard', 'theme');
            COMMIT;
            """, database: database, user: "mallory")
        #expect(output.status != 0)
        #expect(output.stderr.contains("permission denied"), "\(output.stderr)")
        let stored = try server.psql(
            "SELECT count(*) FROM sync_change WHERE device = 'evil'", database: database)
        #expect(stored.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }
}
