import PrefsKit

/// `prefs doctor`: the database's health.
struct DoctorCommand: RunnableCommand {
    static var name: String { "doctor" }
    static let repair = Flag("repair", help: "Fix what can be fixed without losing data.")
    static let spec = CommandSpec(
        Self.self,
        abstract: "Check the database: schema, journal mode, integrity, permissions, sizes.",
        discussion: """
            Exits 0 when healthy, 65 when the file is corrupt, is not a prefs database, or its
            bookmark search index is out of step with the tables (after a write by another
            tool), and 74 when this user cannot write it (a read-only file, folder or file
            system). --repair rebuilds that index and removes group and other access from the
            file; a corrupt file cannot be repaired: restore it from a backup.
            """,
        options: [repair.spec], scope: .suiteless)

    var repair = false

    func run(_ context: CommandContext) throws {
        guard
            let database = try repair ? context.openExistingForWriting() : context.openForReading()
        else {
            throw DatabaseError.notFound(path: context.databasePath)
        }
        var report = try database.diagnostics()
        var repairs: [String] = []
        if repair && report.integrityProblems == ["ok"] {
            if report.searchIndexMismatchCount > 0 {
                try BookmarkStore(database: database).rebuildSearchIndex()
                let count = report.searchIndexMismatchCount
                repairs.append(
                    "rebuilt the search index (\(count) \(count == 1 ? "row was" : "rows were") out of step)"
                )
            }
            for (path, oldMode) in try database.restrictFileModes() {
                repairs.append(
                    "made '\(path)' private (mode \(Self.octal(oldMode)) -> \(Self.octal(oldMode & ~0o077)))"
                )
            }
            if !repairs.isEmpty { report = try database.diagnostics() }
        }
        for line in repairs { context.inform("Repaired: \(line)") }
        let changeDetection = database.changeDetection()
        let ownPath = context.ownPathOfSharedFile
        if context.globals.isJSON {
            context.printJSON(
                .object([
                    ("path", .string(report.path)), ("healthy", .bool(report.isHealthy)),
                    ("schemaVersion", .integer(report.schemaVersion)),
                    ("supportedSchemaVersion", .integer(report.supportedSchemaVersion)),
                    ("journalMode", .string(report.journalMode)),
                    ("synchronous", .string(report.synchronous)),
                    ("writeProblem", report.writeProblem.map(JSONValue.string) ?? .null),
                    ("integrity", .array(report.integrityProblems.map(JSONValue.string))),
                    ("fileMode", report.fileMode.map { .string(Self.octal($0)) } ?? .null),
                    (
                        "directoryMode",
                        report.directoryMode.map { .string(Self.octal($0)) } ?? .null
                    ),
                    ("fileSize", .integer(report.fileSize)), ("walSize", .integer(report.walSize)),
                    ("pageSize", .integer(report.pageSize)),
                    ("pageCount", .integer(report.pageCount)),
                    ("freePageCount", .integer(report.freePageCount)),
                    ("preferences", .integer(report.preferenceCount)),
                    (
                        "preferencesBySuite",
                        .object(Self.suites(report).map { ($0.suite, .integer($0.count)) })
                    ),
                    ("declarations", .integer(report.declarationCount)),
                    ("historyEntries", .integer(report.historyCount)),
                    ("selections", .integer(report.selectionCount)),
                    ("bookmarks", .integer(report.bookmarkCount)),
                    ("searchIndexRows", .integer(report.searchIndexCount)),
                    ("searchIndexMismatches", .integer(report.searchIndexMismatchCount)),
                    ("sharedFiles", .array(report.sharedFiles.map(JSONValue.string))),
                    ("changeDetection", .string(changeDetection)),
                    ("appPath", ownPath.map(JSONValue.string) ?? .null),
                    ("repaired", .array(repairs.map(JSONValue.string))),
                ]))
        } else {
            var permissions =
                "file \(report.fileMode.map(Self.octal) ?? "?"), folder \(report.directoryMode.map(Self.octal) ?? "?")"
            if !report.sharedFiles.isEmpty {
                permissions +=
                    " (another user owns or may write "
                    + report.sharedFiles.map { "'\($0)'" }.joined(separator: ", ") + ")"
            } else if !report.isFilePrivate {
                permissions += " (others can open the file; run 'prefs doctor --repair')"
            } else if let mode = report.directoryMode, mode & 0o1002 != 0 {
                // /tmp and its kind: everyone's by design, and not to be chmodded.
                permissions +=
                    " (a folder every user may write, such as /tmp: keep the database in a"
                    + " folder of your own, such as the default location)"
            } else if !report.isPrivate {
                permissions += " (others can list the folder; chmod 700 it unless it is shared)"
            }
            let searchLine =
                "\(report.searchIndexCount) rows"
                + (report.searchIndexMismatchCount == 0
                    ? ""
                    : ", \(report.searchIndexMismatchCount) out of step with the bookmarks"
                        + " (run 'prefs doctor --repair')")
            let isServer = report.serverIsolation != nil
            // Per suite: 'prefs list' shows one suite, and the total counts them all.
            let suites = Self.suites(report)
            let bySuite =
                suites.isEmpty
                ? ""
                : " ("
                    + suites.map { "\(ValueText.listed($0.suite)) \($0.count)" }
                    .joined(separator: ", ") + ")"
            var lines = [
                "Database:     \(report.path) (\(Self.bytes(report.fileSize))"
                    + (isServer ? ")" : ", WAL \(Self.bytes(report.walSize)))"),
                "Schema:       version \(report.schemaVersion)"
                    + " (this prefs knows \(report.supportedSchemaVersion))",
                "Journal:      \(report.journalMode), synchronous \(report.synchronous)",
                "Writable:     " + (report.writeProblem.map { "no: \($0)" } ?? "yes"),
                "Integrity:    \(report.integrityProblems.joined(separator: "; "))",
                report.serverIsolation.map { "Isolation:    \($0)" }
                    ?? "Permissions:  \(permissions)",
                "Contents:     \(report.preferenceCount) preferences\(bySuite), \(report.declarationCount)"
                    + " declarations, \(report.historyCount) history entries,"
                    + " \(report.selectionCount) selections, \(report.bookmarkCount) bookmarks",
                "Search index: \(searchLine)",
                "Changes:      \(changeDetection)",
            ]
            if let ownPath {
                let folder = String(ownPath[..<(ownPath.lastIndex(of: "/") ?? ownPath.endIndex)])
                let (quotedFolder, quotedPath) = (
                    Self.shellQuoted(folder), Self.shellQuoted(report.path)
                )
                lines.insert(
                    "Location:     the file every app shared before each had its own; to give"
                        + " '\(context.app)' its own, with no prefs process running: mkdir -p"
                        + " \(quotedFolder) && for f in \(quotedPath)*; do mv \"$f\""
                        + " \(quotedFolder)/\"${f##*/}\"; done", at: 1)
            }
            if !isServer {
                lines.append(
                    "Pages:        \(report.pageCount) of \(report.pageSize) bytes,"
                        + " \(report.freePageCount) free")
            }
            lines.append("Status:       \(report.isHealthy ? "healthy" : "PROBLEMS FOUND")")
            context.console.print(lines.joined(separator: "\n") + "\n")
        }
        guard report.integrityProblems == ["ok"] else {
            throw CommandFailure(
                "'\(report.path)' failed its checks; restore it from a backup or export what can be read",
                exitCode: CommandFailure.dataError)
        }
        if let shared = report.sharedFiles.first {
            throw CommandFailure(
                "'\(shared)' belongs to another user or may be written by others; whoever"
                    + " controls it controls what prefs reads",
                exitCode: CommandFailure.noPermission)
        }
        if let problem = report.writeProblem {
            throw CommandFailure(
                "'\(report.path)' cannot be written: \(problem); every write would fail",
                exitCode: CommandFailure.ioError)
        }
        guard report.isHealthy else {
            throw CommandFailure(
                "The bookmark search index of '\(report.path)' is out of step; run 'prefs doctor --repair'",
                exitCode: CommandFailure.dataError)
        }
    }

    /// The suites that hold preferences, the standard one first, then by name.
    static func suites(_ report: DatabaseDiagnostics) -> [(suite: String, count: Int)] {
        report.preferenceCountBySuite.map { ($0.key, $0.value) }.sorted {
            ($0.suite == PreferenceStore.standardSuite ? 0 : 1, $0.suite)
                < ($1.suite == PreferenceStore.standardSuite ? 0 : 1, $1.suite)
        }
    }

    /// Text as one word of a POSIX shell: in single quotes, each quote written `'\''`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
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

extension DoctorCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(repair: parsed[Self.repair])
    }
}
