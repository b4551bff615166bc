#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// A folder of bookmarks, as browsers keep them: a name inside a parent folder.
///
/// Folders come from imports (a browser's tree, empty folders and same-named siblings
/// included) and from drafts that name a ``BookmarkDraft/folder``. A bookmark whose draft
/// names only a category is in the top-level folder of that name, without a folder row.
public struct BookmarkFolder: Sendable, Hashable, Identifiable {
    /// The generated id.
    public let id: Int64
    /// The enclosing folder; nil at the top level.
    public var parentID: Int64?
    /// The folder's name, never empty.
    public var name: String
    /// The folder's description (a `<DD>` after its `<H3>` in a browser's file).
    public var description: String?
    /// The order among the folder's siblings.
    public var position: Int
    /// When the folder was made, when the file said.
    public var createdAt: Date?
    /// When the folder last changed, when the file said.
    public var updatedAt: Date?

    /// Creates a folder value (as read from the store).
    public init(
        id: Int64, parentID: Int64?, name: String, description: String? = nil, position: Int,
        createdAt: Date? = nil, updatedAt: Date? = nil
    ) {
        self.id = id
        self.parentID = parentID
        self.name = name
        self.description = description
        self.position = position
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
