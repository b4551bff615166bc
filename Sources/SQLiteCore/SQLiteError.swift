/// An error reported by SQLite, with the statement that caused it.
///
/// Its description reads like
/// `SQLite error 19: UNIQUE constraint failed: bookmark.kind - while executing INSERT ...`.
/// Bound arguments are left out of `description` because values may be secrets; ask for
/// ``expandedDescription`` when you need them.
package struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The primary result code, such as ``ResultCode/constraint`` (19).
    package let code: ResultCode
    /// The extended result code, such as 2067 for `SQLITE_CONSTRAINT_UNIQUE`.
    package let extendedCode: Int
    /// The message SQLite gave.
    package let message: String
    /// The SQL being executed, when there was one.
    package let sql: String?
    /// The bound arguments, shown only by ``expandedDescription``.
    let arguments: [SQLiteValue]

    /// Creates an error from its parts.
    package init(
        code: ResultCode, extendedCode: Int? = nil, message: String, sql: String? = nil,
        arguments: [SQLiteValue] = []
    ) {
        self.code = code
        self.extendedCode = extendedCode ?? code.rawValue
        self.message = message
        self.sql = sql
        self.arguments = arguments
    }

    /// One line naming the code, the message and the SQL.
    package var description: String {
        var text = "SQLite error \(code.rawValue): \(message)"
        if let sql {
            text += " - while executing \(sql.trimmedForMessage)"
        }
        return text
    }

    /// The description followed by the bound arguments; values may be secrets.
    package var expandedDescription: String {
        guard !arguments.isEmpty else { return description }
        let list = arguments.map { "\($0)" }.joined(separator: ", ")
        return description + " with arguments [\(list)]"
    }
}

extension SQLiteError {
    /// `SQLITE_BUSY`: another connection held the lock past the busy timeout.
    package var isBusy: Bool { code == .busy }
    /// `SQLITE_LOCKED`: a conflict inside this connection (a table dropped while a statement
    /// reads it); not another process's lock.
    package var isLocked: Bool { code == .locked }
    /// `SQLITE_FULL`: the disk or the page limit is full.
    package var isDiskFull: Bool { code == .full }
    /// `SQLITE_READONLY`, or `SQLITE_PERM`: the file or its folder may not be written.
    package var isReadOnly: Bool { code == .readOnly || code == .permission }
    /// `SQLITE_IOERR`: the operating system reported an I/O error.
    package var isIOError: Bool { code == .ioError }
    /// `SQLITE_NOTADB` or `SQLITE_CORRUPT`: the file is not a sound SQLite database.
    package var isCorrupt: Bool { code == .notADatabase || code == .corrupt }
    /// `SQLITE_CANTOPEN`: the file could not be opened.
    package var isCannotOpen: Bool { code == .cannotOpen }
    /// `SQLITE_CONSTRAINT`: a constraint failed.
    package var isConstraintViolation: Bool { code == .constraint }
}

extension String {
    /// The SQL on one line, shortened for an error message.
    fileprivate var trimmedForMessage: String {
        let oneLine = split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return oneLine.count > 200 ? String(oneLine.prefix(200)) + "..." : oneLine
    }
}
