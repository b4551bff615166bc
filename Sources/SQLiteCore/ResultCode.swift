/// A primary SQLite result code; see <https://www.sqlite.org/rescode.html>.
///
/// Compares with an integer literal too: `error.code == 19`.
package struct ResultCode: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The code's number.
    package let rawValue: Int

    /// The code with this number.
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// The code with this number.
    package init(integerLiteral value: Int) { self.rawValue = value }

    /// `SQLITE_ERROR`: a generic error (a syntax error, a missing table or column).
    package static let error: ResultCode = 1
    /// `SQLITE_INTERNAL`: a bug inside SQLite.
    package static let internalError: ResultCode = 2
    /// `SQLITE_PERM`: the requested access mode cannot be provided.
    package static let permission: ResultCode = 3
    /// `SQLITE_ABORT`: an operation was aborted, often by a rollback.
    package static let abort: ResultCode = 4
    /// `SQLITE_BUSY`: another connection holds a lock that is needed.
    package static let busy: ResultCode = 5
    /// `SQLITE_LOCKED`: a conflict within the same connection or shared cache.
    package static let locked: ResultCode = 6
    /// `SQLITE_NOMEM`: a memory allocation failed.
    package static let noMemory: ResultCode = 7
    /// `SQLITE_READONLY`: a write to a database that may not be written.
    package static let readOnly: ResultCode = 8
    /// `SQLITE_INTERRUPT`: the operation was interrupted.
    package static let interrupt: ResultCode = 9
    /// `SQLITE_IOERR`: the operating system reported an I/O error.
    package static let ioError: ResultCode = 10
    /// `SQLITE_CORRUPT`: the database file is damaged.
    package static let corrupt: ResultCode = 11
    /// `SQLITE_FULL`: the disk, or the database's page limit, is full.
    package static let full: ResultCode = 13
    /// `SQLITE_CANTOPEN`: a file could not be opened.
    package static let cannotOpen: ResultCode = 14
    /// `SQLITE_PROTOCOL`: a locking protocol problem (WAL).
    package static let lockingProtocol: ResultCode = 15
    /// `SQLITE_SCHEMA`: the schema changed under a prepared statement.
    package static let schemaChanged: ResultCode = 17
    /// `SQLITE_TOOBIG`: a string or blob is too large.
    package static let tooBig: ResultCode = 18
    /// `SQLITE_CONSTRAINT`: a constraint failed.
    package static let constraint: ResultCode = 19
    /// `SQLITE_MISMATCH`: a datatype mismatch (a non-integer rowid).
    package static let mismatch: ResultCode = 20
    /// `SQLITE_MISUSE`: the library was used incorrectly.
    package static let misuse: ResultCode = 21
    /// `SQLITE_AUTH`: an authorizer callback denied the statement.
    package static let authorization: ResultCode = 23
    /// `SQLITE_RANGE`: a parameter index out of range.
    package static let range: ResultCode = 25
    /// `SQLITE_NOTADB`: the file is not a database.
    package static let notADatabase: ResultCode = 26
    /// `SQLITE_ROW`: a step produced a row.
    package static let row: ResultCode = 100
    /// `SQLITE_DONE`: a step finished the statement.
    package static let done: ResultCode = 101

    /// The number, as SQLite's documentation shows it.
    package var description: String { String(rawValue) }
}
