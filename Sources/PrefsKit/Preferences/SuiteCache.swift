import Synchronization

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
    /// The defaults of the typed keys read through this suite, below the declared ones:
    /// what `bool(forKey:)` and friends read when nothing else gives a value.
    @exclusivity(unchecked) var keyDefaults: [ExactName: PreferenceValue] = [:]
    /// The typed keys with previous names whose old values this suite already looked for.
    @exclusivity(unchecked) var renamedKeys: Set<ExactName> = []
    /// The versioned typed keys whose stored shape this suite checked since their last
    /// change (see `PreferenceStore.upgradeStoredShape`).
    @exclusivity(unchecked) var versionCheckedKeys: Set<ExactName> = []
    /// The volatile registration domain (`register(defaults:)`).
    @exclusivity(unchecked) var registered: [ExactName: PreferenceValue] = [:]
    /// The defaults of the suite's declarations, read on first need; nil until then, and
    /// again after any commit (a declaration may have changed).
    @exclusivity(unchecked) var declaredDefaults: [ExactName: PreferenceValue]?
    /// The keys read through this suite as Swift's Observation sees them. Never emptied
    /// while the cache lives: a registration must survive a reset of the values.
    @exclusivity(unchecked) private(set) var observations: [PreferenceCacheKey: KeyObservation] =
        [:]
    /// The key slots this cache claimed, given back when it goes away. An app that makes a
    /// key object per read must not pile up slots here, so the slots of keys that are gone
    /// (held by this list alone) are dropped whenever the list doubles. (Not weak references:
    /// they would move every retain of a slot, on every cached read, to the runtime's slow
    /// side-table path.)
    private var claimedSlots: [PreferenceCacheSlot] = []
    /// When `claimedSlots` reaches this size, the slots of keys gone since are dropped.
    private var compactionThreshold = 64

    /// Whether reads are registered with Swift's Observation
    /// (``AppDatabase/Options/tracksReadsForObservation``).
    private let tracksReads: Bool

    /// How many claimed slots are remembered (live or not yet compacted away).
    var claimedSlotCount: Int { claimedSlots.count }

    init(tracksReads: Bool) {
        self.tracksReads = tracksReads
    }

    /// The observation of a key, made on first need; nil when reads are not tracked.
    func observation(for key: PreferenceCacheKey) -> KeyObservation? {
        guard tracksReads else { return nil }
        if let observation = observations[key] { return observation }
        let observation = KeyObservation()
        observations[key] = observation
        return observation
    }

    /// The key's slot when this cache owns it or could claim it now, else nil.
    func usableSlot(_ slot: PreferenceCacheSlot?, key: PreferenceCacheKey) -> PreferenceCacheSlot? {
        guard let slot else { return nil }
        switch slot.claim(for: identifier) {
        case .alreadyOwned: return slot
        case .newlyClaimed:
            if claimedSlots.count >= compactionThreshold { dropSlotsOfKeysGone() }
            claimedSlots.append(slot)
            slot.observation = observation(for: key)
            registerDefault(of: slot, name: key.name)
            return slot
        case .ownedByAnother:
            registerDefault(of: slot, name: key.name)
            return nil
        }
    }

    /// Records a typed key's default (once per key name: the first key read wins).
    func registerDefault(of slot: PreferenceCacheSlot, name: String) {
        let exact = ExactName(name)
        if keyDefaults[exact] == nil, let value = slot.defaultValue { keyDefaults[exact] = value }
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
