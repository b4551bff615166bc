/// The prefs database: opened, checked, migrated, and shared by the stores that use it.
///
/// Opening applies the settings of <doc:TheDatabaseFile>: WAL, a busy timeout
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
        /// Create missing folders on the way to a file that is to be created (mode 0700).
        /// Without it a missing folder is ``DatabaseError/folderMissing(path:)``.
        public var createsMissingFolders = true
        /// Open a file (or a `-wal`, `-shm` or `-journal` beside it) that another user owns
        /// or that group or others may write. Off by default: such a file is refused with
        /// ``DatabaseError/untrustedFile(path:file:reason:)``, since whoever controls it can
        /// feed this process values or read what it writes. Turn it on only for a file
        /// shared on purpose.
        public var allowsSharedFile = false
        /// Open read-only: nothing is created, migrated or written.
        public var isReadOnly = false
        /// The `synchronous` level; `.full` makes every commit durable across power loss.
        public var synchronous: Synchronous = .full
        /// How long a write waits for another process's lock before failing as busy (on a
        /// server, `lock_timeout`).
        public var busyTimeoutMilliseconds = 5000
        /// How often a cached read checks whether another process committed.
        public var changeCheckIntervalMilliseconds = 10
        /// Notice other processes' commits from the first store on, through file events where
        /// the system has them (inotify), so that Swift's Observation (`withObservationTracking`,
        /// SwiftUI) hears of them though nobody calls `values(for:)`; where there are no file
        /// events, a poll once a second. A short-lived tool that only reads and writes
        /// turns it off. Observers (`values(for:)`, `changes()`) are served either way.
        public var watchesForChanges = true
        /// Keep read preferences in memory (the default). Without the cache every read is
        /// one SQLite query, always current.
        public var cachesValues = true
        /// Register every read with Swift's Observation (the default), so that a view or a
        /// `withObservationTracking` closure that read a key hears when it changes. A tool
        /// with no such readers turns it off: reads then skip the registrar, and the process
        /// never builds Observation's machinery (key paths, registrars, their metadata).
        public var tracksReadsForObservation = true
        /// The default options.
        public init() {}
    }

    /// SQLite's `synchronous` levels; see <https://www.sqlite.org/pragma.html#pragma_synchronous>.
    public enum Synchronous: String, Sendable {
        /// No syncs: fastest; a power cut may damage the file.
        case off = "OFF"
        /// Syncs at checkpoints: the file survives a power cut, the last commits may not.
        case normal = "NORMAL"
        /// Syncs at every commit: a commit that returned survives a power cut.
        case full = "FULL"
    }

    /// The `application_id` that marks a prefs file ("PRFS").
    public static var applicationID: Int32 { SQLiteEngine.applicationID }

    /// The newest schema version this binary knows.
    public static var schemaVersion: Int { SQLiteEngine.migrations.last?.version ?? 0 }

    /// The names of the embedded migration files, `NNNN_description.sql`, in order.
    public static var migrationFileNames: [String] {
        SQLiteEngine.migrations.map {
            String(repeating: "0", count: max(0, 4 - String($0.version).count))
                + String($0.version) + "_" + $0.name + ".sql"
        }
    }

    /// The file path, `:memory:`, or the connection string with its password as `***`.
    public let path: String
    /// Whether the database was opened read-only.
    public let isReadOnly: Bool
    /// Whether preference reads are cached in memory.
    public let cachesValues: Bool
    /// Whether stores start noticing other processes' commits (``Options/watchesForChanges``).
    public let watchesForChanges: Bool
    /// Whether reads are registered with Swift's Observation
    /// (``Options/tracksReadsForObservation``).
    public let tracksReadsForObservation: Bool
    let state: Locked<DatabaseState>
    /// How the file monitor and the polling task reach the state without keeping it alive.
    let changeCheck: ChangeCheck

    /// Opens (and when needed creates and migrates) a database file.
    ///
    /// - Parameters:
    ///   - path: The file, or `:memory:` for a private in-memory database. A PostgreSQL
    ///     server's database opens with `AppDatabase.postgreSQL(_:options:)` of
    ///     PrefsPostgreSQL, not here: a connection string is refused.
    ///   - options: Creation, read-only, durability and timeout settings.
    /// - Throws: ``DatabaseError``: `.notFound`, `.notADatabase`, `.foreignDatabase`,
    ///   `.newerVersion`, `.cannotCreate`, `.readOnly`, `.busy`...
    public convenience init(path: String, options: Options = Options()) throws(DatabaseError) {
        // A file named `word=...` is `./word=...`: the string is a server's, and opening it
        // as a file would make one of that name.
        guard !Self.isConnectionString(path) else {
            throw DatabaseError.unsupported(
                "'\(path.prefix(while: { $0 != "=" && $0 != ":" }))...' is a PostgreSQL"
                    + " connection string: open it with AppDatabase.postgreSQL(_:options:) of"
                    + " PrefsPostgreSQL")
        }
        try self.init(
            engine: try SQLiteEngine.open(path: path, options: options), path: path,
            options: options)
    }

    /// A database over an engine already open: the SQLite file's, or a server's
    /// (PrefsPostgreSQL). `path` is how it is shown (a connection string without its
    /// password).
    package init(engine: any StorageEngine, path: String, options: Options) throws(DatabaseError) {
        self.isReadOnly = options.isReadOnly
        self.cachesValues = options.cachesValues
        self.watchesForChanges = options.watchesForChanges
        self.tracksReadsForObservation = options.tracksReadsForObservation
        self.path = path
        let interval = UInt64(max(0, options.changeCheckIntervalMilliseconds)) * 1_000_000
        do {
            let state = Locked(
                try DatabaseState(
                    engine: engine, checkInterval: interval,
                    tracksReads: options.tracksReadsForObservation,
                    cachesReads: options.cachesValues))
            state.withLock {
                // Unowned, not weak: a weak reference would move every retain of the lock, on
                // every read, to the runtime's slow side-table path. The feed lives inside it.
                $0.feed.afterUnlocking = { [unowned state] work in state.afterUnlocking(work) }
            }
            self.state = state
            changeCheck = ChangeCheck(state)
        } catch {
            let translated = engine.translate(error)
            throw translated as? DatabaseError ?? .internalError("\(translated)")
        }
    }

    deinit {
        // First the looks of the file monitor and the polling task (waiting for one in
        // flight), then the subscription.
        changeCheck.end()
        state.withLock { $0.changeDetection = .closed }
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
        DatabaseFile.exists(atPath: path)
    }

    /// Whether a database location is a PostgreSQL connection string (a `postgresql://` or
    /// `postgres://` URI, or libpq's `keyword=value` pairs) rather than a file path. Name a
    /// file whose name starts with `word=` as `./word=...`. (libpq's keywords are ASCII
    /// letters and underscores.)
    public static func isConnectionString(_ location: String) -> Bool {
        if location.hasPrefix("postgresql://") || location.hasPrefix("postgres://") { return true }
        // Read as bytes, not Characters: every command asks this of its path at start-up.
        // libpq allows spaces around the `=`, so `host = /run/postgresql` is one too.
        var keywordLength = 0
        var keywordEnded = false
        for byte in location.utf8.drop(while: { $0 == UInt8(ascii: " ") }) {
            switch byte {
            case UInt8(ascii: "="): return keywordLength > 0
            case UInt8(ascii: " "): keywordEnded = keywordLength > 0
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "_"):
                if keywordEnded { return false }
                keywordLength += 1
            default: return false
            }
        }
        return false
    }

    // MARK: - Access

    /// Runs several changes, of any stores over this database, in one write transaction
    /// (`BEGIN IMMEDIATE`): all of them are committed when the closure returns, none when it
    /// throws.
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
    func read<T>(
        retrying: @autoclosure () -> Bool = true, _ body: (DatabaseState) throws -> T
    ) throws -> T {
        try state.withLock { state in
            do {
                try state.feed.refreshIfStale()
                return try body(state)
            } catch {
                let translated = state.engine.translate(error)
                // A server connection lost while it was idle (the server or a pooler
                // restarted) is found by the read that uses it: a read is safe to run again,
                // once, after the feed's check has connected again. Not one that has handed
                // on some of what it read (`retrying` false by then): that would come twice.
                guard retrying(), case .unavailable? = (translated as? DatabaseError)?.kind,
                    !state.engine.isInTransaction
                else { throw translated }
                do {
                    try state.feed.refresh()
                    return try body(state)
                } catch {
                    throw state.engine.translate(error)
                }
            }
        }
    }

    /// After a write that forgot values: the engine's log of old pages emptied (see
    /// ``PreferenceStore/forgetValue(forKey:)``). Inside a transaction, nothing.
    func overwriteFreedSpace() throws {
        try state.withLock { state in
            guard !state.isWriting else { return }
            do {
                try state.engine.checkpointAndTruncate()
            } catch {
                throw state.engine.translate(error)
            }
        }
    }

    /// Runs writes in one write transaction (or nested in the open one), then brings caches
    /// and observers up to date.
    ///
    /// - Parameter recordsWrites: The body's writes are all preference writes of
    ///   ``PreferenceStore``, which tell them to ``DatabaseState/knownWrites`` (and the
    ///   change feed may then skip reading their history rows back).
    func write<T>(recordsWrites: Bool = false, _ body: (DatabaseState) throws -> T) throws -> T {
        if isReadOnly { throw DatabaseError.readOnly(path: path) }
        return try state.withLock { state in
            if state.isWriting {
                // A savepoint may roll back what its writes told: the transaction's writes
                // are no longer all known.
                state.knownWrites?.abandon()
                do {
                    return try state.engine.nestedTransaction { try body(state) }
                } catch {
                    throw state.engine.translate(error)
                }
            }
            state.isWriting = true
            let known = recordsWrites ? state.recordingWrites() : nil
            // The write's own events wake nothing; its commit sees other processes' commits.
            let watch = state.changeDetection.fileSubscription
            let quietPeriod = watch?.ownWriteBegins()
            defer {
                state.isWriting = false
                state.knownWrites = nil
                watch?.ownWriteEnded()
            }
            do {
                let (result, commit) = try state.feed.writeTransaction(known: known) {
                    try body(state)
                }
                changeCheck.noteOwnCommit()
                state.isWriting = false
                // No event was read since the write began: a commit of another connection
                // right after this one is found by the look that ends the quiet period.
                let stayedQuiet = quietPeriod.map { watch?.isQuiet(since: $0) ?? false } ?? false
                state.feed.didCommit(commit, laterCommitsLookedFor: stayedQuiet)
                return result
            } catch {
                state.feed.states.didRollBack()
                throw state.engine.translate(error)
            }
        }
    }
}

extension AppDatabase {
    /// Whether the file held no prefs schema when it was opened read-only: made a moment
    /// ago by another process that has not committed its first transaction yet.
    package var wasOpenedBeforeItsSchema: Bool {
        (try? withEngine { ($0 as? SQLiteEngine)?.isEmpty ?? false }) ?? false
    }

    /// Runs the body on the database's engine, under its lock, with the engine's errors in
    /// their documented form: for an engine's module to reach what only it offers (device
    /// tokens on a PostgreSQL hub).
    package func withEngine<T>(_ body: (any StorageEngine) throws -> T) throws -> T {
        try state.withLock { state in
            do {
                return try body(state.engine)
            } catch {
                throw state.engine.translate(error)
            }
        }
    }
}
