/// Why the database could not be opened, read or written, in words a user can act on.
///
public enum DatabaseError: Error, Equatable, Sendable, CustomStringConvertible {
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
    /// Anything else SQLite reported; a bug if it happens.
    case internalError(String)

    /// One line a user can act on, naming the file.
    public var description: String {
        switch self {
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
                + " shared on purpose, pass --allow-shared or set PREFS_ALLOW_SHARED=1"
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
                + " (createdb NAME, as the README's server set-up shows)"
        case .permissionDenied(let path, let detail):
            "Permission denied by '\(path)': \(detail)"
        case .unavailable(let path, let detail):
            "The server of '\(path)' is unavailable (\(detail)); retry in a moment"
        case .unsupported(let detail):
            detail
        case .tooLarge(let detail):
            "A value is too large to store (\(detail)); nothing was written"
        case .internalError(let detail):
            "Internal error: \(detail)"
        }
    }
}
