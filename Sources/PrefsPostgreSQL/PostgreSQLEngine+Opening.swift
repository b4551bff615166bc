internal import PostgresCore
import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension PostgreSQLEngine {
    /// The migrations of `Migrations/postgres/` compiled into this binary, in order.
    static let migrations: [(version: Int, name: String, sql: String)] =
        EmbeddedPostgresMigrations.all

    /// The key of the advisory lock that serializes migrations ("PRFS").
    static let migrationLock: Int64 = 0x5052_4653

    /// Connects, migrates (unless read-only) and listens.
    static func open(target: String, options: PostgreSQLOptions) throws(DatabaseError)
        -> PostgreSQLEngine
    {
        let opened = try connectMigrated(target: target, options: options)
        let redacted = PGConnection.redacted(target)
        do {
            let listener = try options.notificationTarget.map { target in
                try PGConnection(target)
            }
            let session = try prepareSession(
                opened.connection, account: options.account, timeouts: opened.timeouts,
                writer: opened.writer, listener: listener)
            return PostgreSQLEngine(
                connection: opened.connection, session: session, listener: listener,
                isReadOnly: options.isReadOnly)
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw databaseError(for: error, target: redacted, account: options.account)
        }
    }

    /// A connection as ``open(target:options:)`` makes it, before it acts for an account:
    /// its settings pinned (behind a pooler, in every transaction's prelude), the schema
    /// migrated (unless read-only).
    struct Opened {
        let connection: PGConnection
        /// The store's name in its transactions.
        let writer: String
        let timeouts: (lock: Int, statement: Int)
    }

    /// Connects and migrates (unless read-only); acts for no account yet.
    static func connectMigrated(target: String, options: PostgreSQLOptions)
        throws(DatabaseError) -> Opened
    {
        if !LibPQ.isBuiltIn, let reason = LibPQ.loadFailure {
            throw .unsupported(reason.prefix(1).uppercased() + reason.dropFirst())
        }
        if let reason = LibPQ.loadFailure {
            throw .unsupported(
                "PostgreSQL's client library could not be loaded (\(reason)); install libpq"
                    + " (Debian: apt-get install libpq5), or name it with PREFS_LIBPQ=PATH")
        }
        guard ConnectionString.options(target) != nil else {
            throw .invalidConnectionString
        }
        let redacted = PGConnection.redacted(target)
        do {
            let connection = try PGConnection(target)
            if let account = options.account, let problem = accountNameProblem(account) {
                throw DatabaseError.cannotCreate(path: redacted, reason: problem)
            }
            // Before anything waits for a lock (the migration's included).
            let timeouts = (
                lock: options.busyTimeoutMilliseconds,
                statement: options.statementTimeoutMilliseconds
            )
            // This store's name in its transactions, which its notifications carry.
            let writer = newWriterToken()
            let schema = try storeSchema(connection)
            if options.isBehindTransactionPooler {
                // Prepared once where no pooler is between after all (a sync server's pool
                // straight to PostgreSQL): the prelude still names the account in every
                // transaction, but nothing is parsed and planned again each time.
                connection.usesUnnamedStatements = try !connection.isStraightToServer()
                connection.transactionPrelude = transactionPrelude(
                    account: options.account, timeouts: timeouts,
                    isReadOnly: options.isReadOnly, writer: writer, schema: schema)
            } else {
                // This session is the store's alone; pinned once, as a pooled one is in
                // every transaction.
                try connection.execute(
                    """
                    SELECT set_config('lock_timeout', $1, false),
                        set_config('statement_timeout', $2, false),
                        \(pins(local: false, schema: "$3"))
                    """, [String(timeouts.lock), String(timeouts.statement), schema])
                if options.isReadOnly {
                    try connection.execute("SET default_transaction_read_only = on")
                }
            }
            let found = try schemaVersion(connection)
            let latest = migrations.last?.version ?? 0
            if found > latest {
                throw DatabaseError.newerVersion(
                    path: redacted, found: found, supported: latest)
            }
            if found < latest {
                if options.isReadOnly {
                    throw DatabaseError.needsUpgrade(
                        path: redacted, found: found, supported: latest)
                }
                try migrate(connection, target: redacted)
            }
            return Opened(connection: connection, writer: writer, timeouts: timeouts)
        } catch let error as DatabaseError {
            throw error
        } catch let error as PGError where error.isInvalidConnectionOption {
            throw .invalidConnectionOption(path: redacted, detail: error.message)
        } catch {
            throw databaseError(for: error, target: redacted, account: options.account)
        }
    }

    /// What is wrong with an account's name, or nil. A NUL character (U+0000) is refused: the
    /// name goes to the server as a C string, which ends there, so "victor\0mallory" would
    /// act for victor.
    static func accountNameProblem(_ account: String) -> String? {
        guard account.isEmpty || account.utf8.count > 56 || account.utf8.contains(0) else {
            return nil
        }
        return "the account name must be 1 to 56 bytes, without a NUL character (U+0000)"
    }

    /// An engine on an opened connection (behind a pooler: its prelude names the account in
    /// every transaction), acting for `account`: what prefs-server does for each request,
    /// on a connection of its pool, for the account the request's token opens.
    static func acting(for account: String, on opened: Opened) throws -> PostgreSQLEngine {
        if let problem = accountNameProblem(account) {
            throw DatabaseError.internalError("an account the hub named: \(problem)")
        }
        guard var prelude = opened.connection.transactionPrelude, prelude.parameters.count > 2
        else {
            throw DatabaseError.internalError("an engine switches accounts only behind its prelude")
        }
        prelude.parameters[2] = account
        opened.connection.transactionPrelude = prelude
        let session = try prepareSession(
            opened.connection, account: account, timeouts: opened.timeouts,
            writer: opened.writer)
        return PostgreSQLEngine(connection: opened.connection, session: session)
    }

    /// What every transaction starts with behind a transaction pooler: the account acted
    /// for and the timeouts, for this transaction only; and everything the store's
    /// statements rely on (``pins(local:)``), whatever an earlier client of the server
    /// connection left in its session. `$6` 'on' makes the transaction read-only (a
    /// writable store's transactions say READ WRITE in their BEGIN).
    static func transactionPrelude(
        account: String?, timeouts: (lock: Int, statement: Int), isReadOnly: Bool,
        writer: String, schema: String
    ) -> (sql: String, parameters: [String?]) {
        (
            // One column, which the client ignores, not one for each setting: libpq reads
            // and describes every column of every transaction's prelude.
            """
            SELECT pg_catalog.concat(set_config('lock_timeout', $1, true),
                set_config('statement_timeout', $2, true),
                set_config('prefs.account', $3, true), set_config('prefs.writer', $4, true),
                \(pins(local: true, schema: "$5")),
                CASE WHEN $6 = 'on' THEN set_config('transaction_read_only', 'on', true) END
            ) IS NULL
            """,
            [
                String(timeouts.lock), String(timeouts.statement), account ?? "", writer,
                schema, isReadOnly ? "on" : "off",
            ]
        )
    }

    /// The settings a store's statements rely on, pinned (`schema`: the parameter naming
    /// the store's schema): its
    /// tables first in the search path and temporary objects last, so that a temporary
    /// table named `preference` or `sync_change` shadows nothing; bytea read as hex; row
    /// security on; the session's own role; and the hub's internal setting unset, so
    /// that none is carried in from another client's session.
    static func pins(local: Bool, schema: String) -> String {
        let scope = local ? "true" : "false"
        return """
            set_config('role', 'none', \(scope)),
                set_config('search_path', pg_catalog.quote_ident(\(schema)) || ', pg_temp',
                    \(scope)),
                set_config('bytea_output', 'hex', \(scope)),
                set_config('row_security', 'on', \(scope)),
                set_config('prefs.sync_applying', '', \(scope))
            """
    }

    /// The schema of the store: the one holding its migrations table (never a temporary
    /// one), else the first of the search path, where it will be made.
    private static func storeSchema(_ connection: PGConnection) throws -> String {
        try connection.execute(
            """
            SELECT coalesce((
                SELECT n.nspname::text FROM pg_catalog.pg_class AS c
                JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
                WHERE c.relname = 'prefs_schema_migration' AND c.relkind = 'r'
                    AND n.nspname !~ '^pg_temp' AND n.nspname !~ '^pg_toast'
                ORDER BY n.nspname = pg_catalog.current_schema() DESC LIMIT 1),
                pg_catalog.current_schema(), 'public')
            """
        ).text(row: 0, column: 0) ?? "public"
    }

    /// A random name for one store's transactions (`prefs.writer`): the payload of the
    /// notifications they send, by which the store knows its own.
    static func newWriterToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return "w" + String(generator.next() as UInt64, radix: 16)
    }

    /// The schema version of the database, 0 when prefs never migrated it.
    private static func schemaVersion(_ connection: PGConnection) throws -> Int {
        let exists = try connection.execute(
            "SELECT to_regclass('prefs_schema_migration') IS NOT NULL")
        guard exists.bool(row: 0, column: 0) == true else { return 0 }
        return Int(
            try connection.execute(
                "SELECT coalesce(max(version), 0) FROM prefs_schema_migration"
            )
            .integer(row: 0, column: 0) ?? 0)
    }

    /// Applies the missing migrations in one transaction under an advisory lock, so that
    /// several processes starting at once migrate once, and a failure leaves nothing.
    private static func migrate(_ connection: PGConnection, target: String) throws {
        try connection.execute("BEGIN")
        do {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [String(migrationLock)])
            // Tables of another application and no prefs schema (read under the lock: a
            // process that migrated meanwhile made the schema): left as they are.
            let isForeign = try connection.execute(
                """
                SELECT to_regclass('prefs_schema_migration') IS NULL AND EXISTS (
                    SELECT 1 FROM pg_tables WHERE schemaname = 'public')
                """)
            if isForeign.bool(row: 0, column: 0) == true {
                throw DatabaseError.foreignDatabase(path: target)
            }
            try connection.executeScript(
                """
                CREATE TABLE IF NOT EXISTS prefs_schema_migration (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            // Read again under the lock: another process may have migrated meanwhile.
            let found = try schemaVersion(connection)
            let latest = migrations.last?.version ?? 0
            if found > latest {
                throw DatabaseError.newerVersion(path: target, found: found, supported: latest)
            }
            for migration in migrations where migration.version > found {
                try connection.executeScript(migration.sql)
                try connection.execute(
                    "INSERT INTO prefs_schema_migration (version, name) VALUES ($1, $2)",
                    [String(migration.version), migration.name])
            }
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }
}
