import PrefsKit

/// `prefs selection get NAME`: a selection's index.
struct SelectionGetCommand: RunnableCommand {
    static var name: String { "get" }
    static let selectionName = Argument<String>(
        "name", help: "The selection's name, such as carousel.")
    static let spec = CommandSpec(
        Self.self, abstract: "Print a selection's index ('none' when nothing is selected).",
        arguments: [selectionName.spec], options: [], scope: .suiteless)

    var name: String

    func run(_ context: CommandContext) throws {
        guard
            let selection = try context.openForReading().flatMap({
                try SelectionStore(database: $0).selection(named: name)
            })
        else { throw SelectionError.notFound(name: name) }
        context.printSelection(selection)
    }
}

extension SelectionGetCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(name: try parsed[Self.selectionName])
    }
}
