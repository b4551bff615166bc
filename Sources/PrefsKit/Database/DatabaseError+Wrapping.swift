internal import SQLiteCore

extension DatabaseError {
    /// Maps any error from the SQLite layer to a ``DatabaseError``; other errors become
    /// `.internalError`.
    static func wrapping(_ error: Error, path: String) -> DatabaseError {
        switch error {
        case let error as DatabaseError: error
        case let error as SQLiteError: DatabaseError(error, path: path)
        default: .internalError("\(error)")
        }
    }
}
