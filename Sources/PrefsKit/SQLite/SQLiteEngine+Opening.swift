internal import SQLiteCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension SQLiteEngine {
    /// The `application_id` that marks a prefs file ("PRFS").
    static let applicationID: Int32 = 0x5052_4653

    /// The migrations compiled into this binary, in order.
    static let migrations: [Migration] = EmbeddedMigrations.all.map {
        Migration(
            version: $0.version, name: $0.name, sql: $0.sql,
            // 12 took the capture triggers out of files that do not sync; 16 changed one.
            afterward: [12, 16].contains($0.version) ? SyncCapture.createIfSyncing : nil)
    }

    static var migrator: Migrator {
        Migrator(migrations: migrations, applicationID: applicationID)
    }

    /// The SQLite VFS that databases opened by this task go through; nil for the default.
    /// For tests only (power-loss and I/O-error simulation), which set it around the code
    /// they test, the command line included, without touching other tasks
    /// (``withVFS(named:_:)``).
    @TaskLocal private static var vfsName: String?

    /// Whether any task ever named a VFS. Until one has, an open does not look the
    /// task-local value up: the lookup would bring Swift's concurrency runtime (its code,
    /// its metadata) into every `prefs` process.
    private static let anyVFSNamed = Atomic(false)

    /// Runs `body` with the databases it opens going through the SQLite VFS `name` (tests:
    /// the power-loss and I/O-error simulation), in this task only.
    static func withVFS<T>(named name: String, _ body: () throws -> T) rethrows -> T {
        anyVFSNamed.store(true, ordering: .releasing)
        return try $vfsName.withValue(name, operation: body)
    }

    /// Opens (and when needed creates and migrates) a prefs file.
    ///
    /// Refuses, before a single byte is written, a file that is not ours or that a newer
    /// version wrote.
    static func open(path: String, options: AppDatabase.Options) throws(DatabaseError)
        -> SQLiteEngine
    {
        do {
            // SQLite opens with SQLITE_OPEN_NOFOLLOW, which refuses a link anywhere in the
            // path; a folder reached through a link (a home folder on another disk) is the
            // user's own choice, and only the file itself must not be a link. The folders'
            // links are resolved first, and the files checked on the path SQLite opens: a
            // link that flips between the check and the open (to another user's folder)
            // then meets a path with no link to follow.
            var filePath = path == ":memory:" ? path : DatabaseFile.resolvingFolders(of: path)
            if path != ":memory:" {
                try DatabaseFile.prepare(
                    at: filePath, shownAs: path,
                    create: options.createIfMissing && !options.isReadOnly,
                    createsFolders: options.createsMissingFolders,
                    allowsShared: options.allowsSharedFile)
                // Folders made just now: resolved, and the file checked there again.
                let made = DatabaseFile.resolvingFolders(of: path)
                if made != filePath {
                    filePath = made
                    try DatabaseFile.prepare(
                        at: filePath, shownAs: path, create: false, createsFolders: false,
                        allowsShared: options.allowsSharedFile)
                }
            }
            var connection = try connect(path: filePath, options: options, isImmutable: false)
            let opened: Opened
            do {
                opened = try configure(connection, path: path, options: options)
            } catch let error as SQLiteError
                where options.isReadOnly && path != ":memory:"
                && (error.isCannotOpen || error.isReadOnly)
            {
                // A read-only open of a file in a folder we cannot write (so no `-shm` can be
                // made) reads it as immutable when it has no `-wal` file, that is no commits
                // outside the main file.
                guard !DatabaseFile.exists(atPath: path + "-wal") else { throw error }
                connection = try connect(path: filePath, options: options, isImmutable: true)
                opened = try configure(connection, path: path, options: options)
            }
            return SQLiteEngine(
                connection: connection, path: path,
                isEmpty: opened.version == 0 && options.isReadOnly,
                busyTimeoutMilliseconds: options.busyTimeoutMilliseconds,
                feedStart: opened.feedStart)
        } catch {
            throw databaseError(for: error, path: path)
        }
    }

    private static func connect(
        path: String, options: AppDatabase.Options, isImmutable: Bool
    ) throws -> Connection {
        let connection =
            isImmutable
            ? try Connection(path: path, mode: .readOnly, isImmutable: true)
            : try Connection(
                path: path, mode: options.isReadOnly ? .readOnly : .readWrite,
                vfs: anyVFSNamed.load(ordering: .acquiring) ? vfsName : nil)
        connection.setBusyTimeout(milliseconds: options.busyTimeoutMilliseconds)
        return connection
    }

    /// What opening found: the schema version before migrating (0 for an empty file), and,
    /// when there was nothing to migrate, where the change feed starts.
    private struct Opened {
        let version: Int
        let feedStart: (token: Int64, changeID: Int64)?
    }

    /// Sets the pragmas, checks the schema version and migrates (unless read-only).
    private static func configure(
        _ connection: Connection, path: String, options: AppDatabase.Options
    ) throws -> Opened {
        let migrator = Self.migrator
        // The checks (and the schema, which the first read loads) in one read transaction:
        // each transaction of its own would take and let go of the file's locks again. When
        // the schema is current nothing will be written before the change feed starts, so
        // its starting point is read there too (every database's feed asks for it at once).
        let opened = try connection.transaction(.deferred) { () throws -> Opened in
            let version = try migrator.validate(connection)
            guard version == migrator.latestVersion else {
                try migrator.checkRecordedVersion(connection, version: version)
                return Opened(version: version, feedStart: nil)
            }
            return Opened(version: version, feedStart: try feedStart(of: connection))
        }
        // Savepoints inside a transaction (each store call nested in a larger one) keep
        // their statement journal in memory instead of a temporary file; sorts that spill
        // stay in memory too, for reads as well.
        try connection.execute(sql: "PRAGMA temp_store = MEMORY")
        if !options.isReadOnly {
            // What only a write uses; a read-only connection is spared the statements.
            // Outside any transaction: `foreign_keys` is a no-op inside one.
            try connection.execute(sql: "PRAGMA foreign_keys = ON")
            try connection.execute(sql: "PRAGMA synchronous = \(options.synchronous.rawValue)")
            // Deleted content is overwritten, not left in free pages (Debian's SQLite does
            // this by default; other builds may not): `forgetValue(forKey:)` relies on it.
            try connection.execute(sql: "PRAGMA secure_delete = ON")
            if path != ":memory:" {
                try switchToWAL(connection, waitingAtMost: options.busyTimeoutMilliseconds)
            }
            if opened.version < migrator.latestVersion {
                try migrator.migrate(connection)
                try closeTemporaryDatabase(connection)
            }
        } else if opened.version != 0 && opened.version < migrator.latestVersion {
            throw DatabaseError.needsUpgrade(
                path: path, found: opened.version, supported: migrator.latestVersion)
        }
        return opened
    }

    /// Puts the file in WAL mode unless it is. SQLite answers `SQLITE_BUSY` at once, without
    /// its busy handler, when another connection holds the file's shared lock (a process
    /// reading a new file that another one is making), so the switch is retried here,
    /// within the busy timeout like any other wait for the lock.
    private static func switchToWAL(_ connection: Connection, waitingAtMost milliseconds: Int)
        throws
    {
        let deadline = FileChangeMonitor.now() + max(0, milliseconds) * 1000
        var pause: UInt32 = 500
        while true {
            let mode = try connection.scalar(String.self, sql: "PRAGMA journal_mode") ?? ""
            guard mode.lowercased() != "wal" else { return }
            do {
                try connection.execute(sql: "PRAGMA journal_mode = WAL")
                return
            } catch let error as SQLiteError
                where error.isBusy && FileChangeMonitor.now() < deadline
            {
                usleep(pause + UInt32.random(in: 0...pause))
                pause = min(pause * 2, 20_000)
            }
        }
    }

    /// Closes the connection's temporary database, which migrating opens (dropping a
    /// full-text table does): while it is open, every statement's commit, a read's too,
    /// visits it as well as the file. Changing `temp_store` closes it; nothing of ours
    /// lives there.
    private static func closeTemporaryDatabase(_ connection: Connection) throws {
        try connection.execute(sql: "PRAGMA temp_store = DEFAULT")
        try connection.execute(sql: "PRAGMA temp_store = MEMORY")
    }

    /// The commit token and the newest history row: where a change feed starts reading.
    /// Call inside a read transaction, on a file with the current schema.
    static func feedStart(of connection: Connection) throws -> (token: Int64, changeID: Int64) {
        (try connection.dataVersion(), try SQLitePreferenceRepository.latestChangeID(connection))
    }
}
