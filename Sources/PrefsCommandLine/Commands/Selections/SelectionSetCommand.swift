import PrefsKit

/// `prefs selection set NAME INDEX`: selects an index, never clamped.
struct SelectionSetCommand: RunnableCommand {
    static var name: String { "set" }
    static let selectionName = Argument<String>(
        "name", help: "The selection's name, such as carousel.")
    static let index = Argument<Int>("index", help: "The index to select, from 0.")
    static let count = Option<Int>(
        "count", value: "n", help: "The number of items (creates or resizes the selection).",
        in: 0...Int.max)
    static let policy = Option<SelectionPolicy>(
        "policy", value: "policy", help: "clamp (default), wrap or optional.")
    static let item = Option<String>(
        "item", value: "id", help: "The identifier of the selected item, to follow it.")
    static let spec = CommandSpec(
        Self.self, abstract: "Select an index, creating the selection when --count is given.",
        discussion: "An index outside 0...count-1 is refused, never clamped.",
        arguments: [selectionName.spec, index.spec], options: [count.spec, policy.spec, item.spec],
        scope: .suiteless)

    var name: String
    var index: Int
    var count: Int? = nil
    var policy: SelectionPolicy? = nil
    var itemID: String? = nil

    func run(_ context: CommandContext) throws {
        let store = SelectionStore(database: try context.openForWriting())
        let selection = try store.database.transaction {
            if let existing = try store.selection(named: name) {
                if let policy, policy != existing.policy {
                    try store.redefine(name, count: count ?? existing.count, policy: policy)
                } else if let count {
                    try store.setCount(count, for: name)
                }
            } else {
                guard let count else {
                    throw CommandFailure(
                        "No selection named '\(name)'; pass --count N to create it",
                        exitCode: CommandFailure.notFound)
                }
                try store.define(name, count: count, policy: policy ?? .clamp)
            }
            return try store.select(index, itemID: itemID, in: name)
        }
        context.printSelection(selection)
    }
}

extension SelectionSetCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            name: try parsed[Self.selectionName], index: try parsed[Self.index],
            count: try parsed[Self.count], policy: try parsed[Self.policy],
            itemID: try parsed[Self.item])
    }
}
