/// Why the database could not be opened, read or written, in words a user can act on.
///
public struct DatabaseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, with what a user needs to act on it.
    public enum Kind: Equatable, Sendable {
        /// The file does not exist (and was not to be created).
        case notFound(path: String)
        /// The path names a directory.
        case isDirectory(path: String)
        /// The path is a symbolic link, which is refused.
        case isSymlink(path: String)
        /// The path (or a file SQLite keeps beside it) is a FIFO, a device or a socket.
        case specialFile(path: String, kind: String)
        /// The database or a file SQLite keeps beside it (`file`) belongs to another user or
        /// may be written by others, and sharing was not allowed (``AppDatabase/Options/allowsSharedFile``).
        case untrustedFile(path: String, file: String, reason: String)
        /// The file, or a folder on its path, may not be read or entered by this user.
        case accessDenied(path: String)
        /// The folder the file is to be created in does not exist (only the default location's
        /// folders are made).
        case folderMissing(path: String)
        /// libpq cannot parse the connection string. It is not shown: a mistyped string may hold
        /// a password where libpq would not look for one.
        case invalidConnectionString
        /// libpq refused a value in the connection string (`sslmode=bogus`): the string is wrong,
        /// not the server, and retrying changes nothing.
        case invalidConnectionOption(path: String, detail: String)
        /// The file is not a SQLite database, or it is damaged.
        case notADatabase(path: String, detail: String)
        /// The file is another application's SQLite database, or the server's database holds
        /// another application's tables and no prefs schema.
        case foreignDatabase(path: String)
        /// The file was written by a newer version of prefs.
        case newerVersion(path: String, found: Int, supported: Int)
        /// A read-only open found an older schema, which only a writer can upgrade.
        case needsUpgrade(path: String, found: Int, supported: Int)
        /// The file or its folder could not be created.
        case cannotCreate(path: String, reason: String)
        /// The file is there but cannot be opened as a database file (a file of the system, such
        /// as `/proc/self/mem`).
        case cannotOpen(path: String, reason: String)
        /// The disk (or the file's size limit) is full.
        case diskFull(path: String)
        /// The file or its folder is read-only.
        case readOnly(path: String)
        /// The operating system reported an I/O error.
        case ioError(path: String, detail: String)
        /// Another process held the lock past the busy timeout (or, on a server, a transaction
        /// could not be serialized with another).
        case busy(path: String)
        /// The server gave up waiting: a lock held by another session past the lock timeout, or a
        /// statement past the statement timeout. Nothing was changed; retry.
        case timedOut(path: String, detail: String)
        /// The server has no database of that name.
        case serverDatabaseMissing(path: String)
        /// The server refused: authentication failed, or the role may not do this (row-level
        /// security included).
        case permissionDenied(path: String, detail: String)
        /// The database server cannot be reached, or is starting or stopping.
        case unavailable(path: String, detail: String)
        /// This build lacks what the database needs (PostgreSQL support in the static build).
        case unsupported(String)
        /// A value is larger than the database can hold in one value; nothing was written.
        case tooLarge(detail: String)
        /// Text the database cannot hold (a NUL character in PostgreSQL's text); nothing was
        /// written.
        case cannotHoldText(detail: String)
        /// Anything else SQLite reported; a bug if it happens.
        case internalError(String)
    }

    /// An engine's own code for the failure.
    public enum EngineCode: Equatable, Sendable, CustomStringConvertible {
        /// SQLite's extended result code (`SQLITE_BUSY_SNAPSHOT` is 517).
        case sqlite(extendedResultCode: Int)
        /// PostgreSQL's SQLSTATE (`40001`: a serialization failure).
        case postgreSQL(sqlState: String)

        /// The code as the engine's documentation writes it.
        public var description: String {
            switch self {
            case .sqlite(let code): "SQLite result code \(code)"
            case .postgreSQL(let state): "SQLSTATE \(state)"
            }
        }
    }

    /// What went wrong.
    public let kind: Kind
    /// The engine's code, when an engine reported the failure.
    public let engineCode: EngineCode?
    /// The engine's error as it was raised (SQLite's or libpq's), for logs and for what the
    /// kind does not say.
    public let underlying: (any Error & Sendable)?

    /// An error of a kind, with the engine's code and error when an engine reported it.
    public init(
        _ kind: Kind, engineCode: EngineCode? = nil, underlying: (any Error & Sendable)? = nil
    ) {
        self.kind = kind
        self.engineCode = engineCode
        self.underlying = underlying
    }

    /// Errors are equal when their kinds are: the engine's code and error are detail.
    public static func == (left: DatabaseError, right: DatabaseError) -> Bool {
        left.kind == right.kind
    }

    /// A ``Kind/notFound(path:)`` error.
    public static func notFound(path: String) -> DatabaseError {
        DatabaseError(.notFound(path: path))
    }

    /// A ``Kind/isDirectory(path:)`` error.
    public static func isDirectory(path: String) -> DatabaseError {
        DatabaseError(.isDirectory(path: path))
    }

    /// A ``Kind/isSymlink(path:)`` error.
    public static func isSymlink(path: String) -> DatabaseError {
        DatabaseError(.isSymlink(path: path))
    }

    /// A ``Kind/specialFile(path:kind:)`` error.
    public static func specialFile(path: String, kind: String) -> DatabaseError {
        DatabaseError(.specialFile(path: path, kind: kind))
    }

    /// A ``Kind/untrustedFile(path:file:reason:)`` error.
    public static func untrustedFile(path: String, file: String, reason: String) -> DatabaseError {
        DatabaseError(.untrustedFile(path: path, file: file, reason: reason))
    }

    /// A ``Kind/accessDenied(path:)`` error.
    public static func accessDenied(path: String) -> DatabaseError {
        DatabaseError(.accessDenied(path: path))
    }

    /// A ``Kind/folderMissing(path:)`` error.
    public static func folderMissing(path: String) -> DatabaseError {
        DatabaseError(.folderMissing(path: path))
    }

    /// A ``Kind/invalidConnectionString`` error.
    public static var invalidConnectionString: DatabaseError {
        DatabaseError(.invalidConnectionString)
    }

    /// A ``Kind/invalidConnectionOption(path:detail:)`` error.
    public static func invalidConnectionOption(path: String, detail: String) -> DatabaseError {
        DatabaseError(.invalidConnectionOption(path: path, detail: detail))
    }

    /// A ``Kind/notADatabase(path:detail:)`` error.
    public static func notADatabase(path: String, detail: String) -> DatabaseError {
        DatabaseError(.notADatabase(path: path, detail: detail))
    }

    /// A ``Kind/foreignDatabase(path:)`` error.
    public static func foreignDatabase(path: String) -> DatabaseError {
        DatabaseError(.foreignDatabase(path: path))
    }

    /// A ``Kind/newerVersion(path:found:supported:)`` error.
    public static func newerVersion(path: String, found: Int, supported: Int) -> DatabaseError {
        DatabaseError(.newerVersion(path: path, found: found, supported: supported))
    }

    /// A ``Kind/needsUpgrade(path:found:supported:)`` error.
    public static func needsUpgrade(path: String, found: Int, supported: Int) -> DatabaseError {
        DatabaseError(.needsUpgrade(path: path, found: found, supported: supported))
    }

    /// A ``Kind/cannotCreate(path:reason:)`` error.
    public static func cannotCreate(path: String, reason: String) -> DatabaseError {
        DatabaseError(.cannotCreate(path: path, reason: reason))
    }

    /// A ``Kind/cannotOpen(path:reason:)`` error.
    public static func cannotOpen(path: String, reason: String) -> DatabaseError {
        DatabaseError(.cannotOpen(path: path, reason: reason))
    }

    /// A ``Kind/diskFull(path:)`` error.
    public static func diskFull(path: String) -> DatabaseError {
        DatabaseError(.diskFull(path: path))
    }

    /// A ``Kind/readOnly(path:)`` error.
    public static func readOnly(path: String) -> DatabaseError {
        DatabaseError(.readOnly(path: path))
    }

    /// A ``Kind/ioError(path:detail:)`` error.
    public static func ioError(path: String, detail: String) -> DatabaseError {
        DatabaseError(.ioError(path: path, detail: detail))
    }

    /// A ``Kind/busy(path:)`` error.
    public static func busy(path: String) -> DatabaseError {
        DatabaseError(.busy(path: path))
    }

    /// A ``Kind/timedOut(path:detail:)`` error.
    public static func timedOut(path: String, detail: String) -> DatabaseError {
        DatabaseError(.timedOut(path: path, detail: detail))
    }

    /// A ``Kind/serverDatabaseMissing(path:)`` error.
    public static func serverDatabaseMissing(path: String) -> DatabaseError {
        DatabaseError(.serverDatabaseMissing(path: path))
    }

    /// A ``Kind/permissionDenied(path:detail:)`` error.
    public static func permissionDenied(path: String, detail: String) -> DatabaseError {
        DatabaseError(.permissionDenied(path: path, detail: detail))
    }

    /// A ``Kind/unavailable(path:detail:)`` error.
    public static func unavailable(path: String, detail: String) -> DatabaseError {
        DatabaseError(.unavailable(path: path, detail: detail))
    }

    /// A ``Kind/unsupported(_:)`` error.
    public static func unsupported(_ value0: String) -> DatabaseError {
        DatabaseError(.unsupported(value0))
    }

    /// A ``Kind/tooLarge(detail:)`` error.
    public static func tooLarge(detail: String) -> DatabaseError {
        DatabaseError(.tooLarge(detail: detail))
    }

    /// A ``Kind/cannotHoldText(detail:)`` error.
    public static func cannotHoldText(detail: String) -> DatabaseError {
        DatabaseError(.cannotHoldText(detail: detail))
    }

    /// A ``Kind/internalError(_:)`` error.
    public static func internalError(_ value0: String) -> DatabaseError {
        DatabaseError(.internalError(value0))
    }

    /// One line a user can act on, naming the file.
    public var description: String {
        switch kind {
        case .notFound(let path):
            "No database at '\(path)'"
        case .isDirectory(let path):
            "'\(path)' is a directory, not a prefs database"
        case .isSymlink(let path):
            "'\(path)' is a symbolic link; pass the real path of the database"
        case .specialFile(let path, let kind):
            "'\(path)' is \(kind), not a prefs database"
        case .untrustedFile(let path, let file, let reason):
            "Refusing to open '\(path)': '\(file)' is not safe, \(reason); if the file is"
                + " shared on purpose, allow sharing (AppDatabase.Options.allowsSharedFile)"
        case .accessDenied(let path):
            "Permission denied reading '\(path)' or a folder on its path"
        case .folderMissing(let path):
            "The folder of '\(path)' does not exist; create it first"
        case .invalidConnectionString:
            "libpq cannot parse the connection string (not shown, as it may hold a password);"
                + " check its syntax: postgresql://user@host/dbname or host=... dbname=..."
        case .invalidConnectionOption(let path, let detail):
            "Invalid connection string '\(path)': \(detail)"
        case .notADatabase(let path, let detail):
            "'\(path)' is not a prefs database or is corrupt (\(detail)); it was left unchanged"
        case .foreignDatabase(let path):
            "'\(path)' is another application's database; it was left unchanged"
        case .newerVersion(let path, let found, let supported):
            "'\(path)' was written by a newer prefs (schema \(found), this one knows \(supported)); upgrade prefs"
        case .needsUpgrade(let path, let found, let supported):
            "'\(path)' has schema \(found) and needs upgrading to \(supported); open it for writing once"
        case .cannotCreate(let path, let reason):
            "Cannot create '\(path)': \(reason)"
        case .cannotOpen(let path, let reason):
            "Cannot open '\(path)' as a database file: \(reason)"
        case .diskFull(let path):
            "The disk is full writing '\(path)'; free some space and retry (nothing was changed)"
        case .readOnly(let path):
            "'\(path)' is read-only; check the permissions of the file and its folder"
        case .ioError(let path, let detail):
            "I/O error on '\(path)': \(detail)"
        case .busy(let path):
            "'\(path)' is locked by another process; retry in a moment"
        case .timedOut(let path, let detail):
            "'\(path)' gave up waiting (\(detail)); nothing was changed, retry in a moment"
        case .serverDatabaseMissing(let path):
            "The database of '\(path)' does not exist on the server; create it first"
                + " (createdb NAME)"
        case .permissionDenied(let path, let detail):
            "Permission denied by '\(path)': \(detail)"
        case .unavailable(let path, let detail):
            "The server of '\(path)' is unavailable (\(detail)); retry in a moment"
        case .unsupported(let detail):
            detail
        case .tooLarge(let detail):
            "A value is too large to store (\(detail)); nothing was written"
        case .cannotHoldText(let detail):
            "The database cannot hold this text (\(detail)); nothing was written"
        case .internalError(let detail):
            "Internal error: \(detail)"
        }
    }
}
