/// What other connections committed, brought to the caches and observers: the engine's
/// commit token says whether anything is new (checked at most once per interval on the
/// read path), and the history rows after the last one seen say what.
final class ChangeFeed {
    private let engine: any StorageEngine
    private let caches: PreferenceCaches
    private let observers: ObserverRegistry
    /// Selections read for Swift's Observation.
    let states: StateObservations
    private var lastToken: Int64
    // Read on every cached get, always under the database lock.
    @exclusivity(unchecked) private var lastCheck: UInt64
    private let checkInterval: UInt64
    private var lastChangeID: Int64
    /// Whether every history row up to ``lastChangeID`` reached the caches: false after a
    /// read of them failed (the token may have moved on without them), until rows are read
    /// again. A write reads its rows back while it is false.
    private var rowsAreCurrent = true
    /// Runs work once the database lock is let go; set by the database after its lock
    /// exists. Observation's handlers run there, free to read the store from any thread.
    var afterUnlocking: (@escaping () -> Void) -> Void = { $0() }

    /// - Parameter checkInterval: Nanoseconds between two looks at the commit token on the
    ///   read path.
    init(
        engine: any StorageEngine, caches: PreferenceCaches, observers: ObserverRegistry,
        states: StateObservations, checkInterval: UInt64
    ) throws {
        self.engine = engine
        self.caches = caches
        self.observers = observers
        self.states = states
        self.checkInterval = checkInterval
        (lastToken, lastChangeID) = try engine.changeFeedStart()
        lastCheck = coarseMonotonicNanoseconds()
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
        guard !engine.isEmpty, !engine.isInTransaction else { return }
        let token = try engine.commitToken()
        guard token != lastToken else { return }
        lastToken = token
        caches.forgetDeclaredDefaults()
        states.forgetCachedReads()
        if states.isObserving {
            notify(
                states.afterOtherCommit(reading: engine.selections, bookmarks: engine.bookmarks))
        }
        try catchUp()
    }

    /// What a write transaction of this connection brought: the commit token read before it
    /// began and the history rows after the last seen one, read once it committed.
    struct Commit {
        fileprivate let token: Int64?
        fileprivate let changes: Result<WrittenChanges, any Error>
        fileprivate let known: KnownWrites?
    }

    /// The preference writes of one write transaction, told by the stores that made them
    /// (``PreferenceStore/set(_:for:)``, ``PreferenceStore/transaction(_:)``), each with
    /// whether it added a history row; complete only while every write of the transaction
    /// was told here and succeeded.
    final class KnownWrites {
        struct Write {
            /// The cache of the write's suite, as its store holds it.
            let cache: SuiteCache
            let key: String
            /// What it stored (nil: removed).
            let value: PreferenceValue?
            /// Whether it added a history row; nil where the engine counts no rows (its
            /// answer tells, ``WrittenChanges/toldWrite(_:)``).
            let addedRow: Bool?
        }

        // Used under the database lock only: no runtime check of each access (five a set).
        @exclusivity(unchecked) private(set) var writes: [Write] = []
        /// The history rows the told writes added.
        @exclusivity(unchecked) private(set) var rowsAdded = 0
        /// False once a write went untold: one nested in a transaction of its own (a
        /// savepoint, which may roll back), one that failed (its statement's rows may have
        /// been undone), one that added more than a row.
        @exclusivity(unchecked) private(set) var isComplete = true

        /// The most writes a record holds. A transaction of more writes has its rows read
        /// back instead: past the history's limit (10,000 rows unless set otherwise) those
        /// rows have a gap, and the caches are emptied, which costs less than holding every
        /// value written (a transaction of 100,000 sets took 8,600 more page faults).
        static let limit = 8_192

        /// Records a write that succeeded, and the engine's count of history rows added
        /// before and after it (both nil where the engine counts none).
        func record(
            cache: SuiteCache, key: String, value: PreferenceValue?, rowsBefore: Int?,
            rowsAfter: Int?
        ) {
            guard isComplete, writes.count < Self.limit else { return abandon() }
            var added: Bool?
            if let rowsBefore, let rowsAfter {
                guard rowsAfter &- rowsBefore <= 1 else { return abandon() }
                added = rowsAfter != rowsBefore
                if rowsAfter != rowsBefore { rowsAdded += 1 }
            } else if rowsBefore != nil || rowsAfter != nil {
                return abandon()
            }
            writes.append(Write(cache: cache, key: key, value: value, addedRow: added))
        }

        /// Empties the record for a transaction that begins.
        func begin() {
            writes.removeAll(keepingCapacity: true)
            rowsAdded = 0
            isComplete = true
        }

        /// A write of the transaction that is not told here.
        func abandon() {
            isComplete = false
            writes.removeAll(keepingCapacity: true)
        }
    }

    /// Runs the closure in one write transaction of the engine; hand what it returns to
    /// ``didCommit(_:laterCommitsLookedFor:)``. The token is read first in the transaction
    /// and the rows at its end, so a commit of another connection counted in the token is
    /// always among the rows. (Read inside, the token costs SQLite no lock of its own: before the
    /// transaction it took a read lock and its release, two `fcntl` calls of a set's ten.)
    ///
    /// - Parameter known: Where the stores tell the transaction's writes. When they told
    ///   every one, the engine counted no history row besides theirs, no other connection
    ///   committed since the last look (the token is the one seen, and the rows up to it
    ///   were read), and no observer waits for changes, the rows the transaction added are
    ///   these writes' alone, and nobody needs more of them than the values: the engine
    ///   gives the newest row's id instead of the rows, and the values go to the caches as
    ///   a read gives them back. An engine that counts no rows is told so for one write alone,
    ///   and its answer says whether the rows are that write's.
    func writeTransaction<T>(known: KnownWrites? = nil, _ body: () throws -> T) throws -> (
        value: T, commit: Commit
    ) {
        tokenInTransaction = nil
        let seen = rowsAreCurrent ? lastToken : nil
        let rowsBefore = known == nil ? nil : engine.historyRowsAdded
        let onlyKnownRows = {
            guard let known, known.isComplete, self.tokenInTransaction != nil,
                self.tokenInTransaction == seen, self.observers.isEmpty
            else { return false }
            guard let rowsBefore else { return known.writes.count == 1 }
            guard let rowsAfter = self.engine.historyRowsAdded else { return false }
            return rowsAfter &- rowsBefore == known.rowsAdded
        }
        let (value, changes) = try engine.writeTransaction(
            readingChangesAfter: lastChangeID, countingRows: known != nil,
            skipsRows: onlyKnownRows
        ) {
            self.tokenInTransaction = try? self.engine.commitToken()
            return try body()
        }
        return (value, Commit(token: tokenInTransaction, changes: changes, known: known))
    }

    /// The commit token read first in the transaction ``writeTransaction(known:_:)`` runs; a
    /// property, not a variable its closures capture, which would be boxed and checked at
    /// each access. Used under the database lock only.
    @exclusivity(unchecked) private var tokenInTransaction: Int64?

    /// After this connection committed: its changes (and any other connection's since the
    /// last look) reach the caches and observers.
    ///
    /// The token is read again once the rows are applied: a commit of another connection
    /// before this one's transaction, or right after it, has moved it, and is then taken up
    /// here (states re-read for their observers, rows read again) rather than left to a
    /// later look. The file monitor skips the looks for events that came before this
    /// connection's commit (``ChangeCheck/ownCommit(after:)``), so nothing may wait for them.
    ///
    /// - Parameter laterCommitsLookedFor: No file event was read since the transaction began
    ///   and the monitor looks when the folder's quiet period ends: a commit of another
    ///   connection after this one is left to that look (and to the reads' checks), and the
    ///   token read in the transaction stands for the one after it (this connection's own
    ///   commit leaves it as it was), which is not read again.
    func didCommit(_ commit: Commit, laterCommitsLookedFor: Bool = false) {
        let seen = lastToken
        caches.forgetDeclaredDefaults()
        if let token = commit.token { lastToken = token }
        notify(states.didCommit(reading: engine.selections, bookmarks: engine.bookmarks))
        do {
            switch try commit.changes.get() {
            case .rows(let changes): apply(changes)
            case .newest(let id): applyKnown(commit.known, newest: id)
            case .toldWrite(let id): try applyTold(commit.known, row: id)
            }
        } catch {
            rowsAreCurrent = false
            caches.forgetValues()
            notify(caches.allObservations())
        }
        // This connection's own commit leaves its token as it was: a new one is another's.
        let after = laterCommitsLookedFor ? commit.token : try? engine.commitToken()
        guard let token = after else { return }
        lastToken = token
        guard token != seen else { return }
        states.forgetCachedReads()
        if states.isObserving {
            notify(
                states.afterOtherCommit(reading: engine.selections, bookmarks: engine.bookmarks))
        }
        do {
            try catchUp()
        } catch {
            notify(caches.allObservations())
        }
    }

    /// Reads history rows newer than the last seen one; a gap (rows pruned by the history
    /// limit before we saw them) empties the caches, and the observers resynchronize.
    private func catchUp() throws {
        let changes: [PreferenceChange]
        do {
            changes = try engine.preferences.changes(after: lastChangeID)
        } catch {
            rowsAreCurrent = false
            caches.forgetValues()
            throw error
        }
        apply(changes)
    }

    /// Brings writes whose rows were not read to the caches: each value as a read of the
    /// database gives it back (what its history row holds), and the history seen up to the
    /// newest row. Nobody observed (``writeTransaction(known:_:)``). A key's observation is
    /// told only when its write added a history row, as when the rows are read: a write of
    /// the value already stored (or of its shape's version alone) adds none.
    ///
    /// - Parameter added: Whether each write added a row, where the record does not say.
    private func applyKnown(_ known: KnownWrites?, newest: Int64, added: Bool = false) {
        lastChangeID = max(lastChangeID, newest)
        guard let known else { return }
        var changed: [KeyObservation] = []
        for write in known.writes {
            let stored = write.value.map { engine.preferences.storedForm(of: $0) }
            guard stored.map({ $0 != nil }) ?? true else {
                // Never so for a value that was stored; if it were, the caches read again.
                caches.forgetValues()
                notify(caches.allObservations())
                return
            }
            let observation = PreferenceCaches.apply(
                value: stored ?? nil, to: write.cache, key: write.key)
            if write.addedRow ?? added, let observation { changed.append(observation) }
        }
        notify(changed)
    }

    /// Brings one told write to the caches when the engine's answer said that the rows after
    /// the last seen one are its row alone (`row`), or none: as ``apply(_:)`` would bring
    /// that row, a gap before it included. Reads the rows when the record does not hold that
    /// one write (never so: the engine was told only then).
    private func applyTold(_ known: KnownWrites?, row: Int64?) throws {
        guard let known, known.isComplete, known.writes.count == 1,
            known.writes[0].addedRow == nil
        else { return try catchUp() }
        guard let row else { return applyKnown(known, newest: lastChangeID, added: false) }
        guard row == lastChangeID + 1 else {
            lastChangeID = row
            caches.forgetValues()
            return notify(caches.allObservations())
        }
        applyKnown(known, newest: row, added: true)
    }

    /// Brings history rows newer than the last seen one to the caches and observers.
    private func apply(_ changes: [PreferenceChange]) {
        rowsAreCurrent = true
        guard let first = changes.first, let last = changes.last else { return }
        let hasGap = first.id != lastChangeID + 1
        lastChangeID = last.id
        var changed: [KeyObservation] = []
        if hasGap {
            caches.forgetValues()
        } else {
            changed = caches.apply(changes)
        }
        observers.deliver(changes, afterGap: hasGap, preferences: engine.preferences)
        // After a gap any key read may have changed.
        notify(hasGap ? caches.allObservations() : changed)
    }

    /// Tells Swift's Observation of changed keys, once the lock is let go.
    private func notify(_ observations: [KeyObservation]) {
        guard !observations.isEmpty else { return }
        afterUnlocking {
            for observation in observations { observation.didChange() }
        }
    }
}
