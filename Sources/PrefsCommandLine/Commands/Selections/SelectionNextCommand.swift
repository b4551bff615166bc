import PrefsKit

/// `prefs selection next NAME`.
struct SelectionNextCommand: RunnableCommand {
    static var name: String { "next" }
    static let selectionName = Argument<String>(
        "name", help: "The selection's name, such as carousel.")
    static let spec = CommandSpec(
        Self.self, abstract: "Select the next item (clamp stays at the end, wrap goes round).",
        arguments: [selectionName.spec], options: [], scope: .suiteless)

    var name: String

    func run(_ context: CommandContext) throws {
        try context.changeSelection(name) { try $0.next(name) }
    }
}

extension SelectionNextCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(name: try parsed[Self.selectionName])
    }
}
