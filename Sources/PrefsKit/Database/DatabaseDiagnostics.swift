/// The health of a database file, as `prefs doctor` reports it.
public struct DatabaseDiagnostics: Sendable, Hashable {
    public var path: String
    public var schemaVersion: Int
    public var supportedSchemaVersion: Int
    public var journalMode: String
    public var synchronous: String
    /// The lines of `PRAGMA integrity_check`; `["ok"]` when sound.
    public var integrityProblems: [String]
    /// Permission bits of the file and of its folder, nil when unknown.
    public var fileMode: Int?
    public var directoryMode: Int?
    public var fileSize: Int64
    public var walSize: Int64
    public var pageSize: Int
    public var pageCount: Int
    public var freePageCount: Int
    public var preferenceCount: Int
    public var declarationCount: Int
    public var historyCount: Int
    public var selectionCount: Int
    public var bookmarkCount: Int
    /// Rows of the full-text index.
    public var searchIndexCount: Int
    /// Bookmarks whose search row is missing or differs from the tables, plus search rows of
    /// no bookmark (written by a tool other than PrefsKit); `BookmarkStore.rebuildSearchIndex()`
    /// brings it to 0.
    public var searchIndexMismatchCount: Int

    /// Whether the integrity check passed and the search index is in step.
    public var isHealthy: Bool {
        integrityProblems == ["ok"] && searchIndexMismatchCount == 0
    }

    /// Whether the file and its folder are closed to other users.
    public var isPrivate: Bool { isFilePrivate && (directoryMode ?? 0) & 0o077 == 0 }

    /// Whether the file is closed to other users (its folder may be shared).
    public var isFilePrivate: Bool { (fileMode ?? 0) & 0o077 == 0 }
}
