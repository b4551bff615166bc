import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a recursive lock.
///
/// Recursive so that a write made inside a transaction's closure joins that transaction
/// instead of deadlocking. Work that must not run under the lock (handlers of others that
/// may take it from another thread) is queued with ``afterUnlocking(_:)`` and runs once the
/// outermost ``withLock(_:)`` has let go.
///
/// The recursion is counted here, over Synchronization's `Mutex`: the thread that holds it
/// is known by its id, which only that thread ever stores, so a relaxed read tells a thread
/// whether it is the holder. (A recursive pthread mutex took about 30 instructions more per
/// use, callgrind says, and a plain pthread mutex under this count about 25 more.)
final class Locked<State>: @unchecked Sendable {
    private let mutex = Mutex(())
    private let holder = Atomic<UInt>(0)
    private let state: State
    // All touched only while holding the mutex.
    @exclusivity(unchecked) private var depth = 0
    @exclusivity(unchecked) private var deferredWork: [() -> Void] = []
    // Checked at every unlock: cheaper to read than the array (no retain of its buffer).
    @exclusivity(unchecked) private var hasDeferredWork = false

    init(_ state: State) {
        self.state = state
    }

    /// Runs a closure while holding the lock.
    @inline(__always)
    func withLock<T>(_ body: (State) throws -> T) rethrows -> T {
        let thread = currentThreadID()
        if holder.load(ordering: .relaxed) == thread {
            depth &+= 1
            defer { depth &-= 1 }
            return try body(state)
        }
        // Optional: releasing an empty array at every unlock costs a call, releasing nil none.
        var work: [() -> Void]?
        defer {
            if let work { for item in work { item() } }
        }
        return try mutex.withLock { _ in
            holder.store(thread, ordering: .relaxed)
            depth = 1
            defer {
                depth = 0
                holder.store(0, ordering: .relaxed)
                if hasDeferredWork { work = takeDeferredWork() }
            }
            return try body(state)
        }
    }

    /// Runs a closure while holding the lock if nobody else holds it; nil, at once, when
    /// another thread does. For the file monitor's looks, which must never make this
    /// process's own writes wait.
    func withLockIfAvailable<T>(_ body: (State) throws -> T) rethrows -> T? {
        let thread = currentThreadID()
        if holder.load(ordering: .relaxed) == thread {
            depth &+= 1
            defer { depth &-= 1 }
            return try body(state)
        }
        var work: [() -> Void]?
        defer {
            if let work { for item in work { item() } }
        }
        return try mutex.withLockIfAvailable { _ in
            holder.store(thread, ordering: .relaxed)
            depth = 1
            defer {
                depth = 0
                holder.store(0, ordering: .relaxed)
                if hasDeferredWork { work = takeDeferredWork() }
            }
            return try body(state)
        }
    }

    /// Queues work to run when the lock is next released by its outermost holder. Call it
    /// while holding the lock.
    func afterUnlocking(_ work: @escaping () -> Void) {
        deferredWork.append(work)
        hasDeferredWork = true
    }

    @inline(never)
    private func takeDeferredWork() -> [() -> Void] {
        let work = deferredWork
        deferredWork = []
        hasDeferredWork = false
        return work
    }
}

/// An id of the calling thread, never 0, that no other running thread has.
@inline(__always)
private func currentThreadID() -> UInt {
    #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
    #else
        UInt(pthread_self())
    #endif
}

/// A coarse monotonic clock in nanoseconds; cheap enough to read on every cached get.
@inline(__always)
package func coarseMonotonicNanoseconds() -> UInt64 {
    var time = timespec()
    #if os(Linux)
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
    #else
        clock_gettime(CLOCK_MONOTONIC, &time)
    #endif
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}
