import PrefsKit

extension CommandRunner {
    func doctor() throws {
        guard let database = try openForReading() else {
            throw DatabaseError.notFound(path: databasePath)
        }
        let report = try database.diagnostics()
        if globals.isJSON {
            printJSON(.object([
                ("path", .string(report.path)), ("healthy", .bool(report.isHealthy)),
                ("schemaVersion", .integer(report.schemaVersion)),
                ("supportedSchemaVersion", .integer(report.supportedSchemaVersion)),
                ("journalMode", .string(report.journalMode)), ("synchronous", .string(report.synchronous)),
                ("integrity", .array(report.integrityProblems.map(JSONValue.string))),
                ("fileMode", report.fileMode.map { .string(Self.octal($0)) } ?? .null),
                ("directoryMode", report.directoryMode.map { .string(Self.octal($0)) } ?? .null),
                ("fileSize", .integer(report.fileSize)), ("walSize", .integer(report.walSize)),
                ("pageSize", .integer(report.pageSize)), ("pageCount", .integer(report.pageCount)),
                ("freePageCount", .integer(report.freePageCount)),
                ("preferences", .integer(report.preferenceCount)),
                ("declarations", .integer(report.declarationCount)),
                ("historyEntries", .integer(report.historyCount)),
                ("selections", .integer(report.selectionCount)),
                ("bookmarks", .integer(report.bookmarkCount)),
                ("searchIndexRows", .integer(report.searchIndexCount)),
            ]))
        } else {
            let permissions = "file \(report.fileMode.map(Self.octal) ?? "?"), folder \(report.directoryMode.map(Self.octal) ?? "?")"
            console.print("""
                Database:     \(report.path) (\(Self.bytes(report.fileSize)), WAL \(Self.bytes(report.walSize)))
                Schema:       version \(report.schemaVersion) (this prefs knows \(report.supportedSchemaVersion))
                Journal:      \(report.journalMode), synchronous \(report.synchronous)
                Integrity:    \(report.integrityProblems.joined(separator: "; "))
                Permissions:  \(permissions)\(report.isPrivate ? "" : " (readable by others; chmod 600 the file, 700 the folder)")
                Contents:     \(report.preferenceCount) preferences, \(report.declarationCount) declarations, \(report.historyCount) history entries, \(report.selectionCount) selections, \(report.bookmarkCount) bookmarks
                Search index: \(report.searchIndexCount) rows\(report.searchIndexCount == report.bookmarkCount ? "" : " (out of step with \(report.bookmarkCount) bookmarks)")
                Pages:        \(report.pageCount) of \(report.pageSize) bytes, \(report.freePageCount) free
                Status:       \(report.isHealthy ? "healthy" : "PROBLEMS FOUND")

                """)
        }
        guard report.isHealthy else {
            throw CommandFailure(
                "'\(report.path)' failed its checks; restore it from a backup or export what can be read",
                exitCode: CommandFailure.dataError)
        }
    }

    static func octal(_ mode: Int) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func bytes(_ count: Int64) -> String {
        switch count {
        case ..<1024: "\(count) B"
        case ..<(1024 * 1024): "\(count / 1024) KB"
        default: "\(count / (1024 * 1024)) MB"
        }
    }
}
