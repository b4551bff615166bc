import PrefsKit

/// `prefs bookmark add KIND ITEM-ID --title T`: bookmarks an item; an item bookmarked already
/// changes only in the fields given, and gains the tags given.
struct BookmarkAddCommand: RunnableCommand {
    static var name: String { "add" }
    static let spec = CommandSpec(
        Self.self,
        abstract: "Bookmark an item; one already bookmarked changes only in the fields given.",
        discussion: """
            On an item bookmarked already, the title and each option given replace what is
            stored, the tags given are added to its tags, and every other field stays
            ('bookmark untag' and 'bookmark edit --tags' take tags off).
            """,
        arguments: BookmarkDraftDeclarations.arguments,
        options: BookmarkDraftDeclarations.options(titleRequired: true), scope: .suiteless)

    var draft: BookmarkDraft
    /// What the command changes of a bookmark that exists.
    var given: BookmarkEdit

    func run(_ context: CommandContext) throws {
        _ = try draft.validated()  // before the file is created
        let database = try context.openForWriting()
        let store = BookmarkStore(database: database)
        var stored: Bookmark?
        let bookmark = try database.transaction {
            stored = try store.bookmark(kind: draft.kind, itemID: draft.itemID)
            guard stored != nil else { return try store.add(draft) }
            return try given.update(store, kind: draft.kind, itemID: draft.itemID)
        }
        if context.globals.isJSON {
            context.printJSON(bookmark.jsonValue)
        } else {
            context.console.print("\(bookmark.id)\n")
            if stored == bookmark {
                context.console.message(
                    "Unchanged: the item was bookmarked already with these details")
            } else if stored != nil {
                context.console.message(
                    "Updated: the item was bookmarked already; the fields not given are kept")
            }
        }
    }
}

extension BookmarkAddCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        let draft = try BookmarkDraftDeclarations.draft(from: parsed)
        var given = try BookmarkDraftDeclarations.edit(from: parsed)
        given.title = draft.title
        given.addedTags = draft.tags
        self.init(draft: draft, given: given)
    }
}
