import PrefsKit

/// `prefs bookmark tag KIND ITEM-ID TAG...`: adds tags to a bookmark; the rest stays.
struct BookmarkTagCommand: RunnableCommand {
    static var name: String { "tag" }
    static let tags = RepeatingArgument<String>("tag", help: "A tag to add; more may follow.")
    static let spec = CommandSpec(
        Self.self, abstract: "Add tags to a bookmark.",
        arguments: BookmarkDraftDeclarations.arguments + [tags.spec], scope: .suiteless)

    var kind: String
    var itemID: String
    var tags: [String]

    func run(_ context: CommandContext) throws {
        try BookmarkEdit(addedTags: tags).run(context, kind: kind, itemID: itemID)
    }
}

extension BookmarkTagCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            kind: try parsed[BookmarkDraftDeclarations.kind],
            itemID: try parsed[BookmarkDraftDeclarations.itemID], tags: try parsed[Self.tags])
    }
}

/// `prefs bookmark untag KIND ITEM-ID TAG...`: takes tags off a bookmark; the rest stays.
struct BookmarkUntagCommand: RunnableCommand {
    static var name: String { "untag" }
    static let tags = RepeatingArgument<String>("tag", help: "A tag to take off; more may follow.")
    static let spec = CommandSpec(
        Self.self, abstract: "Take tags off a bookmark.",
        arguments: BookmarkDraftDeclarations.arguments + [tags.spec], scope: .suiteless)

    var kind: String
    var itemID: String
    var tags: [String]

    func run(_ context: CommandContext) throws {
        try BookmarkEdit(removedTags: tags).run(context, kind: kind, itemID: itemID)
    }
}

extension BookmarkUntagCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            kind: try parsed[BookmarkDraftDeclarations.kind],
            itemID: try parsed[BookmarkDraftDeclarations.itemID], tags: try parsed[Self.tags])
    }
}
