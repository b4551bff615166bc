#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Storage of preferences, their declarations and their history.
///
/// The store (``PreferenceStore``) adds caching, typed keys and observation on top of a
/// repository; the repository only reads and writes rows. Calls must be made with the
/// database's lock held (the store does this), and writes inside a transaction.
///
/// History is part of the contract, however an engine keeps it (the SQLite engine with
/// triggers): every write that changes what a key holds (`setValue` with a new value or
/// type, `removeValue` and `removeAll` of a present key) adds one change, in the same
/// transaction, with the value before and after; a write that stores what was already there
/// adds none. Change ids grow with every change of the database, across suites, and are
/// never reused. After each change the history keeps the newest `historyLimit()` changes
/// and at least the newest one: other connections learn of commits from it
/// (``changes(after:)``), and a gap in the ids tells them they missed some.
package protocol PreferenceRepository: AnyObject {
    /// The stored value of a key, nil when absent.
    func value(suite: String, key: String) throws -> PreferenceValue?
    /// Stores a value, with the version of its shape (nil when the writer named none).
    func setValue(
        _ value: PreferenceValue, suite: String, key: String, version: Int?, at date: Date
    ) throws
    /// The version of the stored value's shape, nil when none was named (or nothing is stored).
    func valueVersion(suite: String, key: String) throws -> Int?
    /// Removes a key; returns whether it was present.
    @discardableResult
    func removeValue(suite: String, key: String) throws -> Bool
    /// Removes every key of a suite; returns how many there were.
    @discardableResult
    func removeAll(suite: String) throws -> Int
    /// Every stored value of a suite, in the byte order of the keys (names are bytes: two
    /// spellings of one text are two keys).
    func entries(suite: String) throws -> [(key: String, value: PreferenceValue)]
    /// Calls `body` with each stored entry of the suite in byte order of the keys, as they
    /// are read: the suite is never held whole in memory.
    func forEachEntry(suite: String, _ body: (String, PreferenceValue) throws -> Void) throws
    /// The names of suites that hold values or declarations.
    func suites() throws -> [String]
    /// Stores a declaration, replacing an earlier one of the same key.
    func declare(_ declaration: PreferenceDeclaration, suite: String) throws
    /// The declared type of a key, nil when it is not declared.
    func declaredType(suite: String, key: String) throws -> PreferenceType?
    /// The declarations of a suite.
    func declarations(suite: String) throws -> [PreferenceDeclaration]
    /// The newest changes first, of one key or of the whole suite.
    func history(suite: String, key: String?, limit: Int) throws -> [PreferenceChange]
    /// Changes of all suites with an id above the given one, oldest first.
    func changes(after id: Int64) throws -> [PreferenceChange]
    /// The id of the newest change, 0 when there is none.
    func latestChangeID() throws -> Int64
    /// How many changes the history keeps.
    func historyLimit() throws -> Int
    /// Stores a value unless the key is declared with another type: then stores nothing
    /// and throws ``PreferenceError/typeMismatch(key:declared:given:)``. One statement where
    /// the engine can; a server engine may send it with the commit (no round trip of its
    /// own), and throw then.
    func setValueUnlessDeclaredOtherwise(
        _ value: PreferenceValue, suite: String, key: String, version: Int?, at date: Date
    ) throws
    /// Sets how many changes the history keeps and drops older ones.
    func setHistoryLimit(_ limit: Int) throws
    /// The value as a read of this engine gives back what a set of `value` stored (a
    /// property list's bytes decoded again, a URL read from its text): what the caches
    /// hold for a write whose history row was not read. Nil only where that read would
    /// fail, which a stored value never does.
    func storedForm(of value: PreferenceValue) -> PreferenceValue?
    /// Drops every value of a key the history keeps: its changes but the newest, and the
    /// values of that one (the removal, which observers read). Returns the changes dropped.
    func forgetHistory(suite: String, key: String) throws -> Int
}

extension PreferenceRepository {
    /// The declared type read first, then the value stored: two statements, which cost a
    /// local file nothing to speak of.
    func setValueUnlessDeclaredOtherwise(
        _ value: PreferenceValue, suite: String, key: String, version: Int?, at date: Date
    ) throws {
        if let declared = try declaredType(suite: suite, key: key), declared != value.type {
            throw PreferenceError.typeMismatch(key: key, declared: declared, given: value.type)
        }
        try setValue(value, suite: suite, key: key, version: version, at: date)
    }
}
