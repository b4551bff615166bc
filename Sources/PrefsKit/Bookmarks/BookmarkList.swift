/// A property that holds the bookmarks a query finds, in order, for a list screen: the
/// bookmarks of a kind, a category, a folder or a tag. Shaped like SwiftData's `@Query`.
///
/// ```swift
/// @Observable final class SavedTripsModel {
///     @ObservationIgnored @BookmarkList(BookmarkQuery(kind: "trip"), store: bookmarks)
///     var savedTrips: [Bookmark]
/// }
/// ```
/// Each read runs the query (the database's indexes make it cheap) and registers with
/// Swift's Observation for it: a view that showed the list refreshes when its result
/// changes, by a write here, at a transaction's commit or by another process; a change
/// elsewhere that leaves the result as it was does not refresh it. A read that fails goes to
/// `onError` and reads as an empty list.
@propertyWrapper
public struct BookmarkList: Sendable {
    /// What the list shows.
    public let query: BookmarkQuery
    /// The store the bookmarks live in.
    public let store: BookmarkStore
    /// Told of a read or a move that failed.
    public let onError: @Sendable (any Error) -> Void

    /// Creates a property for a query.
    ///
    /// - Parameters:
    ///   - query: What the list shows (default: every bookmark, by position).
    ///   - store: The bookmark store.
    ///   - onError: Told of a failed read or move (default: one line on standard error).
    public init(
        _ query: BookmarkQuery = BookmarkQuery(), store: BookmarkStore,
        onError: (@Sendable (any Error) -> Void)? = nil
    ) {
        self.query = query
        self.store = store
        self.onError = onError ?? { standardErrorWrite("prefs: \($0)\n") }
    }

    /// The bookmarks the query finds, in its order.
    public var wrappedValue: [Bookmark] {
        do {
            return try store.list(query)
        } catch {
            onError(error)
            return []
        }
    }

    /// The property itself, for `$savedTrips.count` and `$savedTrips.move(...)`.
    public var projectedValue: BookmarkList { self }

    /// How many bookmarks the query finds, without reading them (not observed).
    public var count: Int {
        do {
            return try store.count(query)
        } catch {
            onError(error)
            return 0
        }
    }

    /// Moves a bookmark of the list to a position within its kind.
    public func move(_ bookmark: Bookmark, to position: Int) {
        do {
            _ = try store.move(id: bookmark.id, to: position)
        } catch {
            onError(error)
        }
    }
}
