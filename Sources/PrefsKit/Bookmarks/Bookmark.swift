import FoundationEssentials

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
    public internal(set) var folderID: Int64?
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
    init(
        id: Int64, kind: String, itemID: String, title: String, urlString: String?,
        category: String?, folder: [String]?, tags: [String], note: String?, position: Int,
        createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.kind = kind
        self.itemID = itemID
        self.title = title
        self.urlString = urlString
        self.category = category
        self.folder = folder ?? category.map { [$0] } ?? []
        self.tags = tags
        self.note = note
        self.position = position
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The bookmark a draft became, with what its insert chose.
    init(
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

    /// The URL, parsed from ``urlString`` (listing thousands of bookmarks does not parse
    /// thousands of URLs).
    public var url: URL? {
        get { urlString.flatMap { URL(string: $0) } }
        set { urlString = newValue?.absoluteString }
    }
}

/// What to bookmark: everything but the generated fields.
public struct BookmarkDraft: Sendable, Hashable {
    /// What is bookmarked: `trip`, `movie`, `link`...; with the item ID it names the item.
    public var kind: String
    /// The item's ID within its kind.
    public var itemID: String
    /// The title shown in lists.
    public var title: String
    /// The item's address, if it has one.
    public var url: URL?
    /// The folder's name; with ``folder`` set, its last name.
    public var category: String?
    /// The folder path from the top (`["Bookmarks bar", "Work"]`), made when missing; nil
    /// for the top-level folder named after ``category``, `[]` for the top level.
    public var folder: [String]?
    /// Labels; stored trimmed, sorted and unique.
    public var tags: [String]
    /// Free text about the bookmark; searched.
    public var note: String?

    /// Creates a draft.
    public init(
        kind: String, itemID: String, title: String, url: URL? = nil, category: String? = nil,
        folder: [String]? = nil, tags: [String] = [], note: String? = nil
    ) {
        self.kind = kind
        self.itemID = itemID
        self.title = title
        self.url = url
        self.category = category
        self.folder = folder
        self.tags = tags
        self.note = note
    }

    /// The folder path the draft names: its ``folder``, else its category's top-level
    /// folder, else the top level.
    var folderPath: [String] { folder ?? category.map { [$0] } ?? [] }

    /// The draft with its text checked and its tags trimmed, sorted and unique.
    ///
    /// - Throws: ``BookmarkError/invalid(_:)`` naming the bad field.
    public func validated() throws(BookmarkError) -> BookmarkDraft {
        try validated(checksFolderNames: true)
    }

    /// The same, leaving out the check of the folder names when the caller made it once for
    /// many drafts of the same folder (an import).
    func validated(checksFolderNames: Bool) throws(BookmarkError) -> BookmarkDraft {
        func check(_ text: String, _ field: String, allowsEmpty: Bool = false) throws(BookmarkError)
        {
            // A first byte that is printable ASCII other than a space settles it cheaply.
            let startsVisibly = text.utf8.first.map { $0 > 0x20 && $0 < 0x7F } ?? false
            if !allowsEmpty && !startsVisibly && text.allSatisfy(\.isWhitespace) {
                throw .invalid("The \(field) of a bookmark cannot be empty")
            }
            // Control characters are single bytes below 0x20 in UTF-8.
            if text.containsControlCharacter {
                throw .invalid("The \(field) of a bookmark cannot contain control characters")
            }
        }
        try check(kind, "kind")
        try check(itemID, "item ID")
        try check(title, "title", allowsEmpty: true)
        if let category { try check(category, "category") }
        var cleaned = self
        // Printable ASCII at both ends needs no trimming (the common case, and no grapheme
        // breaking to find out).
        let isPlain = { (byte: UInt8?) in byte.map { $0 > 0x20 && $0 < 0x7F } ?? false }
        var cleanedTags = tags
        for (index, tag) in tags.enumerated() {
            guard !isPlain(tag.utf8.first) || !isPlain(tag.utf8.last) else {
                try check(tag, "tag")
                continue
            }
            let trimmed =
                tag.first?.isWhitespace == true || tag.last?.isWhitespace == true
                ? tag.trimmingWhitespace : tag
            try check(trimmed, "tag")
            cleanedTags[index] = trimmed
        }
        var isOrdered = true
        for index in cleanedTags.indices.dropFirst()
        where cleanedTags[index - 1] >= cleanedTags[index] {
            isOrdered = false
            break
        }
        if !isOrdered {
            cleanedTags.sort()
            var unique: [String] = []
            unique.reserveCapacity(cleanedTags.count)
            for tag in cleanedTags where unique.last != tag { unique.append(tag) }
            cleanedTags = unique
        }
        cleaned.tags = cleanedTags
        if let note, note.isEmpty { cleaned.note = nil }
        if let category, category.isEmpty { cleaned.category = nil }
        if let folder {
            if checksFolderNames {
                for name in folder { try check(name, "folder name") }
            }
            cleaned.category = folder.last
        }
        return cleaned
    }
}

/// Why a bookmark operation was refused.
public enum BookmarkError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No bookmark with this id.
    case notFound(id: Int64)
    /// No bookmark of this item.
    case itemNotFound(kind: String, itemID: String)
    /// A position outside `0..<count` of the kind.
    case positionOutOfRange(position: Int, count: Int, kind: String)
    /// A field is empty or holds control characters, or a search is empty.
    case invalid(String)
    /// An import file is malformed; nothing was imported.
    case malformedImport(String)

    /// The problem, in one line.
    public var description: String {
        switch self {
        case .notFound(let id): "No bookmark with id \(id)"
        case .itemNotFound(let kind, let itemID): "No bookmark of \(kind) '\(itemID)'"
        case .positionOutOfRange(let position, let count, let kind):
            "Position \(position) is out of range for \(kind) bookmarks (valid: 0...\(max(0, count - 1)))"
        case .invalid(let reason): reason
        case .malformedImport(let reason): "Malformed import: \(reason)"
        }
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
