/// A property that says whether an item is bookmarked, for a detail screen's bookmark
/// button, shaped like `@AppStorage`.
///
/// ```swift
/// @ObservationIgnored @Bookmarked(kind: "trip", itemID: trip.id, title: trip.name,
///     store: bookmarks) var isBookmarked: Bool
/// Button { $isBookmarked.toggle() } label: { Image(systemName: isBookmarked ? "bookmark.fill" : "bookmark") }
/// ```
/// Setting true bookmarks the item (updating it when it is there), false removes it. A
/// setter cannot throw: a failed write goes to `onError` (by default
/// ``FailedWrite/report(_:)``: one line on standard error, and a stop at the fault in a debug
/// build under a debugger) and the property keeps reading what the file holds. Reads register with Swift's
/// Observation for the item, so a view refreshes when it is bookmarked or removed, in this
/// process or another.
@propertyWrapper
public struct Bookmarked: Sendable {
    /// What the property was made with, in one reference: a view's model copies the
    /// property on every read, and a copy is then one retain.
    private final class Storage: Sendable {
        let draft: BookmarkDraft
        let store: BookmarkStore
        let onError: @Sendable (any Error) -> Void
        /// The item's kind and ID as the store's read cache knows them, made once.
        let key: ReadKey
        let slot = StateReadSlot()

        init(
            draft: BookmarkDraft, store: BookmarkStore,
            onError: @escaping @Sendable (any Error) -> Void
        ) {
            self.draft = draft
            self.store = store
            self.onError = onError
            key = ReadKey(draft.kind, draft.itemID)
        }
    }

    private let storage: Storage

    /// What is stored when the item is bookmarked: its kind, item ID, title and the rest.
    public var draft: BookmarkDraft { storage.draft }
    /// The store the bookmark lives in.
    public var store: BookmarkStore { storage.store }
    /// Told of a write that failed.
    public var onError: @Sendable (any Error) -> Void { storage.onError }

    /// Creates a property for an item.
    ///
    /// - Parameters:
    ///   - draft: The bookmark to store when the property is set to true.
    ///   - store: The bookmark store.
    ///   - onError: Told of a failed write (default: ``FailedWrite/report(_:)``).
    public init(
        _ draft: BookmarkDraft, store: BookmarkStore,
        onError: (@Sendable (any Error) -> Void)? = nil
    ) {
        storage = Storage(draft: draft, store: store, onError: onError ?? FailedWrite.report)
    }

    /// Creates a property for an item of a kind.
    public init(
        kind: String, itemID: String, title: String, store: BookmarkStore,
        onError: (@Sendable (any Error) -> Void)? = nil
    ) {
        self.init(
            BookmarkDraft(kind: kind, itemID: itemID, title: title), store: store, onError: onError)
    }

    /// Whether the item is bookmarked.
    public var wrappedValue: Bool {
        get {
            do {
                return try storage.store.isBookmarked(storage.key, slot: storage.slot)
            } catch {
                onError(error)
                return false
            }
        }
        nonmutating set {
            do {
                if newValue {
                    _ = try store.add(draft)
                } else {
                    _ = try store.remove(kind: draft.kind, itemID: draft.itemID)
                }
            } catch {
                onError(error)
            }
        }
    }

    /// The property itself, for `$isBookmarked.toggle()`.
    public var projectedValue: Bookmarked { self }

    /// Bookmarks the item, or removes its bookmark, in one transaction.
    public func toggle() {
        do {
            _ = try store.toggle(draft)
        } catch {
            onError(error)
        }
    }
}
