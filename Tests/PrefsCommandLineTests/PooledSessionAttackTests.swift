import Foundation
import TestSupport
import Testing

/// An earlier client of a pooled server connection leaves its session in a state meant to
/// break the next client's transactions: PgBouncer in transaction pooling with one server
/// connection per database and user, so that every later transaction of the same login role
/// runs on the poisoned connection. Each attack is left by `psql` as the account's own login
/// role through the pooler; then the real `prefs` binary writes, reads and lists through the
/// same pooler, and a device syncs through it. What they did must be in the store's own
/// tables, as a direct connection reads them, and nothing may fail.
@Suite(.serialized, .enabled(if: PgBouncer.isInstalled, "PgBouncer is not installed"))
struct PooledSessionAttackTests {
    let server: PostgresServer
    let database: String
    let pooler: PgBouncer
    let folder: TemporaryFolder

    init() throws {
        server = try PostgresServer.start()
        database = try server.makeDatabase()
        // The store's schema, made by its owner; then the account's login role.
        let made = try runPrefs(
            ["--db", server.target(database: database), "--account", "alice", "set", "x", "1"])
        #expect(made.status == 0, "\(made.stderr)")
        try server.makeLoginRoles([("alice", "prefs_account")])
        pooler = try PgBouncer(server: server, poolSize: 1)
        folder = try TemporaryFolder()
    }

    var through: String { pooler.target(database: database, user: "alice") }

    /// Leaves `sql` in the session of alice's one pooled server connection.
    func poison(_ sql: String) throws {
        let output = try runProcess(
            URL(fileURLWithPath: "/usr/bin/psql"),
            ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", through, "-c", sql])
        #expect(output.status == 0, "\(output.stderr)")
    }

    /// What the store holds, as the server app's own connection reads it.
    func stored(_ key: String) throws -> String {
        try server.psql(
            "SELECT coalesce(value, encode(bytes, 'base64')) FROM public.preference"
                + " WHERE account = 'alice' AND key = '\(key)'", database: database
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every command and a sync round, through the poisoned connection.
    func everythingWorks(_ attack: String) throws {
        let environment = ["PREFS_POOLER": "transaction"]
        func prefs(_ arguments: [String]) throws -> ProcessOutput {
            try runPrefs(["--db", through] + arguments, environment: environment)
        }
        let key = "k\(attack)"
        let set = try prefs(["set", key, "dark"])
        #expect(set.status == 0, "\(attack): \(set.stderr)")
        #expect(try stored(key) == "dark", "\(attack): the write missed the store's table")
        let data = try prefs(["set", "\(key)Data", "aGVsbG8=", "--type", "data"])
        #expect(data.status == 0, "\(attack): \(data.stderr)")
        #expect(try prefs(["get", key]).stdout == "dark\n", "\(attack)")
        #expect(try prefs(["get", "\(key)Data"]).stdout == "aGVsbG8=\n", "\(attack)")
        let listed = try prefs(["list"])
        #expect(listed.status == 0, "\(attack): \(listed.stderr)")
        #expect(listed.stdout.contains("\(key)Data"), "\(attack): \(listed.stdout)")
        let exported = try prefs(["export"])
        #expect(exported.stdout.contains("\(key)Data"), "\(attack): \(exported.stdout)")
        let bookmark = try prefs(["bookmark", "add", "movie", key, "--title", "Heat"])
        #expect(bookmark.status == 0, "\(attack): \(bookmark.stderr)")
        // A device's round through the same connection: its change reaches the hub's rows.
        let device = folder.path("\(attack).db")
        #expect(try runPrefs(["--db", device, "set", "theme\(attack)", "light"]).status == 0)
        let round = try runPrefs(
            ["--db", device, "sync", "--hub", through, "--account", "alice"],
            environment: environment)
        #expect(round.status == 0, "\(attack): \(round.stderr)")
        #expect(try stored("theme\(attack)") == "light", "\(attack): the push missed the hub")
        let synced = try server.psql(
            "SELECT count(*) FROM public.sync_change WHERE account = 'alice'"
                + " AND key = 'theme\(attack)'", database: database)
        #expect(synced.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(attack)")
        // The device pulled what the server wrote.
        let pulled = try runPrefs(["--db", device, "get", key])
        #expect(pulled.stdout == "dark\n", "\(attack): \(pulled.stderr)")
    }

    @Test func aTemporaryTableNamedLikeTheStoresShadowsNothing() throws {
        try poison(
            "CREATE TEMP TABLE preference (LIKE public.preference INCLUDING ALL);"
                + " CREATE TEMP TABLE sync_change (LIKE public.sync_change INCLUDING ALL);"
                + " CREATE TEMP TABLE bookmark (LIKE public.bookmark INCLUDING ALL)")
        try everythingWorks("Temp")
    }

    @Test func aLeftoverByteaOutputHidesNoValue() throws {
        try poison("SET bytea_output = 'escape'")
        try everythingWorks("Bytea")
    }

    @Test func aLeftoverReadOnlyDefaultStopsNoWrite() throws {
        try poison("SET default_transaction_read_only = on")
        try everythingWorks("ReadOnly")
    }

    @Test func aLeftoverRoleActsForNobody() throws {
        try poison("SET ROLE prefs_account")
        try everythingWorks("Role")
    }

    @Test func aLeftoverRowSecurityOffFailsNothing() throws {
        try poison("SET row_security = off")
        try everythingWorks("RowSecurity")
    }

    @Test func aLeftoverSearchPathFindsTheStoresTables() throws {
        try poison("SET search_path = pg_temp, pg_catalog")
        try everythingWorks("SearchPath")
    }

    /// The hub's internal "a push is applying" setting, left on: server writes would not be
    /// stamped, and never reach the devices.
    @Test func aLeftoverSyncApplyingSettingSkipsNoStamp() throws {
        // The account syncs already: a server write is stamped when it is made.
        let device = folder.path("first.db")
        #expect(try runPrefs(["--db", device, "set", "a", "1"]).status == 0)
        let round = try runPrefs(
            [
                "--db", device, "sync", "--hub", server.target(database: database), "--account",
                "alice",
            ])
        #expect(round.status == 0, "\(round.stderr)")
        try poison("SET prefs.sync_applying = 'on'")
        let set = try runPrefs(
            ["--db", through, "set", "served", "yes"], environment: ["PREFS_POOLER": "transaction"])
        #expect(set.status == 0, "\(set.stderr)")
        let stamped = try server.psql(
            "SELECT count(*) FROM public.sync_change WHERE account = 'alice'"
                + " AND key = 'served'", database: database)
        #expect(stamped.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        try everythingWorks("Applying")
    }
}
