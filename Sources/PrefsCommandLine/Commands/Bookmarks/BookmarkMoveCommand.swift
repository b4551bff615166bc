import PrefsKit

/// `prefs bookmark move ID --to N`: a new position within the bookmark's kind.
struct BookmarkMoveCommand: RunnableCommand {
    static var name: String { "move" }
    static let id = Argument<String>("id", help: "The bookmark's id.")
    static let to = Option<Int>(
        "to", value: "position", help: "The new position, from 0.", in: 0...Int.max,
        isRequired: true)
    static let spec = CommandSpec(
        Self.self, abstract: "Move a bookmark to a position within its kind.",
        arguments: [id.spec], options: [to.spec], scope: .suiteless)

    var id: Int64
    var position: Int

    func run(_ context: CommandContext) throws {
        guard let database = try context.openExistingForWriting() else {
            throw BookmarkError.notFound(id: id)
        }
        let bookmark = try BookmarkStore(database: database).move(id: id, to: position)
        if context.globals.isJSON { context.printJSON(bookmark.jsonValue) }
    }
}

extension BookmarkMoveCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        // Present: the option is required.
        let position = try parsed[Self.to] ?? 0
        self.init(
            id: try BookmarkDraftDeclarations.bookmarkID(
                try parsed[Self.id], in: parsed, label: "<id>"),
            position: position)
    }
}
