/// An error reported by SQLite, with the statement that caused it.
///
/// Its description reads like
/// `SQLite error 19: UNIQUE constraint failed: bookmark.kind - while executing INSERT ...`.
/// Bound arguments are left out of `description` because values may be secrets; ask for
/// ``expandedDescription`` when you need them.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The primary result code, such as 19 for `SQLITE_CONSTRAINT`.
    public let code: Int
    /// The extended result code, such as 2067 for `SQLITE_CONSTRAINT_UNIQUE`.
    public let extendedCode: Int
    /// The message SQLite gave.
    public let message: String
    /// The SQL being executed, when there was one.
    public let sql: String?
    /// The bound arguments, shown only by ``expandedDescription``.
    let arguments: [SQLiteValue]

    /// Creates an error from its parts.
    public init(
        code: Int, extendedCode: Int? = nil, message: String, sql: String? = nil,
        arguments: [SQLiteValue] = []
    ) {
        self.code = code
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
        self.arguments = arguments
    }

    /// One line naming the code, the message and the SQL.
    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql {
            text += " - while executing \(sql.trimmedForMessage)"
        }
        return text
    }

    /// The description followed by the bound arguments; values may be secrets.
    public var expandedDescription: String {
        guard !arguments.isEmpty else { return description }
        let list = arguments.map { "\($0)" }.joined(separator: ", ")
        return description + " with arguments [\(list)]"
    }
}

extension SQLiteError {
    /// `SQLITE_BUSY`: another connection held the lock past the busy timeout.
    public var isBusy: Bool { code == 5 || code == 6 }
    /// `SQLITE_FULL`: the disk or the page limit is full.
    public var isDiskFull: Bool { code == 13 }
    /// `SQLITE_READONLY` or a permission problem writing the file.
    public var isReadOnly: Bool { code == 8 || code == 23 }
    /// `SQLITE_IOERR`: the operating system reported an I/O error.
    public var isIOError: Bool { code == 10 }
    /// `SQLITE_NOTADB` or `SQLITE_CORRUPT`: the file is not a sound SQLite database.
    public var isCorrupt: Bool { code == 26 || code == 11 }
    /// `SQLITE_CANTOPEN`: the file could not be opened.
    public var isCannotOpen: Bool { code == 14 }
    /// `SQLITE_CONSTRAINT`: a constraint failed.
    public var isConstraintViolation: Bool { code == 19 }
}

extension String {
    /// The SQL on one line, shortened for an error message.
    fileprivate var trimmedForMessage: String {
        let oneLine = split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return oneLine.count > 200 ? String(oneLine.prefix(200)) + "..." : oneLine
    }
}
