/// A property backed by a persisted selection: the page of a carousel or pager, or the open
/// item of a list, shaped like `@AppStorage`.
///
/// ```swift
/// @Observable final class TripsModel {
///     @ObservationIgnored @SelectedIndex("carousel", count: 13, policy: .clamp, initialIndex: 2,
///         store: selections) var currentTripIndex: Int?
/// }
/// model.$currentTripIndex.next()   // clamps at the last trip
/// ```
/// Reading returns the stored index, else the initial one (which is not written until
/// something is selected), always inside the count given here: a stored index past it (the
/// list shrank) reads as the policy says (the last item, around, or none). Setting selects (nil clears an optional selection); the policy
/// keeps the stored index valid. A setter cannot throw: an index out of range, a read-only
/// file or a full disk goes to `onError` (by default ``FailedWrite/report(_:)``: one line on
/// standard error, and a stop at the fault in a debug build under a debugger) and the
/// property keeps reading what the file holds. Inside an `@Observable` class, mark it
/// `@ObservationIgnored`: each read registers with Swift's Observation for the selection,
/// so a view that read it refreshes when it changes, in this process or another.
@propertyWrapper
public struct SelectedIndex: Sendable {
    /// What the property was made with, in one reference: a view's model copies the
    /// property on every read, and a copy is then one retain.
    private final class Storage: Sendable {
        let name: String
        let count: Int
        let policy: SelectionPolicy
        let initialIndex: Int?
        let store: SelectionStore
        let onError: @Sendable (any Error) -> Void
        /// The name as the store's read cache knows it, made once.
        let key: ReadKey
        let slot = StateReadSlot()

        init(
            name: String, count: Int, policy: SelectionPolicy, initialIndex: Int?,
            store: SelectionStore, onError: @escaping @Sendable (any Error) -> Void
        ) {
            self.name = name
            self.count = count
            self.policy = policy
            self.initialIndex = initialIndex
            self.store = store
            self.onError = onError
            key = ReadKey(name)
        }

        /// A stored index at or past `count`, as the policy reads it within `count`: the last
        /// item (clamp), around (wrap), or nothing (optional: the item is gone).
        func indexPast(_ index: Int) -> Int? {
            guard count > 0 else { return nil }
            switch policy {
            case .clamp: return count - 1
            case .wrap: return index % count
            case .optional: return nil
            }
        }
    }

    private let storage: Storage

    /// The selection's name.
    public var name: String { storage.name }
    /// How many items the list has; the selection is defined with it on first write.
    public var count: Int { storage.count }
    /// How the index behaves at the ends.
    public var policy: SelectionPolicy { storage.policy }
    /// The index read before anything was selected.
    public var initialIndex: Int? { storage.initialIndex }
    /// The store the selection lives in.
    public var store: SelectionStore { storage.store }
    /// Told of a write that failed.
    public var onError: @Sendable (any Error) -> Void { storage.onError }

    /// Creates a property for a named selection.
    ///
    /// - Parameters:
    ///   - name: The selection's name.
    ///   - count: How many items the list has.
    ///   - policy: Clamp (a carousel), wrap (a pager) or optional (a list).
    ///   - initialIndex: The index before anything is selected (default: 0, or nil for an
    ///     optional selection).
    ///   - store: The selection store.
    ///   - onError: Told of a failed write (default: ``FailedWrite/report(_:)``).
    public init(
        _ name: String, count: Int, policy: SelectionPolicy, initialIndex: Int? = nil,
        store: SelectionStore,
        onError: (@Sendable (any Error) -> Void)? = nil
    ) {
        storage = Storage(
            name: name, count: count, policy: policy,
            initialIndex: initialIndex ?? (policy == .optional || count == 0 ? nil : 0),
            store: store, onError: onError ?? FailedWrite.report)
    }

    /// The selected index, else the initial one.
    public var wrappedValue: Int? {
        get {
            do {
                let index = try storage.store.selectedIndex(storage.key, slot: storage.slot)
                switch index {
                case SelectionIndexRead.absent: return storage.initialIndex
                case SelectionIndexRead.cleared: return nil
                // Inside the count given here, whatever another writer stored (a list
                // that shrank): a view never indexes past its list.
                case ..<storage.count: return index
                default: return storage.indexPast(index)
                }
            } catch {
                storage.onError(error)
                return storage.initialIndex
            }
        }
        nonmutating set {
            perform {
                try store.define(name, count: count, policy: policy, initialIndex: initialIndex)
                if let newValue {
                    try store.select(newValue, in: name)
                } else {
                    try store.clear(name)
                }
            }
        }
    }

    /// The property itself, for `$index.next()`, `$index.previous()` and `$index.selection`.
    public var projectedValue: SelectedIndex { self }

    /// The stored selection; nil before the first write.
    public var selection: Selection? {
        do {
            return try storage.store.selection(storage.key, slot: storage.slot)
        } catch {
            onError(error)
            return nil
        }
    }

    /// Moves to the next item under the policy.
    public func next() {
        perform {
            try store.define(name, count: count, policy: policy, initialIndex: initialIndex)
            try store.next(name)
        }
    }

    /// Moves to the previous item under the policy.
    public func previous() {
        perform {
            try store.define(name, count: count, policy: policy, initialIndex: initialIndex)
            try store.previous(name)
        }
    }

    /// Runs the writes in one transaction; a failure goes to `onError`.
    private func perform(_ writes: () throws -> Void) {
        do {
            try store.database.transaction { try writes() }
        } catch {
            onError(error)
        }
    }
}
