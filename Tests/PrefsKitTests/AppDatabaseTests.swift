import Foundation
import PrefsSync
import SQLiteCore
import TestSupport
import Testing

@testable import PrefsKit

@Suite struct AppDatabaseTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    @Test(arguments: [
        ("postgresql://localhost/prefs", true), ("postgres://u@h/d", true),
        ("host=/run/postgresql dbname=prefs", true), ("  dbname=prefs", true),
        ("service_name=x", true), ("prefs.sqlite", false), ("/tmp/a=b/prefs.sqlite", false),
        ("./host=x", false), ("=x", false), ("host =x", true),
        ("host = /run/postgresql dbname=p", true), ("host x=y", false), ("", false), ("   ", false),
        ("hôst=x", false), ("db-name=x", false), ("dbname", false),
    ])
    func connectionStringsAreToldFromPaths(location: String, isConnection: Bool) {
        #expect(AppDatabase.isConnectionString(location) == isConnection, "\(location)")
    }

    @Test func everyMigrationFileShipsInTheBinaryInOrder() throws {
        let migrationsFolder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: migrationsFolder.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        #expect(!files.isEmpty)
        #expect(AppDatabase.migrationFileNames == files)
        for (file, migration) in zip(files, SQLiteEngine.migrations) {
            let text = try String(
                contentsOf: migrationsFolder.appendingPathComponent(file), encoding: .utf8)
            #expect(migration.sql == text, "\(file) differs from the embedded copy")
        }
        #expect(AppDatabase.schemaVersion == files.count)
    }

    @Test func newFileIsPrivateAndConfigured() throws {
        let path = folder.path("nested/deeper/prefs.sqlite")
        let database = try AppDatabase(path: path)
        _ = database
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let parent = try FileManager.default.attributesOfItem(atPath: folder.path("nested/deeper"))
        #expect((parent[.posixPermissions] as? Int) == 0o700)
        let connection = try Connection(path: path, mode: .readOnly)
        #expect(try connection.scalar(String.self, sql: "PRAGMA journal_mode") == "wal")
        #expect(
            try connection.scalar(Int32.self, sql: "PRAGMA application_id")
                == AppDatabase.applicationID)
        #expect(
            try connection.scalar(Int.self, sql: "PRAGMA user_version") == AppDatabase.schemaVersion
        )
        let settings = Dictionary(
            try database.connectionSettings().map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        let pragmas = (
            settings["synchronous"].flatMap { Int($0) },
            settings["foreign_keys"].flatMap { Int($0) },
            settings["busy_timeout"].flatMap { Int($0) },
            settings["trusted_schema"].flatMap { Int($0) }
        )
        #expect(pragmas.0 == 2)  // FULL
        #expect(pragmas.1 == 1)
        #expect(pragmas.2 == 5000)
        #expect(pragmas.3 == 0)
    }

    /// A migration that drops a full-text table opens the connection's temporary database;
    /// left open, each later statement would commit it too (about 40 instructions a read).
    @Test func migratingLeavesNoTemporaryDatabaseOpen() throws {
        let database = try AppDatabase(path: folder.path("prefs.sqlite"))
        let engine = try #require(database.state.withLock { $0.engine } as? SQLiteEngine)
        let names = try engine.connection.rows(sql: "PRAGMA database_list").map { $0[1] }
        #expect(names == [.text("main")])
        #expect(try engine.connection.scalar(Int.self, sql: "PRAGMA temp_store") == 2)
    }

    @Test func reopeningDoesNotMigrateAgain() throws {
        let path = folder.path("prefs.sqlite")
        _ = try AppDatabase(path: path)
        _ = try AppDatabase(path: path)
        let connection = try Connection(path: path, mode: .readOnly)
        #expect(
            try connection.scalar(Int.self, sql: "SELECT count(*) FROM schema_migration")
                == AppDatabase.schemaVersion)
    }

    func expectRefusal(
        of path: String, _ expected: DatabaseError,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = FileManager.default.contents(atPath: path)
        #expect(throws: expected, sourceLocation: sourceLocation) { try AppDatabase(path: path) }
        #expect(
            FileManager.default.contents(atPath: path) == before, sourceLocation: sourceLocation)
        #expect(
            !FileManager.default.fileExists(atPath: path + "-wal"), sourceLocation: sourceLocation)
    }

    @Test func newerSchemaIsRefusedUntouched() throws {
        let path = folder.path("newer.sqlite")
        do {
            let connection = try Connection(path: path)
            try connection.execute(sql: "PRAGMA application_id = \(AppDatabase.applicationID)")
            try connection.execute(sql: "CREATE TABLE future (x); PRAGMA user_version = 99")
        }
        try expectRefusal(
            of: path, .newerVersion(path: path, found: 99, supported: AppDatabase.schemaVersion))
    }

    @Test func foreignSQLiteFileIsRefusedUntouched() throws {
        let path = folder.path("foreign.sqlite")
        do {
            let connection = try Connection(path: path)
            try connection.execute(sql: "CREATE TABLE moz_places (url TEXT)")
        }
        try expectRefusal(of: path, .foreignDatabase(path: path))
    }

    @Test func textFileIsRefusedUntouched() throws {
        let path = folder.path("notes.txt")
        try String(repeating: "not a database\n", count: 20).write(
            toFile: path, atomically: true, encoding: .utf8)
        try expectRefusal(of: path, .notADatabase(path: path, detail: "file is not a database"))
    }

    @Test func directoryAndSymlinkAreRefused() throws {
        #expect(throws: DatabaseError.isDirectory(path: folder.url.path)) {
            try AppDatabase(path: folder.url.path)
        }
        let real = folder.path("real.sqlite")
        _ = try AppDatabase(path: real)
        let link = folder.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        #expect(throws: DatabaseError.isSymlink(path: link)) { try AppDatabase(path: link) }
    }

    @Test func missingFileIsNotCreatedWhenAskedNotTo() throws {
        let path = folder.path("absent.sqlite")
        var options = AppDatabase.Options()
        options.createIfMissing = false
        #expect(throws: DatabaseError.notFound(path: path)) {
            try AppDatabase(path: path, options: options)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}

/// The file opener opens files only: a server's connection string is refused with a message
/// that names the server's opener, and no file named after it is made.
@Suite struct FileOpenerRefusesServersTests {
    @Test(arguments: ["postgresql://alice:s3cret@db.example/prefs", "host=/tmp dbname=prefs"])
    func aConnectionStringIsNotOpenedAsAFile(target: String) throws {
        let error = #expect(throws: DatabaseError.self) { try AppDatabase(path: target) }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("AppDatabase.postgreSQL"), "\(message)")
        #expect(!message.contains("s3cret"))
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}

/// A ``DatabaseError`` keeps the engine's own code and error beside its message, and the
/// library's messages name no option of the command line.
@Suite struct DatabaseErrorCauseTests {
    @Test func aLockedFileKeepsSQLitesExtendedCode() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("locked.sqlite")
        var options = AppDatabase.Options()
        options.busyTimeoutMilliseconds = 50
        let first = try AppDatabase(path: path, options: options)
        let second = try AppDatabase(path: path, options: options)
        let store = PreferenceStore(database: second)
        let error = #expect(throws: DatabaseError.self) {
            try first.transaction {
                try PreferenceStore(database: first).setValue(.int(1), forKey: "k")
                try store.setValue(.int(2), forKey: "k")
            }
        }
        #expect(error == .busy(path: path))
        // SQLITE_BUSY (5), as SQLite reported it, with its own error.
        #expect(error?.engineCode == .sqlite(extendedResultCode: 5))
        #expect(error?.underlying is SQLiteError)
    }

    @Test func libraryMessagesNameNoOptionOfTheCommandLine() {
        let errors: [any Error] = [
            DatabaseError.untrustedFile(path: "p", file: "p", reason: "r"),
            DatabaseError.serverDatabaseMissing(path: "p"), SyncError.notADeviceFile,
            SyncError.notConfigured, SyncError.standbyIsNotAServer(target: "t"),
            DatabaseLocation.Problem.noHomeFolder,
        ]
        for error in errors {
            let text = "\(error)"
            #expect(!text.contains("--"), "\(text)")
            #expect(!text.contains("README"), "\(text)")
        }
    }
}
