/// What an import did: how many bookmarks it added, updated, left as they were and merged,
/// and what it skipped or warned about, each with its place in the file.
public struct BookmarkImportSummary: Sendable, Hashable, CustomStringConvertible {
    /// The format the file was read as.
    public var format: BookmarkImportDocument.Format
    /// New bookmarks.
    public var added = 0
    /// Bookmarks that existed and changed.
    public var updated = 0
    /// Bookmarks that existed and were already as the file says.
    public var unchanged = 0
    /// Links of the file that were the same bookmark as an earlier link (same URL, or same
    /// kind and item ID) and merged into it.
    public var merged = 0
    /// Links not imported, and why.
    public var skipped: [BookmarkImportDocument.Issue] = []
    /// Doubtful things imported anyway.
    public var warnings: [BookmarkImportDocument.Issue] = []

    /// Creates an empty summary.
    public init(format: BookmarkImportDocument.Format) {
        self.format = format
    }

    /// `Added 11, updated 0, unchanged 0, merged 1 duplicate, skipped 0`.
    public var description: String {
        "Added \(added), updated \(updated), unchanged \(unchanged), merged \(merged) duplicate"
            + (merged == 1 ? "" : "s") + ", skipped \(skipped.count)"
    }

    /// The summary as the JSON of `prefs bookmark import --json`.
    public var jsonValue: Prefs.JSONValue {
        func issues(_ list: [BookmarkImportDocument.Issue], _ field: String) -> JSONValue {
            .array(
                list.map { issue in
                    .object([
                        ("line", issue.place.line.map { .integer(Int64($0)) } ?? .null),
                        ("place", .string(issue.place.description)),
                        (field, .string(issue.message)),
                    ])
                })
        }
        return .object([
            ("format", .string(format.rawValue)),
            ("added", .integer(Int64(added))), ("updated", .integer(Int64(updated))),
            ("unchanged", .integer(Int64(unchanged))), ("merged", .integer(Int64(merged))),
            ("skipped", issues(skipped, "reason")), ("warnings", issues(warnings, "message")),
        ])
    }
}
