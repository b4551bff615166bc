import PrefsKit

/// `prefs get KEY`: the value, else the declared default, else `--default`.
struct GetCommand: RunnableCommand {
    static var name: String { "get" }
    static let key = Argument<String>("key", help: "The preference key.", completesKeys: true)
    static let fallback = Option<String>(
        "default", value: "value",
        help: "What to print when the key has no value and no declared default.")
    static let raw = Flag("raw", help: "Print the stored value as stored, without defaults.")
    static let spec = CommandSpec(
        Self.self, abstract: "Print the value of a preference.",
        discussion: """
            Prints the stored value, else the declared default, else the --default given;
            exits 1 when there is none of them. With --raw, only the stored value, exactly as
            stored (JSON text unformatted; with --json, the version of its shape too), as it
            is whatever the app's current type makes of it.
            """,
        arguments: [key.spec], options: [fallback.spec, raw.spec], scope: .preferences)

    var key: String
    var fallback: String? = nil
    var raw = false

    func run(_ context: CommandContext) throws {
        if raw { return try runRaw(context) }
        let store = try context.openForReading().map {
            PreferenceStore(database: $0, suite: context.suite)
        }
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
                "No value for '\(ValueText.shown(key))' in suite '\(context.suite)'; set one with 'prefs set \(ValueText.shown(key)) VALUE'",
                exitCode: CommandFailure.notFound)
        }
        if context.globals.isJSON {
            context.printJSON(
                JSONShapes.preference(
                    suite: context.suite, key: key, value: value, isDefault: isDefault))
        } else {
            context.console.print(context.terminalSafe(ValueText.plain(value)) + "\n")
        }
    }

    /// `get --raw`: the stored value exactly as stored, whatever defaults say.
    private func runRaw(_ context: CommandContext) throws {
        if fallback != nil {
            throw CommandFailure(
                "'--raw' prints the stored value only; it cannot be used with '--default'",
                exitCode: CommandFailure.usage)
        }
        let store = try context.openForReading().map {
            PreferenceStore(database: $0, suite: context.suite)
        }
        guard let store, let value = try store.storedValue(forKey: key) else {
            throw CommandFailure(
                "No value stored for '\(ValueText.shown(key))' in suite '\(context.suite)'",
                exitCode: CommandFailure.notFound)
        }
        let version = try store.storedVersion(forKey: key)
        if context.globals.isJSON {
            context.printJSON(
                JSONShapes.rawPreference(
                    suite: context.suite, key: key, value: value, version: version))
        } else if case .json(let text) = value {
            context.console.print(context.terminalSafe(text) + "\n")
        } else {
            context.console.print(context.terminalSafe(ValueText.plain(value)) + "\n")
        }
    }
}

extension GetCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            key: try parsed[Self.key], fallback: try parsed[Self.fallback], raw: parsed[Self.raw])
    }
}
