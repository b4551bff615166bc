#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Makes bookmarks what their merged fields say, the same way on a device and on the hub,
/// through the engine's bookmark repository (whose rules place, order and index them).
package struct SyncBookmarkRebuild {
    let bookmarks: any BookmarkRepository
    let fields: any SyncBookmarkFields

    /// A rebuild through `bookmarks`, from the merged `fields`.
    package init(bookmarks: any BookmarkRepository, fields: any SyncBookmarkFields) {
        self.bookmarks = bookmarks
        self.fields = fields
    }

    /// Makes the bookmark what its merged fields and tags say.
    package func rebuild(kind: String, itemID: String) throws {
        let repository = bookmarks
        let merged = try fields.bookmarkFields(kind: kind, itemID: itemID)
        let existing = try repository.bookmark(kind: kind, itemID: itemID)
        guard let exists = merged["exists"] else { return }
        guard exists.present else {
            if let existing { try repository.delete(id: existing.id) }
            return
        }
        func text(_ name: String, else kept: String?) -> String? {
            guard let field = merged[name] else { return kept }
            if case .string(let text) = field.value { return text }
            return nil
        }
        let url = text("url", else: existing?.urlString)
        // The folder path, as SyncIdent text of its names ("" at the top level).
        let folder = text("folder", else: nil).map { $0.isEmpty ? [] : SyncIdent.parts($0) ?? [] }
        let draft = BookmarkDraft(
            kind: kind, itemID: itemID,
            title: text("title", else: existing?.title) ?? itemID,
            url: url.flatMap { URL(string: $0) },
            category: text("category", else: existing?.category), folder: folder,
            tags: try fields.bookmarkTags(
                kind: kind, itemID: itemID,
                since: merged[SyncFields.bookmarkRemoved]?.clock ?? ""),
            note: text("note", else: existing?.note))
        let now = Date()
        if let existing {
            // By bytes: a title that changed only in its Unicode spelling is still a change,
            // or devices would keep different bytes forever.
            let isSame =
                ExactName.sameBytes(existing.title, draft.title)
                && ExactName.sameBytes(existing.urlString, url)
                && ExactName.sameBytes(existing.category, draft.category)
                && ExactName.sameBytes(existing.note, draft.note)
                && ExactName.sameBytes(existing.tags, draft.tags.sorted(by: ExactName.precedes))
                && (folder.map { ExactName.sameBytes(existing.folder, $0) } ?? true)
            if !isSame {
                _ = try repository.update(id: existing.id, with: draft, in: .draft, at: now)
            }
        } else {
            _ = try repository.insertIfAbsent(
                draft, in: .draft, at: now, id: nil, createdAt: nil)
        }
    }

    /// Orders a kind's bookmarks by their merged positions (ties by item id), densely.
    package func renumber(kind: String) throws {
        let repository = bookmarks
        let positions = try fields.bookmarkPositions(kind: kind)
        let ordered = try repository.list(BookmarkQuery(kind: kind)).map { bookmark in
            (order: positions[ExactName(bookmark.itemID)] ?? bookmark.position, bookmark: bookmark)
        }.sorted {
            // Ties by the item id's bytes: the same order on every device, also for ids that
            // Swift's `<` cannot tell apart.
            $0.order != $1.order
                ? $0.order < $1.order : ExactName.precedes($0.bookmark.itemID, $1.bookmark.itemID)
        }
        for (rank, entry) in ordered.enumerated() where entry.bookmark.position != rank {
            try repository.setPosition(rank, id: entry.bookmark.id)
        }
        // Rows now hold ranks; where a merged position is another number, a local write that
        // shifts some rows would mix the two numberings.
        if ordered.enumerated().contains(where: { rank, entry in
            positions[ExactName(entry.bookmark.itemID)] != rank
        }) {
            try fields.markMisaligned(kind: kind)
        }
    }
}
