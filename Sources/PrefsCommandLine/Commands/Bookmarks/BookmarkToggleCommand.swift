import PrefsKit

/// `prefs bookmark toggle KIND ITEM-ID`: the detail screen's bookmark button.
struct BookmarkToggleCommand: RunnableCommand {
    static var name: String { "toggle" }
    static let spec = CommandSpec(
        Self.self,
        abstract: "Bookmark an item, or remove its bookmark (the detail screen's button).",
        discussion:
            "Adding needs --title; removing an item's bookmark needs only KIND and ITEM-ID.",
        arguments: BookmarkDraftDeclarations.arguments,
        options: BookmarkDraftDeclarations.options(titleRequired: false), scope: .suiteless)

    var draft: BookmarkDraft

    func run(_ context: CommandContext) throws {
        guard !draft.title.isEmpty else { return try remove(context) }
        _ = try draft.validated()  // before the file is created
        let store = BookmarkStore(database: try context.openForWriting())
        let isBookmarked = try store.toggle(draft)
        if context.globals.isJSON {
            let bookmark = try store.bookmark(kind: draft.kind, itemID: draft.itemID)
            context.printJSON(
                .object([
                    ("isBookmarked", .bool(isBookmarked)),
                    ("bookmark", bookmark?.jsonValue ?? .null),
                ]))
        } else {
            context.console.print(isBookmarked ? "bookmarked\n" : "removed\n")
        }
    }

    /// Without `--title`: removes the item's bookmark; one that is not there cannot be added.
    private func remove(_ context: CommandContext) throws {
        var named = draft
        named.title = "-"  // the kind and item id are checked as `add` checks them
        _ = try named.validated()
        guard let database = try context.openExistingForWriting(),
            try BookmarkStore(database: database).remove(kind: draft.kind, itemID: draft.itemID)
        else {
            throw CommandFailure(
                "Missing expected option '--title <title>': '\(ValueText.shown(draft.kind))"
                    + " \(ValueText.shown(draft.itemID))' is not bookmarked, and adding it needs a title",
                exitCode: CommandFailure.usage)
        }
        if context.globals.isJSON {
            context.printJSON(.object([("isBookmarked", .bool(false)), ("bookmark", .null)]))
        } else {
            context.console.print("removed\n")
        }
    }
}

extension BookmarkToggleCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(draft: try BookmarkDraftDeclarations.draft(from: parsed))
    }
}
