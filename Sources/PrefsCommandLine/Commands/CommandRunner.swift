import PrefsKit

/// Runs one parsed command.
struct CommandRunner {
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
        globals.databasePath ?? DatabaseLocation.defaultPath(variable: console.variable)
    }

    /// The suite: `--suite`, else `$PREFS_SUITE`, else `standard`.
    var suite: String {
        if let suite = globals.suite { return suite }
        if let suite = console.variable("PREFS_SUITE"), !suite.isEmpty { return suite }
        return PreferenceStore.standardSuite
    }

    func run() throws {
        if globals.suite != nil || invocation.command.nameIfSuiteless == nil {
            try PreferenceStore.validate(suite: suite)
        }
        if globals.suite != nil, let name = invocation.command.nameIfSuiteless {
            throw CommandFailure(
                "--suite does not apply to 'prefs \(name)': only preferences (and the onboarding flag)"
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
        if globals.account != nil, !AppDatabase.isConnectionString(databasePath),
            invocation.command.isSync == false
        {
            throw CommandFailure(
                "--account applies only to a PostgreSQL database (--db postgresql://...);"
                    + " '\(shownDatabasePath)' is a file",
                exitCode: CommandFailure.usage)
        }
        switch invocation.command {
        case .completion, .help:
            // Their output is a script or help text; there is no JSON form to give.
            if globals.isJSON {
                throw CommandFailure(
                    "--json does not apply to 'prefs \(invocation.command.isHelp ? "help" : "completion")'",
                    exitCode: CommandFailure.usage)
            }
        default:
            break
        }
        switch invocation.command {
        case .help(let path):
            guard CommandTable.helpFormatter.command(at: path) != nil else {
                var message = "Unknown command '\(path.joined(separator: " "))'"
                // The deepest known group, and the name nearest to what was typed under it.
                var known: [String] = []
                while known.count < path.count,
                    CommandTable.helpFormatter.command(at: known + [path[known.count]]) != nil
                {
                    known.append(path[known.count])
                }
                if let group = CommandTable.helpFormatter.command(at: known),
                    known.count < path.count,
                    let nearest = Suggestion.nearest(
                        to: path[known.count],
                        among: group.subcommands.flatMap { [$0.name] + $0.aliases })
                {
                    message +=
                        ". Did you mean 'prefs help \((known + [nearest]).joined(separator: " "))'?"
                } else {
                    message += "; see 'prefs --help'"
                }
                throw CommandFailure(message, exitCode: CommandFailure.usage)
            }
            console.print(CommandTable.helpFormatter.help(for: path))
        case .version:
            if globals.isJSON {
                printJSON(.object([("version", .string(PrefsCommand.version))]))
            } else {
                console.print("prefs \(PrefsCommand.version)\n")
            }
        case .get(let key, let fallback, let raw):
            try raw ? getRaw(key, fallback: fallback) : get(key, fallback: fallback)
        case .rename(let old, let new, let force): try rename(old, to: new, force: force)
        case .describe(let key): try describe(key)
        case .find(let pattern, let isRegex, let isNull):
            try find(pattern, isRegex: isRegex, isNullSeparated: isNull)
        case .set(let key, let value, let type): try set(key, text: value, type: type)
        case .delete(let key): try delete(key)
        case .list(let includeDeclared, let isNull, true):
            try listNames(includeDeclared: includeDeclared, isNullSeparated: isNull)
        case .list(let includeDeclared, let isNull, false):
            try list(includeDeclared: includeDeclared, isNullSeparated: isNull)
        case .reset(let force): try reset(force: force)
        case .watch(let keys): try watch(keys)
        case .history(let key, let limit): try history(key, limit: limit)
        case .suites(let isNull): try suites(isNullSeparated: isNull)
        case .declare(let key, let type, let defaultValue, let description, let isDeviceLocal):
            try declare(
                key, type: type, defaultText: defaultValue, description: description,
                isDeviceLocal: isDeviceLocal)
        case .export(let format, let file): try export(format: format, to: file)
        case .importPreferences(let format, let file, let replace, let force):
            try importPreferences(format: format, from: file, replace: replace, force: force)
        case .onboarding(let action, let pageCount): try onboarding(action, pageCount: pageCount)
        case .selectionList: try listSelections()
        case .selectionGet(let name): try showSelection(name)
        case .selectionSet(let name, let index, let count, let policy, let itemID):
            try setSelection(name, index: index, count: count, policy: policy, itemID: itemID)
        case .selectionNext(let name): try changeSelection(name) { try $0.next(name) }
        case .selectionPrevious(let name): try changeSelection(name) { try $0.previous(name) }
        case .selectionClear(let name): try changeSelection(name) { try $0.clear(name) }
        case .bookmarkAdd(let draft): try addBookmark(draft)
        case .bookmarkRemove(let reference): try removeBookmark(reference)
        case .bookmarkToggle(let draft): try toggleBookmark(draft)
        case .bookmarkList(let query, let grouping): try listBookmarks(query, grouping: grouping)
        case .bookmarkSearch(let text, let limit): try searchBookmarks(text, limit: limit)
        case .bookmarkMove(let id, let position): try moveBookmark(id, to: position)
        case .bookmarkImport(let format, let file): try importBookmarks(format: format, from: file)
        case .bookmarkExport(let format, let file): try exportBookmarks(format: format, to: file)
        case .doctor(let repair): try doctor(repair: repair)
        case .completion(let shell): console.print(CompletionScript(shell: shell).text)
        case .sync(let hub, let watch): try sync(hub: hub, watch: watch)
        case .syncStatus: try syncStatus()
        case .syncConflicts(let limit): try syncConflicts(limit: limit)
        case .syncLeave: try syncLeave()
        case .syncRefused(let limit): try syncRefused(limit: limit)
        }
    }

    // MARK: - Opening

    /// Opens the database for writing, creating it on first write.
    func openForWriting() throws -> AppDatabase {
        try AppDatabase(path: databasePath, options: baseOptions)
    }

    /// The options every open shares: the account of a PostgreSQL database; no watching and
    /// no read tracking for Observation's sake (a command reads and exits, with no view to
    /// tell; `watch` observes through its own observers).
    var baseOptions: AppDatabase.Options {
        var options = AppDatabase.Options()
        options.watchesForChanges = false
        options.tracksReadsForObservation = false
        options.account =
            globals.account ?? console.variable("PREFS_ACCOUNT").flatMap { $0.isEmpty ? nil : $0 }
        options.allowsSharedFile =
            globals.allowsSharedFile || console.variable("PREFS_ALLOW_SHARED") == "1"
        // Only the default location's folders are made: a path the user names must be in a
        // folder that exists (a typo must not create a tree).
        options.createsMissingFolders = !isExplicitPath
        return options
    }

    /// Whether the database is there to read: a file that exists, or a server.
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
        guard databaseExists else { return nil }
        var options = baseOptions
        options.createIfMissing = false
        options.isReadOnly = true
        do {
            return try AppDatabase(path: databasePath, options: options)
        } catch DatabaseError.needsUpgrade {
            options.isReadOnly = false
            return try AppDatabase(path: databasePath, options: options)
        }
    }

    /// Opens an existing database for a change; nil when there is no file (nothing to
    /// change, and nothing is created).
    func openExistingForWriting() throws -> AppDatabase? {
        guard databaseExists else { return nil }
        var options = baseOptions
        options.createIfMissing = false
        return try AppDatabase(path: databasePath, options: options)
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
