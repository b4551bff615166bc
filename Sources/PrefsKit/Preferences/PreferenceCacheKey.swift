/// A preference name with its hash computed once, so that a cached read of a typed key
/// does not hash the name again.
@usableFromInline
struct PreferenceCacheKey: Hashable, Sendable {
    let name: String
    private let precomputedHash: Int

    @usableFromInline
    init(_ name: String) {
        self.name = name
        var hasher = Hasher()
        hasher.combine(name)
        precomputedHash = hasher.finalize()
    }

    /// The hash computed once at creation (seeded per process, like every Swift hash).
    var storedHash: Int { precomputedHash }

    @usableFromInline
    static func == (lhs: PreferenceCacheKey, rhs: PreferenceCacheKey) -> Bool {
        // Bytes, not canonical equivalence: the database keeps "é" and "e\u{301}" apart.
        lhs.precomputedHash == rhs.precomputedHash && ExactName.sameBytes(lhs.name, rhs.name)
    }

    @usableFromInline
    func hash(into hasher: inout Hasher) {
        hasher.combine(precomputedHash)
    }

    // Dictionary asks for this directly; answering from the stored hash skips a Hasher
    // round (seeding and finalizing) on every lookup. The per-process seed of
    // Hasher() above already randomizes the value.
    @usableFromInline
    func _rawHashValue(seed: Int) -> Int {
        precomputedHash ^ seed
    }
}
