import Foundation
import PrefsPostgreSQL
import TestSupport
import Testing

@testable import PrefsKit

/// A storage engine the contract suite runs against: it opens a fresh, empty database and,
/// on demand, a second connection to the same one (as another process would have).
struct ContractEngine: Sendable, CustomTestStringConvertible {
    let name: String
    /// Opens a new database in the folder; the second call with the same folder opens the
    /// same database again.
    let open: @Sendable (TemporaryFolder, AppDatabase.Options) throws -> AppDatabase
    var testDescription: String { name }
    /// Whether its text holds a NUL character (U+0000): PostgreSQL's cannot, and refuses
    /// a value with one, whole.
    var textHoldsNUL: Bool { name == "SQLite" }

    /// Every engine built into PrefsKit.
    static let all: [ContractEngine] = [.sqlite, .postgres, .postgresBehindPgBouncer]

    static let sqlite = ContractEngine(name: "SQLite") { folder, options in
        try AppDatabase(path: folder.path("contract.sqlite"), options: options)
    }

    /// A database of the test process's own PostgreSQL server (locale C.utf8), made on the
    /// folder's first open (its name kept in the folder), as the account `contract`. Without PostgreSQL
    /// installed this fails, naming the package to install.
    static let postgres = ContractEngine(name: "PostgreSQL") { folder, options in
        let server = try PostgresServer.start()
        var serverOptions = PostgreSQLOptions()
        serverOptions.database = options
        serverOptions.account = "contract"
        return try AppDatabase.postgreSQL(
            server.target(database: try database(of: server, in: folder)), options: serverOptions)
    }

    /// The same, through PgBouncer in transaction pooling (three server connections for
    /// every client): nothing may be kept in a session. Notifications come through a
    /// connection straight to the server.
    static let postgresBehindPgBouncer = ContractEngine(
        name: "PostgreSQL behind PgBouncer", open: openBehindPgBouncer)

    private static func openBehindPgBouncer(
        _ folder: TemporaryFolder, _ options: AppDatabase.Options
    ) throws -> AppDatabase {
        let pooler = try PgBouncer.start()
        let server = try PostgresServer.start()
        let database = try database(of: server, in: folder)
        var serverOptions = PostgreSQLOptions()
        serverOptions.database = options
        serverOptions.account = "contract"
        serverOptions.isBehindTransactionPooler = true
        serverOptions.notificationTarget = server.target(database: database)
        return try AppDatabase.postgreSQL(
            pooler.target(database: database), options: serverOptions)
    }

    /// The folder's database on the server, made on its first open (its name kept in the
    /// folder).
    private static func database(of server: PostgresServer, in folder: TemporaryFolder) throws
        -> String
    {
        let record = folder.path("postgres-database")
        if let existing = FileManager.default.contents(atPath: record) {
            return String(decoding: existing, as: UTF8.self)
        }
        // A locale whose character classes know Unicode, as production servers have: what
        // depends on the locale shows here.
        let database = try server.makeDatabase(locale: "C.utf8")
        try Data(database.utf8).write(to: URL(fileURLWithPath: record))
        return database
    }

    /// A fresh database and a second, independent connection to it.
    func openPair(
        in folder: TemporaryFolder, changeCheckIntervalMilliseconds: Int = 10,
        watchesForChanges: Bool = true
    ) throws -> (AppDatabase, AppDatabase) {
        var options = AppDatabase.Options()
        options.changeCheckIntervalMilliseconds = changeCheckIntervalMilliseconds
        options.watchesForChanges = watchesForChanges
        return (try open(folder, options), try open(folder, options))
    }
}
