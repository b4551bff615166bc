import PrefsKit

/// `prefs bookmark move KIND ITEM-ID --to N` (or `move ID --to N`): a new position within the
/// bookmark's kind.
struct BookmarkMoveCommand: RunnableCommand {
    static var name: String { "move" }
    static let first = Argument<String>(
        "kind-or-id", help: "The kind of the item, or the bookmark's id alone.")
    static let itemID = OptionalArgument<String>(
        "item-id", help: "The app's identifier of the item.")
    static let to = Option<Int>(
        "to", value: "position", help: "The new position, from 0.", in: 0...Int.max,
        isRequired: true)
    static let spec = CommandSpec(
        Self.self, abstract: "Move a bookmark to a position within its kind.",
        discussion: """
            The bookmark is named by its item (KIND ITEM-ID), which is the same on every
            device, or by its id alone, which is this file's own.
            """,
        arguments: [first.spec, itemID.spec], options: [to.spec], scope: .suiteless)

    var reference: BookmarkReference
    var position: Int

    func run(_ context: CommandContext) throws {
        guard let database = try context.openExistingForWriting() else {
            throw reference.notFound
        }
        let store = BookmarkStore(database: database)
        let bookmark = try database.transaction {
            switch reference {
            case .id(let id):
                return try store.move(id: id, to: position)
            case .item(let kind, let itemID):
                guard let found = try store.bookmark(kind: kind, itemID: itemID) else {
                    throw BookmarkError.itemNotFound(kind: kind, itemID: itemID)
                }
                return try store.move(id: found.id, to: position)
            }
        }
        if context.globals.isJSON { context.printJSON(bookmark.jsonValue) }
    }
}

extension BookmarkMoveCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        // Present: the option is required.
        let position = try parsed[Self.to] ?? 0
        self.init(
            reference: try .parsed(
                first: try parsed[Self.first], itemID: try parsed[Self.itemID], in: parsed,
                label: "<kind-or-id>"),
            position: position)
    }
}
