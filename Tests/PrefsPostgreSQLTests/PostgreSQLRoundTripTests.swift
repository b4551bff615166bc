import Foundation
import PostgresCore
import TestSupport
import Testing

@testable import PrefsKit
@testable import PrefsPostgreSQL

/// A set on a server is one round trip: alone, one statement (prefs_set_value) that checks
/// the declared type, upserts, commits on its own and reads the history; in a transaction
/// of several statements, BEGIN, the upsert, COMMIT and the history read go in one
/// pipeline. Counted from libpq's own trace of the protocol: the client ends each round
/// trip with a `Sync`.
@Suite struct PostgreSQLRoundTripTests {
    let server: PostgresServer
    let target: String
    let databaseName: String
    let folder: TemporaryFolder

    init() throws {
        server = try PostgresServer.start()
        databaseName = try server.makeDatabase()
        target = server.target(database: databaseName)
        folder = try TemporaryFolder()
    }

    /// The round trips `body` makes on the database's connection, and what it sent.
    func roundTrips(_ database: AppDatabase, _ body: () throws -> Void) throws -> (
        count: Int, sent: [String]
    ) {
        let path = folder.path("trace-\(UUID().uuidString)")
        let connection = try #require(
            database.state.withLock { ($0.engine as? PostgreSQLEngine)?.connection })
        #expect(connection.startTracing(toFile: path))
        defer { connection.stopTracing() }
        try body()
        connection.stopTracing()
        let sent = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("F\t") }.map(String.init)
        return (sent.filter { $0.contains("\tSync") }.count, sent)
    }

    func open(behindPooler: Bool = false) throws -> AppDatabase {
        var options = PostgreSQLOptions()
        options.account = "alice"
        options.isBehindTransactionPooler = behindPooler
        return try AppDatabase.postgreSQL(target, options: options)
    }

    @Test func aSetIsOneRoundTrip() throws {
        let database = try open()
        let store = PreferenceStore(database: database)
        store.set(1, forKey: "volume")  // the statements are prepared once per connection
        let set = try roundTrips(database) { try store.setValue(.int(2), forKey: "volume") }
        #expect(set.count == 1, "\(set.sent.joined(separator: "\n"))")
        // One statement, with no BEGIN or COMMIT around it.
        #expect(set.sent.filter { $0.contains("\tBind\t") }.count == 1)
        // Told: nobody observes, so its answer says whether the rows are its own.
        #expect(set.sent.contains { $0.contains("\"preference_set_told\"") })
        #expect(!set.sent.contains { $0.contains("BEGIN") || $0.contains("begin_read_write") })
        #expect(store.integer(forKey: "volume") == 2)
    }

    /// While anyone observes the store, a set alone reads its history rows in full (the
    /// observers are given them): the same one round trip.
    @Test func aSetThatAnObserverWaitsForReadsItsRows() async throws {
        let database = try open()
        let store = PreferenceStore(database: database)
        let changes = store.changes()
        store.set(1, forKey: "volume")  // the statements are prepared once per connection
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next()?.value == .int(1))
        let set = try roundTrips(database) { try store.setValue(.int(2), forKey: "volume") }
        #expect(set.count == 1, "\(set.sent.joined(separator: "\n"))")
        #expect(set.sent.contains { $0.contains("\"preference_set_alone\"") })
        let change = await iterator.next()
        #expect(change?.key == "volume")
        #expect(change?.value == .int(2))
        #expect(change?.oldValue == .int(1))
    }

    /// Another connection commits between two sets of this one, so soon after the first
    /// that this connection has not read its notification; the second repeats the value
    /// held, and adds no row. Told, it finds a row that is not its own after the last one
    /// seen, and the rows are read, so the other connection's value reaches the cache (not
    /// taken for the set's own row, and skipped past for good). Twenty times, since the
    /// connection reads its socket before a set when its last answer is 10 ms old or more.
    @Test func aCommitNotYetNotifiedReachesTheCacheWithATellingSet() throws {
        var options = PostgreSQLOptions()
        options.account = "alice"
        options.database.changeCheckIntervalMilliseconds = 3_600_000
        let mine = PreferenceStore(database: try AppDatabase.postgreSQL(target, options: options))
        let theirs = PreferenceStore(database: try open())
        try theirs.setValue(.int(0), forKey: "warm")
        for round in 1...20 {
            _ = try mine.value(forKey: "theirs\(round)")
            try mine.setValue(.int(round), forKey: "mine")
            try theirs.setValue(.int(round), forKey: "theirs\(round)")
            try mine.setValue(.int(round), forKey: "mine")
            #expect(try mine.value(forKey: "theirs\(round)") == .int(round), "round \(round)")
        }
    }

    /// Two sets in one transaction are not sent alone: BEGIN, both, COMMIT and the history
    /// read, in one round trip, and both are stored or neither.
    @Test func twoSetsInOneTransactionAreOnePipeline() throws {
        let database = try open()
        let store = PreferenceStore(database: database)
        // The statements are prepared once per connection.
        try store.transaction { edit in
            try edit.setValue(.int(1), forKey: "a")
            try edit.setValue(.int(1), forKey: "b")
        }
        let both = try roundTrips(database) {
            try store.transaction { edit in
                try edit.setValue(.int(2), forKey: "a")
                try edit.setValue(.int(3), forKey: "b")
            }
        }
        #expect(both.count == 1, "\(both.sent.joined(separator: "\n"))")
        #expect(both.sent.contains { $0.contains("begin_read_write") })
        #expect(!both.sent.contains { $0.contains("preference_set_alone") })
        #expect(store.integer(forKey: "a") == 2 && store.integer(forKey: "b") == 3)
    }

    /// A database (or role) whose transactions default to read-only does not refuse a
    /// store's sets: its transactions say READ WRITE.
    @Test func aDatabaseWhoseTransactionsDefaultToReadOnlyStillTakesASet() throws {
        _ = try open()
        try server.psql(
            "ALTER DATABASE \"\(databaseName)\" SET default_transaction_read_only = on")
        let store = PreferenceStore(database: try open())
        try store.setValue(.int(7), forKey: "volume")
        #expect(store.integer(forKey: "volume") == 7)
        // A read-only store of the same database still refuses to write.
        var options = PostgreSQLOptions()
        options.account = "alice"
        options.isReadOnly = true
        let reader = PreferenceStore(database: try AppDatabase.postgreSQL(target, options: options))
        #expect(reader.integer(forKey: "volume") == 7)
        #expect(throws: (any Error).self) { try reader.setValue(.int(8), forKey: "volume") }
    }

    @Test func aSetRefusedByTheDeclaredTypeIsOneRoundTripAndStoresNothing() throws {
        let database = try open()
        let store = PreferenceStore(database: database)
        try store.declare(Prefs.Key("volume", default: 0.5))
        store.set(0.75, forKey: "volume")
        let refused = try roundTrips(database) {
            #expect(
                throws: PreferenceError.typeMismatch(
                    key: "volume", declared: .double, given: .string)
            ) {
                try store.setValue(.string("loud"), forKey: "volume")
            }
        }
        #expect(refused.count == 1, "\(refused.sent.joined(separator: "\n"))")
        #expect(store.double(forKey: "volume") == 0.75)
        #expect(try store.history(forKey: "volume").count == 1)
        // The connection is usable after: the next set is one round trip again.
        let next = try roundTrips(database) { try store.setValue(.double(0.5), forKey: "volume") }
        #expect(next.count == 1)
        #expect(store.double(forKey: "volume") == 0.5)
    }

    @Test func aTransactionOfSeveralStatementsStillSeesItsOwnWrites() throws {
        let database = try open()
        let store = PreferenceStore(database: database)
        try store.transaction { edit in
            try edit.setValue(.int(1), forKey: "a")
            // Read inside: the queued set goes first, in the read's round trip.
            #expect(try edit.value(forKey: "a") == .int(1))
            try edit.setValue(.int(2), forKey: "b")
        }
        #expect(store.integer(forKey: "a") == 1 && store.integer(forKey: "b") == 2)
    }

    /// Behind a transaction pooler a set alone is the prelude and the one statement, in one
    /// implicit transaction: no BEGIN, no COMMIT, no history read of its own.
    @Test func aPooledSetIsThePreludeAndOneStatement() throws {
        let database = try open(behindPooler: true)
        let store = PreferenceStore(database: database)
        store.set(1, forKey: "volume")
        let set = try roundTrips(database) { try store.setValue(.int(2), forKey: "volume") }
        #expect(set.count == 1, "\(set.sent.joined(separator: "\n"))")
        #expect(set.sent.filter { $0.contains("\tBind\t") }.count == 2)
        #expect(!set.sent.contains { $0.contains("BEGIN") || $0.contains("begin_read_write") })
        #expect(store.integer(forKey: "volume") == 2)
    }

    /// Behind a transaction pooler an uncached get is the prelude and the one statement, in
    /// one round trip.
    @Test func aPooledGetIsThePreludeAndOneStatement() throws {
        var options = PostgreSQLOptions()
        options.account = "alice"
        options.isBehindTransactionPooler = true
        options.cachesValues = false
        let database = try AppDatabase.postgreSQL(target, options: options)
        let store = PreferenceStore(database: database)
        store.set(7, forKey: "volume")
        _ = store.integer(forKey: "volume")  // the statements are prepared once per connection
        var read: Int?
        let get = try roundTrips(database) { read = store.integer(forKey: "volume") }
        #expect(read == 7)
        #expect(get.count == 1, "\(get.sent.joined(separator: "\n"))")
        #expect(get.sent.filter { $0.contains("\tBind\t") }.count == 2)
    }

    /// A statement sent alone behind its prelude does not run when the prelude fails: the
    /// prelude's error is thrown, nothing of the statement is stored, and the connection
    /// takes the next statement. Named and unnamed, as the pool sends them.
    @Test func aStatementAfterAFailedPreludeDoesNotRun() throws {
        let connection = try PGConnection(target)
        try connection.execute("CREATE TABLE prelude_guard (n integer)")
        for isNamed in [false, true] {
            connection.transactionPrelude = (
                "SELECT set_config('lock_timeout', $1, true)", ["not a duration"]
            )
            let insert = "INSERT INTO prelude_guard VALUES (1)"
            let error = #expect(throws: PGError.self) {
                if isNamed {
                    try connection.execute(prepared: "prelude_guard_insert", insert)
                } else {
                    try connection.execute(insert)
                }
            }
            // The prelude's own error (invalid_parameter_value), not the statement's.
            #expect(error?.sqlState == "22023", "\(String(describing: error))")
            connection.transactionPrelude = ("SELECT set_config('lock_timeout', $1, true)", ["1s"])
            let count = try connection.execute("SELECT count(*) FROM prelude_guard")
            #expect(count.integer(row: 0, column: 0) == 0, "named: \(isNamed)")
        }
    }

    /// A pooled server session that an earlier client left read-only by default refuses
    /// the statement alone; the set is sent again with its BEGIN READ WRITE, and stored once.
    @Test func aPooledSetOnASessionLeftReadOnlyIsSentAgainWithItsBegin() throws {
        let database = try open(behindPooler: true)
        let store = PreferenceStore(database: database)
        store.set(1, forKey: "volume")
        let connection = try #require(
            database.state.withLock { ($0.engine as? PostgreSQLEngine)?.connection })
        try connection.execute("SET default_transaction_read_only = on")
        // The statements of the second try are prepared once per connection.
        try store.setValue(.int(2), forKey: "volume")
        let set = try roundTrips(database) { try store.setValue(.int(3), forKey: "volume") }
        #expect(set.count == 2, "\(set.sent.joined(separator: "\n"))")
        #expect(set.sent.contains { $0.contains("begin_read_write") })
        #expect(store.integer(forKey: "volume") == 3)
        #expect(try store.history(forKey: "volume").map(\.value) == [.int(3), .int(2), .int(1)])
    }
}
