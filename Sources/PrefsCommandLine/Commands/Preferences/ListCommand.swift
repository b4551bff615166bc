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
        var output = ListOutput(
            context: context, isJSON: context.globals.isJSON, isNullSeparated: isNullSeparated)
        guard
            let store = try context.openForReading().map({
                PreferenceStore(database: $0, suite: context.suite)
            })
        else { return output.finish() }
        // The declared defaults of keys without a value, merged in byte order (as the
        // database sorts: keys Swift calls equal stay two rows) into the stored rows as they
        // are read, so that a suite of any size is listed in constant memory.
        var declared: [(key: String, value: PreferenceValue)] = []
        if includeDeclared {
            declared = try store.declarations().compactMap { declaration in
                declaration.defaultValue.map { (declaration.key, $0) }
            }
            declared.sort { ExactName.precedes($0.key, $1.key) }
        }
        var next = declared.startIndex
        try store.forEachStoredEntry { key, value in
            while next < declared.endIndex, ExactName.precedes(declared[next].key, key) {
                output.add(key: declared[next].key, value: declared[next].value, isDefault: true)
                next += 1
            }
            // A declared key with a value is listed once, with its value.
            if next < declared.endIndex, ExactName.sameBytes(declared[next].key, key) { next += 1 }
            output.add(key: key, value: value, isDefault: false)
        }
        for entry in declared[next...] {
            output.add(key: entry.key, value: entry.value, isDefault: true)
        }
        output.finish()
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

/// What `prefs list` prints, written as the entries come: text or a JSON array, in chunks of
/// about 64 KB.
private struct ListOutput {
    let context: CommandContext
    let isJSON: Bool
    let isNullSeparated: Bool
    private var buffer = ""
    private var isEmpty = true

    init(context: CommandContext, isJSON: Bool, isNullSeparated: Bool) {
        self.context = context
        self.isJSON = isJSON
        self.isNullSeparated = isNullSeparated
    }

    mutating func add(key: String, value: PreferenceValue, isDefault: Bool) {
        if isJSON {
            appendJSON(key: key, value: value, isDefault: isDefault)
        } else {
            buffer += context.entry(
                key: key, value: value, isDefault: isDefault, isNullSeparated: isNullSeparated)
        }
        isEmpty = false
        if buffer.utf8.count >= 1 << 16 { flush() }
    }

    /// One element of the array, with the bytes `JSONShapes.preference` would have
    /// serialized (an element of a pretty array), written without building it first: a
    /// million entries are a million objects less (`ListCommandTests` compares the two).
    private mutating func appendJSON(key: String, value: PreferenceValue, isDefault: Bool) {
        buffer += isEmpty ? "[\n  {\n    \"suite\": " : ",\n  {\n    \"suite\": "
        JSONValue.appendString(context.suite, into: &buffer)
        buffer += ",\n    \"key\": "
        JSONValue.appendString(key, into: &buffer)
        buffer += ",\n    \"type\": \""
        buffer += value.type.rawValue
        buffer += "\",\n    \"value\": "
        switch value {
        case .bool(let flag): buffer += flag ? "true" : "false"
        case .int(let number): buffer += String(number)
        case .string(let text): JSONValue.appendString(text, into: &buffer)
        default: value.jsonValue.appendPretty(into: &buffer, indent: 2)
        }
        buffer += isDefault ? ",\n    \"isDefault\": true\n  }" : ",\n    \"isDefault\": false\n  }"
    }

    mutating func finish() {
        if isJSON {
            JSONValue.closePrettyArray(into: &buffer, isEmpty: isEmpty)
            buffer += "\n"
        }
        flush()
    }

    private mutating func flush() {
        guard !buffer.isEmpty else { return }
        context.console.print(buffer)
        buffer = ""
    }
}
