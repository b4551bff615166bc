import Dispatch
import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension CommandRunner {
    func get(_ key: String, fallback: String? = nil) throws {
        let store = try openForReading().map { PreferenceStore(database: $0, suite: suite) }
        var value = try store?.storedValue(forKey: key)
        var isDefault = false
        // The library's order of defaults; a command has no registration domain, so this is
        // the declared default.
        if value == nil, let defaultValue = try store?.value(forKey: key) {
            value = defaultValue
            isDefault = true
        }
        if value == nil, let fallback {
            value = .string(fallback)
            isDefault = true
        }
        guard let value else {
            throw CommandFailure(
                "No value for '\(ValueText.shown(key))' in suite '\(suite)'; set one with 'prefs set \(ValueText.shown(key)) VALUE'",
                exitCode: CommandFailure.notFound)
        }
        if globals.isJSON {
            printJSON(
                JSONShapes.preference(suite: suite, key: key, value: value, isDefault: isDefault))
        } else {
            console.print(terminalSafe(ValueText.plain(value)) + "\n")
        }
    }

    /// `get --raw`: the stored value exactly as stored, whatever defaults say.
    func getRaw(_ key: String, fallback: String?) throws {
        if fallback != nil {
            throw CommandFailure(
                "'--raw' prints the stored value only; it cannot be used with '--default'",
                exitCode: CommandFailure.usage)
        }
        let store = try openForReading().map { PreferenceStore(database: $0, suite: suite) }
        guard let store, let value = try store.storedValue(forKey: key) else {
            throw CommandFailure(
                "No value stored for '\(ValueText.shown(key))' in suite '\(suite)'",
                exitCode: CommandFailure.notFound)
        }
        let version = try store.storedVersion(forKey: key)
        if globals.isJSON {
            printJSON(
                JSONShapes.rawPreference(suite: suite, key: key, value: value, version: version))
        } else if case .json(let text) = value {
            console.print(terminalSafe(text) + "\n")
        } else {
            console.print(terminalSafe(ValueText.plain(value)) + "\n")
        }
    }

    func set(_ key: String, text: String, type explicitType: PreferenceType?) throws {
        try PreferenceStore.validate(key: key)
        var text = text
        if text == "-" {
            let bytes = try FileAccess.read("-", console: console)
            guard var input = String(validating: bytes, as: UTF8.self) else {
                throw CommandFailure(
                    "Standard input is not valid UTF-8", exitCode: CommandFailure.dataError)
            }
            if input.hasSuffix("\n") { input.removeLast() }
            text = input
        }
        let database = try openForWriting()
        let store = PreferenceStore(database: database, suite: suite)
        // The declared type chooses how the text is read; the store refuses another type.
        let declared = try store.declarations().first { $0.key == key }?.type
        // A stored value keeps its type: `set volume 1` on a double stores 1.0.
        let stored =
            explicitType == nil && declared == nil ? try store.storedValue(forKey: key)?.type : nil
        let type = explicitType ?? declared ?? stored ?? ValueText.inferredType(of: text)
        let value: PreferenceValue
        switch Result(catching: { () throws(CommandFailure) -> PreferenceValue in
            try ValueText.parse(text, as: type, key: key)
        }) {
        case .success(let parsed): value = parsed
        case .failure(let failure):
            guard stored != nil else { throw failure }
            throw CommandFailure(
                "\(failure.message); '\(ValueText.shown(key))' holds a \(type); pass --type to store another type",
                exitCode: CommandFailure.dataError)
        }
        try store.setValue(value, forKey: key)
        if globals.isJSON {
            printJSON(JSONShapes.preference(suite: suite, key: key, value: value, isDefault: false))
        }
    }

    func delete(_ key: String) throws {
        guard let database = try openExistingForWriting() else {
            throw noValue(key)
        }
        let store = PreferenceStore(database: database, suite: suite)
        guard try store.storedValue(forKey: key) != nil else {
            throw noValue(key)
        }
        try store.setValue(nil, forKey: key)
        if globals.isJSON {
            printJSON(
                .object([
                    ("suite", .string(suite)), ("key", .string(key)), ("removed", .bool(true)),
                ]))
        }
    }

    /// Exit 1: the key has no stored value.
    private func noValue(_ key: String) -> CommandFailure {
        CommandFailure(
            "No value for '\(ValueText.shown(key))' in suite '\(suite)'",
            exitCode: CommandFailure.notFound)
    }

    func rename(_ old: String, to new: String, force: Bool) throws {
        try PreferenceStore.validate(key: old)
        try PreferenceStore.validate(key: new)
        guard let database = try openExistingForWriting() else {
            throw noValue(old)
        }
        let store = PreferenceStore(database: database, suite: suite)
        let value: PreferenceValue
        do {
            value = try store.renameKey(old, to: new, overwriting: force)
        } catch PreferenceError.noValue {
            throw noValue(old)
        } catch PreferenceError.wouldOverwrite {
            throw CommandFailure(
                "'\(ValueText.shown(new))' already has a value; pass --force to replace it",
                exitCode: CommandFailure.usage)
        }
        if globals.isJSON {
            printJSON(JSONShapes.preference(suite: suite, key: new, value: value, isDefault: false))
        } else {
            inform("Renamed '\(ValueText.shown(old))' to '\(ValueText.shown(new))'")
        }
    }

    func describe(_ key: String) throws {
        let store = try openForReading().map { PreferenceStore(database: $0, suite: suite) }
        let declaration = try store?.declarations().first { $0.key == key }
        let stored = try store?.storedValue(forKey: key)
        let lastChange = try store?.history(forKey: key, limit: 1).first
        guard declaration != nil || stored != nil || lastChange != nil else {
            throw CommandFailure(
                "'\(ValueText.shown(key))' is not declared, stored or in the history of suite '\(suite)'",
                exitCode: CommandFailure.notFound)
        }
        if globals.isJSON {
            printJSON(
                JSONShapes.description(
                    suite: suite, key: key, declaration: declaration, stored: stored,
                    lastChange: lastChange))
            return
        }
        var lines = ["key: \(ValueText.shown(key))", "suite: \(suite)"]
        if let declaration {
            lines.append("declared type: \(declaration.type)")
            lines.append("default: \(declaration.defaultValue.map(ValueText.listed) ?? "(none)")")
            lines.append(
                "description: \(declaration.description.map(ValueText.listed) ?? "(none)")")
        } else {
            lines.append("declared: no")
        }
        lines.append("stored: \(stored.map { "\(ValueText.listed($0)) (\($0.type))" } ?? "(none)")")
        if let lastChange {
            let old = lastChange.oldValue.map(ValueText.listed) ?? "(none)"
            let new = lastChange.value.map(ValueText.listed) ?? "(removed)"
            lines.append(
                "last change: \(ISO8601.string(from: lastChange.changedAt)) \(old) -> \(new)")
        }
        console.print(lines.map { $0 + "\n" }.joined())
    }

    func find(_ pattern: String, isRegex: Bool, isNullSeparated: Bool = false) throws {
        let matches: (String) -> Bool
        if isRegex {
            let regex: Regex<AnyRegexOutput>
            do {
                regex = try Regex(pattern)
            } catch {
                throw CommandFailure(
                    "'\(ValueText.shown(pattern))' is not a valid regular expression",
                    exitCode: CommandFailure.usage)
            }
            matches = { $0.contains(regex) }
        } else {
            matches = { fnmatch(pattern, $0, 0) == 0 }
        }
        let store = try openForReading().map { PreferenceStore(database: $0, suite: suite) }
        // Stored entries, in byte order: keys Swift calls equal are still two keys.
        let rows = try (store?.storedEntries() ?? []).filter { matches($0.key) }
        guard !rows.isEmpty else {
            throw CommandFailure(
                "No key of suite '\(suite)' matches '\(ValueText.shown(pattern))'",
                exitCode: CommandFailure.notFound)
        }
        if globals.isJSON {
            printJSON(
                .array(
                    rows.map {
                        JSONShapes.preference(
                            suite: suite, key: $0.key, value: $0.value, isDefault: false)
                    }))
        } else {
            console.print(
                rows.map { entry(key: $0.key, value: $0.value, isNullSeparated: isNullSeparated) }
                    .joined())
        }
    }

    /// One line of list output: `key=value\n`, or with -z `key\nvalue\0`.
    func entry(key: String, value: PreferenceValue, isDefault: Bool = false, isNullSeparated: Bool)
        -> String
    {
        if isNullSeparated { return "\(key)\n\(ValueText.plain(value))\0" }
        return "\(ValueText.listed(key))=\(ValueText.listed(value))"
            + (isDefault ? " (default)\n" : "\n")
    }

    func list(includeDeclared: Bool, isNullSeparated: Bool = false) throws {
        let store = try openForReading().map { PreferenceStore(database: $0, suite: suite) }
        let stored = try store?.storedEntries() ?? []
        var rows: [(key: String, value: PreferenceValue, isDefault: Bool)] = stored.map {
            ($0.key, $0.value, false)
        }
        if includeDeclared {
            let storedNames = Set(stored.map { ExactName($0.key) })
            for declaration in try store?.declarations() ?? []
            where !storedNames.contains(ExactName(declaration.key)) {
                if let value = declaration.defaultValue {
                    rows.append((declaration.key, value, true))
                }
            }
        }
        // Byte order, as the database sorts: keys Swift calls equal stay two rows.
        rows.sort { ExactName.precedes($0.key, $1.key) }
        if globals.isJSON {
            printJSON(
                .array(
                    rows.map {
                        JSONShapes.preference(
                            suite: suite, key: $0.key, value: $0.value, isDefault: $0.isDefault)
                    }))
        } else {
            var text = ""
            for row in rows {
                text += entry(
                    key: row.key, value: row.value, isDefault: row.isDefault,
                    isNullSeparated: isNullSeparated)
            }
            console.print(text)
        }
    }

    /// `list --names`: the keys only (what shell completion offers), with `--all` every
    /// declared key too, sorted.
    func listNames(includeDeclared: Bool, isNullSeparated: Bool) throws {
        let store = try openForReading().map { PreferenceStore(database: $0, suite: suite) }
        var names = Set(try (store?.storedEntries() ?? []).map { ExactName($0.key) })
        if includeDeclared {
            for declaration in try store?.declarations() ?? [] {
                names.insert(ExactName(declaration.key))
            }
        }
        let sorted = names.sorted().map(\.string)
        if globals.isJSON {
            printJSON(.array(sorted.map(JSONValue.string)))
        } else {
            console.print(
                sorted.map { isNullSeparated ? $0 + "\0" : ValueText.listed($0) + "\n" }.joined())
        }
    }

    func reset(force: Bool) throws {
        guard let database = try openExistingForWriting() else {
            if globals.isJSON {
                printJSON(.object([("suite", .string(suite)), ("removed", .number("0"))]))
            }
            inform("Nothing to reset: no database at '\(shownDatabasePath)'")
            return
        }
        let store = PreferenceStore(database: database, suite: suite)
        try confirm(
            "Remove every preference of suite '\(suite)'?", force: force, flagHint: "--force")
        let count = try store.removeAll()
        if globals.isJSON {
            printJSON(.object([("suite", .string(suite)), ("removed", .number(String(count)))]))
        }
        inform("Removed \(count) preference\(count == 1 ? "" : "s") from suite '\(suite)'")
    }

    func history(_ key: String?, limit: Int) throws {
        let store = try openForReading().map { PreferenceStore(database: $0, suite: suite) }
        let changes = try store?.history(forKey: key, limit: limit) ?? []
        if globals.isJSON {
            printJSON(.array(changes.map(JSONShapes.change)))
            return
        }
        var text = ""
        for change in changes {
            let old = change.oldValue.map(ValueText.listed) ?? "(none)"
            let new = change.value.map(ValueText.listed) ?? "(removed)"
            text +=
                "\(ISO8601.string(from: change.changedAt))  \(ValueText.listed(change.key)):"
                + " \(old) -> \(new)\n"
        }
        console.print(text)
    }

    func suites(isNullSeparated: Bool = false) throws {
        let store = try openForReading().map { PreferenceStore(database: $0, suite: suite) }
        let names = try store?.suites() ?? []
        if globals.isJSON {
            printJSON(.array(names.map(JSONValue.string)))
        } else {
            console.print(
                names.map { isNullSeparated ? $0 + "\0" : ValueText.listed($0) + "\n" }.joined())
        }
    }

    func declare(
        _ key: String, type: PreferenceType, defaultText: String?, description: String?,
        isDeviceLocal: Bool
    ) throws {
        try PreferenceStore.validate(key: key)
        let defaultValue = try defaultText.map { text throws(CommandFailure) in
            try ValueText.parse(text, as: type, key: key)
        }
        let store = PreferenceStore(database: try openForWriting(), suite: suite)
        if let stored = try store.storedValue(forKey: key), stored.type != type {
            throw CommandFailure(
                "'\(ValueText.shown(key))' holds a \(stored.type) value; delete it or declare it as \(stored.type)",
                exitCode: CommandFailure.dataError)
        }
        try store.declare(
            PreferenceDeclaration(
                key: key, type: type, defaultValue: defaultValue, description: description,
                isDeviceLocal: isDeviceLocal))
        if globals.isJSON {
            printJSON(
                .object([
                    ("suite", .string(suite)), ("key", .string(key)),
                    ("type", .string(type.rawValue)),
                    ("default", defaultValue?.jsonValue ?? .null),
                    ("description", description.map(JSONValue.string) ?? .null),
                    ("deviceLocal", .bool(isDeviceLocal)),
                ]))
        }
    }

    func export(format: InterchangeFormat, to file: String?) throws {
        let store = try openForReading().map { PreferenceStore(database: $0, suite: suite) }
        let bytes: [UInt8]
        switch format {
        case .json:
            if let store {
                bytes = Array(try store.exportJSON().utf8)
            } else {
                let empty = PreferenceStore(database: try AppDatabase.inMemory(), suite: suite)
                bytes = Array(try empty.exportJSON().utf8)
            }
        case .plist, .binaryPlist:
            let plistFormat: PropertyList.Format = format == .plist ? .xml : .binary
            bytes = Array(
                try store?.exportPropertyList(format: plistFormat)
                    ?? PropertyList.encode(.dictionary([:]), format: plistFormat))
        }
        if let file, file != "-" {
            try FileAccess.writeAtomically(bytes, to: file)
            inform("Exported suite '\(suite)' to '\(file)'")
        } else {
            // Binary goes out byte for byte, and never to a terminal (where it would be noise).
            if format == .binaryPlist && console.isOutputTerminal {
                throw CommandFailure(
                    "a binary property list is not for a terminal; redirect the output"
                        + " ('prefs export --format binary-plist > FILE') or name a file",
                    exitCode: CommandFailure.usage)
            }
            _ = console.outputBytes(bytes)
        }
    }

    func importPreferences(
        format: InterchangeFormat?, from file: String, replace: Bool, force: Bool
    ) throws {
        let bytes = try FileAccess.read(file, console: console)
        let detected = format ?? Self.detectFormat(bytes)
        if let bookmarkFormat = BookmarkImportDocument.browserFormat(of: bytes) {
            throw CommandFailure(
                "'\(file)' is a bookmark file (\(bookmarkFormat.rawValue)), not preferences;"
                    + " import it with 'prefs bookmark import \(file)'",
                exitCode: CommandFailure.dataError)
        }
        if replace {
            try confirm(
                "Replace every preference of suite '\(suite)'?", force: force, flagHint: "--force")
        }
        let count: Int
        do {
            // The whole file is read and checked before the database is opened: a file that
            // does not parse, or exceeds a decoding limit, changes nothing, not even by
            // creating the database.
            let document: PreferenceImport
            switch detected {
            case .json:
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    throw CommandFailure(
                        "'\(file)' is not valid UTF-8 JSON", exitCode: CommandFailure.dataError)
                }
                document = try PreferenceImport(json: text)
            case .plist, .binaryPlist:
                document = try PreferenceImport(propertyList: Data(bytes))
            }
            let store = PreferenceStore(database: try openForWriting(), suite: suite)
            let progress = ProgressBar(console: console, label: "Importing")
            defer { progress.finish() }
            count = try store.importValues(document, replacing: replace) {
                progress.update(done: $0, total: $1)
            }
        } catch let error as PreferenceError {
            throw CommandFailure(
                "\(error) in '\(file)'; nothing was imported", exitCode: CommandFailure.dataError)
        }
        inform("Imported \(count) preference\(count == 1 ? "" : "s") into suite '\(suite)'")
    }

    static func detectFormat(_ bytes: [UInt8]) -> InterchangeFormat {
        if bytes.starts(with: Array("bplist".utf8)) { return .binaryPlist }
        let head = String(decoding: bytes.prefix(256), as: UTF8.self)
            .trimmingPrefix(while: { $0.isWhitespace || $0 == "\u{FEFF}" })
        return head.hasPrefix("<") ? .plist : .json
    }

    // MARK: - Watching

    /// For the commands that run until interrupted: SIGINT and SIGTERM end the process with
    /// 0, a closed pipe does not kill it.
    static func exitOnStopSignals() {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGINT) { _ in _exit(0) }
        signal(SIGTERM) { _ in _exit(0) }
        // A parent may have started us with these blocked; watching must still end on them.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
    }

    func watch(_ keys: [String]) throws -> Never {
        Self.exitOnStopSignals()
        while !databaseExists {
            usleep(50_000)
        }
        let database = try openExistingForReading()
        let store = PreferenceStore(database: database, suite: suite)
        let stream = store.changes()
        let wanted = Set(keys.map(ExactName.init))
        let isJSON = globals.isJSON
        let console = self.console
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            for await change in stream
            where wanted.isEmpty || wanted.contains(ExactName(change.key)) {
                let line: String
                if isJSON {
                    line = JSONShapes.change(change).serialized(.spaced)
                } else if let value = change.value {
                    line = "\(ValueText.listed(change.key))=\(ValueText.listed(value))"
                } else {
                    line = "\(ValueText.listed(change.key)) (removed)"
                }
                if !console.print(line + "\n") { break }
            }
            done.signal()
        }
        done.wait()
        exit(0)
    }
}
