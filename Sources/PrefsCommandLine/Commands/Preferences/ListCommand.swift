import PrefsKit

/// `prefs list`: the suite's stored preferences (with `--all`, declared defaults too).
struct ListCommand: RunnableCommand {
    static var name: String { "list" }
    static var aliases: [String] { ["ls"] }
    static let all = Flag(
        "all", short: "a", help: "Include declared keys that have only a default.")
    static let names = Flag(
        "names", help: "Print the keys only, one per line (with --all, every declared key too).")
    static let null = Flag.null(entries: "each entry, with a newline between key and value")
    static let spec = CommandSpec(
        Self.self, abstract: "List the stored preferences of the suite.",
        options: [all.spec, names.spec, null.spec], scope: .preferences)

    var includeDeclared = false
    var isNullSeparated = false
    var namesOnly = false

    func run(_ context: CommandContext) throws {
        if namesOnly { return try listNames(context) }
        let store = try context.openForReading().map {
            PreferenceStore(database: $0, suite: context.suite)
        }
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
        if context.globals.isJSON {
            context.printJSON(
                .array(
                    rows.map {
                        JSONShapes.preference(
                            suite: context.suite, key: $0.key, value: $0.value,
                            isDefault: $0.isDefault)
                    }))
        } else {
            var text = ""
            for row in rows {
                text += context.entry(
                    key: row.key, value: row.value, isDefault: row.isDefault,
                    isNullSeparated: isNullSeparated)
            }
            context.console.print(text)
        }
    }

    private func listNames(_ context: CommandContext) throws {
        let store = try context.openForReading().map {
            PreferenceStore(database: $0, suite: context.suite)
        }
        var names = Set(try (store?.storedEntries() ?? []).map { ExactName($0.key) })
        if includeDeclared {
            for declaration in try store?.declarations() ?? [] {
                names.insert(ExactName(declaration.key))
            }
        }
        let sorted = names.sorted().map(\.string)
        if context.globals.isJSON {
            context.printJSON(.array(sorted.map(JSONValue.string)))
        } else {
            context.console.print(
                sorted.map { isNullSeparated ? $0 + "\0" : ValueText.listed($0) + "\n" }.joined())
        }
    }
}

extension ListCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            includeDeclared: parsed[Self.all], isNullSeparated: parsed[Self.null],
            namesOnly: parsed[Self.names])
    }
}
