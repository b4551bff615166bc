import PrefsKit

/// `prefs history [KEY]`: the recent changes of the suite or of one key.
struct HistoryCommand: RunnableCommand {
    static var name: String { "history" }
    static let key = OptionalArgument<String>(
        "key", help: "Only the changes of this key.", completesKeys: true)
    static let limit = Option<Int>(
        "limit", short: "n", value: "n", help: "Show at most this many changes (default: 20).",
        in: 1...Int.max)
    static let spec = CommandSpec(
        Self.self, abstract: "Show the recent changes of the suite or of one key.",
        arguments: [key.spec], options: [limit.spec], scope: .preferences)

    var key: String? = nil
    var limit = 20

    func run(_ context: CommandContext) throws {
        let store = try context.openForReading().map {
            PreferenceStore(database: $0, suite: context.suite)
        }
        let changes = try store?.history(forKey: key, limit: limit) ?? []
        if context.globals.isJSON {
            context.printJSON(.array(changes.map(JSONShapes.change)))
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
        context.console.print(text)
    }
}

extension HistoryCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(key: try parsed[Self.key], limit: try parsed[Self.limit] ?? 20)
    }
}
