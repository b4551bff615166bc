import PrefsKit

/// `prefs bookmark remove KIND ITEM-ID` or `--id N`.
struct BookmarkRemoveCommand: RunnableCommand {
    static var name: String { "remove" }
    static var aliases: [String] { ["rm", "delete"] }
    static let kind = OptionalArgument<String>("kind", help: "The kind of the item.")
    static let itemID = OptionalArgument<String>(
        "item-id", help: "The app's identifier of the item.")
    static let id = Option<String>(
        "id", value: "id", help: "The bookmark's id instead of its item.")
    static let spec = CommandSpec(
        Self.self, abstract: "Remove a bookmark by item or by --id.",
        arguments: [kind.spec, itemID.spec], options: [id.spec], scope: .suiteless)

    var reference: BookmarkReference

    func run(_ context: CommandContext) throws {
        let store = try context.openExistingForWriting().map(BookmarkStore.init(database:))
        switch reference {
        case .id(let id):
            guard try store?.remove(id: id) == true else { throw BookmarkError.notFound(id: id) }
        case .item(let kind, let itemID):
            guard try store?.remove(kind: kind, itemID: itemID) == true else {
                throw BookmarkError.itemNotFound(kind: kind, itemID: itemID)
            }
        }
        if context.globals.isJSON {
            switch reference {
            case .id(let id):
                context.printJSON(.object([("id", .number(String(id))), ("removed", .bool(true))]))
            case .item(let kind, let itemID):
                context.printJSON(
                    .object([
                        ("kind", .string(kind)), ("itemID", .string(itemID)),
                        ("removed", .bool(true)),
                    ]))
            }
        }
    }
}

extension BookmarkRemoveCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        if let id = try parsed[Self.id] {
            guard parsed.positionals.isEmpty else {
                throw UsageError("Pass either KIND ITEM-ID or --id, not both", path: parsed.path)
            }
            self.init(
                reference: .id(
                    try BookmarkDraftDeclarations.bookmarkID(id, in: parsed, label: "--id")))
            return
        }
        guard let kind = try parsed[Self.kind], let itemID = try parsed[Self.itemID] else {
            throw UsageError(
                parsed.positionals.isEmpty
                    ? "Missing expected argument '<kind>' (or --id)"
                    : "Missing expected argument '<item-id>'",
                path: parsed.path)
        }
        self.init(reference: .item(kind: kind, itemID: itemID))
    }
}
