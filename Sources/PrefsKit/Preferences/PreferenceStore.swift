#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The preferences of one suite of a database: typed, cached, durable and observable.
///
/// Reads come from an in-memory cache after the first; a write is one SQLite commit,
/// durable when the call returns, and visible to this process at once. Commits by other
/// processes (another app instance, the `prefs` command) reach the cache within the
/// database's change-check interval (10 ms by default).
///
/// ```swift
/// extension Prefs.Keys {
///     static let hasViewedWalkthrough = Prefs.Key("hasViewedWalkthrough", default: false)
/// }
/// let store = PreferenceStore(database: database)
/// if !store[.hasViewedWalkthrough] { showWalkthrough() }
/// try store.set(true, for: .hasViewedWalkthrough)
/// ```
public final class PreferenceStore: @unchecked Sendable {
    // Sendable by construction: every mutable thing is reached only under the database lock.

    /// The database the store reads and writes.
    public let database: AppDatabase
    /// The suite (namespace) of this store; `standard` by default.
    public let suite: String
    private let cache: SuiteCache
    /// The database's lock, unretained: the store holds the database, which holds the lock,
    /// so a typed read borrows it instead of retaining and releasing it every time.
    private let lock: Unmanaged<Locked<DatabaseState>>
    /// The identity a key's ``PreferenceCacheSlot`` records for this suite's cache.
    var suiteCacheIdentifier: Int { cache.identifier }
    private let errorHandlerBox: Locked<ErrorHandlerBox>
    /// Why the suite name is refused, checked once: writes throw it, reads find nothing.
    let suiteProblem: PreferenceError?

    /// The name of the default suite.
    public static let standardSuite = "standard"

    /// Creates a store for one suite of a database.
    ///
    /// - Parameters:
    ///   - database: The open database.
    ///   - suite: The namespace, like `UserDefaults(suiteName:)`.
    public init(database: AppDatabase, suite: String = PreferenceStore.standardSuite) {
        self.database = database
        self.suite = suite
        self.cache = database.state.withLock { $0.cache(for: suite) }
        self.lock = .passUnretained(database.state)
        self.errorHandlerBox = Locked(ErrorHandlerBox())
        do {
            try Self.validate(suite: suite)
            suiteProblem = nil
        } catch {
            suiteProblem = error
        }
        if database.watchesForChanges { database.startWatchingForChanges(forObservation: true) }
    }

    /// Receives errors of writes that cannot throw (the `@Preference` setter, the typed
    /// subscript's setter and the UserDefaults-style `set(_:forKey:)`), and the opening error
    /// of ``standard`` when its database cannot be opened. By default ``FailedWrite/report(_:)``
    /// has them: one line on standard error, and a stop at the fault in a debug build run
    /// under a debugger.
    public var errorHandler: @Sendable (Error) -> Void {
        get { errorHandlerBox.withLock { $0.handler } }
        set { errorHandlerBox.withLock { $0.handler = newValue } }
    }

    func report(_ error: Error) {
        errorHandler(error)
    }

    // MARK: - Typed keys

    /// The value of a typed key: the stored value, else a registered default, else a
    /// declared default, else the key's default. Numbers bridge between the numeric types
    /// (an Int key reads a stored 2.0); another value of another type reads as the key's
    /// default, and is left as it is (``checkedValue(for:)`` says so instead).
    ///
    /// Setting stores the value (an Optional set to nil removes the key), as
    /// `Defaults[.key] = value` does; a failed write goes to ``errorHandler``. The throwing
    /// ``set(_:for:)`` reports it to the caller instead.
    @inlinable
    public subscript<Value>(key: Prefs.Key<Value>) -> Value {
        // Inlinable so that the caller's specialization decodes without generic metadata
        // lookups; the cache lookup itself stays in the module.
        get {
            guard let stored = try? value(for: key.cacheKey, slot: key.cacheSlot) else {
                return key.defaultValue
            }
            return key.decode(stored) ?? key.defaultValue
        }
        set {
            setReportingErrors(newValue, for: key)
        }
    }

    /// The value of a typed key as the subscript reads it, or an error where the subscript
    /// reads the key's default in silence: a stored value of a type the key does not read
    /// (written by an older version of the app, another app, or `prefs set --type`).
    /// ```swift
    /// do { _ = try store.checkedValue(for: .hasViewedWalkthrough) }
    /// catch PreferenceError.storedTypeMismatch(let key, let stored) { ... }
    /// ```
    ///
    /// - Throws: ``PreferenceError/storedTypeMismatch(key:stored:)`` for such a value,
    ///   ``DatabaseError`` when the read fails.
    public func checkedValue<Value>(for key: Prefs.Key<Value>) throws -> Value {
        guard let stored = try value(for: key.cacheKey, slot: key.cacheSlot) else {
            return key.defaultValue
        }
        guard let value = key.decode(stored) else {
            throw PreferenceError.storedTypeMismatch(key: key.name, stored: stored.type)
        }
        return value
    }

    /// Stores a value of a typed key; an Optional set to nil removes the key.
    ///
    /// A value of another type stored under the key is replaced, as `@AppStorage` replaces
    /// it (the command line's `prefs set` refuses instead); ``checkedValue(for:)`` tells of
    /// such a value before it is replaced.
    ///
    /// - Throws: ``PreferenceError`` for a value that cannot be stored, ``DatabaseError``
    ///   when the write fails (nothing is changed then).
    public func set<Value>(_ value: Value, for key: Prefs.Key<Value>) throws {
        try Self.validate(key: key.name)
        let encoded = key.encode(value)
        try database.write(recordsWrites: true) { state in
            try write(encoded, forKey: key.name, version: key.version, state: state)
        }
    }

    /// Removes the stored value of a typed key, so that it reads as its default again.
    ///
    /// - Throws: ``DatabaseError`` when the write fails.
    public func removeValue<Value>(for key: Prefs.Key<Value>) throws {
        try setValue(nil, forKey: key.name)
    }

    /// The version of the stored value's shape, as the typed key that wrote it named it (see
    /// ``Prefs/Key/version``); nil when nothing is stored or the writer named none.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func storedVersion(forKey key: String) throws -> Int? {
        try database.read { state in
            state.isEmpty ? nil : try state.preferences.valueVersion(suite: suite, key: key)
        }
    }

    /// Whether a value is stored for the key (defaults do not count).
    public func hasStoredValue(forKey key: String) -> Bool {
        (try? storedValue(forKey: key)) != nil
    }

    // MARK: - Untyped values

    /// The stored value of a key, else its default; nil when there is neither.
    ///
    /// Defaults are looked for in this order: the registration domain
    /// (``register(defaults:scope:)``), then the key's declaration (stored by `declare`), then the
    /// default of a typed key of that name once it was read or declared through this store
    /// (so `bool(forKey:)` agrees with `store[.key]`).
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func value(forKey key: String) throws -> PreferenceValue? {
        let name = PreferenceCacheKey(key)
        return try database.state.withLock { state in
            if let stored = try storedValue(for: name, state: state) { return stored }
            return try fallback(forKey: key, state: state, isTyped: false)
        }
    }

    @usableFromInline
    func value(for key: PreferenceCacheKey, slot: PreferenceCacheSlot? = nil) throws
        -> PreferenceValue?
    {
        try lock._withUnsafeGuaranteedRef { lock in
            try lock.withLock { state in
                if let stored = try storedValue(for: key, slot: slot, state: state) {
                    return stored
                }
                return try fallback(forKey: key.name, state: state)
            }
        }
    }

    /// The default of a key without a stored value: registered, else declared.
    /// The default of a key without a stored value: registered, else declared; for an
    /// untyped read, else the default of a typed key of that name read through this store
    /// (a typed read has its own key's default to fall back on).
    func fallback(forKey key: String, state: DatabaseState, isTyped: Bool = true) throws
        -> PreferenceValue?
    {
        let name = ExactName(key)
        if let registered = cache.registered[name] { return registered }
        if let registered = Self.processRegistration.withLock({ $0[name] }) { return registered }
        if let declared = try declaredDefault(forKey: name, state: state) { return declared }
        return isTyped ? nil : cache.keyDefaults[name]
    }

    private func declaredDefault(forKey key: ExactName, state: DatabaseState) throws
        -> PreferenceValue?
    {
        if state.isEmpty { return nil }
        if let declared = cache.declaredDefaults { return declared[key] }
        do {
            var defaults: [ExactName: PreferenceValue] = [:]
            for declaration in try state.preferences.declarations(suite: suite) {
                defaults[ExactName(declaration.key)] = declaration.defaultValue
            }
            // Inside a transaction the declarations may not be committed: not kept then.
            if !state.isWriting && database.cachesValues { cache.declaredDefaults = defaults }
            return defaults[key]
        } catch {
            throw state.engine.translate(error)
        }
    }

    /// The stored value of a key, ignoring registered defaults; nil when absent.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func storedValue(forKey key: String) throws -> PreferenceValue? {
        try database.state.withLock { try storedValue(for: PreferenceCacheKey(key), state: $0) }
    }

    private func storedValue(
        for key: PreferenceCacheKey, slot: PreferenceCacheSlot? = nil, state: DatabaseState
    ) throws -> PreferenceValue? {
        if let slot, !slot.previousNames.isEmpty, !cache.renamedKeys.contains(ExactName(key.name)) {
            adoptPreviousNames(slot.previousNames, for: key.name)
        }
        if let slot, let version = slot.version,
            !cache.versionCheckedKeys.contains(ExactName(key.name))
        {
            upgradeStoredShape(of: key.name, to: version, through: slot, state: state)
        }
        do {
            if state.isWriting || !database.cachesValues {
                // The slot's value is not used here, its observation is: a lookup among
                // 100,000 keys' observations is a few cache misses on every uncached read.
                // The usual case, asked first of the borrowed slot: this cache's.
                if slot?.registerAccess(ifOwnedBy: cache.identifier) != true {
                    if let owned = cache.usableSlot(slot, key: key) {
                        owned.registerAccess()
                    } else {
                        if let slot { cache.registerDefault(of: slot, name: key.name) }
                        cache.observation(for: key)?.access()
                    }
                }
                // Inside a transaction, see its uncommitted writes.
                return state.isEmpty
                    ? nil : try state.preferences.value(suite: suite, key: key.name)
            }
            try state.feed.refreshIfStale()
            // No local copy of cache.values: it would make the store below copy the table.
            // The usual case first: this cache's slot, current.
            if let current = slot?.currentValue(
                ownedBy: cache.identifier, generation: cache.values.generation)
            {
                return current
            }
            let slot = cache.usableSlot(slot, key: key)
            if let slot, slot.generation == cache.values.generation {
                slot.registerAccess()
                return slot.value
            }
            (slot?.observation ?? cache.observation(for: key))?.access()
            let value: PreferenceValue?
            if let cached = cache.values[key] {
                value = cached
            } else {
                if state.isEmpty { return nil }
                value = try state.preferences.value(suite: suite, key: key.name)
                cache.values.store(value, for: key)
            }
            if let slot {
                slot.generation = cache.values.generation
                slot.value = value
            }
            return value
        } catch {
            throw state.engine.translate(error)
        }
    }

    /// The first read of a key with previous names: unless the key has a value, the value of
    /// the first previous name that has one moves to it, in one transaction (the history
    /// records a set and a removal). A failure is reported and tried again on the next read.
    /// Called under the database lock.
    private func adoptPreviousNames(_ previousNames: [String], for name: String) {
        cache.renamedKeys.insert(ExactName(name))
        guard !database.isReadOnly else { return }
        do {
            try database.write { state in
                guard !state.isEmpty, try state.preferences.value(suite: suite, key: name) == nil
                else { return }
                for old in previousNames where !ExactName.sameBytes(old, name) {
                    guard let value = try state.preferences.value(suite: suite, key: old) else {
                        continue
                    }
                    try write(value, forKey: name, state: state)
                    try write(nil, forKey: old, state: state)
                    return
                }
            }
        } catch {
            cache.renamedKeys.remove(ExactName(name))
            report(error)
        }
    }

    /// The first read of a versioned key (after each change of it): a value stored with an
    /// older version of its shape (or none, counted as 0) is upgraded through the key's
    /// migration and stored with the key's version, in one transaction the history records.
    /// A value of the current version or a newer one (a newer app wrote it), or one the
    /// migration cannot read, is left as it is. Called under the database lock.
    private func upgradeStoredShape(
        of name: String, to version: Int, through slot: PreferenceCacheSlot, state: DatabaseState
    ) {
        cache.versionCheckedKeys.insert(ExactName(name))
        do {
            guard !state.isEmpty, try state.preferences.value(suite: suite, key: name) != nil,
                (try state.preferences.valueVersion(suite: suite, key: name) ?? 0) < version,
                !database.isReadOnly
            else { return }
            try database.write { state in
                // Looked at again inside the transaction: another process may have been first.
                guard let stored = try state.preferences.value(suite: suite, key: name),
                    case let storedVersion = try state.preferences.valueVersion(
                        suite: suite, key: name) ?? 0,
                    storedVersion < version,
                    let upgraded = slot.upgrade?(stored, storedVersion)
                else { return }
                try write(upgraded, forKey: name, version: version, state: state)
            }
        } catch {
            cache.versionCheckedKeys.remove(ExactName(name))
            report(error)
        }
    }

    /// Stores a value, or removes the key when the value is nil.
    ///
    /// - Throws: ``PreferenceError`` for an invalid key or value, or a value of another
    ///   type than the key's declaration; ``DatabaseError`` when the write fails.
    public func setValue(_ value: PreferenceValue?, forKey key: String) throws {
        try Self.validate(key: key)
        try database.write(recordsWrites: true) { state in
            try write(value, forKey: key, state: state)
        }
    }

    /// Removes the stored value of a key and forgets every value of it the database keeps,
    /// in one transaction: the key's older changes leave the history, and the newest (this
    /// removal, which observers in other processes read) keeps no value; on a device that
    /// syncs, the losing sides of the key's conflicts go too.
    ///
    /// ``setValue(_:forKey:)`` with nil keeps the history: a removed value stays readable
    /// there (``history(forKey:limit:)``) until newer changes push it out of the history's
    /// limit. In a file, the freed space is overwritten (`secure_delete`) and the write-ahead
    /// log is checkpointed and emptied when no reader holds it. On a PostgreSQL server, the
    /// rows are deleted; the server frees their space at its next `VACUUM`, and a hub's own
    /// history is forgotten only by a `forget` on the hub.
    ///
    /// - Returns: How many changes left the history.
    /// - Throws: ``PreferenceError/invalidKey(_:reason:)``; ``DatabaseError`` when the write fails.
    @discardableResult
    public func forgetValue(forKey key: String) throws -> Int {
        try Self.validate(key: key)
        let dropped = try database.write { state in
            if try state.preferences.value(suite: suite, key: key) != nil {
                try write(nil, forKey: key, state: state)
            }
            return try state.preferences.forgetHistory(suite: suite, key: key)
        }
        try database.overwriteFreedSpace()
        return dropped
    }

    /// Moves the stored value of a key to another name, in one transaction: the history
    /// records it as a set of the new key and a removal of the old one.
    ///
    /// - Parameters:
    ///   - old: The key that holds the value.
    ///   - new: The key that is to hold it.
    ///   - overwriting: Replace a value already stored under the new name; without it, that
    ///     is refused.
    /// - Returns: The value moved.
    /// - Throws: ``PreferenceError/noValue(key:)`` when the old key has no stored value,
    ///   ``PreferenceError/wouldOverwrite(key:)``, ``PreferenceError/typeMismatch(key:declared:given:)``
    ///   when the new key is declared with another type; ``DatabaseError`` when the write fails.
    @discardableResult
    public func renameKey(_ old: String, to new: String, overwriting: Bool = false) throws
        -> PreferenceValue
    {
        try Self.validate(key: old)
        try Self.validate(key: new)
        return try database.write { state in
            guard !state.isEmpty, let value = try state.preferences.value(suite: suite, key: old)
            else {
                throw PreferenceError.noValue(key: old)
            }
            guard old != new else { return value }
            if !overwriting, try state.preferences.value(suite: suite, key: new) != nil {
                throw PreferenceError.wouldOverwrite(key: new)
            }
            try write(value, forKey: new, state: state)
            try write(nil, forKey: old, state: state)
            return value
        }
    }

    /// Stores or removes a value inside the open write transaction, after checking the suite,
    /// the value and the key's declared type; tells the write to the transaction's record of
    /// them when it keeps one.
    func write(
        _ value: PreferenceValue?, forKey key: String, version: Int? = nil, state: DatabaseState
    ) throws {
        let known = state.knownWrites
        let rowsBefore = known == nil ? nil : state.engine.historyRowsAdded
        do {
            if let suiteProblem { throw suiteProblem }
            if let value {
                try value.validateForStorage(key: key)
                try state.preferences.setValueUnlessDeclaredOtherwise(
                    value, suite: suite, key: key, version: version, at: Date())
            } else {
                try state.preferences.removeValue(suite: suite, key: key)
            }
        } catch {
            known?.abandon()
            throw error
        }
        known?.record(
            cache: cache, key: key, value: value, rowsBefore: rowsBefore,
            rowsAfter: known == nil ? nil : state.engine.historyRowsAdded)
    }

    /// Every stored value of the suite, by key.
    ///
    /// A key is its bytes: `"é"` (U+00E9) and `"e\u{301}"` are two keys, which Swift's
    /// `String ==` calls equal. A dictionary keeps one of two such keys; read
    /// ``storedEntries()`` where every key counts (exports, listings).
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func storedValues() throws -> [String: PreferenceValue] {
        var values: [String: PreferenceValue] = [:]
        for entry in try storedEntries() { values[entry.key] = entry.value }
        return values
    }

    /// Every stored value of the suite, in the byte order of the keys, each key once however
    /// many other keys Swift's `String ==` would call equal to it.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func storedEntries() throws -> [(key: String, value: PreferenceValue)] {
        try database.read { state in
            state.isEmpty ? [] : try state.preferences.entries(suite: suite)
        }
    }

    /// Calls `body` with each stored value of the suite, keys in byte order, as they are
    /// read: a suite of any size is listed in constant memory. The database stays locked for
    /// this process until it returns, so `body` should not wait on other threads' use of it.
    ///
    /// - Throws: `body`'s error, or ``DatabaseError`` when the read fails.
    public func forEachStoredEntry(_ body: (_ key: String, _ value: PreferenceValue) throws -> Void)
        throws
    {
        var handedOn = false
        try database.read(retrying: !handedOn) { state in
            if state.isEmpty { return }
            try state.preferences.forEachEntry(suite: suite) { key, value in
                handedOn = true
                try body(key, value)
            }
        }
    }

    /// Removes every stored value of the suite (declarations stay).
    ///
    /// - Returns: How many keys were removed.
    /// - Throws: ``DatabaseError`` when the write fails.
    @discardableResult
    public func removeAll() throws -> Int {
        if let suiteProblem { throw suiteProblem }
        return try database.write { try $0.preferences.removeAll(suite: suite) }
    }

    /// Changes several keys in one atomic transaction: all of them are stored, or, when the
    /// closure throws, none.
    ///
    /// ```swift
    /// try store.transaction { edit in
    ///     try edit.set(true, for: .hasViewedWalkthrough)
    ///     try edit.setValue(.int(0), forKey: "currentPage")
    /// }
    /// ```
    /// - Throws: The closure's error, or ``DatabaseError`` when the commit fails.
    public func transaction<T>(_ body: (PreferenceTransaction) throws -> T) throws -> T {
        try database.write(recordsWrites: true) { state in
            try body(PreferenceTransaction(store: self, state: state))
        }
    }

    /// The names of the suites in the database.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func suites() throws -> [String] {
        try database.read { state in state.isEmpty ? [] : try state.preferences.suites() }
    }

    // MARK: - Registration domain

    /// Where ``register(defaults:scope:)`` puts its fallbacks.
    public enum RegistrationScope: Sendable {
        /// Every store of the process, whatever its suite or database, as UserDefaults'
        /// registration domain is shared by every suite.
        case process
        /// This suite of this database only (a suite-level fallback checked before the
        /// process's).
        case suite
    }

    /// Adds volatile fallbacks read when a key has no stored value, like UserDefaults'
    /// registration domain; they are never written to the file.
    ///
    /// - Parameters:
    ///   - defaults: The values by key; values of unsupported types are ignored.
    ///   - scope: Every store of the process (the default, as UserDefaults), or this suite.
    public func register(defaults: [String: Any], scope: RegistrationScope = .process) {
        var converted: [ExactName: PreferenceValue] = [:]
        for (key, value) in defaults {
            if let preferenceValue = PreferenceValue(any: value) {
                converted[ExactName(key)] = preferenceValue
            }
        }
        switch scope {
        case .process:
            Self.processRegistration.withLock { $0.merge(converted) { $1 } }
        case .suite:
            database.state.withLock { _ in cache.registered.merge(converted) { $1 } }
        }
    }

    /// The registered defaults this store reads: the process's, overlaid by the suite's.
    public var registeredDefaults: [String: PreferenceValue] {
        let process = Self.processRegistration.withLock { $0 }
        let suite = database.state.withLock { _ in cache.registered }
        var result: [String: PreferenceValue] = [:]
        for (name, value) in process.merging(suite, uniquingKeysWith: { $1 }) {
            result[name.string] = value
        }
        return result
    }

    // MARK: - Declarations and history

    /// Stores the declaration of a key: its type, default and description.
    ///
    /// - Throws: ``PreferenceError/typeMismatch(key:declared:given:)`` when the default has
    ///   another type; ``DatabaseError`` when the write fails.
    public func declare(_ declaration: PreferenceDeclaration) throws {
        if let suiteProblem { throw suiteProblem }
        try Self.validate(key: declaration.key)
        if let defaultValue = declaration.defaultValue, defaultValue.type != declaration.type {
            throw PreferenceError.typeMismatch(
                key: declaration.key, declared: declaration.type, given: defaultValue.type)
        }
        try database.write { try $0.preferences.declare(declaration, suite: suite) }
    }

    /// Declares typed keys, with their defaults and summaries.
    ///
    /// - Throws: ``DatabaseError`` when the write fails.
    public func declare<Value>(_ key: Prefs.Key<Value>) throws {
        try declare(key.declaration)
        database.state.withLock { _ in cache.registerDefault(of: key.cacheSlot, name: key.name) }
    }

    /// The declared keys of the suite, by name.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func declarations() throws -> [PreferenceDeclaration] {
        try database.read { state in
            state.isEmpty ? [] : try state.preferences.declarations(suite: suite)
        }
    }

    /// The changes of the suite, or of one key, newest first.
    ///
    /// - Parameters:
    ///   - key: One key, or nil for the whole suite.
    ///   - limit: The most changes to return.
    /// - Throws: ``DatabaseError`` when the read fails.
    public func history(forKey key: String? = nil, limit: Int = 100) throws -> [PreferenceChange] {
        try database.read { state in
            state.isEmpty
                ? [] : try state.preferences.history(suite: suite, key: key, limit: limit)
        }
    }

    /// How many changes the history keeps (all suites together); 10,000 by default.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func historyLimit() throws -> Int {
        try database.read { state in try state.preferences.historyLimit() }
    }

    /// Sets how many changes the history keeps and drops the older ones.
    ///
    /// - Parameter limit: at least 1: the newest entry is how other connections, and this
    ///   store's cache, learn of a change.
    /// - Throws: ``PreferenceError/invalidValue(key:reason:)`` for a limit below 1,
    ///   ``DatabaseError`` when the write fails.
    public func setHistoryLimit(_ limit: Int) throws {
        guard limit >= 1 else {
            throw PreferenceError.invalidValue(
                key: "history limit",
                reason:
                    "\(limit) is below 1; the newest change is always kept, as other processes learn of changes through it"
            )
        }
        try database.write { try $0.preferences.setHistoryLimit(limit) }
    }
}

private final class ErrorHandlerBox {
    // Writes that cannot throw, and the opening of the standard store, end up here.
    var handler: @Sendable (Error) -> Void = FailedWrite.report
}
