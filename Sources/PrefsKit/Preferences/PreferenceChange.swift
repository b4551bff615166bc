#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// One change of a preference, from the history or an observation.
public struct PreferenceChange: Sendable, Hashable {
    /// The history row's id; increases with every change.
    public let id: Int64
    /// The suite of the key.
    public let suite: String
    /// The key that changed.
    public let key: String
    /// The new value, nil when the key was removed.
    public let value: PreferenceValue?
    /// The value before, nil when the key was absent.
    public let oldValue: PreferenceValue?
    /// When the change was committed.
    public let changedAt: Date

    /// Creates a change record.
    public init(
        id: Int64, suite: String, key: String, value: PreferenceValue?,
        oldValue: PreferenceValue?, changedAt: Date
    ) {
        self.id = id
        self.suite = suite
        self.key = key
        self.value = value
        self.oldValue = oldValue
        self.changedAt = changedAt
    }
}
