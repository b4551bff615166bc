#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes made inside ``PreferenceStore/transaction(_:)``; they commit together.
public struct PreferenceTransaction {
    let store: PreferenceStore
    let state: DatabaseState

    /// Stores a value of a typed key.
    ///
    /// - Throws: ``PreferenceError`` for a value that cannot be stored.
    public func set<Value>(_ value: Value, for key: Prefs.Key<Value>) throws {
        try PreferenceStore.validate(key: key.name)
        try store.write(key.encode(value), forKey: key.name, version: key.version, state: state)
    }

    /// Stores a value, or removes the key when nil.
    ///
    /// - Throws: ``PreferenceError`` for an invalid key or value.
    public func setValue(_ value: PreferenceValue?, forKey key: String) throws {
        try PreferenceStore.validate(key: key)
        try store.write(value, forKey: key, state: state)
    }

    /// The value of a key as this transaction sees it (its own writes included).
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func value(forKey key: String) throws -> PreferenceValue? {
        try store.value(forKey: key)
    }

    /// The value of a typed key as this transaction sees it.
    public subscript<Value>(key: Prefs.Key<Value>) -> Value {
        store[key]
    }
}
