import PrefsKit

/// `prefs suites`: the suites that hold preferences or declarations.
struct SuitesCommand: RunnableCommand {
    static var name: String { "suites" }
    static let null = Flag.null(entries: "each suite name")
    static let spec = CommandSpec(
        Self.self, abstract: "List the suites that hold preferences or declarations.",
        options: [null.spec], scope: .preferences)

    var isNullSeparated = false

    func run(_ context: CommandContext) throws {
        let store = try context.openForReading().map {
            PreferenceStore(database: $0, suite: context.suite)
        }
        let names = try store?.suites() ?? []
        if context.globals.isJSON {
            context.printJSON(.array(names.map(JSONValue.string)))
        } else {
            context.console.print(
                names.map { isNullSeparated ? $0 + "\0" : ValueText.listed($0) + "\n" }.joined())
        }
    }
}

extension SuitesCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(isNullSeparated: parsed[Self.null])
    }
}
