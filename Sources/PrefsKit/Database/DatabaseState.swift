import FoundationEssentials
import Synchronization
internal import SQLiteCore

/// What the database lock guards: the connection, the repositories, the preference caches
/// and the observers. Only ``AppDatabase`` creates it, and only under its lock is it used.
final class DatabaseState {
    let connection: Connection
    let preferences: SQLitePreferenceRepository
    let selections: SQLiteSelectionRepository
    let bookmarks: SQLiteBookmarkRepository
    /// True for a read-only file that has no schema yet: every read finds nothing.
    let isEmpty: Bool
    private var suiteCaches: [String: SuiteCache] = [:]
    private var lastDataVersion: Int64
    @exclusivity(unchecked) private var lastCheck: UInt64
    private let checkInterval: UInt64
    private var lastChangeID: Int64
    private var observers: [Int: PreferenceObserver] = [:]
    /// For each suite watched by a suite-wide observer, its values as the observers last
    /// heard of them. When history rows were pruned before they were read (a gap), the
    /// difference between this and the table is what the observers missed.
    private var observedSuites: [String: [String: PreferenceValue]] = [:]
    private var nextObserverID = 0
    var isPolling = false
    /// Whether a write transaction of ours is open (cheaper to ask than SQLite).
    @exclusivity(unchecked) var isWriting = false

    init(connection: Connection, checkInterval: UInt64, isEmpty: Bool) throws {
        self.connection = connection
        self.preferences = SQLitePreferenceRepository(connection: connection)
        self.selections = SQLiteSelectionRepository(connection: connection)
        self.bookmarks = SQLiteBookmarkRepository(connection: connection)
        self.isEmpty = isEmpty
        self.checkInterval = checkInterval
        lastDataVersion = try connection.dataVersion()
        lastCheck = coarseMonotonicNanoseconds()
        lastChangeID = isEmpty ? 0 : try preferences.latestChangeID()
    }

    /// The cache of one suite, created on first use.
    func cache(for suite: String) -> SuiteCache {
        if let cache = suiteCaches[suite] { return cache }
        let cache = SuiteCache()
        suiteCaches[suite] = cache
        return cache
    }

    /// Checks, at most once per interval, whether another connection committed; if so,
    /// applies the new history rows to the caches and tells observers.
    @inline(__always)
    func refreshIfStale() throws {
        let now = coarseMonotonicNanoseconds()
        guard now &- lastCheck >= checkInterval else { return }
        lastCheck = now
        try refresh()
    }

    /// Checks now whether another connection committed.
    func refresh() throws {
        guard !isEmpty, !connection.isInTransaction else { return }
        let version = try connection.dataVersion()
        guard version != lastDataVersion else { return }
        lastDataVersion = version
        try catchUp()
    }

    /// Called after this connection committed: its changes (and any other process's since
    /// the last look) reach the caches and observers.
    func didCommit() {
        do {
            lastDataVersion = try connection.dataVersion()
            try catchUp()
        } catch {
            forgetCaches()
        }
    }

    /// Called after a rollback; caches change only on commit, so nothing is undone.
    func didRollBack() {}

    private func forgetCaches() {
        for cache in suiteCaches.values { cache.values.removeAll() }
    }

    /// Reads history rows newer than the last seen one; a gap (rows pruned by the history
    /// limit before we saw them) empties the caches and resynchronizes the observers: key
    /// observers get the key's current value, suite observers one change per key that
    /// differs from what they last heard.
    private func catchUp() throws {
        let changes: [PreferenceChange]
        do {
            changes = try preferences.changes(after: lastChangeID)
        } catch {
            forgetCaches()
            throw error
        }
        guard let first = changes.first, let last = changes.last else { return }
        let hasGap = first.id != lastChangeID + 1
        lastChangeID = last.id
        if hasGap {
            forgetCaches()
        } else {
            for change in changes {
                suiteCaches[change.suite]?.values.store(change.value, for: PreferenceCacheKey(change.key))
            }
        }
        guard !observers.isEmpty else { return }
        let missed = hasGap ? resynchronizeObservedSuites(at: last) : [:]
        if !hasGap {
            for change in changes where observedSuites[change.suite] != nil {
                observedSuites[change.suite]?[change.key] = change.value
            }
        }
        for observer in observers.values {
            if hasGap, let key = observer.key {
                let current = try? preferences.value(suite: observer.suite, key: key)
                observer.deliver(
                    PreferenceChange(
                        id: last.id, suite: observer.suite, key: key, value: current,
                        oldValue: nil, changedAt: last.changedAt))
            } else if hasGap {
                for change in missed[observer.suite] ?? [] { observer.deliver(change) }
            } else {
                for change in changes where observer.matches(change) { observer.deliver(change) }
            }
        }
    }

    /// After a gap: the changes that turn each observed suite's last-heard values into its
    /// current ones (sorted by key), dated like the newest history row.
    private func resynchronizeObservedSuites(at newest: PreferenceChange) -> [String: [PreferenceChange]] {
        var missed: [String: [PreferenceChange]] = [:]
        for (suite, heard) in observedSuites {
            guard let current = try? preferences.values(suite: suite) else { continue }
            var changes: [PreferenceChange] = []
            for key in Set(heard.keys).union(current.keys).sorted() where heard[key] != current[key] {
                changes.append(
                    PreferenceChange(
                        id: newest.id, suite: suite, key: key, value: current[key],
                        oldValue: heard[key], changedAt: newest.changedAt))
            }
            missed[suite] = changes
            observedSuites[suite] = current
        }
        return missed
    }

    // MARK: - Observers

    func addObserver(_ observer: PreferenceObserver) -> Int {
        if observer.key == nil, observedSuites[observer.suite] == nil {
            // Catch up first, so that what the observer hears next starts from this picture.
            try? refresh()
            observedSuites[observer.suite] = isEmpty ? [:] : (try? preferences.values(suite: observer.suite)) ?? [:]
        }
        nextObserverID += 1
        observers[nextObserverID] = observer
        return nextObserverID
    }

    func removeObserver(_ id: Int) {
        guard let removed = observers.removeValue(forKey: id), removed.key == nil else { return }
        if !observers.values.contains(where: { $0.key == nil && $0.suite == removed.suite }) {
            observedSuites[removed.suite] = nil
        }
    }

    var hasObservers: Bool { !observers.isEmpty }
}

/// The cached values and registered defaults of one suite.
final class SuiteCache {
    private static let identifiers = Atomic<Int>(0)
    /// Unique in the process (never reused, unlike an object's address): what a
    /// ``PreferenceCacheSlot`` records as its owner.
    let identifier = SuiteCache.identifiers.wrappingAdd(1, ordering: .relaxed).newValue

    // Only ever touched under the database lock, so the runtime's exclusivity checks on
    // every cached read would guard nothing.
    /// Values read or written; `.some(nil)` records that the key is absent.
    @exclusivity(unchecked) var values = PreferenceValueCache()
    /// The volatile registration domain (`register(defaults:)`).
    @exclusivity(unchecked) var registered: [String: PreferenceValue] = [:]
    /// The key slots this cache claimed, given back when it goes away. An app that makes a
    /// key object per read must not pile up slots here, so the slots of keys that are gone
    /// (held by this list alone) are dropped whenever the list doubles. (Not weak references:
    /// they would move every retain of a slot, on every cached read, to the runtime's slow
    /// side-table path.)
    private var claimedSlots: [PreferenceCacheSlot] = []
    /// When `claimedSlots` reaches this size, the slots of keys gone since are dropped.
    private var compactionThreshold = 64

    /// How many claimed slots are remembered (live or not yet compacted away).
    var claimedSlotCount: Int { claimedSlots.count }

    /// The key's slot when this cache owns it or could claim it now, else nil.
    func usableSlot(_ slot: PreferenceCacheSlot?) -> PreferenceCacheSlot? {
        guard let slot else { return nil }
        switch slot.claim(for: identifier) {
        case .alreadyOwned: return slot
        case .newlyClaimed:
            if claimedSlots.count >= compactionThreshold { dropSlotsOfKeysGone() }
            claimedSlots.append(slot)
            return slot
        case .ownedByAnother: return nil
        }
    }

    private func dropSlotsOfKeysGone() {
        var kept: [PreferenceCacheSlot] = []
        kept.reserveCapacity(claimedSlots.count)
        for index in claimedSlots.indices where !isKnownUniquelyReferenced(&claimedSlots[index]) {
            kept.append(claimedSlots[index])
        }
        claimedSlots = kept
        compactionThreshold = max(64, kept.count * 2)
    }

    deinit {
        for slot in claimedSlots { slot.release(from: identifier) }
    }
}

/// Someone waiting for changes of a suite, or of one key of it.
struct PreferenceObserver {
    let suite: String
    let key: String?
    let deliver: @Sendable (PreferenceChange) -> Void

    func matches(_ change: PreferenceChange) -> Bool {
        change.suite == suite && (key == nil || change.key == key)
    }
}
