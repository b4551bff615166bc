#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a recursive mutex.
///
/// Recursive so that a write made inside a transaction's closure joins that transaction
/// instead of deadlocking. Work that must not run under the lock (handlers of others that
/// may take it from another thread) is queued with ``afterUnlocking(_:)`` and runs once the
/// outermost ``withLock(_:)`` has let go.
final class Locked<State>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let state: State
    // Both touched only while holding the mutex.
    @exclusivity(unchecked) private var depth = 0
    @exclusivity(unchecked) private var deferredWork: [() -> Void] = []
    // Checked at every unlock: cheaper to read than the array (no retain of its buffer).
    @exclusivity(unchecked) private var hasDeferredWork = false

    init(_ state: State) {
        self.state = state
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs a closure while holding the lock.
    @inline(__always)
    func withLock<T>(_ body: (State) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        depth &+= 1
        defer {
            depth &-= 1
            if depth == 0 && hasDeferredWork {
                unlockRunningDeferredWork()
            } else {
                pthread_mutex_unlock(mutex)
            }
        }
        return try body(state)
    }

    /// Queues work to run when the lock is next released by its outermost holder. Call it
    /// while holding the lock.
    func afterUnlocking(_ work: @escaping () -> Void) {
        deferredWork.append(work)
        hasDeferredWork = true
    }

    @inline(never)
    private func unlockRunningDeferredWork() {
        let work = deferredWork
        deferredWork = []
        hasDeferredWork = false
        pthread_mutex_unlock(mutex)
        for item in work { item() }
    }
}

/// A coarse monotonic clock in nanoseconds; cheap enough to read on every cached get.
@inline(__always)
func coarseMonotonicNanoseconds() -> UInt64 {
    var time = timespec()
    #if os(Linux)
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
    #else
        clock_gettime(CLOCK_MONOTONIC, &time)
    #endif
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}
