import PrefsKit

/// `prefs set KEY VALUE`: stores a value, of the declared, stored, given or inferred type.
struct SetCommand: RunnableCommand {
    static var name: String { "set" }
    static let key = Argument<String>("key", help: "The preference key.", completesKeys: true)
    static let value = Argument<String>("value", help: "The value, or - to read standard input.")
    static let type = Option<PreferenceType>(
        "type", short: "t", value: "type", help: "The value's type: \(PreferenceType.list).")
    static let spec = CommandSpec(
        Self.self, abstract: "Store the value of a preference.",
        discussion: """
            Without --type, the declared type of the key is used, else the type of the value
            already stored, else (a new key) the type is inferred: true/false is a bool, an
            integer an int, a decimal a double, anything else a string; text that would not
            read back the same (02134, +1, 1e5, 1.50) stays a string.
            Pass - as the value to read it from standard input.
            """,
        arguments: [key.spec, value.spec], options: [type.spec], scope: .preferences)

    var key: String
    var value: String
    var type: PreferenceType? = nil

    func run(_ context: CommandContext) throws {
        let explicitType = type
        try PreferenceStore.validate(key: key)
        var text = value
        if text == "-" {
            let bytes = try FileAccess.read("-", console: context.console)
            guard var input = String(validating: bytes, as: UTF8.self) else {
                throw CommandFailure(
                    "Standard input is not valid UTF-8", exitCode: CommandFailure.dataError)
            }
            if input.hasSuffix("\n") { input.removeLast() }
            text = input
        }
        // A value too large for any type, or one its given type cannot read, is refused
        // before the file is made.
        if text.utf8.count > PreferenceValue.maximumBytes {
            throw PreferenceValue.tooLarge(key: key, bytes: text.utf8.count)
        }
        if let explicitType { _ = try ValueText.parse(text, as: explicitType, key: key) }
        let database = try context.openForWriting()
        let store = PreferenceStore(database: database, suite: context.suite)
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
                "\(failure.message); '\(ValueText.shown(key))' holds \(type.withArticle); pass --type to store another type",
                exitCode: CommandFailure.dataError)
        }
        try store.setValue(value, forKey: key)
        if context.globals.isJSON {
            context.printJSON(
                JSONShapes.preference(
                    suite: context.suite, key: key, value: value, isDefault: false))
        }
    }
}

extension SetCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            key: try parsed[Self.key], value: try parsed[Self.value], type: try parsed[Self.type])
    }
}
