#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The selected index of one pager or list, always valid for its count and policy.
///
/// The operations are pure: each returns the next state, which ``SelectionStore`` saves.
public struct Selection: Sendable, Hashable {
    /// The selection's name, such as `carousel`.
    public let name: String
    /// The selected index, in `0..<count`; nil only for an optional selection or an empty
    /// list.
    public private(set) var index: Int?
    /// How many items the list has.
    public private(set) var count: Int
    /// How the index behaves at the ends and when the count changes.
    public let policy: SelectionPolicy
    /// The identifier of the selected item, when the app recorded it.
    public private(set) var itemID: String?
    /// When the selection last changed.
    public var updatedAt: Date

    /// Creates a selection.
    ///
    /// - Parameters:
    ///   - name: The selection's name, such as `carousel`.
    ///   - count: How many items there are to select from.
    ///   - policy: What happens at the ends, and whether nothing may be selected.
    ///   - index: The initial index; nil selects nothing (optional) or the first item
    ///     (clamp and wrap).
    ///   - itemID: The ID of the selected item, so that the index can follow it.
    ///   - updatedAt: When the selection last changed.
    /// - Throws: ``SelectionError`` when the index is out of range or the count negative.
    public init(
        name: String, count: Int, policy: SelectionPolicy, index: Int? = nil,
        itemID: String? = nil, updatedAt: Date = Date()
    ) throws(SelectionError) {
        guard !name.isEmpty else { throw .invalid("A selection name cannot be empty") }
        guard count >= 0 else {
            throw .invalid("The count of '\(name)' cannot be negative (\(count))")
        }
        self.name = name
        self.count = count
        self.policy = policy
        self.updatedAt = updatedAt
        if let index {
            guard (0..<count).contains(index) else {
                throw .indexOutOfRange(name: name, index: index, count: count)
            }
            self.index = index
            self.itemID = itemID
        } else {
            self.index = policy == .optional || count == 0 ? nil : 0
        }
    }

    /// Restores a stored selection without checks; the table's constraints hold it valid.
    package init(
        stored name: String, index: Int?, count: Int, policy: SelectionPolicy, itemID: String?,
        updatedAt: Date
    ) {
        self.name = name
        self.index = index
        self.count = count
        self.policy = policy
        self.itemID = itemID
        self.updatedAt = updatedAt
    }

    /// Selects an index; out of range is an error, never a silent clamp.
    ///
    /// - Throws: ``SelectionError/indexOutOfRange(name:index:count:)``.
    public func selecting(_ index: Int, itemID: String? = nil) throws(SelectionError) -> Selection {
        guard (0..<count).contains(index) else {
            throw .indexOutOfRange(name: name, index: index, count: count)
        }
        var copy = self
        copy.index = index
        copy.itemID = itemID
        return copy
    }

    /// The next item: clamp stays at the end, wrap goes to the first, optional starts at the
    /// first when nothing is selected.
    public func next() -> Selection { moved(by: 1) }

    /// The previous item: clamp stays at the start, wrap goes to the last, optional starts
    /// at the last when nothing is selected.
    public func previous() -> Selection { moved(by: -1) }

    /// Moves by a number of items under the policy.
    public func moved(by offset: Int) -> Selection {
        guard count > 0 else { return self }
        var copy = self
        copy.itemID = nil
        guard let index else {
            copy.index = offset >= 0 ? 0 : count - 1
            return copy
        }
        switch policy {
        case .clamp, .optional:
            let target = index.addingReportingOverflow(offset)
            copy.index =
                target.overflow
                ? (offset > 0 ? count - 1 : 0) : min(max(target.partialValue, 0), count - 1)
        case .wrap:
            let step = offset % count
            copy.index = ((index + step) % count + count) % count
        }
        return copy
    }

    /// Selects nothing.
    ///
    /// - Throws: ``SelectionError/cannotClear(name:policy:)`` unless the policy is optional.
    public func cleared() throws(SelectionError) -> Selection {
        guard policy == .optional else { throw .cannotClear(name: name, policy: policy) }
        var copy = self
        copy.index = nil
        copy.itemID = nil
        return copy
    }

    /// Changes the count and re-validates the index by the policy: clamp to the new end,
    /// wrap modulo the count, optional to nil when past the end; an empty list selects
    /// nothing, and a list that stops being empty selects its first item (clamp, wrap).
    ///
    /// - Throws: ``SelectionError/invalid(_:)`` for a negative count.
    public func withCount(_ newCount: Int) throws(SelectionError) -> Selection {
        guard newCount >= 0 else {
            throw .invalid("The count of '\(name)' cannot be negative (\(newCount))")
        }
        var copy = self
        copy.count = newCount
        guard newCount > 0 else {
            copy.index = nil
            copy.itemID = nil
            return copy
        }
        guard let index else {
            copy.index = policy == .optional ? nil : 0
            return copy
        }
        guard index >= newCount else { return copy }
        switch policy {
        case .clamp: copy.index = newCount - 1
        case .wrap: copy.index = index % newCount
        case .optional: copy.index = nil
        }
        copy.itemID = nil
        return copy
    }

    /// Follows the selected item through a new list of identifiers: when the recorded item
    /// is still there the index moves with it; when it is gone, the policy applies to the
    /// new count. The count becomes the list's length.
    public func following(itemIDs: [String]) -> Selection {
        // By bytes: an identifier Swift calls equal to the recorded one is another item.
        if let itemID,
            let position = itemIDs.firstIndex(where: { ExactName.sameBytes($0, itemID) })
        {
            var copy = self
            copy.count = itemIDs.count
            copy.index = position
            return copy
        }
        let hadItem = itemID != nil
        // The count is never negative here, so withCount cannot fail.
        guard var copy = try? withCount(itemIDs.count) else { return self }
        if hadItem && policy == .optional {
            copy.index = nil
        }
        if let index = copy.index, itemIDs.indices.contains(index) {
            copy.itemID = hadItem ? itemIDs[index] : nil
        } else {
            copy.itemID = nil
        }
        return copy
    }
}
