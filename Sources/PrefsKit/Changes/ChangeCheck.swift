import Synchronization

/// What the file monitor's thread and the polling task call to look for commits: the
/// database's state, for exactly as long as the database lives.
///
/// They must neither keep a closed database open (its file would stay open, its cache slots
/// claimed) nor touch one that is gone. So this holds the lock unowned, and the database's
/// deinit ends it first: ending waits for a look in flight, after which every look is a no-op.
/// (A weak reference would do the same but move every retain of the lock, on every read, to
/// the runtime's slow side-table path.)
final class ChangeCheck: @unchecked Sendable {
    // Sendable: the state is reached only under `liveness` and then under its own lock.
    private unowned(unsafe) let state: Locked<DatabaseState>
    private let liveness = Locked(Liveness())
    /// When a write of this process last committed (and read the history after it), in the
    /// file monitor's clock.
    private let ownCommitEnded = Atomic<Int>(0)
    /// How many times the file monitor called on this database (what its thread's wakes
    /// cost, counted for the tests).
    let fileEventChecks = Atomic<Int>(0)

    private final class Liveness {
        var isLive = true
    }

    init(_ state: Locked<DatabaseState>) {
        self.state = state
    }

    /// Runs the closure under the database's lock; nil once the database is gone.
    func withState<T>(_ body: (DatabaseState) -> T) -> T? {
        liveness.withLock { liveness in
            liveness.isLive ? state.withLock(body) : nil
        }
    }

    /// Runs the closure under the database's lock if no other thread holds it: `.busy` at
    /// once when one does (a read or write of this process in flight, which sees the
    /// commits before it by itself), `.gone` once the database is.
    func withStateIfAvailable(_ body: (DatabaseState) -> Void) -> Look {
        liveness.withLock { liveness in
            guard liveness.isLive else { return .gone }
            return state.withLockIfAvailable(body) == nil ? .busy : .done
        }
    }

    /// What a look did.
    enum Look {
        case done, busy, gone
    }

    /// The file monitor's look after events read at `eventsRead`. It never waits for the
    /// database's lock: a read or write of this process that holds it sees the commits
    /// before it by itself (a write reads the history and the token after it commits), and
    /// the monitor looks again shortly. A write of this process committed after the events
    /// were read has seen every commit they could announce: nothing to look at.
    func fileEventCheck(eventsRead: Int) -> FileChangeMonitor.Outcome {
        fileEventChecks.add(1, ordering: .relaxed)
        if ownCommit(after: eventsRead) { return .covered }
        let look = withStateIfAvailable { state in try? state.feed.refresh() }
        return look == .busy ? .busy : .looked
    }

    /// The file monitor's look when a quiet period of the folder ends (this process wrote,
    /// and the folder was not watched for writes meanwhile): `.covered` when no connection
    /// held the write lock once the folder was watched again, so that this look saw every
    /// commit made while it was not; else what ``fileEventCheck(eventsRead:)`` says, and
    /// the looks after a burst of events follow.
    func quietEndCheck() -> FileChangeMonitor.Outcome {
        fileEventChecks.add(1, ordering: .relaxed)
        var settled = false
        let look = withStateIfAvailable { state in
            settled = (state.engine as? any FileBackedEngine)?.noWriteUnderWay() ?? false
            try? state.feed.refresh()
        }
        switch look {
        case .busy: return .busy
        case .gone: return .covered
        case .done: return settled ? .covered : .looked
        }
    }

    /// Called after a write of this process committed and read the history after its last
    /// change: every commit before it, of any process, is then seen.
    func noteOwnCommit() {
        ownCommitEnded.store(FileChangeMonitor.now(), ordering: .relaxed)
    }

    /// Whether a write of this process committed after `time`: file events read before then
    /// are this process's own, or another's commit that that write has seen (it could take
    /// the write lock only once that commit was done).
    func ownCommit(after time: Int) -> Bool {
        ownCommitEnded.load(ordering: .relaxed) >= time
    }

    /// Called by the database's deinit: waits for a look in flight, then makes every later
    /// one a no-op.
    func end() {
        liveness.withLock { $0.isLive = false }
    }
}
