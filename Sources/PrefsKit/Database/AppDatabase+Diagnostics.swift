import FoundationEssentials
internal import SQLiteCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

extension AppDatabase {
    /// Checks the file: schema version, journal mode, `PRAGMA integrity_check`, permissions,
    /// sizes and row counts.
    ///
    /// - Throws: ``DatabaseError`` when the checks cannot run (a corrupt page may also show up
    ///   as `.notADatabase`).
    public func diagnostics() throws -> DatabaseDiagnostics {
        try read { state in
            let connection = state.connection
            func integer(_ sql: String) throws -> Int { try connection.scalar(Int.self, sql: sql) ?? 0 }
            // A file without the schema yet (empty) has no tables to count.
            func count(_ table: String) throws -> Int {
                state.isEmpty ? 0 : try integer("SELECT count(*) FROM \(table)")
            }
            let integrity = try connection.rows(sql: "PRAGMA integrity_check")
                .compactMap { $0.get(0, as: String.self) }
            let synchronousLevel = try integer("PRAGMA synchronous")
            let synchronousNames = ["OFF", "NORMAL", "FULL", "EXTRA"]
            return DatabaseDiagnostics(
                path: path,
                schemaVersion: try integer("PRAGMA user_version"),
                supportedSchemaVersion: Self.schemaVersion,
                journalMode: try connection.scalar(String.self, sql: "PRAGMA journal_mode") ?? "?",
                synchronous: synchronousNames.indices.contains(synchronousLevel)
                    ? synchronousNames[synchronousLevel] : String(synchronousLevel),
                integrityProblems: integrity,
                fileMode: Self.mode(of: path),
                directoryMode: Self.mode(of: Self.directory(of: path)),
                fileSize: Self.size(of: path),
                walSize: Self.size(of: path + "-wal"),
                pageSize: try integer("PRAGMA page_size"),
                pageCount: try integer("PRAGMA page_count"),
                freePageCount: try integer("PRAGMA freelist_count"),
                preferenceCount: try count("preference"),
                declarationCount: try count("preference_declaration"),
                historyCount: try count("preference_history"),
                selectionCount: try count("selection"),
                bookmarkCount: try count("bookmark"),
                searchIndexCount: try count("bookmark_search"),
                searchIndexMismatchCount: state.isEmpty || integrity != ["ok"]
                    ? 0 : try state.bookmarks.searchIndexMismatchCount())
        }
    }

    /// The connection settings that change how SQLite does its work, read back with
    /// `PRAGMA name` from the connection PrefsKit uses, in the order of
    /// ``connectionSettingNames`` (the benchmark compares them with its raw C baseline's).
    ///
    /// - Throws: ``DatabaseError`` when a pragma cannot be read.
    public func connectionSettings() throws -> [(name: String, value: String)] {
        try read { state in
            try Self.connectionSettingNames.map { name in
                let value = try state.connection.rows(sql: "PRAGMA \(name)").first?[0]
                return (name, value.map(Self.settingText) ?? "")
            }
        }
    }

    /// The pragmas ``connectionSettings()`` reads.
    public static let connectionSettingNames = [
        "journal_mode", "synchronous", "foreign_keys", "temp_store", "busy_timeout", "cache_size",
        "page_size", "mmap_size", "locking_mode", "wal_autocheckpoint", "automatic_index",
        "cache_spill", "secure_delete", "recursive_triggers", "trusted_schema",
    ]

    private static func settingText(_ value: SQLiteValue) -> String {
        switch value {
        case .null: ""
        case .integer(let integer): String(integer)
        case .real(let real): String(real)
        case .text(let text): text
        case .blob(let data): "\(data.count) bytes"
        }
    }

    /// Takes away the group and other permissions of the database file and its `-wal` and
    /// `-shm` files that belong to this user (the folder is left alone: it may be shared,
    /// like `/tmp`).
    ///
    /// - Returns: the files changed, each with its old mode.
    /// - Throws: ``DatabaseError/readOnly(path:)`` when the file system refuses the change,
    ///   ``DatabaseError/ioError(path:detail:)`` when it fails otherwise.
    public func restrictFileModes() throws -> [(path: String, oldMode: Int)] {
        var changed: [(path: String, oldMode: Int)] = []
        for file in [path, path + "-wal", path + "-shm"] {
            guard let mode = Self.mode(of: file), mode & 0o077 != 0 else { continue }
            // Only the owner may change a mode; another user's files are reported, not touched.
            guard Self.owner(of: path) == geteuid(), Self.owner(of: file) == geteuid() else { continue }
            guard chmod(file, mode_t(mode & ~0o077)) == 0 else {
                let code = errno
                if code == EPERM || code == EROFS { throw DatabaseError.readOnly(path: file) }
                throw DatabaseError.ioError(path: file, detail: String(cString: strerror(code)))
            }
            changed.append((file, mode))
        }
        return changed
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func mode(of path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int(status.st_mode & 0o7777)
    }

    private static func owner(of path: String) -> uid_t? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_uid
    }

    private static func size(of path: String) -> Int64 {
        var status = stat()
        guard stat(path, &status) == 0 else { return 0 }
        return Int64(status.st_size)
    }
}
