import FoundationEssentials
internal import SQLiteCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The prefs database file: opened, checked, migrated, and shared by the stores and
/// repositories that use it.
///
/// Opening applies the settings of the README's "The database file": WAL, a busy timeout
/// of 5 s, `synchronous=FULL`, foreign keys, defensive mode. A file that is not ours, or
/// that a newer version wrote, is refused before a single byte is written. Create one per
/// file and process and hand it to the stores; it is safe to use from any thread.
///
/// ```swift
/// let database = try AppDatabase(path: DatabaseLocation.defaultPath())
/// let store = PreferenceStore(database: database)
/// ```
public final class AppDatabase: Sendable {
    /// How to open a database.
    public struct Options: Sendable {
        /// Create the file (0600, in a 0700 folder) when it is missing.
        public var createIfMissing = true
        /// Open read-only: nothing is created, migrated or written.
        public var isReadOnly = false
        /// The `synchronous` level; `.full` makes every commit durable across power loss.
        public var synchronous: Synchronous = .full
        /// How long a write waits for another process's lock before failing as busy.
        public var busyTimeoutMilliseconds = 5000
        /// How often a cached read checks whether another process committed.
        public var changeCheckIntervalMilliseconds = 10
        /// Keep read preferences in memory (the default). Without the cache every read is
        /// one SQLite query, always current.
        public var cachesValues = true

        /// The default options.
        public init() {}
    }

    /// SQLite's `synchronous` levels; see <https://www.sqlite.org/pragma.html#pragma_synchronous>.
    public enum Synchronous: String, Sendable {
        case off = "OFF"
        case normal = "NORMAL"
        case full = "FULL"
    }

    /// The `application_id` that marks a prefs file ("PRFS").
    public static let applicationID: Int32 = 0x5052_4653

    /// The migrations compiled into this binary, in order.
    static let migrations: [Migration] = EmbeddedMigrations.all.map {
        Migration(version: $0.version, name: $0.name, sql: $0.sql)
    }

    /// The newest schema version this binary knows.
    public static var schemaVersion: Int { migrations.last?.version ?? 0 }

    /// The names of the embedded migration files, `NNNN_description.sql`, in order.
    public static var migrationFileNames: [String] {
        migrations.map { String(repeating: "0", count: max(0, 4 - String($0.version).count))
            + String($0.version) + "_" + $0.name + ".sql" }
    }

    /// The file path, or `:memory:`.
    public let path: String
    /// Whether the database was opened read-only.
    public let isReadOnly: Bool
    /// Whether preference reads are cached in memory.
    public let cachesValues: Bool
    let state: Locked<DatabaseState>

    /// Opens (and when needed creates and migrates) a database file.
    ///
    /// - Parameters:
    ///   - path: The file, or `:memory:` for a private in-memory database.
    ///   - options: Creation, read-only, durability and timeout settings.
    /// - Throws: ``DatabaseError``: `.notFound`, `.notADatabase`, `.foreignDatabase`,
    ///   `.newerVersion`, `.cannotCreate`, `.readOnly`, `.busy`...
    public init(path: String, options: Options = Options()) throws(DatabaseError) {
        self.path = path
        self.isReadOnly = options.isReadOnly
        self.cachesValues = options.cachesValues
        let connection: Connection
        do {
            if path != ":memory:" {
                try Self.prepareFile(at: path, options: options)
            }
            connection = try Self.connect(path: path, options: options)
        } catch let error as DatabaseError {
            throw error
        } catch let error as SQLiteError {
            throw DatabaseError(error, path: path)
        } catch {
            throw .internalError("\(error)")
        }
        do {
            try connection.execute(sql: "PRAGMA foreign_keys = ON")
            try connection.execute(sql: "PRAGMA synchronous = \(options.synchronous.rawValue)")
            // Savepoints inside a transaction (each store call nested in a larger one) keep
            // their statement journal in memory instead of a temporary file.
            try connection.execute(sql: "PRAGMA temp_store = MEMORY")
            let migrator = Migrator(migrations: Self.migrations, applicationID: Self.applicationID)
            let version = try migrator.validate(connection)
            if !options.isReadOnly {
                let mode = try connection.scalar(String.self, sql: "PRAGMA journal_mode") ?? ""
                if mode.lowercased() != "wal" && path != ":memory:" {
                    try connection.execute(sql: "PRAGMA journal_mode = WAL")
                }
                try migrator.migrate(connection)
            } else if version != 0 && version < migrator.latestVersion {
                throw DatabaseError.needsUpgrade(
                    path: path, found: version, supported: migrator.latestVersion)
            }
            state = Locked(
                try DatabaseState(
                    connection: connection,
                    checkInterval: UInt64(options.changeCheckIntervalMilliseconds) * 1_000_000,
                    isEmpty: version == 0 && options.isReadOnly))
        } catch let error as DatabaseError {
            throw error
        } catch let failure as Migrator.Failure {
            switch failure {
            case .foreignDatabase: throw .foreignDatabase(path: path)
            case .newerSchema(let found, let supported):
                throw .newerVersion(path: path, found: found, supported: supported)
            case .invalidMigrations(let detail): throw .internalError(detail)
            }
        } catch let error as SQLiteError {
            throw DatabaseError(error, path: path)
        } catch {
            throw .internalError("\(error)")
        }
    }

    /// The SQLite VFS that databases opened by this task go through; nil for the default.
    /// For tests only (power-loss and I/O-error simulation), which set it around the code
    /// they test, the command line included, without touching other tasks.
    @TaskLocal static var vfsName: String?

    /// Opens the connection. A read-only open of a file in a folder we cannot write (so no
    /// `-shm` can be made) reads it as immutable when it has no `-wal` file, that is no
    /// commits outside the main file.
    private static func connect(path: String, options: Options) throws -> Connection {
        let connection = try Connection(
            path: path, mode: options.isReadOnly ? .readOnly : .readWrite, vfs: Self.vfsName)
        connection.setBusyTimeout(milliseconds: options.busyTimeoutMilliseconds)
        guard options.isReadOnly, path != ":memory:" else { return connection }
        do {
            _ = try connection.scalar(Int.self, sql: "PRAGMA user_version")
            return connection
        } catch let error as SQLiteError where error.isCannotOpen || error.isReadOnly {
            guard !fileExists(atPath: path + "-wal") else { throw error }
            let immutable = try Connection(path: path, mode: .readOnly, isImmutable: true)
            immutable.setBusyTimeout(milliseconds: options.busyTimeoutMilliseconds)
            return immutable
        }
    }

    /// Opens a private in-memory database, for tests and previews.
    ///
    /// - Throws: ``DatabaseError`` when SQLite cannot allocate it.
    public static func inMemory() throws(DatabaseError) -> AppDatabase {
        try AppDatabase(path: ":memory:")
    }

    /// Whether a file exists at a path (a read that must not create the database asks this
    /// first).
    public static func fileExists(atPath path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Refuses directories and symlinks, and creates a missing file with mode 0600 in
    /// folders of mode 0700.
    private static func prepareFile(at path: String, options: Options) throws(DatabaseError) {
        var status = stat()
        if lstat(path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFDIR: throw .isDirectory(path: path)
            case S_IFLNK: throw .isSymlink(path: path)
            default: return
            }
        }
        guard errno == ENOENT else {
            throw .cannotCreate(path: path, reason: String(cString: strerror(errno)))
        }
        guard options.createIfMissing, !options.isReadOnly else { throw .notFound(path: path) }
        try createDirectories(for: path)
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor < 0 {
            if errno == EEXIST { return }  // another process created it first
            let reason = String(cString: strerror(errno))
            if errno == ENOSPC || errno == EROFS || errno == EDQUOT {
                throw errno == ENOSPC ? .diskFull(path: path) : .readOnly(path: path)
            }
            throw .cannotCreate(path: path, reason: reason)
        }
        close(descriptor)
    }

    private static func createDirectories(for path: String) throws(DatabaseError) {
        var components = path.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast()
        var current = path.hasPrefix("/") ? "" : "."
        for component in components where !component.isEmpty {
            current += "/" + component
            var status = stat()
            if stat(current, &status) == 0 {
                guard status.st_mode & S_IFMT == S_IFDIR else {
                    throw .cannotCreate(path: path, reason: "'\(current)' is not a directory")
                }
                continue
            }
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                throw .cannotCreate(path: path, reason: String(cString: strerror(errno)))
            }
        }
    }

    // MARK: - Access

    /// Runs several changes, of any stores over this database, in one `BEGIN IMMEDIATE`
    /// transaction: all of them are committed when the closure returns, none when it throws.
    ///
    /// ```swift
    /// try database.transaction {
    ///     try preferences.set(true, for: .hasViewedWalkthrough)
    ///     try selections.select(0, in: "walkthrough")
    /// }
    /// ```
    /// - Throws: The closure's error, or ``DatabaseError`` when the commit fails.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try write { _ in try body() }
    }

    /// Runs reads under the lock after making sure caches reflect other processes' commits.
    func read<T>(_ body: (DatabaseState) throws -> T) throws -> T {
        try state.withLock { state in
            do {
                try state.refreshIfStale()
                return try body(state)
            } catch let error as SQLiteError {
                throw classify(error, state: state)
            }
        }
    }

    /// Maps an SQLite error to a ``DatabaseError``. A plain `SQLITE_ERROR` ("no such column",
    /// "error in tokenizer constructor") is either our bug or a damaged schema; comparing the
    /// file's schema with the one the migrations make tells which. Only runs on failure.
    func classify(_ error: SQLiteError, state: DatabaseState) -> DatabaseError {
        guard error.code == 1 else { return DatabaseError(error, path: path) }
        // FTS5 keeps its settings in a table; damage there reads "invalid fts5 file format".
        if error.message.contains("fts5") {
            return .notADatabase(path: path, detail: error.message)
        }
        let query = """
            SELECT type, name, tbl_name, sql FROM sqlite_schema
            WHERE name NOT LIKE 'sqlite_%' ORDER BY name
            """
        do {
            let expected = try Connection(path: ":memory:")
            try Migrator(migrations: Self.migrations, applicationID: Self.applicationID)
                .migrate(expected)
            if try expected.rows(sql: query) != state.connection.rows(sql: query) {
                return .notADatabase(path: path, detail: "its schema is damaged")
            }
        } catch {
            return .notADatabase(path: path, detail: "its schema is damaged")
        }
        return DatabaseError(error, path: path)
    }

    /// Runs writes in one `BEGIN IMMEDIATE` transaction (or a savepoint when already inside
    /// one), then brings caches and observers up to date.
    func write<T>(_ body: (DatabaseState) throws -> T) throws -> T {
        if isReadOnly { throw DatabaseError.readOnly(path: path) }
        return try state.withLock { state in
            do {
                if state.isWriting {
                    return try state.connection.savepoint { try body(state) }
                }
                state.isWriting = true
                defer { state.isWriting = false }
                let result = try state.connection.transaction(.immediate) { try body(state) }
                state.isWriting = false
                state.didCommit()
                return result
            } catch let error as SQLiteError {
                state.didRollBack()
                throw classify(error, state: state)
            } catch {
                if !state.isWriting { state.didRollBack() }
                throw error
            }
        }
    }
}
