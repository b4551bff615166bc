#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// A bookmark's title, URL, category, folder and note as they were before a write replaced
/// them: an edit, the app, a second browser file imported over it, or sync. Position and
/// tags are not kept. The newest 10 of a bookmark are kept, and they go with it.
public struct BookmarkRevision: Sendable, Hashable {
    /// The revision's number among its bookmark's, from 1, in the order of the writes.
    public let revision: Int
    /// The title it had.
    public let title: String
    /// The URL it had, as stored.
    public let urlString: String?
    /// The category it had (its folder's name).
    public let category: String?
    /// The folder path it was in: empty at the top level, the category's folder when it
    /// had a category and no folder row, nil when its folder has since been removed.
    public package(set) var folder: [String]?
    /// The note it had.
    public let note: String?
    /// When the write that replaced these fields was made.
    public let replacedAt: Date
    /// The folder row it was in; nil for the top level or the category's folder.
    package let folderID: Int64?

    /// A revision as an engine reads its row; ``placed(in:)`` gives its folder path.
    package init(
        revision: Int, title: String, urlString: String?, category: String?, folderID: Int64?,
        note: String?, replacedAt: Date
    ) {
        self.revision = revision
        self.title = title
        self.urlString = urlString
        self.category = category
        self.folderID = folderID
        self.note = note
        self.replacedAt = replacedAt
        folder = folderID == nil ? category.map { [$0] } ?? [] : nil
    }

    /// The revision with its folder path read from `tree` (nil for a folder since removed).
    package func placed(in tree: BookmarkFolderTree) -> BookmarkRevision {
        guard let folderID else { return self }
        var placed = self
        placed.folder = tree.contains(folderID) ? tree.path(of: folderID) : nil
        return placed
    }

    /// The revision as the JSON object of docs/cli.md, "JSON shapes"
    /// (`prefs bookmark history --json`).
    public var jsonValue: Prefs.JSONValue {
        .object([
            ("revision", .integer(revision)), ("title", .string(title)),
            ("url", urlString.map(JSONValue.string) ?? .null),
            ("category", category.map(JSONValue.string) ?? .null),
            ("folder", folder.map { .array($0.map(JSONValue.string)) } ?? .null),
            ("note", note.map(JSONValue.string) ?? .null),
            ("replacedAt", .string(ISO8601.string(from: replacedAt))),
        ])
    }
}
