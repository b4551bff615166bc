import PrefsKit

/// `prefs bookmark count`: how many bookmarks match the filters of `bookmark list`.
struct BookmarkCountCommand: RunnableCommand {
    static var name: String { "count" }
    static let spec = CommandSpec(
        Self.self, abstract: "Print how many bookmarks match, with the filters of 'list'.",
        options: [
            BookmarkListCommand.kind.spec, BookmarkListCommand.category.spec,
            BookmarkListCommand.folder.spec, BookmarkListCommand.tag.spec,
        ],
        scope: .suiteless)

    var query = BookmarkQuery()

    func run(_ context: CommandContext) throws {
        let count =
            try context.openForReading().map { try BookmarkStore(database: $0).count(query) } ?? 0
        if context.globals.isJSON {
            context.printJSON(.object([("count", .integer(count))]))
        } else {
            context.console.print("\(count)\n")
        }
    }
}

extension BookmarkCountCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        let list = BookmarkListCommand.self
        self.init(
            query: BookmarkQuery(
                kind: try parsed[list.kind], category: try parsed[list.category],
                folder: try BookmarkDraftDeclarations.folderPath(
                    try parsed[list.folder], in: parsed),
                tag: try parsed[list.tag]))
    }
}
