internal import PostgresCore
import PrefsKit

extension PostgreSQLEngine: DiagnosableEngine, SettingsReportingEngine {
    /// The tables that must have row-level security enabled and forced.
    static let isolatedTables = [
        "prefs_account_state", "preference", "preference_declaration", "preference_history",
        "selection", "bookmark_folder", "bookmark", "bookmark_tag", "bookmark_history",
        "sync_change", "sync_device", "sync_misaligned",
    ]

    func diagnostics() throws -> DatabaseDiagnostics {
        func integer(_ sql: String, _ parameters: [String?] = []) throws -> Int {
            Int(try connection.execute(sql, parameters).integer(row: 0, column: 0) ?? 0)
        }
        func count(_ table: String) throws -> Int {
            try integer("SELECT count(*) FROM \(table) WHERE account = $1", [account])
        }
        // Isolation is the health of this engine: every table's row-level security on and
        // forced, and the role unable to bypass it unless it is trusted to.
        var problems: [String] = []
        let security = try connection.execute(
            """
            SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class
            WHERE relname = ANY($1::text[]) AND relnamespace = 'public'::regnamespace
            """, ["{" + Self.isolatedTables.joined(separator: ",") + "}"])
        var seen: Set<String> = []
        for row in 0..<security.rowCount {
            guard let name = security.text(row: row, column: 0) else { continue }
            seen.insert(name)
            if security.bool(row: row, column: 1) != true
                || security.bool(row: row, column: 2) != true
            {
                problems.append("row-level security is not enabled and forced on \(name)")
            }
        }
        for name in Self.isolatedTables where !seen.contains(name) {
            problems.append("table \(name) is missing")
        }
        let settings = try connection.execute(
            """
            SELECT current_setting('synchronous_commit'), current_setting('block_size')::int,
                pg_database_size(current_database())
            """)
        var report = DatabaseDiagnostics(
            path: target,
            schemaVersion: try integer(
                "SELECT coalesce(max(version), 0) FROM prefs_schema_migration"),
            supportedSchemaVersion: Self.migrations.last?.version ?? 0,
            journalMode: "postgresql",
            synchronous: (settings.text(row: 0, column: 0) ?? "?").uppercased(),
            integrityProblems: problems.isEmpty ? ["ok"] : problems,
            fileMode: nil, directoryMode: nil,
            fileSize: settings.integer(row: 0, column: 2) ?? 0, walSize: 0,
            pageSize: Int(settings.integer(row: 0, column: 1) ?? 0), pageCount: 0,
            freePageCount: 0,
            preferenceCount: try count("preference"),
            declarationCount: try count("preference_declaration"),
            historyCount: try count("preference_history"),
            selectionCount: try count("selection"),
            bookmarkCount: try count("bookmark"),
            searchIndexCount: try count("bookmark"),
            searchIndexMismatchCount: try bookmarkRepository.searchIndexMismatchCount())
        let suites = try connection.execute(
            "SELECT suite, count(*) FROM preference GROUP BY suite")
        for row in 0..<suites.rowCount {
            if let suite = suites.text(row: row, column: 0) {
                report.preferenceCountBySuite[suite] = Int(
                    suites.integer(row: row, column: 1) ?? 0)
            }
        }
        let secured = Self.isolatedTables.count - problems.count
        report.serverIsolation =
            "row-level security enabled and forced on \(secured) of"
            + " \(Self.isolatedTables.count) tables; role '\(connection.user)' acting for"
            + " account '\(account)'"
        return report
    }

    func connectionSettings() throws -> [(name: String, value: String)] {
        let names = [
            "server_version", "synchronous_commit", "default_transaction_isolation",
            "default_transaction_read_only", "prefs.account",
        ]
        var settings: [(name: String, value: String)] = [("role", connection.user)]
        for name in names {
            let result = try connection.execute("SELECT current_setting($1, true)", [name])
            settings.append((name, result.text(row: 0, column: 0) ?? ""))
        }
        return settings
    }
}
