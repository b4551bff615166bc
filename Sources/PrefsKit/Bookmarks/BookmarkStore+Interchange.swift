import FoundationEssentials

extension BookmarkStore {
    /// The name in the `format` field of the JSON export.
    public static let exportFormatName = "prefs-bookmarks"

    /// Every bookmark as JSON that ``importJSON(_:)`` reads back with ids, positions and
    /// times: `{"format": "prefs-bookmarks", "version": 1, "bookmarks": [...]}`.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func exportJSON() throws -> String {
        let document = JSONValue.object([
            ("format", .string(Self.exportFormatName)), ("version", .integer(1)),
            ("bookmarks", .array(try list().map(\.jsonValue))),
        ])
        return document.serialized(.pretty) + "\n"
    }

    /// Every bookmark as a Netscape bookmark file, one folder per category.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func exportHTML() throws -> String {
        NetscapeBookmarkFile.document(for: try list())
    }

    /// Imports the JSON export (or a bare array of bookmark objects) in one transaction:
    /// all of it or, on any error, nothing. An item already bookmarked is updated; ids are
    /// kept when free; positions are kept and then made dense per kind.
    ///
    /// - Parameter progress: Called with (done, total) as the import goes.
    /// - Returns: How many bookmarks were imported.
    /// - Throws: ``BookmarkError/malformedImport(_:)`` naming the element, ``DatabaseError``.
    @discardableResult
    public func importJSON(_ text: String, progress: ImportProgress? = nil) throws -> Int {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: text)
        } catch {
            throw BookmarkError.malformedImport("invalid JSON: \(error)")
        }
        let list: [JSONValue]
        switch document["bookmarks"] ?? document {
        case .array(let elements): list = elements
        default: throw BookmarkError.malformedImport("expected an array of bookmarks or {\"bookmarks\": [...]}")
        }
        var imported: [ImportedBookmark] = []
        for (index, element) in list.enumerated() {
            var entry = try ImportedBookmark(json: element, index: index)
            do {
                entry.draft = try entry.draft.validated()
            } catch {
                throw BookmarkError.malformedImport("bookmarks[\(index)]: \(error)")
            }
            imported.append(entry)
        }
        return try store(imported, progress: progress)
    }

    /// Imports a Netscape bookmark file (a browser's export, or ours) in one transaction.
    ///
    /// - Parameter progress: Called with (done, total) as the import goes.
    /// - Returns: How many bookmarks were imported.
    /// - Throws: ``BookmarkError/malformedImport(_:)`` naming the line, ``DatabaseError``.
    @discardableResult
    public func importHTML(_ text: String, progress: ImportProgress? = nil) throws -> Int {
        let entries: [NetscapeBookmarkFile.Entry]
        do {
            entries = try NetscapeBookmarkFile.entries(in: text)
        } catch {
            throw BookmarkError.malformedImport(error.description)
        }
        var imported: [ImportedBookmark] = []
        for entry in entries {
            do {
                imported.append(
                    ImportedBookmark(
                        draft: try entry.draft.validated(), position: entry.position,
                        createdAt: entry.createdAt, updatedAt: entry.updatedAt))
            } catch {
                throw BookmarkError.malformedImport("'\(entry.draft.title)': \(error)")
            }
        }
        return try store(imported, progress: progress)
    }

    private func store(_ entries: [ImportedBookmark], progress: ImportProgress?) throws -> Int {
        try database.write { state in
            let repository = state.bookmarks
            let now = Date()
            let step = max(1, entries.count / 100)
            for (index, entry) in entries.enumerated() {
                if index % step == 0 { progress?(index, entries.count) }
                let stored: Bookmark
                if let existing = try repository.bookmark(kind: entry.draft.kind, itemID: entry.draft.itemID) {
                    stored = try repository.update(id: existing.id, with: entry.draft, at: entry.updatedAt ?? now)
                } else {
                    var id = entry.id
                    if let wanted = id, try repository.bookmark(id: wanted) != nil { id = nil }
                    stored = try repository.insert(
                        entry.draft, at: entry.updatedAt ?? now, id: id, createdAt: entry.createdAt)
                }
                if let position = entry.position, position != stored.position {
                    // Ties with existing positions are settled by id in the renumbering.
                    try repository.setPosition(position, id: stored.id)
                }
            }
            try repository.renumberPositions()
            progress?(entries.count, entries.count)
            return entries.count
        }
    }
}

extension ImportedBookmark {
    init(draft: BookmarkDraft, position: Int?, createdAt: Date?, updatedAt: Date?) {
        self.draft = draft
        self.position = position
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Reports how far an import has come: (items done, items in all).
public typealias ImportProgress = (_ done: Int, _ total: Int) -> Void
