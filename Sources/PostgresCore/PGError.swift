/// An error reported by libpq or the PostgreSQL server.
///
/// Its description names the SQLSTATE when the server sent one, never the connection
/// string's password.
package struct PGError: Error, CustomStringConvertible, Sendable {
    /// The five-character SQLSTATE (`23505` for a unique violation), nil for a client-side
    /// failure such as a lost connection.
    package let sqlState: String?
    /// The primary message.
    package let message: String
    /// Whether the connection is gone (the server stopped, restarted, or the network broke).
    package let isConnectionLost: Bool

    /// Creates an error from its parts.
    package init(sqlState: String?, message: String, isConnectionLost: Bool = false) {
        self.sqlState = sqlState
        self.message = message
        self.isConnectionLost = isConnectionLost
    }

    /// One line: the message, and the SQLSTATE when there is one.
    package var description: String {
        sqlState.map { "PostgreSQL error \($0): \(message)" } ?? "PostgreSQL: \(message)"
    }

    /// The SQLSTATE's class, its first two characters (`28` invalid authorization).
    package var sqlStateClass: String? { sqlState.map { String($0.prefix(2)) } }

    /// A serialization failure or a deadlock: the transaction may succeed if run again.
    package var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }
    /// Authentication failed or the role may not do this (row-level security included).
    package var isPermissionDenied: Bool {
        sqlStateClass == "28" || sqlState == "42501"
    }
    /// The server cancelled a wait: `lock_timeout` (55P03) or `statement_timeout`
    /// (57014).
    package var isTimeout: Bool { sqlState == "55P03" || sqlState == "57014" }
    /// The database named in the connection string does not exist (3D000).
    package var isMissingDatabase: Bool { sqlState == "3D000" }
    /// The server is out of disk space.
    package var isDiskFull: Bool { sqlState == "53100" }
    /// libpq refused a value of the connection string before connecting (`sslmode=bogus`,
    /// `target_session_attrs=nonsense`, `port=abc`).
    package var isInvalidConnectionOption: Bool {
        sqlState == nil && !isConnectionLost && message.hasPrefix("invalid ")
    }
    /// The server is shutting down, starting up, or refused the connection.
    package var isServerUnavailable: Bool {
        isConnectionLost || sqlStateClass == "08" || sqlState == "57P01"
            || sqlState == "57P02" || sqlState == "57P03"
    }
}
