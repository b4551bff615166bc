#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The user's bookmarks: add, remove, toggle, reorder, list, group, search.
///
/// Every change is one `BEGIN IMMEDIATE` transaction, safe with concurrent processes, and
/// keeps positions dense within each kind and the search index in step.
/// ```swift
/// let bookmarks = BookmarkStore(database: database)
/// try bookmarks.toggle(BookmarkDraft(kind: "trip", itemID: "london", title: "London"))
/// let isMarked = try bookmarks.isBookmarked(kind: "trip", itemID: "london")
/// ```
public final class BookmarkStore: Sendable {
    /// The database the bookmarks live in.
    public let database: AppDatabase

    /// Creates a store over a database.
    public init(database: AppDatabase) {
        self.database = database
        if database.watchesForChanges { database.startWatchingForChanges(forObservation: true) }
    }

    /// Bookmarks an item; when it is already bookmarked, its fields are updated instead
    /// (its id, position and creation time stay).
    ///
    /// - Returns: The stored bookmark.
    /// - Throws: ``BookmarkError/invalid(_:)`` for an empty kind, item ID or tag;
    ///   ``DatabaseError`` when the write fails.
    @discardableResult
    public func add(_ draft: BookmarkDraft) throws -> Bookmark {
        let draft = try draft.validated()
        return try write { state in
            try Self.upsert(draft, in: state.bookmarks, at: Date())
        }
    }

    /// Bookmarks many items in one transaction: all of them, or on any error none. Items
    /// already bookmarked are updated.
    ///
    /// Faster than calling ``add(_:)`` in a loop inside ``AppDatabase/transaction(_:)``,
    /// which gives each call its own savepoint.
    /// - Returns: How many drafts were stored.
    /// - Throws: ``BookmarkError/invalid(_:)`` for a bad draft (nothing is stored),
    ///   ``DatabaseError``.
    @discardableResult
    public func add<Drafts: Sequence>(contentsOf drafts: Drafts) throws -> Int
    where Drafts.Element == BookmarkDraft {
        try write { state in
            let now = Date()
            var count = 0
            // Asked once: in a file where sync holds no tag (one that never synced), a new
            // bookmark has none to take, and this write stamps only its drafts' own.
            let mergesSyncedTags = try state.bookmarks.holdsSyncedTags()
            try state.bookmarks.batchingSearchRows {
                for draft in drafts {
                    try Self.store(
                        draft, in: state.bookmarks, at: now, mergingSyncedTags: mergesSyncedTags)
                    count += 1
                }
            }
            return count
        }
    }

    /// Validates and stores one draft of a bulk add, building no ``Bookmark`` for it.
    /// `mergingSyncedTags`: whether sync may hold tags of the item that the draft lacks.
    private static func store(
        _ draft: BookmarkDraft, in repository: BookmarkRepository, at date: Date,
        mergingSyncedTags: Bool
    )
        throws
    {
        let draft = try draft.validated()
        // Insert first: a new item (the usual case) then costs no separate lookup.
        if let insertion = try repository.insertIfAbsent(
            draft, in: .draft, at: date, id: nil, createdAt: nil)
        {
            if mergingSyncedTags {
                _ = try withSyncedTags(draft, insertion.id, in: repository, at: date)
            }
            return
        }
        guard let existing = try repository.bookmark(kind: draft.kind, itemID: draft.itemID)
        else {
            throw BookmarkError.itemNotFound(kind: draft.kind, itemID: draft.itemID)
        }
        if !existing.hasDetails(of: draft) {
            _ = try repository.update(id: existing.id, with: draft, in: .draft, at: date)
        }
        try restate(.all, tags: draft.tags, of: existing, as: draft, in: repository)
    }

    static func upsert(_ draft: BookmarkDraft, in repository: BookmarkRepository, at date: Date)
        throws
        -> Bookmark
    {
        if let insertion = try repository.insertIfAbsent(
            draft, in: .draft, at: date, id: nil, createdAt: nil)
        {
            if let merged = try withSyncedTags(draft, insertion.id, in: repository, at: date) {
                return merged
            }
            // Placed as the draft says: its folder path is the draft's.
            return Bookmark(
                draft, insertion, folder: draft.folder, createdAt: date, updatedAt: date)
        }
        guard let existing = try repository.bookmark(kind: draft.kind, itemID: draft.itemID)
        else {
            throw BookmarkError.itemNotFound(kind: draft.kind, itemID: draft.itemID)
        }
        // An add states every field of its draft: what it repeats is stamped for sync.
        try restate(.all, tags: draft.tags, of: existing, as: draft, in: repository)
        // The same details again are no change: no time moves, no one is told.
        guard !existing.hasDetails(of: draft) else { return existing }
        return try repository.update(id: existing.id, with: draft, in: .draft, at: date)
    }

    /// A bookmark just added here that sync knew (removed, and added again) gets the tags
    /// other devices put on it after its newest removal, which its draft lacks: they are
    /// merged, not the user's write, so they are not stamped again (the capture skips a tag
    /// sync already has). Nil when there are none.
    static func withSyncedTags(
        _ draft: BookmarkDraft, _ id: Int64, in repository: BookmarkRepository, at date: Date
    ) throws -> Bookmark? {
        let extra = try repository.syncedTags(kind: draft.kind, itemID: draft.itemID).filter {
            tag in !draft.tags.contains { ExactName.sameBytes($0, tag) }
        }
        guard !extra.isEmpty else { return nil }
        var merged = draft
        merged.tags = (draft.tags + extra).sorted(by: ExactName.precedes)
        return try repository.update(id: id, with: merged, in: .draft, at: date)
    }

    /// Stamps for sync what a write gave that `stored` held already: the fields in `given`
    /// whose value `edited` repeats, and the tags in `tags` it has. No trigger stamps a field
    /// that did not change, and the write is still the user's latest decision (docs/sync.md,
    /// "Stamping"); the fields it changes are stamped by the write itself.
    static func restate(
        _ given: BookmarkFieldSet, tags: [String], of stored: Bookmark, as edited: BookmarkDraft,
        in repository: BookmarkRepository
    ) throws {
        var fields: [(name: String, value: String?)] = []
        let texts: [(BookmarkFieldSet, String, String?, String?)] = [
            (.title, "title", stored.title, edited.title),
            (.url, "url", stored.urlString, edited.url?.absoluteString),
            (.category, "category", stored.category, edited.category),
            (.note, "note", stored.note, edited.note),
        ]
        for (field, name, held, written) in texts
        where given.contains(field) && ExactName.sameBytes(held, written) {
            fields.append((name, held))
        }
        if given.contains(.folder), let folder = edited.folder,
            ExactName.sameBytes(stored.folder, folder)
        {
            fields.append(("folder", nil))
        }
        let held = tags.filter { tag in stored.tags.contains { ExactName.sameBytes($0, tag) } }
        guard !fields.isEmpty || !held.isEmpty else { return }
        try repository.restate(
            kind: stored.kind, itemID: stored.itemID, fields: fields, tags: held)
    }

    /// Edits the bookmark of an item in place, in one transaction: the closure gets a draft of
    /// the stored bookmark and changes what it means to change; every field it leaves alone
    /// stays as stored (its id, position and creation time stay too). An edit that changes
    /// nothing writes nothing: no time moves and no observer is told.
    /// ```swift
    /// try bookmarks.update(kind: "trip", itemID: "london") { $0.tags.append("europe") }
    /// ```
    ///
    /// - Returns: The stored bookmark.
    /// - Throws: ``BookmarkError/itemNotFound(kind:itemID:)`` when the item has no bookmark,
    ///   ``BookmarkError/invalid(_:)`` for a field the edit left invalid (nothing is stored),
    ///   ``DatabaseError`` when the write fails; what the closure throws.
    @discardableResult
    public func update(
        kind: String, itemID: String, _ edit: (inout BookmarkDraft) throws -> Void
    ) throws -> Bookmark {
        try update(kind: kind, itemID: itemID, restating: [], tags: [], edit)
    }

    /// ``update(kind:itemID:_:)`` that also states the fields in `given` and the tags in
    /// `tags`: those the edit leaves as stored are stamped for sync all the same (the
    /// command line's fields and tags given: `prefs bookmark tag` of a tag it has).
    @discardableResult
    package func update(
        kind: String, itemID: String, restating given: BookmarkFieldSet, tags: [String],
        _ edit: (inout BookmarkDraft) throws -> Void
    ) throws -> Bookmark {
        try database.write { state in
            guard let existing = try state.bookmarks.bookmark(kind: kind, itemID: itemID) else {
                throw BookmarkError.itemNotFound(kind: kind, itemID: itemID)
            }
            var draft = BookmarkDraft(existing)
            try edit(&draft)
            // The item it names is the one edited.
            draft.kind = existing.kind
            draft.itemID = existing.itemID
            let edited = try draft.placedByPath.validated()
            try Self.restate(given, tags: tags, of: existing, as: edited, in: state.bookmarks)
            guard !existing.hasDetails(of: edited) else { return existing }
            state.feed.states.willChangeBookmarks()
            return try state.bookmarks.update(
                id: existing.id, with: edited, in: .draft, at: Date())
        }
    }

    /// Removes the bookmark of an item.
    ///
    /// - Returns: Whether there was one.
    /// - Throws: ``DatabaseError`` when the write fails.
    @discardableResult
    public func remove(kind: String, itemID: String) throws -> Bool {
        try write { state in
            guard let existing = try state.bookmarks.bookmark(kind: kind, itemID: itemID) else {
                return false
            }
            return try state.bookmarks.delete(id: existing.id)
        }
    }

    /// Removes a bookmark by id.
    ///
    /// - Returns: Whether there was one.
    /// - Throws: ``DatabaseError`` when the write fails.
    @discardableResult
    public func remove(id: Int64) throws -> Bool {
        try write { try $0.bookmarks.delete(id: id) }
    }

    /// The detail screen's bookmark button: removes the bookmark when the item has one,
    /// adds it otherwise.
    ///
    /// - Returns: Whether the item is bookmarked afterwards.
    /// - Throws: ``BookmarkError/invalid(_:)``, ``DatabaseError``.
    @discardableResult
    public func toggle(_ draft: BookmarkDraft) throws -> Bool {
        let draft = try draft.validated()
        return try write { state in
            if let existing = try state.bookmarks.identifier(kind: draft.kind, itemID: draft.itemID)
            {
                try state.bookmarks.delete(id: existing)
                return false
            }
            let now = Date()
            let inserted = try state.bookmarks.insert(
                draft, in: .draft, at: now, id: nil, createdAt: nil)
            _ = try Self.withSyncedTags(draft, inserted.id, in: state.bookmarks, at: now)
            return true
        }
    }

    /// Whether the item is bookmarked.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func isBookmarked(kind: String, itemID: String) throws -> Bool {
        try isBookmarked(ReadKey(kind, itemID))
    }

    /// Whether the item a key names (its kind and item ID, made once by a property wrapper)
    /// is bookmarked.
    func isBookmarked(_ key: ReadKey, slot: StateReadSlot? = nil) throws -> Bool {
        try database.read { state in
            if let slot,
                let cached = state.feed.states.cachedIsBookmarked(
                    slot: slot, canCache: !state.isWriting)
            {
                return cached
            }
            return try state.feed.states.isBookmarked(key, slot: slot, canCache: !state.isWriting) {
                state.isEmpty
                    ? nil : try state.bookmarks.bookmark(kind: key.first, itemID: key.second)
            }
        }
    }

    /// The bookmark with an id, nil when there is none.
    ///
    /// Reads of bookmarks (one, an item's, a list) register with Swift's Observation: a view
    /// that read one hears when its result changes, by a write here, at a transaction's
    /// commit or by another process.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func bookmark(id: Int64) throws -> Bookmark? {
        try observedRead(.id(id)) { try $0.bookmark(id: id) }
    }

    /// What writes replaced in a bookmark (title, URL, category, folder, note), newest
    /// first; at most the newest 10. Empty for a bookmark never changed, or none of this id.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func history(id: Int64) throws -> [BookmarkRevision] {
        try database.read { state in state.isEmpty ? [] : try state.bookmarks.history(id: id) }
    }

    /// The bookmark of an item, nil when there is none.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func bookmark(kind: String, itemID: String) throws -> Bookmark? {
        try database.read { state in
            try state.feed.states.bookmark(
                ReadKey(kind, itemID), slot: nil, canCache: !state.isWriting
            ) {
                state.isEmpty ? nil : try state.bookmarks.bookmark(kind: kind, itemID: itemID)
            }
        }
    }

    private func observedRead<Result: Hashable & Sendable>(
        _ key: StateObservations.BookmarkRead, empty: Result? = nil,
        _ read: @escaping (any BookmarkRepository) throws -> Result?
    ) throws -> Result? {
        try database.read { state in
            let result = state.isEmpty ? empty : try read(state.bookmarks)
            state.feed.states.observation(
                of: key, reading: AnyHashable(result), readAgain: { AnyHashable(try read($0)) }
            )?.access()
            return result
        }
    }

    /// A write of bookmarks, told to Swift's Observation at its commit.
    func write<T>(_ body: (DatabaseState) throws -> T) throws -> T {
        try database.write { state in
            state.feed.states.willChangeBookmarks()
            return try body(state)
        }
    }

    /// Moves a bookmark to a position within its kind; the others shift so that positions
    /// stay 0, 1, 2... without gaps.
    ///
    /// - Throws: ``BookmarkError/notFound(id:)``,
    ///   ``BookmarkError/positionOutOfRange(position:count:kind:)``, ``DatabaseError``.
    @discardableResult
    public func move(id: Int64, to position: Int) throws -> Bookmark {
        try write { try $0.bookmarks.move(id: id, to: position, at: Date()) }
    }

    /// Bookmarks matching the query's filters, in its order, one page of them.
    ///
    /// - Throws: ``BookmarkError/invalid(_:)`` for a negative limit or offset,
    ///   ``DatabaseError`` when the read fails.
    public func list(_ query: BookmarkQuery = BookmarkQuery()) throws -> [Bookmark] {
        try query.validatePaging()
        return try observedRead(.query(query), empty: []) { try $0.list(query) } ?? []
    }

    /// How many bookmarks match the query's filters (its paging is ignored).
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func count(_ query: BookmarkQuery = BookmarkQuery()) throws -> Int {
        try database.read { state in state.isEmpty ? 0 : try state.bookmarks.count(query) }
    }

    /// The query's bookmarks grouped by category, categories by name (uncategorized, key
    /// nil, last); each group keeps the query's order.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func groupedByCategory(_ query: BookmarkQuery = BookmarkQuery())
        throws -> [(category: String?, bookmarks: [Bookmark])]
    {
        var groups: [String?: [Bookmark]] = [:]
        for bookmark in try list(query) {
            groups[bookmark.category, default: []].append(bookmark)
        }
        return groups.keys.sorted { lhs, rhs in
            switch (lhs, rhs) {
            case (let l?, let r?): l < r
            case (.some, .none): true
            default: false
            }
        }.map { ($0, groups[$0] ?? []) }
    }

    /// The query's bookmarks grouped by folder path (``BookmarkFolderPath``), paths in
    /// the order of the folder tree (the top level, key `[]`, first); each group keeps the
    /// query's order.
    ///
    /// - Throws: ``BookmarkError/invalid(_:)`` for a negative limit or offset,
    ///   ``DatabaseError`` when the read fails.
    public func groupedByFolder(_ query: BookmarkQuery = BookmarkQuery())
        throws -> [(folder: [String], bookmarks: [Bookmark])]
    {
        try query.validatePaging()
        let (bookmarks, folders) = try database.read { state in
            state.isEmpty
                ? ([], []) : (try state.bookmarks.list(query), try state.bookmarks.folders())
        }
        var order: [[String]: Int] = [[]: 0]
        let tree = BookmarkFolderTree(folders)
        for folder in tree.ordered where order[tree.path(of: folder.id)] == nil {
            order[tree.path(of: folder.id)] = order.count
        }
        var groups: [[String]: [Bookmark]] = [:]
        for bookmark in bookmarks {
            groups[bookmark.folder, default: []].append(bookmark)
        }
        return groups.keys.sorted { lhs, rhs in
            switch (order[lhs], order[rhs]) {
            case (let l?, let r?): l < r
            case (.some, .none): true
            case (.none, .some): false
            case (.none, .none): BookmarkFolderPath.text(lhs) < BookmarkFolderPath.text(rhs)
            }
        }.map { ($0, groups[$0] ?? []) }
    }

    /// Every folder, each after its parent, siblings in order.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func folders() throws -> [BookmarkFolder] {
        try database.read { state in state.isEmpty ? [] : try state.bookmarks.folders() }
    }

    /// Full-text search over title, category, tags, note and URL, best matches first.
    ///
    /// Words must all match; a word ending in `*` matches as a prefix (`lond*`). Case and
    /// diacritics are ignored. Quotes, operators and other query syntax are plain text.
    /// - Throws: ``BookmarkError/invalid(_:)`` for an empty query or a negative limit or
    ///   offset, ``DatabaseError``.
    public func search(_ text: String, limit: Int = 50, offset: Int = 0) throws -> [Bookmark] {
        let search = try BookmarkSearch(parsing: text)
        try BookmarkQuery.validatePaging(limit: limit, offset: offset)
        return try database.read { state in
            state.isEmpty ? [] : try state.bookmarks.search(search, limit: limit, offset: offset)
        }
    }

    /// Checks that a search text has at least one word.
    ///
    /// - Throws: ``BookmarkError/invalid(_:)`` for an empty query.
    public static func validateSearch(_ text: String) throws(BookmarkError) {
        _ = try BookmarkSearch(parsing: text)
    }

    /// Rebuilds the full-text index from the tables (for `prefs doctor`).
    ///
    /// - Throws: ``DatabaseError`` when the write fails.
    public func rebuildSearchIndex() throws {
        try write { try $0.bookmarks.rebuildSearchIndex() }
    }
}

/// Fields of a bookmark that a write gives, also where it gives what is stored: sync stamps
/// each (docs/sync.md, "Stamping").
package struct BookmarkFieldSet: OptionSet, Sendable {
    package let rawValue: Int

    package init(rawValue: Int) { self.rawValue = rawValue }

    package static let title = BookmarkFieldSet(rawValue: 1)
    package static let url = BookmarkFieldSet(rawValue: 2)
    package static let category = BookmarkFieldSet(rawValue: 4)
    package static let note = BookmarkFieldSet(rawValue: 8)
    package static let folder = BookmarkFieldSet(rawValue: 16)
    /// What an add states: every field of its draft (its folder when it names one).
    package static let all: BookmarkFieldSet = [.title, .url, .category, .note, .folder]
}
