import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The fields a command was given for a bookmark that exists: each changes only what it
/// names (`edit`, `add` of an item already bookmarked, `tag`, `untag`).
struct BookmarkEdit: Equatable, Sendable {
    var title: String?
    var url: URL?
    var clearsURL = false
    var category: String?
    var folder: [String]?
    var clearsFolder = false
    var note: String?
    var clearsNote = false
    /// Every tag, replacing the stored ones.
    var tags: [String]?
    var addedTags: [String] = []
    var removedTags: [String] = []

    /// Edits the item's bookmark in place (the commands' run): nothing is written when it
    /// changes nothing; `--json` prints the bookmark.
    func run(_ context: CommandContext, kind: String, itemID: String) throws {
        try run(context, .item(kind: kind, itemID: itemID))
    }

    /// Edits the bookmark named by its item or by its id (this file's own).
    func run(_ context: CommandContext, _ reference: BookmarkReference) throws {
        guard let database = try context.openExistingForWriting() else {
            throw reference.notFound
        }
        let store = BookmarkStore(database: database)
        let bookmark = try database.transaction {
            switch reference {
            case .item(let kind, let itemID):
                return try update(store, kind: kind, itemID: itemID)
            case .id(let id):
                guard let found = try store.bookmark(id: id) else { throw reference.notFound }
                return try update(store, kind: found.kind, itemID: found.itemID)
            }
        }
        if context.globals.isJSON { context.printJSON(bookmark.jsonValue) }
    }

    /// Edits the item's bookmark in `store`: every field and tag given is stated, also one it
    /// holds already (sync stamps it: docs/sync.md, "Stamping").
    func update(_ store: BookmarkStore, kind: String, itemID: String) throws -> Bookmark {
        var given: BookmarkFieldSet = []
        if title != nil { given.insert(.title) }
        if url != nil || clearsURL { given.insert(.url) }
        if category != nil || folder != nil || clearsFolder {
            given.formUnion([.category, .folder])
        }
        if note != nil || clearsNote { given.insert(.note) }
        return try store.update(
            kind: kind, itemID: itemID, restating: given, tags: (tags ?? []) + addedTags
        ) { apply(to: &$0) }
    }

    /// Applies the edit to a draft of the stored bookmark.
    func apply(to draft: inout BookmarkDraft) {
        if let title { draft.title = title }
        if clearsURL { draft.url = nil }
        if let url { draft.url = url }
        if clearsFolder {
            draft.folder = []
            draft.category = nil
        }
        // A category is the top-level folder of its name.
        if let category {
            draft.folder = [category]
            draft.category = category
        }
        if let folder {
            draft.folder = folder
            draft.category = folder.last
        }
        if clearsNote { draft.note = nil }
        if let note { draft.note = note }
        if let tags { draft.tags = tags }
        draft.tags.removeAll { tag in removedTags.contains { ExactTag.same($0, tag) } }
        for tag in addedTags where !draft.tags.contains(where: { ExactTag.same($0, tag) }) {
            draft.tags.append(tag)
        }
    }
}

/// Tags compared as the database keeps them: byte for byte ("é" and "e\u{301}" are two).
enum ExactTag {
    static func same(_ first: String, _ second: String) -> Bool {
        first.utf8.elementsEqual(second.utf8)
    }
}
