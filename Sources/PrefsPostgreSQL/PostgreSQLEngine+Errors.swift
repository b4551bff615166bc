internal import PostgresCore
import PrefsKit

extension PostgreSQLEngine {
    func translate(_ error: any Error) -> any Error {
        guard error is PGError else { return error }
        return Self.databaseError(for: error, target: target, account: account)
    }

    /// An error of the server or of libpq, in the terms of ``DatabaseError``; the message
    /// names the role and account of a refusal, never a password.
    static func databaseError(for error: any Error, target: String, account: String?)
        -> DatabaseError
    {
        switch error {
        case let error as DatabaseError: return error
        case let error as PGError:
            // The kind says what to do; the SQLSTATE and libpq's error say what happened.
            return DatabaseError(
                kind(of: error, target: target, account: account).kind,
                engineCode: error.sqlState.map { .postgreSQL(sqlState: $0) }, underlying: error)
        default: return .internalError("\(error)")
        }
    }

    private static func kind(of error: PGError, target: String, account: String?)
        -> DatabaseError
    {
        if error.isPermissionDenied {
            let acting = account.map { " acting for account '\($0)'" } ?? ""
            return .permissionDenied(path: target, detail: error.message + acting)
        }
        if error.isDiskFull { return .diskFull(path: target) }
        if error.isTimeout { return .timedOut(path: target, detail: error.message) }
        if error.isMissingDatabase { return .serverDatabaseMissing(path: target) }
        if error.isRetryable { return .busy(path: target) }
        if error.isServerUnavailable {
            return .unavailable(path: target, detail: error.message)
        }
        return .internalError(error.description)
    }
}
