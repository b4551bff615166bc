internal import SQLiteCore

extension SQLiteEngine: DiagnosableEngine, SettingsReportingEngine {
    func diagnostics() throws -> DatabaseDiagnostics {
        func integer(_ sql: String) throws -> Int { try connection.scalar(Int.self, sql: sql) ?? 0 }
        // A file without the schema yet (empty) has no tables to count.
        func count(_ table: String) throws -> Int {
            isEmpty ? 0 : try integer("SELECT count(*) FROM \(table)")
        }
        let integrity = try connection.rows(sql: "PRAGMA integrity_check")
            .compactMap { $0.get(0, as: String.self) }
        let synchronousLevel = try integer("PRAGMA synchronous")
        let synchronousNames = ["OFF", "NORMAL", "FULL", "EXTRA"]
        var bySuite: [String: Int] = [:]
        if !isEmpty {
            for row in try connection.rows(
                sql: "SELECT suite, count(*) FROM preference GROUP BY suite")
            {
                if let suite = row.get(0, as: String.self) {
                    bySuite[suite] = row.get(1, as: Int.self) ?? 0
                }
            }
        }
        var report = DatabaseDiagnostics(
            path: path,
            schemaVersion: try integer("PRAGMA user_version"),
            supportedSchemaVersion: Self.migrator.latestVersion,
            journalMode: DatabaseFile.isInWALMode(path)
                ? "wal" : try connection.scalar(String.self, sql: "PRAGMA journal_mode") ?? "?",
            synchronous: synchronousNames.indices.contains(synchronousLevel)
                ? synchronousNames[synchronousLevel] : String(synchronousLevel),
            integrityProblems: integrity,
            fileMode: DatabaseFile.mode(of: path),
            directoryMode: DatabaseFile.mode(of: DatabaseFile.directory(of: path)),
            fileSize: DatabaseFile.size(of: path),
            walSize: DatabaseFile.size(of: path + "-wal"),
            pageSize: try integer("PRAGMA page_size"),
            pageCount: try integer("PRAGMA page_count"),
            freePageCount: try integer("PRAGMA freelist_count"),
            preferenceCount: try count("preference"),
            declarationCount: try count("preference_declaration"),
            historyCount: try count("preference_history"),
            selectionCount: try count("selection"),
            bookmarkCount: try count("bookmark"),
            searchIndexCount: try count("bookmark_search"),
            searchIndexMismatchCount: isEmpty || integrity != ["ok"]
                ? 0 : try bookmarkRepository.searchIndexMismatchCount(),
            sharedFiles: DatabaseFile.sharedFiles(of: path))
        report.preferenceCountBySuite = bySuite
        report.writeProblem = DatabaseFile.writeProblem(of: path)
        return report
    }

    /// The pragmas ``connectionSettings()`` reads.
    static let settingNames = [
        "journal_mode", "synchronous", "foreign_keys", "temp_store", "busy_timeout", "cache_size",
        "page_size", "mmap_size", "locking_mode", "wal_autocheckpoint", "automatic_index",
        "cache_spill", "secure_delete", "recursive_triggers", "trusted_schema",
    ]

    func connectionSettings() throws -> [(name: String, value: String)] {
        try Self.settingNames.map { name in
            let value = try connection.rows(sql: "PRAGMA \(name)").first?[0]
            return (name, value.map(Self.settingText) ?? "")
        }
    }

    private static func settingText(_ value: SQLiteValue) -> String {
        switch value {
        case .null: ""
        case .integer(let integer): String(integer)
        case .real(let real): String(real)
        case .text(let text): text
        case .blob(let data): "\(data.count) bytes"
        }
    }
}
