import Foundation
import PrefsKit
import PrefsPostgreSQL
import PrefsTestSupport
import TestSupport
import Testing

/// `Migrations/postgres/current.sql` is the hub as its migrations leave it: every table,
/// policy and function in its current definition, in one file to read, where the
/// migrations redefine a function many times over. It is checked against a database
/// migrated here; `PREFS_WRITE_CURRENT_SQL=1 swift test --filter CurrentHubSchemaTests`
/// writes it again after a new migration.
@Suite struct CurrentHubSchemaTests {
    static let file = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Migrations/postgres/current.sql")

    @Test func currentSQLIsWhatTheMigrationsMake() throws {
        let postgres = try PostgresServer.start()
        let database = try postgres.makePrefsDatabase(roles: [])
        let dump = try runProcess(
            URL(fileURLWithPath: postgres.binaries + "/pg_dump"),
            [
                "--schema-only", "--no-owner", "--no-comments",
                "-d", postgres.target(database: database),
            ])
        #expect(dump.status == 0, "\(dump.stderr)")
        let made = Self.normalized(dump.stdout)
        #expect(made.contains("CREATE FUNCTION public.prefs_sync_push("))
        if ProcessInfo.processInfo.environment["PREFS_WRITE_CURRENT_SQL"] == "1" {
            try Data(made.utf8).write(to: Self.file)
        }
        let kept = try String(contentsOf: Self.file, encoding: .utf8)
        let keptLines = kept.split(separator: "\n", omittingEmptySubsequences: false)
        let madeLines = made.split(separator: "\n", omittingEmptySubsequences: false)
        let first = keptLines.indices.first {
            $0 < madeLines.count && keptLines[$0] != madeLines[$0]
        }
        // Compared first: the expectation shows the first line that differs, not both files.
        let isCurrent = kept == made
        #expect(
            isCurrent,
            """
            Migrations/postgres/current.sql is not what the migrations make (line \
            \((first ?? min(keptLines.count, madeLines.count)) + 1): \
            '\(first.map { keptLines[$0] } ?? "")' where they make \
            '\(first.map { madeLines[$0] } ?? "")'); after a new migration, write it again: \
            PREFS_WRITE_CURRENT_SQL=1 swift test --filter CurrentHubSchemaTests
            """)
    }

    /// pg_dump's text without what changes from one server or run to the next: its
    /// comments (the versions), the session's settings, psql's `\restrict` lines (a random
    /// key each run), blank lines in runs.
    static func normalized(_ dump: String) -> String {
        var lines: [Substring] = [
            "-- The hub's schema as Migrations/postgres/*.sql leave it (pg_dump --schema-only),",
            "-- written by CurrentHubSchemaTests; read it, never edit it: a migration changes it.",
            "",
        ]
        for line in dump.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("--") || line.hasPrefix("SET ")
                || line.hasPrefix("SELECT pg_catalog.set_config") || line.hasPrefix("\\restrict")
                || line.hasPrefix("\\unrestrict")
            {
                continue
            }
            if line.isEmpty, lines.last?.isEmpty == true { continue }
            lines.append(line)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n") + "\n"
    }
}
