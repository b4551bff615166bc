import PrefsKit

/// `prefs bookmark add KIND ITEM-ID --title T`: bookmarks an item, or updates its bookmark.
struct BookmarkAddCommand: RunnableCommand {
    static var name: String { "add" }
    static let spec = CommandSpec(
        Self.self, abstract: "Bookmark an item; an item already bookmarked is updated.",
        arguments: BookmarkDraftDeclarations.arguments,
        options: BookmarkDraftDeclarations.options(titleRequired: true), scope: .suiteless)

    var draft: BookmarkDraft

    func run(_ context: CommandContext) throws {
        _ = try draft.validated()  // before the file is created
        let bookmark = try BookmarkStore(database: try context.openForWriting()).add(draft)
        if context.globals.isJSON {
            context.printJSON(bookmark.jsonValue)
        } else {
            context.console.print("\(bookmark.id)\n")
        }
    }
}

extension BookmarkAddCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(draft: try BookmarkDraftDeclarations.draft(from: parsed))
    }
}
