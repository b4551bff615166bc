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

    /// Called by the database's deinit: waits for a look in flight, then makes every later
    /// one a no-op.
    func end() {
        liveness.withLock { $0.isLive = false }
    }
}
