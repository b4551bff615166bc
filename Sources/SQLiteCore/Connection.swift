internal import CSQLite

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// One open SQLite database connection.
///
/// A connection is not thread-safe: use it from one thread at a time (callers guard it with
/// a lock). It is opened with `SQLITE_OPEN_NOMUTEX`, extended result codes, and the
/// defensive settings of <https://www.sqlite.org/security.html>: no extension loading,
/// `trusted_schema` off, `SQLITE_DBCONFIG_DEFENSIVE` on.
package final class Connection {
    /// How to open the file.
    package enum OpenMode: Sendable {
        /// Read only; the file must exist.
        case readOnly
        /// Read and write; the file must exist.
        case readWrite
        /// Read and write, creating the file when it is missing.
        case readWriteCreate
    }

    let handle: OpaquePointer
    /// The path given when opening, or `:memory:`.
    package let path: String
    private var statementCache: [StatementKey: Statement] = [:]
    /// Statements whose text is a literal of the program, by the literal's address: a lookup
    /// hashes one word, not the text, and compares no text (the same address is the same
    /// text for as long as the program runs).
    @exclusivity(unchecked) private var literalStatements: [UInt: Statement] = [:]
    /// In front of ``literalStatements``: a slot for each few bits of a literal's address,
    /// holding the last statement found there. A set looks up four literals; each hashed
    /// lookup of the dictionary cost some 200 instructions, a slot's comparison a tenth.
    @exclusivity(unchecked) private var literalSlots = [LiteralSlot](
        repeating: LiteralSlot(address: 0, statement: nil), count: literalSlotCount)
    private static let literalSlotCount = 64  // the 6 bits of a slot's number

    private struct LiteralSlot {
        let address: UInt
        let statement: Statement?
    }
    /// What ``countInserts(into:)`` counts; SQLite's update hook points at it while it counts.
    var insertCount: InsertCount?
    /// Whether SQLite's update hook is set (``isCountingInserts``).
    var insertHookIsSet = false

    /// A statement's text as the cache's key. It hashes the text's length and its first and
    /// last 32 bytes, not all of it: a write looks up half a dozen statements, some hundreds
    /// of bytes long, and hashing them whole was a tenth of a set's own instructions. Two
    /// keys are equal only when their whole texts are.
    private struct StatementKey: Hashable {
        let sql: String

        static func == (left: Self, right: Self) -> Bool { left.sql == right.sql }

        func hash(into hasher: inout Hasher) {
            let utf8 = sql.utf8
            hasher.combine(utf8.count)
            let hashed: Bool? = utf8.withContiguousStorageIfAvailable { bytes in
                hasher.combine(
                    bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.prefix(32))))
                hasher.combine(
                    bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(32))))
                return true
            }
            if hashed == nil {
                for byte in utf8.prefix(32) { hasher.combine(byte) }
                for byte in utf8.suffix(32) { hasher.combine(byte) }
            }
        }
    }

    /// Opens a database file.
    ///
    /// - Parameters:
    ///   - path: The file path, or `:memory:` for a private in-memory database.
    ///   - mode: Whether to open read-only, read-write, or create the file.
    ///   - followsSymlinks: When false (the default), a symbolic link is refused.
    ///   - isImmutable: Read the file as one that nothing changes (SQLite's `immutable`
    ///     URI parameter): no locks, no `-shm` or `-wal` file. Only for reading a file in a
    ///     read-only folder that has no `-wal` file; see <https://www.sqlite.org/uri.html>.
    /// - Throws: ``SQLiteError`` when the file cannot be opened.
    ///   - vfs: The name of a registered SQLite VFS to open the file through; nil for the
    ///     default. (Tests open files through a VFS that simulates power loss.)
    package init(
        path: String, mode: OpenMode = .readWriteCreate, followsSymlinks: Bool = false,
        isImmutable: Bool = false, vfs: String? = nil
    ) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        if !followsSymlinks && path != ":memory:" {
            flags |= SQLITE_OPEN_NOFOLLOW
        }
        var target = path
        if isImmutable {
            flags |= SQLITE_OPEN_URI
            target = "file:" + Self.percentEncoded(path) + "?immutable=1"
        }
        var pointer: OpaquePointer?
        let code = sqlite3_open_v2(target, &pointer, flags, vfs)
        guard let pointer else {
            throw SQLiteError(
                code: ResultCode(rawValue: Int(code)), message: "cannot open '\(path)'")
        }
        guard code == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(pointer))
            sqlite3_close_v2(pointer)
            throw SQLiteError(
                code: ResultCode(rawValue: Int(code & 0xff)), extendedCode: Int(code),
                message: message)
        }
        handle = pointer
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
        try configureDefensively()
    }

    /// A path as a URI path: characters other than unreserved ones and '/' percent-encoded.
    private static func percentEncoded(_ path: String) -> String {
        var result = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return result
    }

    deinit {
        if insertHookIsSet { sqlite3_update_hook(handle, nil, nil) }
        statementCache.removeAll()
        literalSlots.removeAll()
        literalStatements.removeAll()
        sqlite3_close_v2(handle)
    }

    private func configureDefensively() throws {
        for (option, value) in [
            (SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, Int32(0)),
            (SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0),
            (SQLITE_DBCONFIG_DEFENSIVE, 1),
        ] {
            var result: Int32 = 0
            try check(prefs_sqlite_db_config_flag(handle, option, value, &result))
        }
    }

    // MARK: - Executing SQL

    /// Prepares a statement that the caller owns.
    ///
    /// - Throws: ``SQLiteError`` when the SQL does not compile, or holds more than one
    ///   statement (code ``ResultCode/misuse``).
    package func makeStatement(sql: String) throws -> Statement {
        try Statement(connection: self, sql: sql)
    }

    /// Returns a prepared statement kept for reuse, preparing it on first use.
    ///
    /// Use it on hot paths with constant SQL; the statement is reset before it is returned.
    /// - Throws: ``SQLiteError`` when the SQL does not compile.
    package func cachedStatement(sql: String) throws -> Statement {
        let key = StatementKey(sql: sql)
        if let statement = statementCache[key] {
            statement.reset()
            return statement
        }
        let statement = try makeStatement(sql: sql)
        statementCache[key] = statement
        return statement
    }

    /// Returns a prepared statement kept for reuse, as ``cachedStatement(sql:)`` does, for SQL
    /// written as a literal in the program: found by where the literal lies, without hashing
    /// or comparing its text (a set looks up half a dozen statements, and their texts cost a
    /// thousand instructions a lookup).
    /// - Throws: ``SQLiteError`` when the SQL does not compile.
    package func cachedStatement(literal sql: StaticString) throws -> Statement {
        guard sql.hasPointerRepresentation else {
            return try cachedStatement(sql: sql.description)
        }
        let address = UInt(bitPattern: sql.utf8Start)
        // The address's bits mixed by a multiplication, the slot taken from the top ones.
        let slot = Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> 58)
        let entry = literalSlots[slot]
        if entry.address == address, let statement = entry.statement {
            statement.reset()
            return statement
        }
        let statement: Statement
        if let found = literalStatements[address] {
            found.reset()
            statement = found
        } else {
            statement = try makeStatement(sql: sql.description)
            literalStatements[address] = statement
        }
        literalSlots[slot] = LiteralSlot(address: address, statement: statement)
        return statement
    }

    /// Runs SQL that returns no rows.
    ///
    /// Without arguments the SQL may hold several statements separated by semicolons (as a
    /// migration file does), and every one runs. With arguments it must be one statement:
    /// SQL with more after its first statement is refused before anything runs.
    /// - Throws: ``SQLiteError`` from the first statement that fails, or with code
    ///   ``ResultCode/misuse`` for several statements with arguments.
    package func execute(sql: String, arguments: StatementArguments = []) throws {
        if arguments.values.isEmpty {
            try executeScript(sql)
        } else {
            let statement = try makeStatement(sql: sql)
            try statement.execute(arguments: arguments)
        }
    }

    private func executeScript(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(errorMessage)
            throw SQLiteError(
                code: ResultCode(rawValue: Int(code & 0xff)), extendedCode: Int(code),
                message: message, sql: sql)
        }
    }

    /// Runs a query and returns every row.
    ///
    /// - Throws: ``SQLiteError`` when the query fails.
    package func rows(sql: String, arguments: StatementArguments = []) throws -> [Row] {
        let statement = try makeStatement(sql: sql)
        return try statement.rows(arguments: arguments)
    }

    /// Runs a query and returns the first column of its first row, or nil when there is
    /// no row or the value does not convert.
    ///
    /// - Throws: ``SQLiteError`` when the query fails.
    package func scalar<T: SQLiteValueConvertible>(
        _ type: T.Type = T.self, sql: String, arguments: StatementArguments = []
    ) throws -> T? {
        let statement = try makeStatement(sql: sql)
        try statement.bind(arguments)
        guard try statement.step() else { return nil }
        return T(sqliteValue: statement.value(at: 0))
    }

    // MARK: - State

    /// The rowid of the last row inserted by this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// Rows changed by the last statement.
    package var changes: Int { Int(sqlite3_changes(handle)) }
    /// Whether a transaction is open.
    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
    /// Whether the database was opened read-only.
    package var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// `PRAGMA data_version`: changes when another connection commits.
    ///
    /// See <https://www.sqlite.org/pragma.html#pragma_data_version>.
    package func dataVersion() throws -> Int64 {
        let statement = try cachedStatement(literal: "PRAGMA data_version")
        _ = try statement.step()
        let version = statement.int64(at: 0)
        statement.reset()
        return version
    }

    /// Sets how long a statement waits for a lock held by another connection.
    package func setBusyTimeout(milliseconds: Int) {
        sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
    }

    /// Stops a running statement from another thread.
    package func interrupt() {
        sqlite3_interrupt(handle)
    }

    /// Limits how long a string or blob may be (`SQLITE_LIMIT_LENGTH`), for reading a file
    /// from elsewhere; a longer value read or made fails with `SQLITE_TOOBIG`.
    package func limitValueLength(to bytes: Int) {
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(clamping: bytes))
    }

    /// Runs `body` with statements that stop (`SQLITE_INTERRUPT`) once `seconds` have
    /// passed, checked every 10,000 virtual-machine steps by SQLite's progress handler: the
    /// time budget for reading a file from elsewhere.
    package func withTimeLimit<T>(seconds: Double, _ body: () throws -> T) rethrows -> T {
        let deadline = Unmanaged.passRetained(Deadline(seconds: seconds))
        defer { deadline.release() }
        sqlite3_progress_handler(
            handle, 10_000,
            { context in
                guard let context else { return 0 }
                return Unmanaged<Deadline>.fromOpaque(context).takeUnretainedValue().hasPassed
                    ? 1 : 0
            }, deadline.toOpaque())
        defer { sqlite3_progress_handler(handle, 0, nil, nil) }
        return try body()
    }

    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func check(_ code: Int32, sql: String? = nil, arguments: [SQLiteValue] = []) throws {
        guard code == SQLITE_OK || code == SQLITE_ROW || code == SQLITE_DONE else {
            throw makeError(code, sql: sql, arguments: arguments)
        }
    }

    func makeError(_ code: Int32, sql: String?, arguments: [SQLiteValue] = []) -> SQLiteError {
        let extended = sqlite3_extended_errcode(handle)
        return SQLiteError(
            code: ResultCode(rawValue: Int(code & 0xff)), extendedCode: Int(extended),
            message: lastErrorMessage,
            sql: sql, arguments: arguments)
    }
}
