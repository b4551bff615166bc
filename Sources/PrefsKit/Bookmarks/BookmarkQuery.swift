/// Which bookmarks to list, in what order, and which page of them.
public struct BookmarkQuery: Sendable, Hashable {
    /// Orders of a listing.
    public enum Sort: String, Sendable, CaseIterable {
        /// The user's order within each kind (kinds by name).
        case position
        /// Oldest first.
        case created
        /// By title, ignoring case.
        case title
    }

    /// Only bookmarks of this kind.
    public var kind: String?
    /// Only bookmarks of this category.
    public var category: String?
    /// Only bookmarks in this folder or its subfolders (every folder of that path).
    public var folder: [String]?
    /// Only bookmarks with this tag.
    public var tag: String?
    /// The order of the results.
    public var sort: Sort
    /// Reverse the order.
    public var isDescending: Bool
    /// The most results to return, 0 or more; nil for all.
    public var limit: Int?
    /// How many results to skip first, 0 or more.
    public var offset: Int

    /// Creates a query; every filter is optional.
    public init(
        kind: String? = nil, category: String? = nil, folder: [String]? = nil,
        tag: String? = nil,
        sort: Sort = .position, isDescending: Bool = false, limit: Int? = nil, offset: Int = 0
    ) {
        self.kind = kind
        self.category = category
        self.folder = folder
        self.tag = tag
        self.sort = sort
        self.isDescending = isDescending
        self.limit = limit
        self.offset = offset
    }

    /// Checks the paging: a negative limit or offset is refused (an engine would read it as
    /// "all" or as "none", and they would differ).
    ///
    /// - Throws: ``BookmarkError/invalid(_:)`` naming the value.
    public func validatePaging() throws(BookmarkError) {
        try Self.validatePaging(limit: limit, offset: offset)
    }

    static func validatePaging(limit: Int?, offset: Int) throws(BookmarkError) {
        if let limit, limit < 0 {
            throw .invalid("the limit must be 0 or more, not \(limit)")
        }
        if offset < 0 { throw .invalid("the offset must be 0 or more, not \(offset)") }
    }
}
