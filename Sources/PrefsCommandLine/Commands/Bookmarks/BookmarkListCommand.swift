import PrefsKit

/// `prefs bookmark list`: bookmarks filtered, sorted, paged and grouped.
struct BookmarkListCommand: RunnableCommand {
    static var name: String { "list" }
    static var aliases: [String] { ["ls"] }
    static let kind = Option<String>("kind", value: "kind", help: "Only this kind.")
    static let category = Option<String>("category", value: "category", help: "Only this category.")
    static let folder = Option<String>(
        "folder", value: "path", help: "Only this folder and its subfolders.")
    static let tag = Option<String>("tag", value: "tag", help: "Only bookmarks with this tag.")
    static let sort = Option<BookmarkQuery.Sort>(
        "sort", value: "order", help: "position (default), created or title.")
    static let reverse = Flag("reverse", short: "r", help: "Reverse the order.")
    static let limit = Option<Int>(
        "limit", short: "n", value: "n", help: "Show at most this many.", in: 0...Int.max)
    static let offset = Option<Int>(
        "offset", value: "n", help: "Skip this many first.", in: 0...Int.max)
    static let groupBy = Option<BookmarkGrouping>(
        "group-by", value: "field",
        help: "Group by category (the folder's name) or folder (its whole path).")
    static let spec = CommandSpec(
        Self.self, abstract: "List bookmarks, filtered, sorted and paged.",
        options: [
            kind.spec, category.spec, folder.spec, tag.spec, sort.spec, reverse.spec, limit.spec,
            offset.spec, groupBy.spec,
        ],
        scope: .suiteless)

    var query: BookmarkQuery
    var grouping: BookmarkGrouping? = nil

    func run(_ context: CommandContext) throws {
        let store = try context.openForReading().map(BookmarkStore.init(database:))
        if grouping == .folder {
            let groups = try store?.groupedByFolder(query) ?? []
            if context.globals.isJSON {
                context.printJSON(
                    .object(
                        groups.map {
                            (
                                BookmarkFolderPath.text($0.folder),
                                .array($0.bookmarks.map(\.jsonValue))
                            )
                        }))
            } else {
                var text = ""
                for group in groups {
                    text +=
                        (group.folder.isEmpty
                            ? "(top level)"
                            : ValueText.listed(BookmarkFolderPath.text(group.folder))) + "\n"
                    text += group.bookmarks.map { "  " + BookmarkText.line($0) }.joined()
                }
                context.console.print(text)
            }
            return
        }
        if grouping == .category {
            let groups = try store?.groupedByCategory(query) ?? []
            if context.globals.isJSON {
                context.printJSON(
                    .object(
                        groups.map { ($0.category ?? "", .array($0.bookmarks.map(\.jsonValue))) }))
            } else {
                var text = ""
                for group in groups {
                    text += (group.category.map(ValueText.listed) ?? "(no category)") + "\n"
                    text += group.bookmarks.map { "  " + BookmarkText.line($0) }.joined()
                }
                context.console.print(text)
            }
            return
        }
        context.printBookmarks(try store?.list(query) ?? [])
    }
}

extension BookmarkListCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            query: BookmarkQuery(
                kind: try parsed[Self.kind], category: try parsed[Self.category],
                folder: try BookmarkDraftDeclarations.folderPath(
                    try parsed[Self.folder], in: parsed),
                tag: try parsed[Self.tag], sort: try parsed[Self.sort] ?? .position,
                isDescending: parsed[Self.reverse], limit: try parsed[Self.limit],
                offset: try parsed[Self.offset] ?? 0),
            grouping: try parsed[Self.groupBy])
    }
}
