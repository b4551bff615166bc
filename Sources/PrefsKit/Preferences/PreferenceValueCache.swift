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
