import PrefsKit

/// `prefs reset`: removes every stored preference of the suite.
struct ResetCommand: RunnableCommand {
    static var name: String { "reset" }
    static let force = Flag("force", short: "f", help: "Do not ask for confirmation.")
    static let spec = CommandSpec(
        Self.self, abstract: "Remove every stored preference of the suite.",
        discussion:
            "Declarations stay. Asks for confirmation on a terminal; needs --force otherwise.",
        options: [force.spec], scope: .preferences,
        unexpectedArgumentHint: "reset takes no key (it removes every preference of the suite);"
            + " to remove one key, use 'prefs delete ARGUMENT'")

    var force = false

    func run(_ context: CommandContext) throws {
        guard let database = try context.openExistingForWriting() else {
            if context.globals.isJSON {
                context.printJSON(
                    .object([("suite", .string(context.suite)), ("removed", .number("0"))]))
            }
            context.inform("Nothing to reset: no database at '\(context.shownDatabasePath)'")
            return
        }
        let store = PreferenceStore(database: database, suite: context.suite)
        try context.confirm(
            "Remove every preference of suite '\(context.suite)'?", force: force,
            flagHint: "--force")
        let count = try store.removeAll()
        if context.globals.isJSON {
            context.printJSON(
                .object([("suite", .string(context.suite)), ("removed", .number(String(count)))]))
        }
        context.inform(
            "Removed \(count) preference\(count == 1 ? "" : "s") from suite '\(context.suite)'")
    }
}

extension ResetCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(force: parsed[Self.force])
    }
}
