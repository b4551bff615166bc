extension AppDatabase {
    /// Checks the database: schema version, journal mode, integrity, permissions, sizes and
    /// row counts.
    ///
    /// - Throws: ``DatabaseError`` when the checks cannot run (a corrupt page may also show up
    ///   as `.notADatabase`).
    public func diagnostics() throws -> DatabaseDiagnostics {
        try read { session in
            guard let engine = session.engine as? any DiagnosableEngine else {
                throw DatabaseError.ioError(path: path, detail: "its engine has no health check")
            }
            return try engine.diagnostics()
        }
    }

    /// The connection settings that change how the engine does its work, read back from the
    /// connection PrefsKit uses (for SQLite, `PRAGMA name` of each setting; the benchmark
    /// compares them with its raw C baseline's).
    ///
    /// - Throws: ``DatabaseError`` when a setting cannot be read.
    public func connectionSettings() throws -> [(name: String, value: String)] {
        try read { session in
            try (session.engine as? any SettingsReportingEngine)?.connectionSettings() ?? []
        }
    }

    /// Takes away the group and other permissions of the database's files that belong to
    /// this user (the folder is left alone: it may be shared, like `/tmp`).
    ///
    /// - Returns: the files changed, each with its old mode.
    /// - Throws: ``DatabaseError/readOnly(path:)`` when the file system refuses the change,
    ///   ``DatabaseError/ioError(path:detail:)`` when it fails otherwise.
    public func restrictFileModes() throws -> [(path: String, oldMode: Int)] {
        // An engine without files of this machine has none to restrict.
        try state.withLock { session in
            try (session.engine as? any FileBackedEngine)?.restrictFileModes() ?? []
        }
    }
}
