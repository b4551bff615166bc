import PrefsKit

/// `prefs bookmark search WORD ...`: full-text search.
struct BookmarkSearchCommand: RunnableCommand {
    static var name: String { "search" }
    static let query = RepeatingArgument<String>("query", help: "Words that must all match.")
    static let limit = Option<Int>(
        "limit", short: "n", value: "n", help: "Show at most this many (default: 50).",
        in: 1...Int.max)
    static let spec = CommandSpec(
        Self.self,
        abstract:
            "Search titles, categories, tags, notes and URLs; end a word with * for a prefix.",
        arguments: [query.spec], options: [limit.spec], scope: .suiteless)

    var text: String
    var limit = 50

    func run(_ context: CommandContext) throws {
        try BookmarkStore.validateSearch(text)
        let store = try context.openForReading().map(BookmarkStore.init(database:))
        context.printBookmarks(try store?.search(text, limit: limit) ?? [])
    }
}

extension BookmarkSearchCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            text: try parsed[Self.query].joined(separator: " "), limit: try parsed[Self.limit] ?? 50
        )
    }
}
