import PrefsKit

/// `prefs bookmark history KIND ITEM-ID` (or `history ID`): what writes replaced in a
/// bookmark, newest first.
struct BookmarkHistoryCommand: RunnableCommand {
    static var name: String { "history" }
    static let spec = CommandSpec(
        Self.self, abstract: "Show the titles, URLs and folders a bookmark had before.",
        discussion: """
            What writes replaced in a bookmark (an edit, the app, a browser file imported over
            it, sync): its title, URL, category, folder and note as they were, newest first,
            the newest 10 kept. One line each, tab-separated: revision, when it was replaced,
            title, URL, folder path (/ between names; "?" for a folder since removed).
            """,
        arguments: [BookmarkMoveCommand.first.spec, BookmarkMoveCommand.itemID.spec],
        scope: .suiteless)

    var reference: BookmarkReference

    func run(_ context: CommandContext) throws {
        guard let database = try context.openForReading() else { throw reference.notFound }
        let store = BookmarkStore(database: database)
        let id: Int64
        switch reference {
        case .id(let given):
            guard try store.bookmark(id: given) != nil else { throw reference.notFound }
            id = given
        case .item(let kind, let itemID):
            guard let found = try store.bookmark(kind: kind, itemID: itemID) else {
                throw reference.notFound
            }
            id = found.id
        }
        let revisions = try store.history(id: id)
        if context.globals.isJSON {
            context.printJSON(.array(revisions.map(\.jsonValue)))
        } else {
            context.console.print(revisions.map(Self.line).joined())
        }
    }

    static func line(_ revision: BookmarkRevision) -> String {
        [
            String(revision.revision), ISO8601.string(from: revision.replacedAt),
            ValueText.listed(revision.title), revision.urlString.map(ValueText.listed) ?? "-",
            revision.folder.map { ValueText.listed($0.joined(separator: "/")) } ?? "?",
        ]
        .joined(separator: "\t") + "\n"
    }
}

extension BookmarkHistoryCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            reference: try .parsed(
                first: try parsed[BookmarkMoveCommand.first],
                itemID: try parsed[BookmarkMoveCommand.itemID], in: parsed, label: "<kind-or-id>"))
    }
}
