import Foundation
import PostgresCore
import PrefsPostgreSQL
import PrefsSync
import PrefsTestSupport
import TestSupport
import Testing

@testable import PrefsKit

/// One service role acting for many accounts through PgBouncer in transaction pooling, as a
/// server app does: its clients' transactions share a few server connections, so nothing an
/// account depends on may stay in a session. The attack: a setting left on a server
/// connection by one account's client is what the next client's transaction runs with.
@Suite(.enabled(if: PgBouncer.isInstalled, "PgBouncer is not installed"))
struct PgBouncerTests {
    let pooler: PgBouncer
    /// The server behind the pooler.
    let server: PostgresServer
    let database: String

    init() throws {
        pooler = try PgBouncer.start()
        server = try PostgresServer.start()
        database = try server.makePrefsDatabase(roles: [("service", "prefs_service")])
    }

    func open(account: String, behindPooler: Bool) throws -> AppDatabase {
        var options = PostgreSQLOptions()
        options.account = account
        options.watchesForChanges = false
        options.cachesValues = false
        options.isBehindTransactionPooler = behindPooler
        return try AppDatabase.postgreSQL(
            pooler.target(database: database, user: "service"), options: options)
    }

    /// Every answer of two accounts' alternating writes and reads, in order: "ok", or what
    /// went wrong.
    func alternate(behindPooler: Bool, rounds: Int) throws -> [String] {
        let alice = PreferenceStore(
            database: try open(account: "alice", behindPooler: behindPooler))
        let bob = PreferenceStore(database: try open(account: "bob", behindPooler: behindPooler))
        var answers: [String] = []
        for round in 0..<rounds {
            for (name, store) in [("alice", alice), ("bob", bob)] {
                do {
                    try store.setValue(.string("\(name) \(round)"), forKey: "owner")
                    let read = try store.value(forKey: "owner")
                    answers.append(
                        read == .string("\(name) \(round)")
                            ? "ok" : "\(name) read \(String(describing: read))")
                } catch {
                    answers.append("\(name): \(error)")
                }
            }
        }
        return answers
    }

    @Test func twoAccountsOfOneServiceRoleStayApartThroughThePooler() throws {
        let answers = try alternate(behindPooler: true, rounds: 100)
        #expect(answers.allSatisfy { $0 == "ok" }, "\(answers.filter { $0 != "ok" }.prefix(3))")
        // And in the table, as the server's superuser sees it: one row per account.
        let rows = try server.psql(
            "SELECT account || '=' || value FROM preference WHERE key = 'owner' ORDER BY account",
            database: database)
        #expect(rows.stdout == "alice=alice 99\nbob=bob 99\n", "\(rows.stdout)")
    }

    /// The same without saying that a pooler is there: the session's account and the named
    /// statements go wrong. This is what the option guards against.
    @Test func withoutTheOptionTheSessionsStateGoesWrong() throws {
        let answers = try alternate(behindPooler: false, rounds: 100)
        #expect(answers.contains { $0 != "ok" }, "every answer was right")
    }

    /// Behind the pooler, a read-only store is read-only in every transaction.
    @Test func aReadOnlyStoreStaysReadOnlyInEveryTransaction() throws {
        _ = try alternate(behindPooler: true, rounds: 1)
        var options = PostgreSQLOptions()
        options.account = "alice"
        options.isReadOnly = true
        options.isBehindTransactionPooler = true
        let reader = PreferenceStore(
            database: try AppDatabase.postgreSQL(
                pooler.target(database: database, user: "service"), options: options))
        #expect(try reader.value(forKey: "owner") == .string("alice 0"))
        #expect(throws: (any Error).self) { try reader.setValue(.int(1), forKey: "x") }
    }

    /// Devices of one account sync through the pooler: pushes, pulls, a conflict, bookmarks,
    /// and the hub's store, as directly.
    @Test func devicesSyncThroughThePooler() throws {
        let folder = try TemporaryFolder()
        let hub = pooler.target(database: try server.makeDatabase())
        var hubOptions = PostgreSQLOptions()
        hubOptions.isBehindTransactionPooler = true
        func sync(_ device: AppDatabase) throws -> SyncReport {
            try DeviceSync(database: device, hub: hub, account: "alice", hubOptions: hubOptions)
                .sync()
        }
        let phone = try AppDatabase(path: folder.path("phone.db"))
        let laptop = try AppDatabase(path: folder.path("laptop.db"))
        try PreferenceStore(database: phone).set(true, for: .hasViewedWalkthrough)
        try BookmarkStore(database: phone).add(
            BookmarkDraft(kind: "trip", itemID: "london", title: "London", tags: ["uk"]))
        #expect(try sync(phone).pushed > 0)
        #expect(try sync(laptop).pulled > 0)
        #expect(PreferenceStore(database: laptop)[.hasViewedWalkthrough])
        #expect(try BookmarkStore(database: laptop).list().map(\.title) == ["London"])
        // Both change one key; both converge on the later.
        try PreferenceStore(database: phone).setValue(.int(1), forKey: "volume")
        // The laptop's write in a later millisecond: within one millisecond the clocks order
        // by their counters and devices, not by which write came first.
        usleep(3_000)
        try PreferenceStore(database: laptop).setValue(.int(2), forKey: "volume")
        _ = try sync(phone)
        _ = try sync(laptop)
        _ = try sync(phone)
        let phoneVolume = try PreferenceStore(database: phone).value(forKey: "volume")
        #expect(phoneVolume == .int(2))
        #expect(try PreferenceStore(database: laptop).value(forKey: "volume") == phoneVolume)
    }

    /// A store opened for a pooler prepares its statements once when no pooler is there
    /// after all (a sync server's pool straight to PostgreSQL), and sends them unnamed
    /// through PgBouncer, whose next transaction may run on a server connection that never
    /// saw them. The attack it guards: taking PgBouncer for the server, and failing every
    /// statement prepared on another server connection ("prepared statement does not
    /// exist").
    @Test func aConnectionTellsAPoolerFromTheServerItself() throws {
        let direct = try PGConnection(server.target(database: database, user: "service"))
        #expect(try direct.isStraightToServer())
        let pooled = try PGConnection(pooler.target(database: database, user: "service"))
        #expect(try !pooled.isStraightToServer())
        // Through the pooler, with the option: many transactions of two accounts, each
        // statement on whichever server connection the pooler gives (its pool holds 3).
        #expect(try alternate(behindPooler: true, rounds: 40).allSatisfy { $0 == "ok" })
    }
}
