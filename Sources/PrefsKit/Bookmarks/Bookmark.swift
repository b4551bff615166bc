#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// An item of the app that the user bookmarked.
///
/// `kind` and `itemID` together are its identity (a trip, an article, a movie); `id` is a
/// stable number that never changes and is never reused.
public struct Bookmark: Sendable, Hashable, Identifiable {
    /// The generated id.
    public let id: Int64
    /// What kind of item it is, such as `trip`.
    public var kind: String
    /// The app's identifier of the item.
    public var itemID: String
    /// The title shown in lists.
    public var title: String
    /// The URL as stored; ``url`` parses it.
    public var urlString: String?
    /// The name of the bookmark's folder (the last name of ``folder``), by which the app
    /// groups its items.
    public var category: String?
    /// The names of the folders from the top down to the bookmark's own (empty at the top
    /// level); a bookmark with only a category is in the top-level folder of that name.
    public var folder: [String]
    /// The folder row the bookmark is in; nil for the top level or its category's folder.
    public package(set) var folderID: Int64?
    /// Tags, sorted and without duplicates.
    public var tags: [String]
    /// Free text about the bookmark; searched.
    public var note: String?
    /// The user's order within the kind: 0, 1, 2... without gaps.
    public var position: Int
    /// When the bookmark was first stored.
    public var createdAt: Date
    /// When the bookmark was last changed.
    public var updatedAt: Date

    /// The URL, parsed from ``urlString`` (listing thousands of bookmarks does not parse
    /// thousands of URLs).
    public var url: URL? {
        get { urlString.flatMap { URL(string: $0) } }
        set { urlString = newValue?.absoluteString }
    }
}

// The initializers are in an extension, so that the struct keeps its memberwise one.
extension Bookmark {
    /// Creates a bookmark value (as read from the store or an import).
    ///
    /// - Parameters:
    ///   - id: The row id, unique and never reused.
    ///   - kind: What is bookmarked; with `itemID` it names the item.
    ///   - itemID: The item's ID within its kind.
    ///   - title: The title shown in lists.
    ///   - url: The item's address, if it has one.
    ///   - category: The name of the bookmark's folder.
    ///   - folder: The folder path; nil for the top-level folder named after the
    ///     category (or the top level when there is no category).
    ///   - tags: Labels.
    ///   - note: Free text about the bookmark.
    ///   - position: The place among the bookmarks of its kind, from 0.
    ///   - createdAt: When it was first stored.
    ///   - updatedAt: When it was last changed.
    public init(
        id: Int64, kind: String, itemID: String, title: String, url: URL? = nil,
        category: String? = nil, folder: [String]? = nil, tags: [String] = [],
        note: String? = nil, position: Int = 0, createdAt: Date = Date(), updatedAt: Date = Date()
    ) {
        self.init(
            id: id, kind: kind, itemID: itemID, title: title, urlString: url?.absoluteString,
            category: category, folder: folder, tags: tags, note: note, position: position,
            createdAt: createdAt, updatedAt: updatedAt)
    }

    /// Creates a bookmark from stored columns, leaving the URL unparsed until asked for.
    package init(
        id: Int64, kind: String, itemID: String, title: String, urlString: String?,
        category: String?, folder: [String]?, tags: [String], note: String?, position: Int,
        createdAt: Date, updatedAt: Date
    ) {
        // Through the memberwise initializer, which builds the value where it goes: one
        // that assigns field by field made the optimizer build it aside and copy it (with a
        // retain of every field and a release of the original: 400 instructions a listed row).
        self.init(
            id: id, kind: kind, itemID: itemID, title: title, urlString: urlString,
            category: category, folder: folder ?? category.map { [$0] } ?? [], tags: tags,
            note: note, position: position, createdAt: createdAt, updatedAt: updatedAt)
    }

    /// The bookmark a draft became, with what its insert chose.
    package init(
        _ draft: BookmarkDraft, _ insertion: BookmarkInsertion, folder: [String]?, createdAt: Date,
        updatedAt: Date
    ) {
        self.init(
            id: insertion.id, kind: draft.kind, itemID: draft.itemID, title: draft.title,
            urlString: draft.url?.absoluteString, category: draft.category, folder: folder,
            tags: draft.tags, note: draft.note, position: insertion.position, createdAt: createdAt,
            updatedAt: updatedAt)
        folderID = insertion.folderID
    }
}

extension String {
    /// Whether the text has a control character other than a tab (a byte below 0x20).
    var containsControlCharacter: Bool {
        let scan = { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in
            var found = false
            for byte in bytes where byte < 0x20 && byte != 0x09 {
                found = true
                break
            }
            return found
        }
        return utf8.withContiguousStorageIfAvailable(scan)
            ?? utf8.contains(where: { $0 < 0x20 && $0 != 0x09 })
    }
}
