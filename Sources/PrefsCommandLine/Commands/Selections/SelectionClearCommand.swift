import PrefsKit

/// `prefs selection clear NAME`: selects nothing.
struct SelectionClearCommand: RunnableCommand {
    static var name: String { "clear" }
    static let selectionName = Argument<String>(
        "name", help: "The selection's name, such as carousel.")
    static let spec = CommandSpec(
        Self.self, abstract: "Select nothing (optional selections only).",
        arguments: [selectionName.spec], options: [], scope: .suiteless)

    var name: String

    func run(_ context: CommandContext) throws {
        try context.changeSelection(name) { try $0.clear(name) }
    }
}

extension SelectionClearCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(name: try parsed[Self.selectionName])
    }
}
