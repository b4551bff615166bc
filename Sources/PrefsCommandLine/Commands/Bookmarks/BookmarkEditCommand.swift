import PrefsKit

/// `prefs bookmark edit KIND ITEM-ID [--title T] [--tag +x --tag -y] ...` (or `edit ID ...`):
/// changes only the fields given; the others stay as stored.
struct BookmarkEditCommand: RunnableCommand {
    static var name: String { "edit" }
    static let title = Option<String>("title", value: "title", help: "A new title.")
    static let tag = RepeatedOption<String>(
        "tag", value: "+tag|-tag", help: "Add (+tag, or tag) or remove (-tag) a tag; repeat.")
    static let tags = Option<String>(
        "tags", value: "a,b", help: "Replace every tag with these ('' for none).")
    static let clearURL = Flag("clear-url", help: "Remove the URL.")
    static let clearNote = Flag("clear-note", help: "Remove the note.")
    static let clearFolder = Flag(
        "clear-folder", help: "Move it to the top level (no category or folder).")
    static let spec = CommandSpec(
        Self.self, abstract: "Change only the given fields of a bookmark.",
        discussion: """
            The bookmark is named by its item (KIND ITEM-ID), which is the same on every
            device, or by its id alone, which is this file's own.
            """,
        arguments: [BookmarkMoveCommand.first.spec, BookmarkMoveCommand.itemID.spec],
        options: [
            title.spec, BookmarkDraftDeclarations.url.spec,
            BookmarkDraftDeclarations.category.spec, BookmarkDraftDeclarations.folder.spec,
            tag.spec, tags.spec, BookmarkDraftDeclarations.note.spec, clearURL.spec,
            clearNote.spec, clearFolder.spec,
        ], scope: .suiteless)

    var reference: BookmarkReference
    var edit: BookmarkEdit

    func run(_ context: CommandContext) throws {
        try edit.run(context, reference)
    }
}

extension BookmarkEditCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        var edit = try BookmarkDraftDeclarations.edit(from: parsed)
        edit.title = try parsed[Self.title]
        for tag in try parsed[Self.tag] {
            if tag.hasPrefix("-") {
                edit.removedTags.append(String(tag.dropFirst()))
            } else {
                edit.addedTags.append(tag.hasPrefix("+") ? String(tag.dropFirst()) : tag)
            }
        }
        if let list = try parsed[Self.tags] {
            edit.tags = list.split(separator: ",", omittingEmptySubsequences: true).map(String.init)
        }
        edit.clearsURL = parsed[Self.clearURL]
        edit.clearsNote = parsed[Self.clearNote]
        edit.clearsFolder = parsed[Self.clearFolder]
        let conflicts: [(Bool, String)] = [
            (edit.clearsURL && edit.url != nil, "--url and --clear-url"),
            (edit.clearsNote && edit.note != nil, "--note and --clear-note"),
            (
                edit.clearsFolder && (edit.folder != nil || edit.category != nil),
                "--clear-folder and --category or --folder"
            ),
        ]
        if let conflict = conflicts.first(where: \.0) {
            throw UsageError("Pass either of \(conflict.1), not both", path: parsed.path)
        }
        guard edit != BookmarkEdit() else {
            throw UsageError(
                "Nothing to change: give --title, --url, --category, --folder, --tag, --tags,"
                    + " --note or a --clear- option", path: parsed.path)
        }
        self.init(
            reference: try .parsed(
                first: try parsed[BookmarkMoveCommand.first],
                itemID: try parsed[BookmarkMoveCommand.itemID], in: parsed, label: "<kind-or-id>"),
            edit: edit)
    }
}
