import PrefsKit
import PrefsPostgreSQL

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a command runs with: the global options, the console, and the database they name.
struct CommandContext {
    let invocation: Invocation
    let console: Console

    var globals: GlobalOptions { invocation.globals }

    /// The database path: `--db`, else `$PREFS_DB`, else the default location.
    /// Whether the database was named (`--db` or `$PREFS_DB`) rather than the default.
    var isExplicitPath: Bool {
        globals.databasePath != nil || !(console.variable("PREFS_DB") ?? "").isEmpty
    }

    /// The database for messages: a connection string without its password.
    var shownDatabasePath: String { DatabaseLocation.shown(databasePath) }

    var databasePath: String {
        if let named = globals.databasePath { return named }
        // run() has refused a command that opens the database when there is no default.
        return (try? defaultLocation.get()) ?? ""
    }

    /// The app whose file is the default: `--app`, else `$PREFS_APP`, else `prefs`.
    var app: String {
        if let app = globals.app { return app }
        if let app = console.variable("PREFS_APP"), !app.isEmpty { return app }
        return Self.defaultApp
    }

    /// The app the command line stands for when none is named.
    static let defaultApp = "prefs"

    /// Where the app's own file belongs, when the default location fell back to the file
    /// every app shared before (nil otherwise, and for a path named with --db or PREFS_DB).
    var ownPathOfSharedFile: String? {
        guard !isExplicitPath,
            let shared = try? DatabaseLocation.sharedPath(variable: console.variable),
            databasePath == shared,
            let own = try? DatabaseLocation.appPath(app: app, variable: console.variable),
            own != shared
        else { return nil }
        return own
    }

    /// The default database of ``app`` (`$PREFS_DB` first), or why there is none.
    var defaultLocation: Result<String, DatabaseLocation.Problem> {
        Result { () throws(DatabaseLocation.Problem) in
            try DatabaseLocation.defaultPath(app: app, variable: console.variable)
        }
    }

    /// The suite: `--suite`, else `$PREFS_SUITE`, else `standard`.
    var suite: String {
        if let suite = globals.suite { return suite }
        if let suite = console.variable("PREFS_SUITE"), !suite.isEmpty { return suite }
        return PreferenceStore.standardSuite
    }

    /// Checks the global options against the command's scope, then runs it.
    func run() throws {
        let scope = invocation.scope
        if globals.app != nil || !(console.variable("PREFS_APP") ?? "").isEmpty {
            do {
                try DatabaseLocation.validate(appIdentifier: app)
            } catch {
                throw CommandFailure(error.description, exitCode: CommandFailure.usage)
            }
        }
        if globals.databasePath == nil, !invocation.command.opensNoDatabase,
            case .failure(let problem) = defaultLocation
        {
            throw CommandFailure(problem.description, exitCode: CommandFailure.noInput)
        }
        if globals.suite != nil || scope.contains(.suite) {
            try PreferenceStore.validate(suite: suite)
        }
        if globals.suite != nil, !scope.contains(.suite) {
            throw CommandFailure(
                "--suite does not apply to 'prefs \(commandName)': only preferences (and the onboarding flag)"
                    + " are kept per suite",
                exitCode: CommandFailure.usage)
        }
        // An account belongs to a server's database; a file has none to choose.
        if let account = globals.account,
            account.isEmpty || account.utf8.count > 56
                || account.utf8.contains(where: { $0 < 0x20 })
        {
            throw CommandFailure(
                "The account name must be 1 to 56 bytes without control characters",
                exitCode: CommandFailure.usage)
        }
        if let named = globals.databasePath { warnOfPassword(in: named) }
        // Sync's account is the hub's.
        if globals.account != nil, !scope.contains(.hubAccount),
            !AppDatabase.isConnectionString(databasePath)
        {
            throw CommandFailure(
                "--account applies only to a PostgreSQL database (--db postgresql://...);"
                    + " '\(shownDatabasePath)' is a file",
                exitCode: CommandFailure.usage)
        }
        // Help and completion print text or a script; there is no JSON form to give.
        if globals.isJSON, !scope.contains(.json) {
            throw CommandFailure(
                "--json does not apply to 'prefs \(commandName)'", exitCode: CommandFailure.usage)
        }
        try invocation.command.run(self)
    }

    /// The command's names, as typed: "selection set". Made only for a message: the first
    /// call of the generic `joined(separator:)` has the runtime look up its metadata (about
    /// 0.2 M instructions of a 4 M instruction `prefs get`).
    var commandName: String {
        var name = ""
        for part in invocation.path {
            if !name.isEmpty { name += " " }
            name += part
        }
        return name
    }

    // MARK: - Opening

    /// Opens the database for writing, creating it on first write.
    func openForWriting() throws -> AppDatabase {
        try open(options: baseOptions)
    }

    /// Opens the database the command names with `options`: a file, or a server's database
    /// (a connection string) with the server's settings of ``serverOptions(_:)`` as well.
    func open(options: AppDatabase.Options) throws -> AppDatabase {
        guard AppDatabase.isConnectionString(databasePath) else {
            return try AppDatabase(path: databasePath, options: options)
        }
        var server = serverOptions(options)
        server.account = requestedAccount
        return try AppDatabase.postgreSQL(databasePath, options: server)
    }

    /// The options every open shares: no watching and no read tracking for Observation's
    /// sake (a command reads and exits, with no view to tell; `watch` observes through its
    /// own observers).
    var baseOptions: AppDatabase.Options {
        var options = AppDatabase.Options()
        options.watchesForChanges = false
        options.tracksReadsForObservation = false
        options.allowsSharedFile =
            globals.allowsSharedFile || console.variable("PREFS_ALLOW_SHARED") == "1"
        // Only the default location's folders are made: a path the user names must be in a
        // folder that exists (a typo must not create a tree).
        options.createsMissingFolders = !isExplicitPath
        return options
    }

    /// What a server needs said about how it is reached: behind a pooler in transaction mode
    /// (`PREFS_POOLER=transaction`), with notifications through a connection straight to
    /// the server (`PREFS_LISTEN_DB`). For the database and the hub alike; for a hub, a
    /// standby its pulls may read (`PREFS_STANDBY_DB`).
    func serverOptions(_ database: AppDatabase.Options = AppDatabase.Options())
        -> PostgreSQLOptions
    {
        var options = PostgreSQLOptions()
        options.database = database
        options.isBehindTransactionPooler = console.variable("PREFS_POOLER") == "transaction"
        options.notificationTarget = console.variable("PREFS_LISTEN_DB").flatMap {
            $0.isEmpty ? nil : $0
        }
        options.standbyTarget = console.variable("PREFS_STANDBY_DB").flatMap {
            $0.isEmpty ? nil : $0
        }
        return options
    }

    /// Whether the database is there to read: a file that exists, or a server.
    /// No file at the path: nil (nothing stored yet), unless the path was named and its
    /// folder does not exist either, which is a mistyped path (exit 66), not an empty store.
    private func noDatabase() throws -> AppDatabase? {
        guard isExplicitPath else { return nil }
        let folder = databasePath.lastIndex(of: "/").map { String(databasePath[..<$0]) } ?? "."
        guard folder.isEmpty || FileManager.default.fileExists(atPath: folder) else {
            throw DatabaseError.folderMissing(path: databasePath)
        }
        return nil
    }

    var databaseExists: Bool {
        AppDatabase.isConnectionString(databasePath) || AppDatabase.fileExists(atPath: databasePath)
    }

    /// Opens the database for reading; nil when the file does not exist (reads never
    /// create it).
    ///
    /// The connection is read-only, so a read cannot change the file (not even an empty one,
    /// or one with a damaged page); a file from an older schema is opened for writing once
    /// to be upgraded.
    /// The database for reading; a file that is not there is exit 66, and is not made.
    func openExistingForReading() throws -> AppDatabase {
        guard let database = try openForReading() else {
            throw CommandFailure(
                "No database at '\(shownDatabasePath)'", exitCode: CommandFailure.noInput)
        }
        return database
    }

    func openForReading() throws -> AppDatabase? {
        guard databaseExists else { return try noDatabase() }
        var options = baseOptions
        options.createIfMissing = false
        options.isReadOnly = true
        do {
            return try open(options: options)
        } catch let error as DatabaseError {
            guard case .needsUpgrade = error.kind else { throw error }
            options.isReadOnly = false
            return try open(options: options)
        }
    }

    /// Opens an existing database for a change; nil when there is no file (nothing to
    /// change, and nothing is created).
    func openExistingForWriting() throws -> AppDatabase? {
        guard databaseExists else { return try noDatabase() }
        var options = baseOptions
        options.createIfMissing = false
        return try open(options: options)
    }

    /// Data for standard output: escaped for a terminal (``ValueText/listed(_:)``), exact for
    /// a pipe or a file, where a script reads the bytes.
    func terminalSafe(_ text: String) -> String {
        console.isOutputTerminal ? ValueText.listed(text) : text
    }

    /// Warns when a connection string given on the command line holds a password: every
    /// user of the machine can read a process's arguments (`ps`).
    func warnOfPassword(in location: String) {
        guard DatabaseLocation.holdsPassword(location) else { return }
        console.message(
            "Warning: the password in the connection string is visible to every user in 'ps';"
                + " keep it in ~/.pgpass (or the file PGPASSFILE names) or a service file instead")
    }

    /// Prints a message on stderr unless `--quiet`.
    func inform(_ text: String) {
        if !globals.isQuiet { console.message(text) }
    }

    /// Prints JSON on stdout, one document.
    func printJSON(_ value: JSONValue) {
        console.print(value.serialized(.pretty) + "\n")
    }

    /// Asks for confirmation on a terminal; without one, `--force` is required.
    func confirm(_ question: String, force: Bool, flagHint: String) throws {
        if force { return }
        guard console.isInputTerminal else {
            throw CommandFailure(
                "\(question.dropLast()) needs \(flagHint) when standard input is not a terminal",
                exitCode: CommandFailure.usage)
        }
        console.error("\(question) [y/N] ")
        let answer = console.readLine()?.lowercased() ?? ""
        guard answer == "y" || answer == "yes" else {
            throw CommandFailure(
                "Cancelled; nothing was changed", exitCode: CommandFailure.notFound)
        }
    }
}
