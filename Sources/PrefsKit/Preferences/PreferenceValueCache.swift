import Synchronization

/// The cached values of one suite: an open-addressing hash table whose entries hold the
/// key's hash, its name and its value side by side.
///
/// A cached read is memory-bound once the suite outgrows the CPU caches: `Dictionary`
/// keeps its occupancy bitmap, keys and values in three separate arrays, so one lookup
/// touches three unrelated cache lines, while a lookup here reads one entry. Entries are
/// never removed one by one (the store only adds, updates or forgets everything), so
/// linear probing needs no tombstones.
struct PreferenceValueCache {
    private struct Entry {
        var key: PreferenceCacheKey
        /// nil records that the key has no stored value.
        var value: PreferenceValue?
    }

    private var entries: ContiguousArray<Entry?>
    private(set) var count = 0
    /// Changes whenever a cached value changes or is forgotten (not when a key is added):
    /// a ``PreferenceCacheSlot`` filled at the same generation still holds the right value.
    private(set) var generation = 0

    init() {
        entries = ContiguousArray(repeating: nil, count: 16)
    }

    /// `.some(nil)` when the key is known to be absent, nil when nothing is cached.
    subscript(key: PreferenceCacheKey) -> PreferenceValue?? {
        let mask = entries.count - 1
        var index = key.storedHash & mask
        while let entry = entries[index] {
            if entry.key == key { return .some(entry.value) }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Records a key's value (nil: known to be absent).
    mutating func store(_ value: PreferenceValue?, for key: PreferenceCacheKey) {
        // Keep at most three entries in four slots in use, so that probe runs stay short.
        if (count + 1) * 4 > entries.count * 3 { grow() }
        let mask = entries.count - 1
        var index = key.storedHash & mask
        while let entry = entries[index] {
            if entry.key == key {
                entries[index]?.value = value
                generation &+= 1
                return
            }
            index = (index + 1) & mask
        }
        entries[index] = Entry(key: key, value: value)
        count += 1
    }

    /// Forgets every value, keeping the table's capacity.
    mutating func removeAll() {
        for index in entries.indices { entries[index] = nil }
        count = 0
        generation &+= 1
    }

    private mutating func grow() {
        let old = entries
        entries = ContiguousArray(repeating: nil, count: old.count * 2)
        count = 0
        let kept = generation
        for case let entry? in old { store(entry.value, for: entry.key) }
        generation = kept  // moving entries changes no value
    }
}

/// A typed key's own copy of its cached value.
///
/// Apps read through the same few key objects again and again; keeping the value in the key
/// object spares a cached read the hash table lookup, which in a suite of 100,000 keys is a
/// cache miss (about 200 ns here) while the key object is at hand already. The first suite
/// cache to read through a slot claims it until that cache goes away; it uses the slot only
/// under its database's lock and only while the table's generation has not moved on. Other
/// caches (another suite, another database) read through the table meanwhile.
@usableFromInline
final class PreferenceCacheSlot: @unchecked Sendable {
    enum Claim {
        case alreadyOwned, newlyClaimed, ownedByAnother
    }

    /// The ``SuiteCache/identifier`` of the cache that claimed the slot, 0 while unclaimed.
    private let owner = Atomic<Int>(0)
    // Touched only by the owning cache, under its database's lock (or in its deinit).
    @exclusivity(unchecked) var generation = -1
    @exclusivity(unchecked) var value: PreferenceValue?

    /// The identifier of the owning cache, 0 when none.
    var ownerIdentifier: Int { owner.load(ordering: .acquiring) }

    /// Whether the cache with this identifier owns the slot, claiming it when unclaimed.
    func claim(for identifier: Int) -> Claim {
        let current = owner.load(ordering: .acquiring)
        if current == identifier { return .alreadyOwned }
        guard current == 0 else { return .ownedByAnother }
        let claimed = owner.compareExchange(expected: 0, desired: identifier, ordering: .acquiringAndReleasing).exchanged
        return claimed ? .newlyClaimed : .ownedByAnother
    }

    /// Gives the slot up, emptied, so that another cache can claim it.
    func release(from identifier: Int) {
        generation = -1
        value = nil
        _ = owner.compareExchange(expected: identifier, desired: 0, ordering: .releasing)
    }
}
