#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The named selections of a database: which page of a pager, which card of a carousel,
/// which item of a list.
///
/// Every change is a read-modify-write in one `BEGIN IMMEDIATE` transaction, so concurrent
/// processes never lose an update, and the stored index is always valid.
/// ```swift
/// let selections = SelectionStore(database: database)
/// try selections.define("carousel", count: trips.count, policy: .clamp, initialIndex: 2)
/// let next = try selections.next("carousel")
/// ```
public final class SelectionStore: Sendable {
    /// The database the selections live in.
    public let database: AppDatabase

    /// Creates a store over a database.
    public init(database: AppDatabase) {
        self.database = database
        if database.watchesForChanges { database.startWatchingForChanges(forObservation: true) }
    }

    /// The selection with a name, nil when none was defined.
    ///
    /// The read registers with Swift's Observation: a view (or `withObservationTracking`)
    /// that read it hears of its next change, made here, in a transaction (at its commit)
    /// or by another process.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func selection(named name: String) throws -> Selection? {
        try selection(ReadKey(name))
    }

    /// The index of the selection a key names, as ``SelectionIndexRead`` encodes it (for a
    /// property wrapper, which made the key once).
    func selectedIndex(_ key: ReadKey, slot: StateReadSlot) throws -> Int {
        try database.read { state in
            if let cached = state.feed.states.cachedSelectedIndex(
                slot: slot, canCache: !state.isWriting)
            {
                return cached
            }
            return try state.feed.states.selectedIndex(key, slot: slot, canCache: !state.isWriting)
            {
                state.isEmpty ? nil : try state.selections.selection(named: key.first)
            }
        }
    }

    /// The selection with the name a key holds (made once by a property wrapper).
    func selection(_ key: ReadKey, slot: StateReadSlot? = nil) throws -> Selection? {
        try database.read { state in
            try state.feed.states.selection(key, slot: slot, canCache: !state.isWriting) {
                state.isEmpty ? nil : try state.selections.selection(named: key.first)
            }
        }
    }

    /// Every selection, by name. The read registers with Swift's Observation, as
    /// ``selection(named:)``'s does, for a change of any selection.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func all() throws -> [Selection] {
        try database.read { state in
            let selections = state.isEmpty ? [] : try state.selections.all()
            state.feed.states.observationOfEverySelection(reading: selections)?.access()
            return selections
        }
    }

    /// A write that changes the selection `name`, told to Swift's Observation at its commit.
    private func write<T>(_ name: String, _ body: (DatabaseState) throws -> T) throws -> T {
        try database.write { state in
            state.feed.states.willChange(selection: name)
            return try body(state)
        }
    }

    /// Returns the selection with a name, creating it first when there is none. An existing
    /// selection keeps its index; its count is updated (and the index re-validated).
    ///
    /// - Parameters:
    ///   - name: The selection's name.
    ///   - count: How many items the list has.
    ///   - policy: How the index behaves; an existing selection keeps its own.
    ///   - initialIndex: The index of a new selection (default: the first item, or nil for
    ///     optional).
    /// - Throws: ``SelectionError`` for an invalid count or index, ``DatabaseError``.
    @discardableResult
    public func define(
        _ name: String, count: Int, policy: SelectionPolicy, initialIndex: Int? = nil
    ) throws -> Selection {
        try write(name) { state in
            if let existing = try state.selections.selection(named: name) {
                guard existing.count != count else { return existing }
                var updated = try existing.withCount(count)
                updated.updatedAt = Date()
                try state.selections.save(updated)
                return updated
            }
            let created = try Selection(
                name: name, count: count, policy: policy, index: initialIndex)
            try state.selections.save(created)
            return created
        }
    }

    /// Replaces a selection's count and policy, keeping its index when still valid.
    ///
    /// - Throws: ``SelectionError``, ``DatabaseError``.
    @discardableResult
    public func redefine(_ name: String, count: Int, policy: SelectionPolicy) throws -> Selection {
        try write(name) { state in
            let previous = try state.selections.selection(named: name)
            var selection = try Selection(name: name, count: count, policy: policy)
            if let index = previous?.index, index < count {
                selection = try selection.selecting(index, itemID: previous?.itemID)
            }
            try state.selections.save(selection)
            return selection
        }
    }

    /// Selects an index, recording the item's identifier when given.
    ///
    /// - Throws: ``SelectionError/indexOutOfRange(name:index:count:)`` naming the valid
    ///   range, ``SelectionError/notFound(name:)``, ``DatabaseError``.
    @discardableResult
    public func select(_ index: Int, itemID: String? = nil, in name: String) throws -> Selection {
        try update(name) { try $0.selecting(index, itemID: itemID) }
    }

    /// Moves to the next item under the policy.
    ///
    /// - Throws: ``SelectionError/notFound(name:)``, ``DatabaseError``.
    @discardableResult
    public func next(_ name: String) throws -> Selection {
        try update(name) { $0.next() }
    }

    /// Moves to the previous item under the policy.
    ///
    /// - Throws: ``SelectionError/notFound(name:)``, ``DatabaseError``.
    @discardableResult
    public func previous(_ name: String) throws -> Selection {
        try update(name) { $0.previous() }
    }

    /// Selects nothing (optional selections only).
    ///
    /// - Throws: ``SelectionError/cannotClear(name:policy:)``, ``SelectionError/notFound(name:)``.
    @discardableResult
    public func clear(_ name: String) throws -> Selection {
        try update(name) { try $0.cleared() }
    }

    /// Changes the count; the index is re-validated by the policy.
    ///
    /// - Throws: ``SelectionError``, ``DatabaseError``.
    @discardableResult
    public func setCount(_ count: Int, for name: String) throws -> Selection {
        try update(name) { try $0.withCount(count) }
    }

    /// Hands over the list's current identifiers: the index follows the recorded item.
    ///
    /// - Throws: ``SelectionError/notFound(name:)``, ``DatabaseError``.
    @discardableResult
    public func reconcile(_ name: String, itemIDs: [String]) throws -> Selection {
        try update(name) { $0.following(itemIDs: itemIDs) }
    }

    /// Deletes a selection.
    ///
    /// - Returns: Whether it existed.
    /// - Throws: ``DatabaseError`` when the write fails.
    @discardableResult
    public func remove(_ name: String) throws -> Bool {
        try write(name) { try $0.selections.delete(named: name) }
    }

    private func update(_ name: String, _ change: (Selection) throws -> Selection) throws
        -> Selection
    {
        try write(name) { state in
            guard let current = try state.selections.selection(named: name) else {
                throw SelectionError.notFound(name: name)
            }
            var updated = try change(current)
            guard updated != current else { return current }
            updated.updatedAt = Date()
            try state.selections.save(updated)
            return updated
        }
    }
}
