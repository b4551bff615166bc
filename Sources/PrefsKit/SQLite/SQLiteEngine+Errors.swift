internal import SQLiteCore

extension SQLiteEngine {
    func translate(_ error: any Error) -> any Error {
        guard let error = error as? SQLiteError else { return error }
        return classify(error)
    }

    /// An error of opening, in the terms of ``DatabaseError``.
    static func databaseError(for error: any Error, path: String) -> DatabaseError {
        switch error {
        case let error as DatabaseError: return error
        case let error as SQLiteError: return DatabaseError(error, path: path)
        case let failure as Migrator.Failure:
            switch failure {
            case .foreignDatabase: return .foreignDatabase(path: path)
            case .newerSchema(let found, let supported):
                return .newerVersion(path: path, found: found, supported: supported)
            case .versionDisagrees(let found, let recorded):
                return .notADatabase(
                    path: path,
                    detail: "its schema version (\(found)) is not the one its migrations record"
                        + " (\(recorded))")
            case .invalidMigrations(let detail):
                // Checked when the binary is built; reaching this is a bug of the build.
                preconditionFailure("The migrations embedded in this binary are invalid: \(detail)")
            }
        default: return .internalError("\(error)")
        }
    }

    /// Maps an SQLite error to a ``DatabaseError``. A plain `SQLITE_ERROR` ("no such column",
    /// "error in tokenizer constructor") is either our bug or a damaged schema; comparing the
    /// file's schema with the one the migrations make tells which. Only runs on failure.
    private func classify(_ error: SQLiteError) -> DatabaseError {
        guard error.code == .error else { return DatabaseError(error, path: path) }
        // FTS5 keeps its settings in a table; damage there reads "invalid fts5 file format".
        if error.message.contains("fts5") {
            return .notADatabase(path: path, detail: error.message)
        }
        // Sync's capture triggers are there while the file syncs only.
        let captureTriggers = SyncCapture.triggerNames.map { "'\($0)'" }.joined(separator: ", ")
        let query = """
            SELECT type, name, tbl_name, sql FROM sqlite_schema
            WHERE name NOT LIKE 'sqlite_%' AND name NOT IN (\(captureTriggers)) ORDER BY name
            """
        do {
            let expected = try Connection(path: ":memory:")
            try Self.migrator.migrate(expected)
            if try expected.rows(sql: query) != connection.rows(sql: query) {
                return .notADatabase(path: path, detail: "its schema is damaged")
            }
        } catch {
            return .notADatabase(path: path, detail: "its schema is damaged")
        }
        return DatabaseError(error, path: path)
    }
}

extension DatabaseError {
    /// The ``DatabaseError`` an SQLite result code stands for, keeping the code and the
    /// error: the kind says what to do, SQLite's code and error say exactly what happened.
    init(_ error: SQLiteError, path: String) {
        self.init(
            Self.kind(of: error, path: path).kind,
            engineCode: .sqlite(extendedResultCode: error.extendedCode), underlying: error)
    }

    private static func kind(of error: SQLiteError, path: String) -> DatabaseError {
        if error.isBusy {
            return .busy(path: path)
        } else if error.isDiskFull {
            return .diskFull(path: path)
        } else if error.isReadOnly {
            return .readOnly(path: path)
        } else if error.isCorrupt || error.message == "unsupported file format" {
            // A schema format number (header bytes 44-47) past the 4 SQLite writes is
            // damage: no SQLite ever made it, and it is a plain SQLITE_ERROR.
            return .notADatabase(path: path, detail: error.message)
        } else if error.isIOError {
            return .ioError(path: path, detail: error.message)
        } else if error.code == .tooBig {
            // A value past SQLite's length limit that no check before caught (an array's
            // or a dictionary's encoding): bad data, not a fault of the database.
            return .tooLarge(detail: error.message)
        } else if error.isCannotOpen {
            // A file that is there and cannot be opened (`/proc/self/mem`) is input that
            // cannot be read, not a file that cannot be made.
            return
                DatabaseFile.exists(atPath: path)
                ? .cannotOpen(path: path, reason: error.message)
                : .cannotCreate(path: path, reason: error.message)
        } else {
            return .internalError(error.description)
        }
    }
}
