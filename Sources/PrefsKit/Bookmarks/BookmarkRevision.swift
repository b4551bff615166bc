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
    public let title: String
    public let urlString: String?
    public let category: String?
    /// The folder path it was in: empty at the top level, the category's folder when it
    /// had a category and no folder row, nil when its folder has since been removed.
    public let folder: [String]?
    public let note: String?
    /// When the write that replaced these fields was made.
    public let replacedAt: Date

    package init(
        revision: Int, title: String, urlString: String?, category: String?, folder: [String]?,
        note: String?, replacedAt: Date
    ) {
        self.revision = revision
        self.title = title
        self.urlString = urlString
        self.category = category
        self.folder = folder
        self.note = note
        self.replacedAt = replacedAt
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

/// A revision's row as both engines read it, before its folder path is known.
package struct BookmarkRevisionRow: Sendable {
    package var revision: Int
    package var title: String
    package var urlString: String?
    package var category: String?
    package var folderID: Int64?
    package var note: String?
    /// Seconds since 2001-01-01 UTC.
    package var replacedAt: Double

    package init(
        revision: Int, title: String, urlString: String?, category: String?, folderID: Int64?,
        note: String?, replacedAt: Double
    ) {
        self.revision = revision
        self.title = title
        self.urlString = urlString
        self.category = category
        self.folderID = folderID
        self.note = note
        self.replacedAt = replacedAt
    }

    /// The revision, its folder path read from `tree`.
    package func revision(in tree: BookmarkFolderTree) -> BookmarkRevision {
        let folder: [String]?
        if let folderID {
            folder = tree.contains(folderID) ? tree.path(of: folderID) : nil
        } else {
            folder = category.map { [$0] } ?? []
        }
        return BookmarkRevision(
            revision: revision, title: title, urlString: urlString, category: category,
            folder: folder, note: note,
            replacedAt: Date(timeIntervalSinceReferenceDate: replacedAt))
    }
}
