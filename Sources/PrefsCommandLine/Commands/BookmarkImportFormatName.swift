import PrefsKit

/// The names of the formats `bookmark import --format` reads.
enum BookmarkImportFormatName {
    static let all: [(name: String, format: BookmarkImportDocument.Format)] = [
        ("json", .json), ("html", .html), ("chromium", .chromium), ("firefox", .firefox),
        ("safari", .safari),
    ]
    static let names = all.map(\.name)
}
