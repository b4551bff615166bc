import PrefsKit

/// `prefs declare KEY --type T`: a key's type, default and description.
struct DeclareCommand: RunnableCommand {
    static var name: String { "declare" }
    static let key = Argument<String>("key", help: "The preference key.", completesKeys: true)
    static let type = Option<PreferenceType>(
        "type", short: "t", value: "type", help: "The key's type: \(PreferenceType.list).",
        isRequired: true)
    static let defaultValue = Option<String>(
        "default", value: "value", help: "The value read when none is stored.")
    static let description = Option<String>(
        "description", value: "text", help: "What the key is for.")
    static let deviceLocal = Flag(
        "device-local", help: "Keep the key's values on this device when it syncs ('prefs sync').")
    static let spec = CommandSpec(
        Self.self, abstract: "Declare a key's type, default and description.",
        discussion:
            "Declared keys show their default in 'get' and 'list --all', and 'set' refuses values of another type.",
        arguments: [key.spec],
        options: [type.spec, defaultValue.spec, description.spec, deviceLocal.spec],
        scope: .preferences)

    var key: String
    var type: PreferenceType
    var defaultText: String? = nil
    var description: String? = nil
    var isDeviceLocal = false

    func run(_ context: CommandContext) throws {
        try PreferenceStore.validate(key: key)
        let defaultValue = try defaultText.map { text throws(CommandFailure) in
            try ValueText.parse(text, as: type, key: key)
        }
        let store = PreferenceStore(database: try context.openForWriting(), suite: context.suite)
        if let stored = try store.storedValue(forKey: key), stored.type != type {
            throw CommandFailure(
                "'\(ValueText.shown(key))' holds \(stored.type.withArticle) value; delete it or declare it as \(stored.type)",
                exitCode: CommandFailure.dataError)
        }
        try store.declare(
            PreferenceDeclaration(
                key: key, type: type, defaultValue: defaultValue, description: description,
                isDeviceLocal: isDeviceLocal))
        if context.globals.isJSON {
            context.printJSON(
                .object([
                    ("suite", .string(context.suite)), ("key", .string(key)),
                    ("type", .string(type.rawValue)),
                    ("default", defaultValue?.jsonValue ?? .null),
                    ("description", description.map(JSONValue.string) ?? .null),
                    ("deviceLocal", .bool(isDeviceLocal)),
                ]))
        }
    }
}

extension DeclareCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        guard let type = try parsed[Self.type] else {
            throw UsageError("Missing expected option '--type <type>'", path: parsed.path)
        }
        self.init(
            key: try parsed[Self.key], type: type, defaultText: try parsed[Self.defaultValue],
            description: try parsed[Self.description], isDeviceLocal: parsed[Self.deviceLocal])
    }
}
