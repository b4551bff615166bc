#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

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

    /// A draft of a stored bookmark: its fields as they are, its folder by its whole path.
    public init(_ bookmark: Bookmark) {
        self.init(
            kind: bookmark.kind, itemID: bookmark.itemID, title: bookmark.title,
            url: bookmark.urlString.flatMap { URL(string: $0) }, category: bookmark.category,
            folder: bookmark.folder, tags: bookmark.tags, note: bookmark.note)
    }

    /// The folder path the draft names: its ``folder``, else its category's top-level
    /// folder, else the top level.
    var folderPath: [String] { folder ?? category.map { [$0] } ?? [] }

    /// The same placement said one way: the folder by its whole path, the category its last
    /// name (a category alone is the top-level folder of that name).
    var placedByPath: BookmarkDraft {
        var draft = self
        draft.folder = folderPath
        draft.category = draft.folder?.last
        return draft
    }

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
        // Tags are bytes, as the database keeps them: sorted by bytes, and only identical
        // bytes are one tag ("é" and "e\u{301}" are two).
        var isOrdered = true
        for index in cleanedTags.indices.dropFirst()
        where !ExactName.precedes(cleanedTags[index - 1], cleanedTags[index]) {
            isOrdered = false
            break
        }
        if !isOrdered {
            cleanedTags.sort(by: ExactName.precedes)
            var unique: [String] = []
            unique.reserveCapacity(cleanedTags.count)
            for tag in cleanedTags
            where !(unique.last.map { ExactName.sameBytes($0, tag) } ?? false) {
                unique.append(tag)
            }
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

extension Bookmark {
    /// Whether storing the draft (already validated) would leave this bookmark as it is:
    /// the same fields, with the placement said the same way.
    func hasDetails(of draft: BookmarkDraft) -> Bool {
        guard let stored = try? BookmarkDraft(self).placedByPath.validated(),
            let given = try? draft.placedByPath.validated()
        else { return false }
        return stored == given
    }
}
