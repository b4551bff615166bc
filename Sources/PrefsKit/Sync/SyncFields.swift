/// The fields that sync, listed once: what a device captures (SQLite's triggers are made from
/// this list, `SQLite/SyncCapture.swift`), what the rules accept (``SyncValidation``), and
/// what a rebuild reads (``SyncBookmarkRebuild``). The hub's functions in
/// `Migrations/postgres/` name the same fields; `SyncValidationTests` holds the two to one
/// corpus.
package enum SyncFields {
    /// A preference's one field: its value (or its removal).
    package static let preference = "value"
    /// A tag's one field: whether the bookmark has it.
    package static let tag = "present"
    /// A bookmark's field that says whether it exists (a delete is its tombstone).
    package static let bookmarkExists = "exists"
    /// A bookmark's field whose clock is its newest removal: a bookmark has the tags stamped
    /// at or after it (docs/sync.md, "Tags"). Stamped, present and with no value, by every
    /// deletion beside the tombstone of ``bookmarkExists``; an addition leaves it.
    package static let bookmarkRemoved = "removed"

    /// A field of a bookmark that its row holds.
    package struct BookmarkField: Sendable {
        /// The field's name in sync.
        package let name: String
        /// The value captured, as SQL over the row `NEW` (nil: none, read when pushed).
        package let value: String?
        /// When an update changed it, as SQL over `OLD` and `NEW`.
        package let changed: String
    }

    /// A bookmark's fields besides ``bookmarkExists``, in the order they are captured.
    package static let bookmark: [BookmarkField] = [
        column("title"), column("url"), column("category"), column("note"),
        column("position"),
        // The folder path is read when pushed (a trigger cannot walk the folder tree). A
        // bookmark with no folder row is in the folder named after its category.
        BookmarkField(
            name: "folder", value: nil,
            changed:
                "OLD.folder_id IS NOT NEW.folder_id"
                + " OR (NEW.folder_id IS NULL AND OLD.category IS NOT NEW.category)"),
    ]

    /// Every field name a bookmark change may carry.
    package static let bookmarkNames: Set<String> = Set(
        [bookmarkExists, bookmarkRemoved] + bookmark.map(\.name))

    private static func column(_ name: String) -> BookmarkField {
        BookmarkField(name: name, value: "NEW.\(name)", changed: "OLD.\(name) IS NOT NEW.\(name)")
    }
}
