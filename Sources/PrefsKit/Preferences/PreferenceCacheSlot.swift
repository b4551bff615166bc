import Synchronization

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
    // What every read checks comes next: fields are laid out as declared, and a read among
    // 100,000 keys should touch as few cache lines as it can.

    /// The key's previous names, whose values move to it on first use in each suite.
    let previousNames: [String]

    /// The version of the key's value shape, nil for an unversioned key.
    let version: Int?

    // Touched only by the owning cache, under its database's lock (or in its deinit).
    @exclusivity(unchecked) var generation = -1
    @exclusivity(unchecked) var value: PreferenceValue?
    /// The owning cache's observation of the key, so that a read through the slot registers
    /// with Swift's Observation without a lookup. Unowned: the cache keeps it, and empties
    /// the slot before it lets go (a strong reference would cost a retain on every read).
    @exclusivity(unchecked) private var observationReference: Unmanaged<KeyObservation>?

    var observation: KeyObservation? {
        get { observationReference?.takeUnretainedValue() }
        set { observationReference = newValue.map { Unmanaged.passUnretained($0) } }
    }

    /// Registers a read of the key with Swift's Observation (see ``KeyObservation``),
    /// without retaining the observation.
    @inline(__always)
    func registerAccess() {
        observationReference?._withUnsafeGuaranteedRef { $0.access() }
    }

    /// Registers a read as ``registerAccess()`` does, when the cache with this identifier
    /// owns the slot (the usual case, asked of a borrowed slot: no retain).
    ///
    /// - Returns: Whether that cache owns it.
    @inline(__always)
    func registerAccess(ifOwnedBy identifier: Int) -> Bool {
        guard ownerIdentifier == identifier else { return false }
        registerAccess()
        return true
    }

    /// The cached value, with the read registered, when the cache with this identifier owns
    /// the slot and the value is of this generation of the cache's values (the usual cached
    /// read, asked of a borrowed slot: no retain); nil otherwise.
    @inline(__always)
    func currentValue(ownedBy identifier: Int, generation: Int) -> PreferenceValue?? {
        guard ownerIdentifier == identifier, self.generation == generation else { return nil }
        registerAccess()
        return .some(value)
    }

    /// The key's default as stored, registered in each suite the key is read through so that
    /// the untyped getters (`bool(forKey:)`...) read it too; nil for an Optional key.
    let defaultValue: PreferenceValue?

    /// Turns a stored value of an older shape (and its version) into the current shape; nil
    /// when it cannot.
    let upgrade: (@Sendable (PreferenceValue, Int) -> PreferenceValue?)?

    init(
        defaultValue: PreferenceValue?, previousNames: [String] = [], version: Int? = nil,
        upgrade: (@Sendable (PreferenceValue, Int) -> PreferenceValue?)? = nil
    ) {
        self.defaultValue = defaultValue
        self.previousNames = previousNames
        self.version = version
        self.upgrade = upgrade
    }

    /// The identifier of the owning cache, 0 when none.
    var ownerIdentifier: Int { owner.load(ordering: .acquiring) }

    /// Whether the cache with this identifier owns the slot, claiming it when unclaimed.
    func claim(for identifier: Int) -> Claim {
        let current = owner.load(ordering: .acquiring)
        if current == identifier { return .alreadyOwned }
        guard current == 0 else { return .ownedByAnother }
        let claimed = owner.compareExchange(
            expected: 0, desired: identifier, ordering: .acquiringAndReleasing
        ).exchanged
        return claimed ? .newlyClaimed : .ownedByAnother
    }

    /// Gives the slot up, emptied, so that another cache can claim it.
    func release(from identifier: Int) {
        generation = -1
        value = nil
        observation = nil
        _ = owner.compareExchange(expected: identifier, desired: 0, ordering: .releasing)
    }
}
