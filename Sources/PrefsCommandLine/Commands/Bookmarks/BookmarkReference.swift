import PrefsKit

/// A bookmark named by its item or by its id.
enum BookmarkReference: Equatable, Sendable {
    case item(kind: String, itemID: String)
    case id(Int64)
}

extension BookmarkReference {
    /// The error for a reference that names no bookmark.
    var notFound: BookmarkError {
        switch self {
        case .id(let id): .notFound(id: id)
        case .item(let kind, let itemID): .itemNotFound(kind: kind, itemID: itemID)
        }
    }

    /// The reference of a command's `KIND ITEM-ID` arguments, or of the id alone in the
    /// first of them: a number with no item id after it.
    static func parsed(
        first: String, itemID: String?, in parsed: ParsedArguments, label: String
    ) throws(UsageError) -> BookmarkReference {
        if let itemID { return .item(kind: first, itemID: itemID) }
        guard Int64(first) != nil else {
            throw UsageError(
                "Missing expected argument '<item-id>' (or give the bookmark's id alone)",
                path: parsed.path)
        }
        return .id(try BookmarkDraftDeclarations.bookmarkID(first, in: parsed, label: label))
    }
}
