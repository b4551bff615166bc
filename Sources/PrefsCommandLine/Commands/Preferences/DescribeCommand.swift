import PrefsKit

/// `prefs describe KEY`: declaration, stored value and last change.
struct DescribeCommand: RunnableCommand {
    static var name: String { "describe" }
    static let key = Argument<String>("key", help: "The preference key.", completesKeys: true)
    static let spec = CommandSpec(
        Self.self,
        abstract: "Show what is known of a key: declaration, stored value, last change.",
        discussion: """
            The declared type, default and description (prefs declare), the stored value and
            its type, and the last change in the history. Exits 1 when the key is neither
            declared, stored nor in the history.
            """,
        arguments: [key.spec], scope: .preferences)

    var key: String

    func run(_ context: CommandContext) throws {
        let store = try context.openForReading().map {
            PreferenceStore(database: $0, suite: context.suite)
        }
        let declaration = try store?.declarations().first { $0.key == key }
        let stored = try store?.storedValue(forKey: key)
        let lastChange = try store?.history(forKey: key, limit: 1).first
        guard declaration != nil || stored != nil || lastChange != nil else {
            throw CommandFailure(
                "'\(ValueText.shown(key))' is not declared, stored or in the history of suite '\(context.suite)'",
                exitCode: CommandFailure.notFound)
        }
        if context.globals.isJSON {
            context.printJSON(
                JSONShapes.description(
                    suite: context.suite, key: key, declaration: declaration, stored: stored,
                    lastChange: lastChange))
            return
        }
        var lines = ["key: \(ValueText.shown(key))", "suite: \(context.suite)"]
        if let declaration {
            lines.append("declared type: \(declaration.type)")
            lines.append("default: \(declaration.defaultValue.map(ValueText.listed) ?? "(none)")")
            lines.append(
                "description: \(declaration.description.map(ValueText.listed) ?? "(none)")")
            lines.append("device-local: \(declaration.isDeviceLocal ? "yes" : "no")")
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
        context.console.print(lines.map { $0 + "\n" }.joined())
    }
}

extension DescribeCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(key: try parsed[Self.key])
    }
}
