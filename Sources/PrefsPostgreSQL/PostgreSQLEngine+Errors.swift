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
        let said = serverWords(error.message)
        if error.isPermissionDenied {
            let acting = account.map { "; this login acts for account '\($0)'" } ?? ""
            return .permissionDenied(path: target, detail: "the server said: " + said + acting)
        }
        if error.isDiskFull { return .diskFull(path: target) }
        // Text with a NUL character (U+0000), refused before it was sent (PostgreSQL's text
        // cannot hold one), or by the server.
        if error.sqlState == "22021" { return .cannotHoldText(detail: said) }
        if error.isTimeout { return .timedOut(path: target, detail: said) }
        if error.isMissingDatabase { return .serverDatabaseMissing(path: target) }
        if error.isRetryable { return .busy(path: target) }
        if error.isServerUnavailable {
            return .unavailable(path: target, detail: said)
        }
        return .internalError(error.description)
    }

    /// What the server said, without libpq's framing of it: `connection to server on socket
    /// "..." failed: FATAL:  role "x" does not exist` is `role "x" does not exist`. A
    /// message with no such framing stays as it is.
    static func serverWords(_ message: String) -> String {
        var text = Substring(message)
        if text.hasPrefix("connection to server"), let failed = text.firstRange(of: " failed: ") {
            text = text[failed.upperBound...]
        }
        for level in ["FATAL:", "ERROR:"] where text.hasPrefix(level) {
            text = text.dropFirst(level.count).drop(while: { $0 == " " })
        }
        return text.isEmpty ? message : String(text)
    }
}
