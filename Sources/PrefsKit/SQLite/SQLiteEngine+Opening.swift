import FoundationEssentials
internal import SQLiteCore

extension SQLiteEngine {
    /// The `application_id` that marks a prefs file ("PRFS").
    static let applicationID: Int32 = 0x5052_4653

    /// The migrations compiled into this binary, in order.
    static let migrations: [Migration] = EmbeddedMigrations.all.map {
        Migration(version: $0.version, name: $0.name, sql: $0.sql)
    }

    static var migrator: Migrator {
        Migrator(migrations: migrations, applicationID: applicationID)
    }

    /// The SQLite VFS that databases opened by this task go through; nil for the default.
    /// For tests only (power-loss and I/O-error simulation), which set it around the code
    /// they test, the command line included, without touching other tasks.
    @TaskLocal static var vfsName: String?

    /// Opens (and when needed creates and migrates) a prefs file.
    ///
    /// Refuses, before a single byte is written, a file that is not ours or that a newer
    /// version wrote.
    static func open(path: String, options: AppDatabase.Options) throws(DatabaseError)
        -> SQLiteEngine
    {
        do {
            if path != ":memory:" {
                try DatabaseFile.prepare(
                    at: path, create: options.createIfMissing && !options.isReadOnly)
            }
            let connection = try connect(path: path, options: options)
            let version = try configure(connection, path: path, options: options)
            return SQLiteEngine(
                connection: connection, path: path, isEmpty: version == 0 && options.isReadOnly)
        } catch {
            throw databaseError(for: error, path: path)
        }
    }

    /// Opens the connection. A read-only open of a file in a folder we cannot write (so no
    /// `-shm` can be made) reads it as immutable when it has no `-wal` file, that is no
    /// commits outside the main file.
    private static func connect(path: String, options: AppDatabase.Options) throws -> Connection {
        let connection = try Connection(
            path: path, mode: options.isReadOnly ? .readOnly : .readWrite, vfs: vfsName)
        connection.setBusyTimeout(milliseconds: options.busyTimeoutMilliseconds)
        guard options.isReadOnly, path != ":memory:" else { return connection }
        do {
            _ = try connection.scalar(Int.self, sql: "PRAGMA user_version")
            return connection
        } catch let error as SQLiteError where error.isCannotOpen || error.isReadOnly {
            guard !DatabaseFile.exists(atPath: path + "-wal") else { throw error }
            let immutable = try Connection(path: path, mode: .readOnly, isImmutable: true)
            immutable.setBusyTimeout(milliseconds: options.busyTimeoutMilliseconds)
            return immutable
        }
    }

    /// Sets the pragmas, checks the schema version and migrates (unless read-only).
    ///
    /// - Returns: The schema version found before migrating; 0 for an empty file.
    private static func configure(
        _ connection: Connection, path: String, options: AppDatabase.Options
    ) throws -> Int {
        try connection.execute(sql: "PRAGMA foreign_keys = ON")
        try connection.execute(sql: "PRAGMA synchronous = \(options.synchronous.rawValue)")
        // Savepoints inside a transaction (each store call nested in a larger one) keep
        // their statement journal in memory instead of a temporary file.
        try connection.execute(sql: "PRAGMA temp_store = MEMORY")
        let migrator = Self.migrator
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
        return version
    }
}
