#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The threads that make the server's answers: a request's work (the hub's calls, which
/// block on PostgreSQL) runs on one of them, never on the few threads that wait on the
/// sockets. A thread is started when none is free, up to `limit`; beyond, work waits its
/// turn in order. A thread with nothing to do for `idleSeconds` ends. A long poll holds
/// none of them while it waits: it is parked (``ParkedAnswer``) and comes back as work.
package final class RequestWorkers: @unchecked Sendable {
    // All below is guarded by `mutex`.
    private var queue: [@Sendable () -> Void] = []
    /// Where the queue's first item is: taken items are dropped in batches.
    private var head = 0
    private var threads = 0
    /// Threads waiting for work, and the wake-ups sent to them not yet taken.
    private var idle = 0
    private var wakeups = 0
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let limit: Int
    private let idleSeconds: Int

    /// - Parameters:
    ///   - limit: The most threads at once.
    ///   - idleSeconds: How long a thread with nothing to do stays.
    package init(limit: Int = 256, idleSeconds: Int = 10) {
        self.limit = max(1, limit)
        self.idleSeconds = max(1, idleSeconds)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// Runs `work` on a worker thread, as soon as one is free.
    package func submit(_ work: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        queue.append(work)
        var start = false
        if idle > wakeups {
            wakeups += 1
            pthread_cond_signal(condition)
        } else if threads < limit {
            threads += 1
            start = true
        }
        pthread_mutex_unlock(mutex)
        guard start else { return }
        if !Self.startThread({ [self] in self.serve() }) {
            // No thread could be made: the work runs on one that frees up, or here.
            pthread_mutex_lock(mutex)
            threads -= 1
            let none = threads == 0
            pthread_mutex_unlock(mutex)
            if none { serve(leavingWhenIdle: true) }
        }
    }

    /// How many threads there are now.
    package var threadCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return threads
    }

    /// A worker's life: the queue's work, then a wait for more, until it idles too long (or,
    /// `leavingWhenIdle`, until the queue is empty).
    private func serve(leavingWhenIdle: Bool = false) {
        pthread_mutex_lock(mutex)
        while true {
            if head < queue.count {
                let work = queue[head]
                head += 1
                if head >= 64, head * 2 >= queue.count {
                    queue.removeFirst(head)
                    head = 0
                }
                pthread_mutex_unlock(mutex)
                work()
                pthread_mutex_lock(mutex)
                continue
            }
            if leavingWhenIdle { break }
            var deadline = timespec()
            clock_gettime(CLOCK_REALTIME, &deadline)
            deadline.tv_sec += idleSeconds
            idle += 1
            let waited = pthread_cond_timedwait(condition, mutex, &deadline)
            idle -= 1
            if wakeups > 0 { wakeups -= 1 }
            // Work that came meanwhile is taken, whatever the wait said.
            if waited == ETIMEDOUT, head >= queue.count {
                threads -= 1
                break
            }
        }
        pthread_mutex_unlock(mutex)
    }

    /// Starts a detached thread running `body`; false when the system refused.
    private static func startThread(_ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box: @unchecked Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box(body))
        #if canImport(Glibc)
            var thread = pthread_t()
        #else
            var thread: pthread_t?
        #endif
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let made = pthread_create(
            &thread, &attributes,
            { context in
                guard let context else { return nil }
                let box = Unmanaged<Box>.fromOpaque(context).takeRetainedValue()
                box.body()
                return nil
            }, box.toOpaque())
        if made != 0 { box.release() }
        return made == 0
    }
}
