import Dispatch

/// Selections and bookmarks as Swift's Observation sees them: a read of a selection (or of
/// all of them), of a bookmark or of a bookmark query registers with it, and a committed
/// change, made by this connection (a write, a transaction at its commit, never one that
/// rolled back) or by another connection or process, tells whoever registered.
///
/// This connection's selection writes are known by name; its bookmark writes are known to
/// have happened. Another connection's commits are noticed as the preferences' are (the
/// commit token, file events where there are any). What was read is then read again, and
/// only the reads whose results differ are told.
///
/// It also keeps what a selection read and a bookmark-of-an-item read returned, so that a
/// view reading them on every frame costs no query: the cache is used outside write
/// transactions only, and forgotten whenever this connection commits or rolls back and
/// whenever another connection's commit is noticed.
final class StateObservations {
    /// A bookmark read that a view may depend on.
    enum BookmarkRead: Hashable {
        case id(Int64)
        case query(BookmarkQuery)
    }

    private struct ObservedRead {
        let observation: KeyObservation
        var seen: AnyHashable
        let read: (any BookmarkRepository) throws -> AnyHashable
        /// Read again since the table was last trimmed.
        var wasReadAgain = false
    }

    /// How many reads a table remembers beyond those a property wrapper holds. Names come
    /// from the app's data and from whoever wrote the file, so the tables must not grow
    /// with every name ever read; a read forgotten is told to its observers (at worst one
    /// extra refresh), so that none of them misses a later change.
    static let rememberedReadLimit = 1024

    /// One read (a selection, the bookmark of an item), as remembered: its observation
    /// (when reads are tracked) with what it last saw, and the cached result (valid while
    /// `cachedAt` equals the cache's generation). A class, so that a cached read copies one
    /// reference out of the dictionary, not the whole value.
    ///
    /// Everything here is used under the database lock only, so the hot fields skip Swift's
    /// dynamic exclusivity checks.
    private final class Entry<Value: Equatable> {
        let observation: KeyObservation?
        var seen: Value?
        @exclusivity(unchecked) var cached: Value? {
            didSet {
                holdsValue = cached != nil
                encodedIndex = SelectionIndexRead.encode(cached as? Selection)
            }
        }
        /// Whether `cached` is not nil, asked without copying the value.
        @exclusivity(unchecked) private(set) var holdsValue: Bool
        /// A cached selection's index, asked without copying the selection.
        @exclusivity(unchecked) private(set) var encodedIndex: Int
        @exclusivity(unchecked) var cachedAt: UInt64
        /// Found in the table again since the table was last trimmed.
        @exclusivity(unchecked) var wasReadAgain = false

        init(observation: KeyObservation?, seen: Value?, cachedAt: UInt64) {
            self.observation = observation
            self.seen = seen
            self.cached = seen
            self.holdsValue = seen != nil
            self.encodedIndex = SelectionIndexRead.encode(seen as? Selection)
            self.cachedAt = cachedAt
        }
    }

    private let tracksReads: Bool
    private let cachesReads: Bool
    /// Cached results are valid while their stamp equals this; moving it on forgets them all.
    @exclusivity(unchecked) private var generation: UInt64 = 1
    @exclusivity(unchecked) private var selections: [ReadKey: Entry<Selection>] = [:]
    @exclusivity(unchecked) private var items: [ReadKey: Entry<Bookmark>] = [:]
    /// The list of every selection, when a read of it was registered.
    private var everySelection: (observation: KeyObservation, seen: [Selection])?
    /// Selections the open write transaction changed, told at its commit. (This and the
    /// next are used under the database lock only: no runtime check of each access.)
    @exclusivity(unchecked) private var pending: Set<ExactName> = []
    private var bookmarkReads: [BookmarkRead: ObservedRead] = [:]
    /// Whether the open write transaction changed bookmarks.
    @exclusivity(unchecked) private var bookmarksPending = false

    /// - Parameters:
    ///   - tracksReads: Whether reads register with Swift's Observation.
    ///   - cachesReads: Whether selection and bookmark-of-an-item reads are cached.
    init(tracksReads: Bool, cachesReads: Bool) {
        self.tracksReads = tracksReads
        self.cachesReads = cachesReads
    }

    /// Whether any selection or bookmark read was registered (another connection's commits
    /// are then worth a look).
    var isObserving: Bool {
        tracksReads
            && (!selections.isEmpty || everySelection != nil || !bookmarkReads.isEmpty
                || !items.isEmpty)
    }

    /// Forgets every cached result: something may have changed them.
    @inline(__always)
    func forgetCachedReads() {
        generation &+= 1
    }

    /// A selection, from the cache when it holds it, else read (and cached when `canCache`);
    /// the read registers with Swift's Observation.
    @inline(__always)
    func selection(
        _ key: ReadKey, slot: StateReadSlot?, canCache: Bool, read: () throws -> Selection?
    ) rethrows -> Selection? {
        guard
            let entry = try self.entry(
                in: &selections, for: key, slot: slot, canCache: canCache, read: read)
        else { return try read() }
        entry.observation?.access()
        return entry.cached
    }

    /// What a property wrapper's slot holds, when it is current: a selection's index as
    /// ``SelectionIndexRead`` encodes it, nil when the slot must be read through.
    @inline(__always)
    func cachedSelectedIndex(slot: StateReadSlot, canCache: Bool) -> Int? {
        guard canCache, let remembered = slot.entry else { return nil }
        let entry = unsafeDowncast(remembered, to: Entry<Selection>.self)
        guard entry.cachedAt == generation else { return nil }
        entry.observation?.access()
        return entry.encodedIndex
    }

    /// What a property wrapper's slot holds, when it is current: whether the item is
    /// bookmarked, nil when the slot must be read through.
    @inline(__always)
    func cachedIsBookmarked(slot: StateReadSlot, canCache: Bool) -> Bool? {
        guard canCache, let remembered = slot.entry else { return nil }
        let entry = unsafeDowncast(remembered, to: Entry<Bookmark>.self)
        guard entry.cachedAt == generation else { return nil }
        entry.observation?.access()
        return entry.holdsValue
    }

    /// A selection's index as ``selection(_:slot:canCache:read:)`` would give it, without
    /// copying the selection: ``SelectionIndexRead``.
    @inline(__always)
    func selectedIndex(
        _ key: ReadKey, slot: StateReadSlot?, canCache: Bool, read: () throws -> Selection?
    ) rethrows -> Int {
        guard
            let entry = try self.entry(
                in: &selections, for: key, slot: slot, canCache: canCache, read: read)
        else {
            return SelectionIndexRead.encode(try read())
        }
        entry.observation?.access()
        return entry.encodedIndex
    }

    /// The bookmark of an item, from the cache when it holds it, else read (and cached when
    /// `canCache`); the read registers with Swift's Observation.
    @inline(__always)
    func bookmark(
        _ key: ReadKey, slot: StateReadSlot?, canCache: Bool, read: () throws -> Bookmark?
    ) rethrows -> Bookmark? {
        guard
            let entry = try self.entry(
                in: &items, for: key, slot: slot, canCache: canCache, read: read)
        else { return try read() }
        entry.observation?.access()
        return entry.cached
    }

    /// Whether an item is bookmarked, as ``bookmark(_:slot:canCache:read:)`` would say,
    /// without copying the bookmark.
    @inline(__always)
    func isBookmarked(
        _ key: ReadKey, slot: StateReadSlot?, canCache: Bool, read: () throws -> Bookmark?
    ) rethrows -> Bool {
        guard
            let entry = try self.entry(
                in: &items, for: key, slot: slot, canCache: canCache, read: read)
        else { return try read() != nil }
        entry.observation?.access()
        return entry.holdsValue
    }

    /// The remembered read of a key with its result current: from the cache, else read now
    /// (and cached when allowed). Nil when reads are neither tracked nor cached, and the
    /// caller reads for itself. A slot (kept by a property wrapper) remembers the entry, so
    /// that its next read skips the lookup.
    @inline(__always)
    private func entry<Value: Equatable>(
        in table: inout [ReadKey: Entry<Value>], for key: ReadKey, slot: StateReadSlot?,
        canCache: Bool, read: () throws -> Value?
    ) rethrows -> Entry<Value>? {
        let caches = canCache && cachesReads
        let found: Entry<Value>?
        if let remembered = slot?.entry {
            found = unsafeDowncast(remembered, to: Entry<Value>.self)
        } else {
            found = table[key]
            found?.wasReadAgain = true
        }
        if let entry = found {
            if entry.cachedAt != generation || !canCache {
                entry.cached = try read()
                entry.cachedAt = caches ? generation : 0
            }
            slot?.entry = entry
            return entry
        }
        guard tracksReads || caches else { return nil }
        if table.count >= Self.rememberedReadLimit { trim(&table) }
        let entry = Entry(
            observation: tracksReads ? KeyObservation() : nil, seen: try read(),
            cachedAt: caches ? generation : 0)
        table[key] = entry
        slot?.entry = entry
        return entry
    }

    /// Forgets the reads that no property wrapper holds and that were not read again since the
    /// last trim (all that no wrapper holds, when that frees too little), and tells their
    /// observers, off the database lock.
    private func trim<Value: Equatable>(_ table: inout [ReadKey: Entry<Value>]) {
        var forgotten: [KeyObservation] = []
        for pass in 0..<2 {
            var gone: [ReadKey] = []
            var index = table.startIndex
            while index != table.endIndex {
                let held = !isKnownUniquelyReferenced(&table.values[index])
                let entry = table.values[index]
                if !held && (pass == 1 || !entry.wasReadAgain) {
                    gone.append(table.keys[index])
                    if let observation = entry.observation { forgotten.append(observation) }
                }
                entry.wasReadAgain = false
                table.formIndex(after: &index)
            }
            for key in gone { table[key] = nil }
            if table.count < Self.rememberedReadLimit * 3 / 4 { break }
        }
        Self.tell(forgotten)
    }

    /// Tells observations of reads that are forgotten, on another thread: they are
    /// forgotten under the database lock, and an observer may read the store at once.
    private static func tell(_ observations: [KeyObservation]) {
        guard !observations.isEmpty else { return }
        DispatchQueue.global().async {
            for observation in observations { observation.didChange() }
        }
    }

    /// The observation of a bookmark read, made on first need with its result; nil when reads
    /// are not tracked.
    func observation(
        of key: BookmarkRead, reading result: AnyHashable,
        readAgain: @escaping (any BookmarkRepository) throws -> AnyHashable
    ) -> KeyObservation? {
        guard tracksReads else { return nil }
        if let observed = bookmarkReads[key] {
            bookmarkReads[key]?.wasReadAgain = true
            return observed.observation
        }
        if bookmarkReads.count >= Self.rememberedReadLimit { trimBookmarkReads() }
        let observation = KeyObservation()
        bookmarkReads[key] = ObservedRead(observation: observation, seen: result, read: readAgain)
        return observation
    }

    /// Forgets the bookmark queries not read again since the last trim (all of them, when
    /// that frees too little), and tells their observers.
    private func trimBookmarkReads() {
        var stale = bookmarkReads.filter { !$0.value.wasReadAgain }
        if bookmarkReads.count - stale.count >= Self.rememberedReadLimit * 3 / 4 {
            stale = bookmarkReads
        }
        for key in stale.keys { bookmarkReads[key] = nil }
        for key in bookmarkReads.keys { bookmarkReads[key]?.wasReadAgain = false }
        Self.tell(stale.values.map(\.observation))
    }

    /// How many reads are remembered: selections, bookmarks of items, bookmark queries.
    var rememberedReadCount: (selections: Int, items: Int, queries: Int) {
        (selections.count, items.count, bookmarkReads.count)
    }

    /// A write of the open transaction is changing bookmarks (or their tags or folders).
    func willChangeBookmarks() {
        bookmarksPending = true
    }

    /// The observed bookmark reads whose results now differ, brought up to date.
    private func changedBookmarkReads(_ repository: any BookmarkRepository) -> [KeyObservation] {
        var told: [KeyObservation] = []
        for (key, entry) in items {
            guard let observation = entry.observation else { continue }
            let current: Bookmark?
            do {
                current = try repository.bookmark(kind: key.first, itemID: key.second)
            } catch {
                continue
            }
            guard current != entry.seen else { continue }
            entry.seen = current
            told.append(observation)
        }
        for (key, observed) in bookmarkReads {
            guard let current = try? observed.read(repository), current != observed.seen else {
                continue
            }
            bookmarkReads[key]?.seen = current
            told.append(observed.observation)
        }
        return told
    }

    /// The observation of the list of every selection.
    func observationOfEverySelection(reading current: [Selection]) -> KeyObservation? {
        guard tracksReads else { return nil }
        if let every = everySelection { return every.observation }
        let observation = KeyObservation()
        everySelection = (observation, current)
        return observation
    }

    /// A write of the open transaction is changing a selection.
    func willChange(selection name: String) {
        pending.insert(ExactName(name))
    }

    /// The transaction rolled back: what it changed is not told.
    func didRollBack() {
        forgetCachedReads()
        pending.removeAll()
        bookmarksPending = false
    }

    /// The transaction committed: the observations of what it changed, with what they saw
    /// brought up to date.
    func didCommit(
        reading repository: any SelectionRepository, bookmarks: any BookmarkRepository
    ) -> [KeyObservation] {
        forgetCachedReads()
        var told: [KeyObservation] = []
        if bookmarksPending {
            bookmarksPending = false
            told = changedBookmarkReads(bookmarks)
        }
        guard !pending.isEmpty else { return told }
        defer { pending.removeAll() }
        for name in pending {
            guard let observed = selections[ReadKey(name.string)],
                let observation = observed.observation
            else {
                continue
            }
            // A write that left the selection as it was (the end of a clamp) tells no one.
            let current = try? repository.selection(named: name.string)
            guard current != observed.seen else { continue }
            observed.seen = current
            told.append(observation)
        }
        if let every = everySelection {
            let current = try? repository.all()
            if current != every.seen {
                everySelection = (every.observation, current ?? every.seen)
                told.append(every.observation)
            }
        }
        return told
    }

    /// Another connection committed: the observed selections that now differ.
    func afterOtherCommit(
        reading repository: any SelectionRepository, bookmarks: any BookmarkRepository
    ) -> [KeyObservation] {
        var told =
            bookmarkReads.isEmpty && items.isEmpty ? [] : changedBookmarkReads(bookmarks)
        for (name, observed) in selections {
            guard let observation = observed.observation else { continue }
            let current: Selection?
            do {
                current = try repository.selection(named: name.first)
            } catch {
                continue
            }
            guard current != observed.seen else { continue }
            observed.seen = current
            told.append(observation)
        }
        if let every = everySelection, let current = try? repository.all(), current != every.seen {
            everySelection = (every.observation, current)
            told.append(every.observation)
        }
        return told
    }
}

/// One or two names (a selection's; a bookmark's kind and item ID) as a cache key: compared
/// by bytes, as the database compares them, and hashed once, with a cheap hash seeded per
/// process, instead of twice through `Hasher` on every lookup. A property wrapper makes its
/// key once and reads with it. A class: passing it on is one retain, not two string copies.
final class ReadKey: Hashable, Sendable {
    let first: String
    let second: String
    private let hash: Int

    private static let seed = UInt64.random(in: 1...UInt64.max)

    init(_ first: String, _ second: String = "") {
        self.first = first
        self.second = second
        // FNV-1a over both names' bytes, with a separator that UTF-8 never holds.
        var hash = Self.mix(first, into: 0xcbf2_9ce4_8422_2325 ^ Self.seed)
        hash = (hash ^ 0xFF) &* 0x100_0000_01b3
        hash = Self.mix(second, into: hash)
        self.hash = Int(truncatingIfNeeded: hash ^ (hash >> 29))
    }

    private static func mix(_ text: String, into start: UInt64) -> UInt64 {
        var text = text
        return text.withUTF8 { bytes in
            var hash = start
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return hash
        }
    }

    static func == (lhs: ReadKey, rhs: ReadKey) -> Bool {
        lhs.hash == rhs.hash && ExactName.sameBytes(lhs.first, rhs.first)
            && ExactName.sameBytes(lhs.second, rhs.second)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }

    // Dictionary asks for this directly: answering from the stored hash skips a Hasher round.
    func _rawHashValue(seed: Int) -> Int {
        hash ^ seed
    }
}

/// Where a property wrapper keeps the entry its reads found in the store's read cache, so
/// that its next read goes straight to it. Used under the database lock only; a wrapper
/// reads one store, so the entry it keeps is always that store's.
final class StateReadSlot: @unchecked Sendable {
    @exclusivity(unchecked) var entry: AnyObject?
}

/// A selection's index in one word, for the property wrapper's read: ``absent`` when there is
/// no selection, ``cleared`` when it selects nothing, else the index.
enum SelectionIndexRead {
    static let absent = Int.min
    static let cleared = Int.min + 1

    @inline(__always)
    static func encode(_ selection: Selection?) -> Int {
        guard let selection else { return absent }
        return selection.index ?? cleared
    }
}
