import PrefsKit

/// `prefs selection previous NAME`.
struct SelectionPreviousCommand: RunnableCommand {
    static var name: String { "previous" }
    static var aliases: [String] { ["prev"] }
    static let selectionName = Argument<String>(
        "name", help: "The selection's name, such as carousel.")
    static let spec = CommandSpec(
        Self.self, abstract: "Select the previous item.",
        arguments: [selectionName.spec], options: [], scope: .suiteless)

    var name: String

    func run(_ context: CommandContext) throws {
        try context.changeSelection(name) { try $0.previous(name) }
    }
}

extension SelectionPreviousCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(name: try parsed[Self.selectionName])
    }
}
