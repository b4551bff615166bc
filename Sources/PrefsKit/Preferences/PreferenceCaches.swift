/// The preference caches of a database, one per suite.
final class PreferenceCaches {
    // Used under the database's lock only: no runtime check of each access.
    @exclusivity(unchecked) private var suites: [ExactName: SuiteCache] = [:]
    /// Whether the suites' reads are registered with Swift's Observation.
    private let tracksReads: Bool

    init(tracksReads: Bool) {
        self.tracksReads = tracksReads
    }

    /// The cache of one suite, created on first use.
    func cache(for suite: String) -> SuiteCache {
        let name = ExactName(suite)
        if let cache = suites[name] { return cache }
        let cache = SuiteCache(tracksReads: tracksReads)
        suites[name] = cache
        return cache
    }

    /// Records committed changes in the caches of their suites.
    ///
    /// - Returns: The observations of the keys that changed (in suites whose keys were
    ///   read), found in the same look at each suite.
    @discardableResult
    func apply(_ changes: [PreferenceChange]) -> [KeyObservation] {
        var found: [KeyObservation] = []
        for change in changes {
            found += apply(value: change.value, suite: change.suite, key: change.key)
        }
        return found
    }

    /// Puts the value a key holds now in its suite's cache (nil: none stored), and returns
    /// the key's observation when it has one.
    func apply(value: PreferenceValue?, suite: String, key: String) -> [KeyObservation] {
        guard let cache = suites[ExactName(suite)] else { return [] }
        return Self.apply(value: value, to: cache, key: key).map { [$0] } ?? []
    }

    /// Puts the value a key holds now in a suite's cache, one a store holds (found without
    /// a lookup of its suite), and returns the key's observation when it has one.
    static func apply(value: PreferenceValue?, to cache: SuiteCache, key: String)
        -> KeyObservation?
    {
        let name = PreferenceCacheKey(key)
        cache.values.store(value, for: name)
        // Another writer may have stored an older shape: look again at the next read.
        if !cache.versionCheckedKeys.isEmpty {
            cache.versionCheckedKeys.remove(ExactName(key))
        }
        return cache.observations[name]
    }

    /// The observations of every key read, in every suite.
    func allObservations() -> [KeyObservation] {
        suites.values.flatMap { $0.observations.values }
    }

    /// Forgets the declared defaults, to be read again when next needed.
    func forgetDeclaredDefaults() {
        for cache in suites.values { cache.declaredDefaults = nil }
    }

    /// Forgets every cached value (registered defaults stay): the next reads go to storage.
    func forgetValues() {
        for cache in suites.values {
            cache.values.removeAll()
            cache.versionCheckedKeys.removeAll()
        }
    }
}
