/// The health of a database file, as `prefs doctor` reports it.
public struct DatabaseDiagnostics: Sendable, Hashable {
    /// The database checked.
    public var path: String
    /// The schema version of the file (0 before the first migration).
    public var schemaVersion: Int
    /// The newest schema version this binary knows.
    public var supportedSchemaVersion: Int
    /// The journal mode, `wal` for a file PrefsKit wrote.
    public var journalMode: String
    /// The `synchronous` level of the connection: `FULL`, `NORMAL`...
    public var synchronous: String
    /// The lines of `PRAGMA integrity_check`; `["ok"]` when sound.
    public var integrityProblems: [String]
    /// Permission bits of the file and of its folder, nil when unknown.
    public var fileMode: Int?
    /// Permission bits of the file's folder, nil when unknown.
    public var directoryMode: Int?
    /// The size of the main file, in bytes.
    public var fileSize: Int64
    /// The size of the write-ahead log, in bytes (0 when there is none).
    public var walSize: Int64
    /// The page size, in bytes.
    public var pageSize: Int
    /// Pages in the main file.
    public var pageCount: Int
    /// Unused pages, which `VACUUM` would give back.
    public var freePageCount: Int
    /// Stored preferences, all suites.
    public var preferenceCount: Int
    /// Stored preferences of each suite that holds any, by suite name.
    public var preferenceCountBySuite: [String: Int] = [:]
    /// Declared keys, all suites.
    public var declarationCount: Int
    /// Rows of the change history.
    public var historyCount: Int
    /// Stored selections.
    public var selectionCount: Int
    /// Stored bookmarks.
    public var bookmarkCount: Int
    /// Rows of the full-text index.
    public var searchIndexCount: Int
    /// Bookmarks whose search row is missing or differs from the tables, plus search rows of
    /// no bookmark (written by a tool other than PrefsKit); `BookmarkStore.rebuildSearchIndex()`
    /// brings it to 0.
    public var searchIndexMismatchCount: Int

    /// For a database on a server, how its accounts are kept apart (row-level security) and
    /// who this connection is; nil for a file.
    public var serverIsolation: String? = nil

    /// The database's files (and the `-wal`, `-shm` and `-journal` beside it) that another
    /// user owns or that group or others may write: a file opened with
    /// ``AppDatabase/Options/allowsSharedFile``. Empty for a server.
    public var sharedFiles: [String] = []

    /// Why a write would fail (a read-only file, folder or file system), nil when this user
    /// can write the database.
    public var writeProblem: String? = nil

    /// Whether the integrity check passed, the search index is in step, no other user
    /// controls one of the files, and the database can be written.
    public var isHealthy: Bool {
        integrityProblems == ["ok"] && searchIndexMismatchCount == 0 && sharedFiles.isEmpty
            && writeProblem == nil
    }

    /// Whether the file and its folder are closed to other users.
    public var isPrivate: Bool { isFilePrivate && (directoryMode ?? 0) & 0o077 == 0 }

    /// Whether the file is closed to other users (its folder may be shared).
    public var isFilePrivate: Bool { (fileMode ?? 0) & 0o077 == 0 }

    /// Every field, as stored.
    package init(
        path: String,
        schemaVersion: Int,
        supportedSchemaVersion: Int,
        journalMode: String,
        synchronous: String,
        integrityProblems: [String],
        fileMode: Int? = nil,
        directoryMode: Int? = nil,
        fileSize: Int64,
        walSize: Int64,
        pageSize: Int,
        pageCount: Int,
        freePageCount: Int,
        preferenceCount: Int,
        preferenceCountBySuite: [String: Int] = [:],
        declarationCount: Int,
        historyCount: Int,
        selectionCount: Int,
        bookmarkCount: Int,
        searchIndexCount: Int,
        searchIndexMismatchCount: Int,
        serverIsolation: String? = nil,
        sharedFiles: [String] = [],
        writeProblem: String? = nil
    ) {
        self.path = path
        self.schemaVersion = schemaVersion
        self.supportedSchemaVersion = supportedSchemaVersion
        self.journalMode = journalMode
        self.synchronous = synchronous
        self.integrityProblems = integrityProblems
        self.fileMode = fileMode
        self.directoryMode = directoryMode
        self.fileSize = fileSize
        self.walSize = walSize
        self.pageSize = pageSize
        self.pageCount = pageCount
        self.freePageCount = freePageCount
        self.preferenceCount = preferenceCount
        self.preferenceCountBySuite = preferenceCountBySuite
        self.declarationCount = declarationCount
        self.historyCount = historyCount
        self.selectionCount = selectionCount
        self.bookmarkCount = bookmarkCount
        self.searchIndexCount = searchIndexCount
        self.searchIndexMismatchCount = searchIndexMismatchCount
        self.serverIsolation = serverIsolation
        self.sharedFiles = sharedFiles
        self.writeProblem = writeProblem
    }
}
