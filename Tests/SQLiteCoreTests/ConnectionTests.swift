import Foundation
import Testing

@testable import SQLiteCore

@Suite struct ConnectionTests {
    let connection: Connection

    init() throws {
        connection = try Connection(path: ":memory:")
        try connection.execute(
            sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, v ANY)")
    }

    func count() throws -> Int {
        try connection.scalar(Int.self, sql: "SELECT count(*) FROM t") ?? -1
    }

    /// The insert count sees its table's rows a trigger inserts, and no other table's, nor
    /// an update, nor a delete; a table whose name only starts like it is another table.
    /// Turned off, it counts nothing.
    @Test func insertsAreCountedForTheirTableAloneTriggersIncluded() throws {
        try connection.execute(
            sql: """
                CREATE TABLE log (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT);
                CREATE TABLE log_extra (id INTEGER PRIMARY KEY, name TEXT);
                CREATE TRIGGER t_logged AFTER INSERT ON t BEGIN
                    INSERT INTO log (name) VALUES (NEW.name);
                    INSERT INTO log_extra (name) VALUES (NEW.name);
                END;
                """)
        let inserts = connection.countInserts(into: "log")
        try connection.execute(sql: "INSERT INTO t (name) VALUES ('x')")
        #expect(inserts.count == 0)
        connection.isCountingInserts = true
        try connection.execute(sql: "INSERT INTO t (name) VALUES ('a'), ('b')")
        #expect(inserts.count == 2)
        #expect(inserts.newestRowID == 3)
        try connection.execute(sql: "UPDATE log SET name = 'c'; DELETE FROM log WHERE id = 1")
        try connection.execute(sql: "INSERT INTO log_extra (name) VALUES ('d')")
        #expect(inserts.count == 2)
        try connection.execute(sql: "INSERT INTO log (id, name) VALUES (10, 'e')")
        #expect(inserts.count == 3)
        #expect(inserts.newestRowID == 10)
        connection.isCountingInserts = false
        try connection.execute(sql: "INSERT INTO log (name) VALUES ('f')")
        #expect(inserts.count == 3)
    }

    @Test func bindsAndReadsEveryStorageClass() throws {
        let blob = Data([0, 1, 2, 255])
        let values: [SQLiteValue] = [
            .null, .integer(-42), .real(1.5), .text("héllo\0x"), .blob(blob),
        ]
        for (index, value) in values.enumerated() {
            try connection.execute(
                sql: "INSERT INTO t (id, v) VALUES (?, ?)",
                arguments: StatementArguments([.integer(Int64(index)), value]))
        }
        let rows = try connection.rows(sql: "SELECT v FROM t ORDER BY id")
        #expect(rows.map { $0[0] } == values)
    }

    @Test func convertsSwiftAndFoundationTypes() throws {
        let date = Date(timeIntervalSinceReferenceDate: 817_700_000.123_456_7)
        let url = URL(string: "https://example.com/a?b=c")!
        try connection.execute(
            sql: "INSERT INTO t (id, name, v) VALUES (?, ?, ?)", arguments: [1, "date", date])
        try connection.execute(
            sql: "INSERT INTO t (id, name, v) VALUES (?, ?, ?)", arguments: [2, "url", url])
        try connection.execute(
            sql: "INSERT INTO t (id, name, v) VALUES (?, ?, ?)", arguments: [3, "bool", true])
        #expect(try connection.scalar(Date.self, sql: "SELECT v FROM t WHERE id = 1") == date)
        #expect(try connection.scalar(URL.self, sql: "SELECT v FROM t WHERE id = 2") == url)
        #expect(try connection.scalar(Bool.self, sql: "SELECT v FROM t WHERE id = 3") == true)
        #expect(try connection.scalar(String.self, sql: "SELECT v FROM t WHERE id = 3") == nil)
    }

    @Test func errorDescriptionNamesCodeMessageAndSQL() throws {
        try connection.execute(sql: "INSERT INTO t (name) VALUES (?)", arguments: ["a"])
        let error = #expect(throws: SQLiteError.self) {
            try connection.execute(sql: "INSERT INTO t (name) VALUES (?)", arguments: ["a"])
        }
        #expect(error?.code == 19)
        #expect(error?.extendedCode == 2067)
        #expect(
            error?.description
                == "SQLite error 19: UNIQUE constraint failed: t.name - while executing INSERT INTO t (name) VALUES (?)"
        )
        #expect(error?.expandedDescription.hasSuffix("with arguments ['a']") == true)
    }

    @Test func transactionCommitsOnReturn() throws {
        try connection.transaction {
            try connection.execute(sql: "INSERT INTO t (name) VALUES ('a')")
        }
        #expect(try count() == 1)
        #expect(!connection.isInTransaction)
    }

    @Test func transactionRollsBackAndRethrowsTheFirstError() throws {
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try connection.transaction {
                try connection.execute(sql: "INSERT INTO t (name) VALUES ('a')")
                // Ending the transaction from inside makes the helper's ROLLBACK fail too;
                // the caller must still see the closure's error.
                try connection.execute(sql: "COMMIT")
                try connection.execute(sql: "BEGIN")
                try connection.execute(sql: "INSERT INTO t (name) VALUES ('b')")
                throw Boom()
            }
        }
        #expect(try count() == 1)
        #expect(!connection.isInTransaction)
    }

    @Test func savepointRollsBackOnlyItsOwnWork() throws {
        struct Boom: Error {}
        try connection.transaction {
            try connection.execute(sql: "INSERT INTO t (name) VALUES ('kept')")
            _ = try? connection.savepoint {
                try connection.execute(sql: "INSERT INTO t (name) VALUES ('dropped')")
                throw Boom()
            }
        }
        let names = try connection.rows(sql: "SELECT name FROM t").map {
            $0.get(0, as: String.self)
        }
        #expect(names == ["kept"])
    }

    @Test func cachedStatementIsReusedAndReset() throws {
        let first = try connection.cachedStatement(sql: "SELECT ?")
        try first.bind([1])
        #expect(try first.step())
        let second = try connection.cachedStatement(sql: "SELECT ?")
        #expect(first === second)
        try second.bind([2])
        #expect(try second.step())
        #expect(second.int64(at: 0) == 2)
    }

    @Test func cachedStatementsAlikeButInTheMiddleAreKeptApart() throws {
        // The cache hashes a text's length and its ends: these two collide on purpose.
        let pad = String(repeating: " ", count: 40)
        let one = try connection.cachedStatement(sql: "SELECT\(pad)1\(pad)AS v")
        let two = try connection.cachedStatement(sql: "SELECT\(pad)2\(pad)AS v")
        #expect(one !== two)
        #expect(try one.step())
        #expect(one.int64(at: 0) == 1)
        #expect(try two.step())
        #expect(two.int64(at: 0) == 2)
        #expect(try connection.cachedStatement(sql: "SELECT\(pad)2\(pad)AS v") === two)
    }

    @Test func wrongArgumentCountIsAnError() throws {
        let error = #expect(throws: SQLiteError.self) {
            try connection.execute(sql: "INSERT INTO t (name, v) VALUES (?, ?)", arguments: [1])
        }
        #expect(
            error?.description
                == "SQLite error 25: expected 2 arguments, got 1 - while executing INSERT INTO t (name, v) VALUES (?, ?)"
        )
    }

    @Test func extensionLoadingIsOff() throws {
        // With loading on, SQLite would try the file and fail differently (no such file, or
        // no entry point); only a disabled loader answers "not authorized".
        let error = #expect(throws: SQLiteError.self) {
            try connection.execute(sql: "SELECT load_extension('libm.so.6')")
        }
        #expect(error?.message == "not authorized")
        #expect(error?.code == .error)
    }

    @Test func aScriptRunsEveryStatement() throws {
        try connection.execute(
            sql: """
                INSERT INTO t (name, v) VALUES ('a', 1);
                -- a comment between statements
                INSERT INTO t (name, v) VALUES ('b', 2); /* and after */
                """)
        #expect(try connection.scalar(Int.self, sql: "SELECT count(*) FROM t") == 2)
    }

    @Test func severalStatementsWithArgumentsAreRefusedBeforeAnyRuns() throws {
        let error = #expect(throws: SQLiteError.self) {
            try connection.execute(
                sql: "INSERT INTO t (name, v) VALUES (?, 1); DELETE FROM t", arguments: ["a"])
        }
        #expect(error?.code == .misuse)
        #expect(
            error?.message
                == "the SQL holds more than one statement; run a script without arguments")
        #expect(try connection.scalar(Int.self, sql: "SELECT count(*) FROM t") == 0)
        // Trailing white space, semicolons and comments are not a second statement.
        try connection.execute(
            sql: "INSERT INTO t (name, v) VALUES (?, 1); -- done\n ;", arguments: ["a"])
        #expect(try connection.scalar(Int.self, sql: "SELECT count(*) FROM t") == 1)
        let query = #expect(throws: SQLiteError.self) {
            try connection.rows(sql: "SELECT 1; SELECT 2")
        }
        #expect(
            query?.description
                == "SQLite error 21: the SQL holds more than one statement; run a script without arguments - while executing SELECT 1; SELECT 2"
        )
    }

    @Test func resultCodesAreClassifiedByName() {
        #expect(SQLiteError(code: .busy, message: "").isBusy)
        #expect(!SQLiteError(code: .locked, message: "").isBusy)
        #expect(SQLiteError(code: .locked, message: "").isLocked)
        #expect(!SQLiteError(code: .authorization, message: "").isReadOnly)
        #expect(SQLiteError(code: .readOnly, message: "").isReadOnly)
        #expect(SQLiteError(code: 26, message: "").isCorrupt)
        #expect(SQLiteError(code: .constraint, message: "x").description == "SQLite error 19: x")
    }

    @Test func refusesSymlinks() throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("prefs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("real.sqlite").path
        _ = try Connection(path: target)
        let link = folder.appendingPathComponent("link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let error = #expect(throws: SQLiteError.self) {
            try Connection(path: link, mode: .readWrite)
        }
        #expect(error?.description == "SQLite error 14: unable to open database file")
    }
}
