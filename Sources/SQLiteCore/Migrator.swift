#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Applies migrations in order, each in its own transaction with its bookkeeping.
///
/// The schema version lives in `PRAGMA user_version` (read from the file header without
/// touching any table) and in the table `schema_migration`, one row per applied step. The
/// migrator refuses, before writing anything, a database whose `application_id` is another
/// application's, or whose version is newer than the newest migration it knows.
package struct Migrator: Sendable {
    /// Why a database cannot be migrated.
    package enum Failure: Error, Equatable, Sendable {
        /// The file is a SQLite database of another application.
        case foreignDatabase(applicationID: Int32)
        /// The file was written by a newer version of the schema.
        case newerSchema(found: Int, supported: Int)
        /// The list of migrations has a gap or is out of order; a programming error.
        case invalidMigrations(String)
        /// The file's schema version is not the one its own record of migrations gives (a
        /// damaged header): migrating it would apply steps it has had.
        case versionDisagrees(found: Int, recorded: Int)
    }

    /// The steps, in version order.
    package let migrations: [Migration]
    /// The `application_id` written into new databases and required of existing ones.
    package let applicationID: Int32

    /// Creates a migrator.
    ///
    /// - Parameters:
    ///   - migrations: The steps; they are sorted by version.
    ///   - applicationID: The value of `PRAGMA application_id` that marks our files.
    package init(migrations: [Migration], applicationID: Int32) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.applicationID = applicationID
    }

    /// The newest version the migrations reach.
    package var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Checks that a database is ours (or empty) and not newer, without writing.
    ///
    /// - Returns: The schema version found, 0 for an empty database.
    /// - Throws: ``Failure`` or ``SQLiteError`` (for example when the file is not SQLite).
    @discardableResult
    package func validate(_ connection: Connection) throws -> Int {
        try validateMigrationList()
        let foundID = try connection.scalar(Int32.self, sql: "PRAGMA application_id") ?? 0
        let version = try connection.scalar(Int.self, sql: "PRAGMA user_version") ?? 0
        if foundID != applicationID {
            let objectCount =
                try connection.scalar(Int.self, sql: "SELECT count(*) FROM sqlite_schema") ?? 0
            if foundID != 0 || objectCount > 0 || version != 0 {
                throw Failure.foreignDatabase(applicationID: foundID)
            }
        }
        if version > latestVersion {
            throw Failure.newerSchema(found: version, supported: latestVersion)
        }
        return version
    }

    /// Checks, for a file whose schema is older than the latest, that its version is the one
    /// its record of migrations gives. Only an old (or damaged) file pays for the query.
    ///
    /// - Throws: ``Failure/versionDisagrees(found:recorded:)``.
    package func checkRecordedVersion(_ connection: Connection, version: Int) throws {
        guard version < latestVersion else { return }
        let hasRecord =
            try connection.scalar(
                Int.self,
                sql:
                    "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migration'"
            ) ?? 0 > 0
        let recorded =
            hasRecord
            ? try connection.scalar(Int.self, sql: "SELECT max(version) FROM schema_migration") ?? 0
            : 0
        if recorded != version {
            throw Failure.versionDisagrees(found: version, recorded: recorded)
        }
    }

    /// Applies every pending migration, each in one `BEGIN IMMEDIATE` transaction that also
    /// records it; a failing step rolls back and leaves the previous version intact.
    ///
    /// Safe against a concurrent migrator: the version is read again inside each
    /// transaction.
    /// - Returns: The versions applied by this call.
    /// - Throws: ``Failure``, or the ``SQLiteError`` of the failing step.
    @discardableResult
    package func migrate(_ connection: Connection) throws -> [Int] {
        var applied: [Int] = []
        // The version and the record of migrations from one snapshot: read in two
        // transactions, another process's migration committed between them made a file in
        // the middle of its first migrations look damaged.
        let found = try connection.transaction(.deferred) { () throws -> Int in
            let found = try validate(connection)
            try checkRecordedVersion(connection, version: found)
            return found
        }
        guard found < latestVersion else { return applied }
        for migration in migrations {
            let didApply = try connection.transaction(.immediate) { () throws -> Bool in
                let current = try validate(connection)
                guard current < migration.version else { return false }
                if current == 0 {
                    try connection.execute(sql: "PRAGMA application_id = \(applicationID)")
                    try connection.execute(
                        sql: """
                            CREATE TABLE IF NOT EXISTS schema_migration (
                                version INTEGER PRIMARY KEY,
                                name TEXT NOT NULL,
                                applied_at REAL NOT NULL
                            )
                            """)
                }
                try connection.execute(sql: migration.sql)
                try migration.afterward?(connection)
                try connection.execute(
                    sql:
                        "INSERT INTO schema_migration (version, name, applied_at) VALUES (?, ?, ?)",
                    arguments: [migration.version, migration.name, Date()])
                try connection.execute(sql: "PRAGMA user_version = \(migration.version)")
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        return applied
    }

    private func validateMigrationList() throws {
        for (offset, migration) in migrations.enumerated() where migration.version != offset + 1 {
            throw Failure.invalidMigrations(
                "expected version \(offset + 1), found \(migration.version) (\(migration.name))")
        }
    }
}
