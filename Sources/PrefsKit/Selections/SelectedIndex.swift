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
/// something is selected). Setting selects (nil clears an optional selection); the policy
/// keeps the stored index valid. A setter cannot throw: an index out of range, a read-only
/// file or a full disk goes to `onError` (by default one line on standard error) and the
/// property keeps reading what the file holds. Inside an `@Observable` class, mark it
/// `@ObservationIgnored`: each read registers with Swift's Observation for the selection,
/// so a view that read it refreshes when it changes, in this process or another.
@propertyWrapper
public struct SelectedIndex: Sendable {
    /// The selection's name.
    public let name: String
    /// How many items the list has; the selection is defined with it on first write.
    public let count: Int
    /// How the index behaves at the ends.
    public let policy: SelectionPolicy
    /// The index read before anything was selected.
    public let initialIndex: Int?
    /// The store the selection lives in.
    public let store: SelectionStore
    /// Told of a write that failed.
    public let onError: @Sendable (any Error) -> Void

    /// Creates a property for a named selection.
    ///
    /// - Parameters:
    ///   - name: The selection's name.
    ///   - count: How many items the list has.
    ///   - policy: Clamp (a carousel), wrap (a pager) or optional (a list).
    ///   - initialIndex: The index before anything is selected (default: 0, or nil for an
    ///     optional selection).
    ///   - store: The selection store.
    ///   - onError: Told of a failed write (default: one line on standard error).
    public init(
        _ name: String, count: Int, policy: SelectionPolicy, initialIndex: Int? = nil,
        store: SelectionStore,
        onError: (@Sendable (any Error) -> Void)? = nil
    ) {
        self.name = name
        self.count = count
        self.policy = policy
        self.initialIndex = initialIndex ?? (policy == .optional || count == 0 ? nil : 0)
        self.store = store
        self.onError = onError ?? { standardErrorWrite("prefs: \($0)\n") }
    }

    /// The selected index, else the initial one.
    public var wrappedValue: Int? {
        get { selection?.index ?? (selection == nil ? initialIndex : nil) }
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
            return try store.selection(named: name)
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
