internal import CSQLite

extension Connection {
    /// How a transaction takes its lock; see <https://www.sqlite.org/lang_transaction.html>.
    package enum TransactionKind: String, Sendable {
        /// Takes locks as statements need them; for read-only work.
        case deferred = "DEFERRED"
        /// Takes the write lock at once, so a write never fails half-way with `SQLITE_BUSY`.
        case immediate = "IMMEDIATE"
        /// Like immediate; in WAL mode the two are the same.
        case exclusive = "EXCLUSIVE"
    }

    /// Runs a closure inside a transaction: commits when it returns, rolls back when it
    /// throws.
    ///
    /// When the rollback fails too, the closure's error is the one rethrown.
    /// - Parameters:
    ///   - kind: How the transaction locks; writes use `.immediate` (the default).
    ///   - body: The work; its result is returned after the commit.
    /// - Throws: The closure's error, or ``SQLiteError`` from `BEGIN` or `COMMIT`.
    package func transaction<T>(
        _ kind: TransactionKind = .immediate, _ body: () throws -> T
    ) throws -> T {
        switch kind {
        case .deferred: try run(cached: "BEGIN DEFERRED TRANSACTION")
        case .immediate: try run(cached: "BEGIN IMMEDIATE TRANSACTION")
        case .exclusive: try run(cached: "BEGIN EXCLUSIVE TRANSACTION")
        }
        let result: T
        do {
            result = try body()
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        do {
            try run(cached: "COMMIT TRANSACTION")
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        return result
    }

    /// Runs a closure inside a savepoint, which nests inside a transaction or another
    /// savepoint: releases it when the closure returns, rolls back to it when it throws.
    ///
    /// See <https://www.sqlite.org/lang_savepoint.html>.
    /// - Throws: The closure's error, or ``SQLiteError`` from the savepoint statements.
    package func savepoint<T>(_ body: () throws -> T) throws -> T {
        try run(cached: "SAVEPOINT prefs_savepoint")
        let result: T
        do {
            result = try body()
        } catch {
            if (try? run(cached: "ROLLBACK TO prefs_savepoint")) != nil {
                try? run(cached: "RELEASE prefs_savepoint")
            }
            throw error
        }
        try run(cached: "RELEASE prefs_savepoint")
        return result
    }

    /// Whether no connection, of any process, holds the database's write lock at this
    /// moment: takes it and lets it go at once when it is free (an empty transaction, which
    /// writes nothing), and never waits for it. In WAL mode a commit is published before its
    /// writer lets the lock go, so after a true answer every commit whose writes came
    /// earlier can be read.
    ///
    /// - Parameter busyTimeoutMilliseconds: The connection's wait for locks, set back after.
    package func writeLockIsFree(busyTimeoutMilliseconds: Int) -> Bool {
        guard !isInTransaction else { return false }
        sqlite3_busy_timeout(handle, 0)
        defer { setBusyTimeout(milliseconds: busyTimeoutMilliseconds) }
        guard (try? run(cached: "BEGIN IMMEDIATE TRANSACTION")) != nil else {
            rollbackIgnoringErrors()
            return false
        }
        guard (try? run(cached: "COMMIT TRANSACTION")) != nil else {
            rollbackIgnoringErrors()
            return false
        }
        return true
    }

    /// Runs a constant statement through the statement cache, so that transaction control
    /// on hot paths is not parsed again each time.
    private func run(cached sql: StaticString) throws {
        let statement = try cachedStatement(literal: sql)
        defer { statement.reset() }
        try statement.step()
    }

    private func rollbackIgnoringErrors() {
        // SQLite may already have rolled back (for example after SQLITE_FULL); only the
        // first error matters to the caller.
        if isInTransaction {
            sqlite3_exec(handle, "ROLLBACK TRANSACTION", nil, nil, nil)
        }
    }
}
