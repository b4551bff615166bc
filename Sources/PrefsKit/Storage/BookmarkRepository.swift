#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Storage of bookmarks, their tags and their search index. Calls are made with the
/// database lock held, writes inside a transaction (``BookmarkStore`` does both).
package protocol BookmarkRepository: AnyObject {
    func bookmark(id: Int64) throws -> Bookmark?
    func bookmark(kind: String, itemID: String) throws -> Bookmark?
    /// The id of an item's bookmark, without reading the rest.
    func identifier(kind: String, itemID: String) throws -> Int64?
    /// Inserts a bookmark unless its item already has one; nil then. Returns only what the
    /// insert chose (bulk inserts build no ``Bookmark`` they would throw away).
    func insertIfAbsent(
        _ draft: BookmarkDraft, in placement: BookmarkPlacement, at date: Date, id: Int64?,
        createdAt: Date?
    ) throws -> BookmarkInsertion?
    /// Replaces the fields of an existing bookmark; id, position and creation time stay.
    func update(
        id: Int64, with draft: BookmarkDraft, in placement: BookmarkPlacement, at date: Date
    )
        throws -> Bookmark
    /// Stamps for sync the fields and tags of a bookmark that a write gave again with the
    /// value they hold (`fields`: names and values; `folder` is read when pushed): the user's
    /// latest decision, though no row changed (docs/sync.md, "Stamping").
    func restate(
        kind: String, itemID: String, fields: [(name: String, value: String?)], tags: [String]
    ) throws
    /// The tags sync says a bookmark has (present, stamped at or after its newest removal:
    /// docs/sync.md, "Tags"), which a bookmark added here again may lack: another device's
    /// tag put on after the removal. Empty where nothing syncs.
    func syncedTags(kind: String, itemID: String) throws -> [String]
    /// Whether sync says any bookmark has a tag: when it says none, no bookmark added here
    /// has a ``syncedTags(kind:itemID:)`` to look up.
    func holdsSyncedTags() throws -> Bool
    /// The first folder of a name in a parent (nil: the top level), by position.
    func childFolder(named name: String, in parent: Int64?) throws -> Int64?
    /// The folder rows as a tree (an engine may keep it between calls).
    func folderTree() throws -> BookmarkFolderTree
    /// Every folder, parents before their children, siblings in order.
    func folders() throws -> [BookmarkFolder]
    /// Adds a folder at the end of its parent's folders.
    func insertFolder(
        name: String, parentID: Int64?, description: String?, createdAt: Date?, updatedAt: Date?
    ) throws -> BookmarkFolder
    /// Sets a folder's description.
    func setFolderDescription(_ description: String?, id: Int64) throws
    /// Deletes a bookmark row (its tags and search row with it), leaving the others'
    /// positions; its kind and position, nil when there was none. (``delete(id:)`` keeps
    /// positions dense.)
    func deleteRow(id: Int64) throws -> (kind: String, position: Int)?
    /// Adds `delta` to the positions of a kind's bookmarks from `lower` through `upper`
    /// (nil: to the end).
    func shiftPositions(kind: String, from lower: Int, through upper: Int?, by delta: Int)
        throws
    /// Runs a bulk write whose search-index rows the engine may write together, in batches
    /// of a bounded size.
    /// (SQLite's FTS5 writes its pending rows out at every statement savepoint, and every
    /// insert into a table with triggers opens one: search rows written one by one between
    /// such inserts cost a new index segment each, three times the insert.)
    func batchingSearchRows<Result>(_ body: () throws -> Result) throws -> Result
    /// Sets a position explicitly (moves, imports, sync; these then renumber each kind
    /// densely), and the update time when one is given.
    func setPosition(_ position: Int, id: Int64, updatedAt: Date?) throws
    func renumberPositions() throws
    func list(_ query: BookmarkQuery) throws -> [Bookmark]
    /// Calls `body` with each bookmark of the query, in its order, folder paths filled in, as
    /// the rows are read (an engine whose client takes a result whole reads them first).
    func forEach(_ query: BookmarkQuery, _ body: (Bookmark) throws -> Void) throws
    /// Calls `body` with each bookmark that a browser's bookmark file writes under `group`,
    /// in list order (kind, then position), as the rows are read (see ``forEach(_:_:)``).
    func forEach(in group: BookmarkFileGroup, _ body: (Bookmark) throws -> Void) throws
    /// The categories of the bookmarks in no folder, each once, in the order of the first
    /// such bookmark of each in list order.
    func categoriesOutsideFolders() throws -> [String]
    func count(_ query: BookmarkQuery) throws -> Int
    /// What writes replaced in a bookmark (`bookmark_history`), newest first, folder paths
    /// not yet read (``history(id:)`` reads them).
    func revisionRows(id: Int64) throws -> [BookmarkRevision]
    /// Full-text search over title, category, tags, note and URL, ignoring case and
    /// diacritics; best matches first, ties by id.
    func search(_ search: BookmarkSearch, limit: Int, offset: Int) throws -> [Bookmark]
    /// Rebuilds the search index from the tables.
    func rebuildSearchIndex() throws
    /// How many bookmarks have no search row or one whose text differs from the tables,
    /// plus search rows of no bookmark: 0 when the index is in step.
    func searchIndexMismatchCount() throws -> Int
}

extension BookmarkRepository {
    /// Looked up per bookmark where an engine has no quicker answer.
    package func holdsSyncedTags() throws -> Bool { true }

    /// The folder row a placement names: nil for the top level or the category's folder.
    package func folderID(of placement: BookmarkPlacement, draft: BookmarkDraft) throws
        -> Int64?
    {
        switch placement {
        case .folder(let id): return id
        case .draft:
            guard let path = draft.folder, !path.isEmpty else { return nil }
            var parent: Int64?
            for name in path {
                if let existing = try childFolder(named: name, in: parent) {
                    parent = existing
                } else if path.count == 1 {
                    return nil  // the category's folder, which needs no row
                } else {
                    parent = try insertFolder(
                        name: name, parentID: parent, description: nil, createdAt: nil,
                        updatedAt: nil
                    ).id
                }
            }
            return parent
        }
    }

    /// What writes replaced in a bookmark, newest first, folder paths read from the tree.
    package func history(id: Int64) throws -> [BookmarkRevision] {
        let rows = try revisionRows(id: id)
        guard !rows.isEmpty else { return [] }
        let tree = try folderTree()
        return rows.map { $0.placed(in: tree) }
    }

    package func batchingSearchRows<Result>(_ body: () throws -> Result) throws -> Result {
        try body()
    }

    /// Inserts a new bookmark at the end of its kind (or with the given id, position and
    /// creation time, for imports); the item must not have one yet.
    @discardableResult
    func insert(
        _ draft: BookmarkDraft, in placement: BookmarkPlacement, at date: Date, id: Int64?,
        createdAt: Date?
    ) throws -> Bookmark {
        guard
            let insertion = try insertIfAbsent(
                draft, in: placement, at: date, id: id, createdAt: createdAt)
        else {
            // The stores look first: reaching this is a bug, not bad input.
            throw DatabaseError.internalError(
                "'\(draft.kind)' item '\(draft.itemID)' is bookmarked already")
        }
        return Bookmark(
            draft, insertion, folder: try folderPath(of: insertion.folderID, draft: draft),
            createdAt: createdAt ?? date, updatedAt: date)
    }

    /// The folder path of a written bookmark: the draft's when it named one, else read
    /// back from the folder's row (imports), else the category's folder.
    func folderPath(of folderID: Int64?, draft: BookmarkDraft) throws -> [String]? {
        if let folder = draft.folder { return folder }
        guard let folderID else { return nil }
        return try folderTree().path(of: folderID)
    }
}

/// The bookmarks that a browser's bookmark file (the HTML export) writes under one heading.
package enum BookmarkFileGroup: Sendable, Equatable {
    /// A folder of the tree; for a top-level folder, `orCategory` is its name, and the
    /// bookmarks in no folder whose category has the same bytes are in it too.
    case folder(id: Int64, orCategory: String?)
    /// The bookmarks in no folder whose category names no top-level folder: a top-level
    /// folder of that name, made for them.
    case category(String)
    /// The bookmarks in no folder and with no category.
    case loose
}
