import PrefsKit

/// `prefs selection list`: every selection.
struct SelectionListCommand: RunnableCommand {
    static var name: String { "list" }
    static var aliases: [String] { ["ls"] }
    static let spec = CommandSpec(
        Self.self, abstract: "List every selection.", scope: .suiteless)

    func run(_ context: CommandContext) throws {
        let selections =
            try context.openForReading().map { try SelectionStore(database: $0).all() } ?? []
        if context.globals.isJSON {
            context.printJSON(.array(selections.map(JSONShapes.selection)))
        } else {
            context.console.print(
                selections.map {
                    "\(ValueText.listed($0.name))\t\($0.index.map(String.init) ?? "none")\t\($0.count)\t\($0.policy.rawValue)\n"
                }.joined())
        }
    }
}

extension SelectionListCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) { self.init() }
}
