#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a written bookmark goes in the folder tree.
package enum BookmarkPlacement: Sendable, Hashable {
    /// Where the draft says: its ``BookmarkDraft/folder`` path (folders made when missing),
    /// or without one the top-level folder named after its category; a bookmark already
    /// in a folder of that name stays in it.
    case draft
    /// A folder row (imports), or nil for the top level or the category's folder.
    case folder(Int64?)
}
