import PrefsKit

/// How bookmarks print.
enum BookmarkText {
    /// One bookmark on one line, tab-separated: id, kind, item ID, title, category.
    static func line(_ bookmark: Bookmark) -> String {
        [
            String(bookmark.id), ValueText.listed(bookmark.kind), ValueText.listed(bookmark.itemID),
            ValueText.listed(bookmark.title), bookmark.category.map(ValueText.listed) ?? "-",
        ]
        .joined(separator: "\t") + "\n"
    }

    /// A hint for a file that another command reads.
    static func wrongFileHint(_ bytes: [UInt8]) -> String {
        let head = String(decoding: bytes.prefix(512), as: UTF8.self)
        if head.contains("<plist") || bytes.starts(with: Array("bplist".utf8)) {
            return " (preferences in a property list are imported with 'prefs import')"
        }
        return ""
    }
}

extension CommandContext {
    func printBookmarks(_ bookmarks: [Bookmark]) {
        if globals.isJSON {
            printJSON(.array(bookmarks.map(\.jsonValue)))
        } else {
            console.print(bookmarks.map(BookmarkText.line).joined())
        }
    }
}
