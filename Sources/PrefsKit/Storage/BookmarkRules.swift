#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The rules of bookmark positions, once for every engine: a kind's positions are dense
/// (0 to count - 1), a delete closes its gap, a move shifts the bookmarks between its old and
/// new place by one. Engines store rows and shift ranges (``BookmarkRepository/deleteRow(id:)``,
/// ``BookmarkRepository/shiftPositions(kind:from:through:by:)``); the decisions are here.
/// (Folder placement is ``BookmarkRepository/folderID(of:draft:)``; the folders a query's path
/// covers are ``BookmarkFolderTree/identifiers(under:)``.)
extension BookmarkRepository {
    /// Deletes a bookmark and closes the gap in its kind's positions.
    @discardableResult
    func delete(id: Int64) throws -> Bool {
        guard let removed = try deleteRow(id: id) else { return false }
        try shiftPositions(kind: removed.kind, from: removed.position + 1, through: nil, by: -1)
        return true
    }

    /// Moves a bookmark within its kind; the others between its old and new place shift by
    /// one, so positions stay dense.
    ///
    /// - Throws: ``BookmarkError/notFound(id:)``, or
    ///   ``BookmarkError/positionOutOfRange(position:count:kind:)`` for a place outside
    ///   0 to count - 1.
    func move(id: Int64, to position: Int, at date: Date) throws -> Bookmark {
        guard let existing = try bookmark(id: id) else { throw BookmarkError.notFound(id: id) }
        let count = try self.count(BookmarkQuery(kind: existing.kind))
        guard (0..<count).contains(position) else {
            throw BookmarkError.positionOutOfRange(
                position: position, count: count, kind: existing.kind)
        }
        if position < existing.position {
            try shiftPositions(
                kind: existing.kind, from: position, through: existing.position - 1, by: 1)
        } else if position > existing.position {
            try shiftPositions(
                kind: existing.kind, from: existing.position + 1, through: position, by: -1)
        }
        try setPosition(position, id: id, updatedAt: date)
        guard let moved = try bookmark(id: id) else { throw BookmarkError.notFound(id: id) }
        return moved
    }

    /// Sets a position as it is (imports, sync), leaving the update time.
    func setPosition(_ position: Int, id: Int64) throws {
        try setPosition(position, id: id, updatedAt: nil)
    }
}
