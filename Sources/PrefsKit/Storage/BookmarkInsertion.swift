#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// What an insert chose for a new bookmark.
package struct BookmarkInsertion: Sendable, Hashable {
    package var id: Int64
    package var position: Int
    /// The folder row it went into; nil for the top level or its category's folder.
    package var folderID: Int64?

    package init(id: Int64, position: Int, folderID: Int64?) {
        self.id = id
        self.position = position
        self.folderID = folderID
    }
}
