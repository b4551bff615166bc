import PrefsKit

/// `prefs delete KEY`: removes a stored value.
struct DeleteCommand: RunnableCommand {
    static let name = "delete"
    static let aliases = ["remove", "unset"]
    static let key = Argument<String>("key", help: "The preference key.", completesKeys: true)
    static let spec = CommandSpec(
        Self.self, abstract: "Remove the stored value of a preference.",
        arguments: [key.spec], scope: .preferences)

    var key: String

    func run(_ context: CommandContext) throws {
        guard let database = try context.openExistingForWriting() else {
            throw context.noValue(key)
        }
        let store = PreferenceStore(database: database, suite: context.suite)
        guard try store.storedValue(forKey: key) != nil else {
            throw context.noValue(key)
        }
        try store.setValue(nil, forKey: key)
        if context.globals.isJSON {
            context.printJSON(
                .object([
                    ("suite", .string(context.suite)), ("key", .string(key)),
                    ("removed", .bool(true)),
                ]))
        }
    }
}

extension DeleteCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(key: try parsed[Self.key])
    }
}
