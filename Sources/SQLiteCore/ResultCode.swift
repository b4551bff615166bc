/// A primary SQLite result code; see <https://www.sqlite.org/rescode.html>.
///
/// Compares with an integer literal too: `error.code == 19`.
public struct ResultCode: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The code's number.
    public let rawValue: Int

    /// The code with this number.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The code with this number.
    public init(integerLiteral value: Int) { self.rawValue = value }

    /// `SQLITE_ERROR`: a generic error (a syntax error, a missing table or column).
    public static let error: ResultCode = 1
    /// `SQLITE_INTERNAL`: a bug inside SQLite.
    public static let internalError: ResultCode = 2
    /// `SQLITE_PERM`: the requested access mode cannot be provided.
    public static let permission: ResultCode = 3
    /// `SQLITE_ABORT`: an operation was aborted, often by a rollback.
    public static let abort: ResultCode = 4
    /// `SQLITE_BUSY`: another connection holds a lock that is needed.
    public static let busy: ResultCode = 5
    /// `SQLITE_LOCKED`: a conflict within the same connection or shared cache.
    public static let locked: ResultCode = 6
    /// `SQLITE_NOMEM`: a memory allocation failed.
    public static let noMemory: ResultCode = 7
    /// `SQLITE_READONLY`: a write to a database that may not be written.
    public static let readOnly: ResultCode = 8
    /// `SQLITE_INTERRUPT`: the operation was interrupted.
    public static let interrupt: ResultCode = 9
    /// `SQLITE_IOERR`: the operating system reported an I/O error.
    public static let ioError: ResultCode = 10
    /// `SQLITE_CORRUPT`: the database file is damaged.
    public static let corrupt: ResultCode = 11
    /// `SQLITE_FULL`: the disk, or the database's page limit, is full.
    public static let full: ResultCode = 13
    /// `SQLITE_CANTOPEN`: a file could not be opened.
    public static let cannotOpen: ResultCode = 14
    /// `SQLITE_PROTOCOL`: a locking protocol problem (WAL).
    public static let lockingProtocol: ResultCode = 15
    /// `SQLITE_SCHEMA`: the schema changed under a prepared statement.
    public static let schemaChanged: ResultCode = 17
    /// `SQLITE_TOOBIG`: a string or blob is too large.
    public static let tooBig: ResultCode = 18
    /// `SQLITE_CONSTRAINT`: a constraint failed.
    public static let constraint: ResultCode = 19
    /// `SQLITE_MISMATCH`: a datatype mismatch (a non-integer rowid).
    public static let mismatch: ResultCode = 20
    /// `SQLITE_MISUSE`: the library was used incorrectly.
    public static let misuse: ResultCode = 21
    /// `SQLITE_AUTH`: an authorizer callback denied the statement.
    public static let authorization: ResultCode = 23
    /// `SQLITE_RANGE`: a parameter index out of range.
    public static let range: ResultCode = 25
    /// `SQLITE_NOTADB`: the file is not a database.
    public static let notADatabase: ResultCode = 26
    /// `SQLITE_ROW`: a step produced a row.
    public static let row: ResultCode = 100
    /// `SQLITE_DONE`: a step finished the statement.
    public static let done: ResultCode = 101

    /// The number, as SQLite's documentation shows it.
    public var description: String { String(rawValue) }
}
