/// What the database lock guards: the engine with its repositories, the preference caches,
/// the change feed and the observers. Only ``AppDatabase`` creates it, and only under its
/// lock is it used.
final class DatabaseState {
    let engine: any StorageEngine
    // The engine's repositories, fetched once: the read path does not ask the engine again.
    let preferences: any PreferenceRepository
    let selections: any SelectionRepository
    let bookmarks: any BookmarkRepository
    /// True for a read-only database that has no schema yet: every read finds nothing.
    let isEmpty: Bool
    let caches: PreferenceCaches
    let observers = ObserverRegistry()
    let feed: ChangeFeed
    /// How other connections' commits are noticed when no read asks.
    var changeDetection = ChangeDetection.notStarted
    /// Whether a task polls the engine for other processes' commits.
    var isPolling = false
    /// Whether a store asked for changes to be noticed for Swift's Observation's sake
    /// (``AppDatabase/Options/watchesForChanges``).
    var isWatchedForObservation = false
    /// Whether a write transaction of ours is open (cheaper to ask than the engine).
    @exclusivity(unchecked) var isWriting = false
    /// Where the open write transaction's preference writes are told, when its caller asked
    /// (``AppDatabase/write(recordsWrites:_:)``).
    @exclusivity(unchecked) var knownWrites: ChangeFeed.KnownWrites?
    /// The record ``knownWrites`` points at while a transaction records, kept from one to
    /// the next with its storage.
    private let writesRecord = ChangeFeed.KnownWrites()

    /// - Parameters:
    ///   - tracksReads: Whether reads are registered with Swift's Observation.
    ///   - cachesReads: Whether selection and bookmark reads are cached between commits.
    init(
        engine: any StorageEngine, checkInterval: UInt64, tracksReads: Bool,
        cachesReads: Bool = true
    ) throws {
        self.engine = engine
        caches = PreferenceCaches(tracksReads: tracksReads)
        preferences = engine.preferences
        selections = engine.selections
        bookmarks = engine.bookmarks
        isEmpty = engine.isEmpty
        feed = try ChangeFeed(
            engine: engine, caches: caches, observers: observers,
            states: StateObservations(tracksReads: tracksReads, cachesReads: cachesReads),
            checkInterval: checkInterval)
    }

    /// Starts recording the writes of the transaction that begins: ``knownWrites``, empty.
    func recordingWrites() -> ChangeFeed.KnownWrites {
        writesRecord.begin()
        knownWrites = writesRecord
        return writesRecord
    }

    /// The cache of one suite, created on first use.
    func cache(for suite: String) -> SuiteCache { caches.cache(for: suite) }

    /// Adds an observer; one of a whole suite starts from the suite's values now.
    func addObserver(_ observer: PreferenceObserver) -> Int {
        var snapshot: [ExactName: PreferenceValue]?
        if observers.needsSnapshot(for: observer) {
            // Catch up first, so that what the observer hears next starts from this picture.
            try? feed.refresh()
            snapshot =
                isEmpty
                ? [:] : ObserverRegistry.byName(try? preferences.entries(suite: observer.suite))
        }
        return observers.add(observer, snapshot: snapshot)
    }

    func removeObserver(_ id: Int) { observers.remove(id) }

    var hasObservers: Bool { !observers.isEmpty }
}
