import PrefsKit

/// `prefs delete KEY`: removes a stored value; with `--forget`, every value of the key the
/// database keeps.
struct DeleteCommand: RunnableCommand {
    static var name: String { "delete" }
    static var aliases: [String] { ["remove", "unset"] }
    static let key = Argument<String>("key", help: "The preference key.", completesKeys: true)
    static let forget = Flag(
        "forget", help: "Also forget the key's values in the history (and sync's conflicts).")
    static let spec = CommandSpec(
        Self.self, abstract: "Remove the stored value of a preference.",
        discussion: """
            The history keeps the values a key had ('prefs history KEY') until newer changes
            push them out of its limit. --forget removes those too, and overwrites the space
            they took in the file; the key's last change stays as a removal without a value.
            """,
        arguments: [key.spec], options: [forget.spec], scope: .preferences)

    var key: String
    var forget = false

    func run(_ context: CommandContext) throws {
        guard let database = try context.openExistingForWriting() else {
            throw context.noValue(key)
        }
        let store = PreferenceStore(database: database, suite: context.suite)
        let isStored = try store.storedValue(forKey: key) != nil
        var forgotten = 0
        if forget {
            // A key removed before still has values in its history to forget.
            guard try isStored || !store.history(forKey: key, limit: 1).isEmpty else {
                throw context.noValue(key)
            }
            forgotten = try store.forgetValue(forKey: key)
        } else {
            guard isStored else { throw context.noValue(key) }
            try store.setValue(nil, forKey: key)
        }
        if context.globals.isJSON {
            var fields: [(String, JSONValue)] = [
                ("suite", .string(context.suite)), ("key", .string(key)),
                ("removed", .bool(isStored)),
            ]
            if forget { fields.append(("forgottenChanges", .integer(forgotten))) }
            context.printJSON(.object(fields))
        }
    }
}

extension DeleteCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(key: try parsed[Self.key], forget: parsed[Self.forget])
    }
}
