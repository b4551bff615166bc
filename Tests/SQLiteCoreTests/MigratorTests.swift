import Foundation
import Testing

@testable import SQLiteCore

@Suite struct MigratorTests {
    static let applicationID: Int32 = 0x1234_5678
    static let steps = [
        Migration(version: 1, name: "create", sql: "CREATE TABLE a (x INTEGER);"),
        Migration(
            version: 2, name: "add", sql: "CREATE TABLE b (y TEXT); INSERT INTO b VALUES ('v2');"),
    ]

    func tables(_ connection: Connection) throws -> [String] {
        try connection.rows(
            sql: "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name"
        )
        .compactMap { $0.get(0, as: String.self) }
    }

    @Test func appliesInVersionOrderEvenWhenListedOutOfOrder() throws {
        let connection = try Connection(path: ":memory:")
        let migrator = Migrator(
            migrations: Self.steps.reversed(), applicationID: Self.applicationID)
        #expect(try migrator.migrate(connection) == [1, 2])
        let recorded = try connection.rows(
            sql: "SELECT version, name FROM schema_migration ORDER BY rowid")
        #expect(recorded.map { $0.get(0, as: Int.self) } == [1, 2])
        #expect(recorded.map { $0.get(1, as: String.self) } == ["create", "add"])
        #expect(try connection.scalar(Int.self, sql: "PRAGMA user_version") == 2)
        #expect(
            try connection.scalar(Int32.self, sql: "PRAGMA application_id") == Self.applicationID)
        #expect(try tables(connection) == ["a", "b", "schema_migration"])
    }

    @Test func rerunIsANoOp() throws {
        let connection = try Connection(path: ":memory:")
        let migrator = Migrator(migrations: Self.steps, applicationID: Self.applicationID)
        try migrator.migrate(connection)
        #expect(try migrator.migrate(connection) == [])
        #expect(try connection.scalar(Int.self, sql: "SELECT count(*) FROM b") == 1)
    }

    @Test func upgradesStepByStep() throws {
        let connection = try Connection(path: ":memory:")
        try Migrator(migrations: [Self.steps[0]], applicationID: Self.applicationID).migrate(
            connection)
        #expect(try tables(connection) == ["a", "schema_migration"])
        #expect(
            try Migrator(migrations: Self.steps, applicationID: Self.applicationID).migrate(
                connection) == [2])
    }

    @Test func failingMigrationRollsBackAndKeepsThePreviousVersion() throws {
        let connection = try Connection(path: ":memory:")
        let failing = Migration(
            version: 3, name: "broken",
            sql:
                "CREATE TABLE c (z INTEGER); INSERT INTO c VALUES (1); INSERT INTO nowhere VALUES (1);"
        )
        let migrator = Migrator(
            migrations: Self.steps + [failing], applicationID: Self.applicationID)
        let error = #expect(throws: SQLiteError.self) { try migrator.migrate(connection) }
        #expect(
            error?.description
                == "SQLite error 1: no such table: nowhere - while executing CREATE TABLE c (z INTEGER); INSERT INTO c VALUES (1); INSERT INTO nowhere VALUES (1);"
        )
        #expect(try connection.scalar(Int.self, sql: "PRAGMA user_version") == 2)
        #expect(try tables(connection) == ["a", "b", "schema_migration"])
        #expect(
            try connection.scalar(Int.self, sql: "SELECT max(version) FROM schema_migration") == 2)
        #expect(!connection.isInTransaction)
    }

    @Test func gapsInVersionsAreRejected() throws {
        let connection = try Connection(path: ":memory:")
        let migrator = Migrator(
            migrations: [Self.steps[0], Migration(version: 3, name: "gap", sql: "")],
            applicationID: Self.applicationID)
        #expect(throws: Migrator.Failure.self) { try migrator.migrate(connection) }
        #expect(try tables(connection) == [])
    }

    @Test func newerVersionIsRefusedAndLeftByteForByte() throws {
        let path = try temporaryPath()
        defer { removeFolder(of: path) }
        do {
            let connection = try Connection(path: path)
            try Migrator(migrations: Self.steps, applicationID: Self.applicationID).migrate(
                connection)
            try connection.execute(sql: "PRAGMA user_version = 9")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let connection = try Connection(path: path)
        let migrator = Migrator(migrations: Self.steps, applicationID: Self.applicationID)
        #expect(throws: Migrator.Failure.newerSchema(found: 9, supported: 2)) {
            try migrator.migrate(connection)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func foreignDatabaseIsRefusedAndLeftByteForByte() throws {
        let path = try temporaryPath()
        defer { removeFolder(of: path) }
        do {
            let connection = try Connection(path: path)
            try connection.execute(
                sql: "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('x');")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let connection = try Connection(path: path)
        let migrator = Migrator(migrations: Self.steps, applicationID: Self.applicationID)
        #expect(throws: Migrator.Failure.foreignDatabase(applicationID: 0)) {
            try migrator.migrate(connection)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func otherApplicationIDIsRefused() throws {
        let connection = try Connection(path: ":memory:")
        try connection.execute(sql: "PRAGMA application_id = 7")
        let migrator = Migrator(migrations: Self.steps, applicationID: Self.applicationID)
        #expect(throws: Migrator.Failure.foreignDatabase(applicationID: 7)) {
            try migrator.migrate(connection)
        }
    }

    @Test func nonSQLiteFileIsAnError() throws {
        let path = try temporaryPath()
        defer { removeFolder(of: path) }
        let junk = Data("this is not a database, just some text that is long enough".utf8)
        try junk.write(to: URL(fileURLWithPath: path))
        let connection = try Connection(path: path)
        let migrator = Migrator(migrations: Self.steps, applicationID: Self.applicationID)
        let error = #expect(throws: SQLiteError.self) { try migrator.migrate(connection) }
        #expect(error?.isCorrupt == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == junk)
    }

    /// Removes the folder ``temporaryPath()`` made (the tests left one behind each run).
    func removeFolder(of path: String) {
        try? FileManager.default.removeItem(
            at: URL(fileURLWithPath: path).deletingLastPathComponent())
    }

    func temporaryPath() throws -> String {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("prefs-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("test.sqlite").path
    }
}
