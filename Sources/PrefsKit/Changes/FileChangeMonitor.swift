import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tells databases when their files change, so that nobody polls: one inotify instance and
/// one thread for the whole process, blocked in `poll` while nothing happens.
///
/// A write to a database file says that a commit may be under way, not that it is visible:
/// SQLite writes a transaction's WAL frames, syncs them and only then publishes the commit in
/// the shared-memory index, which no file event reports. So after the events of a burst, each
/// subscriber looks again a few times (from 0.2 ms to 4 s after the last event: a commit's
/// sync takes from a fraction of a millisecond to tens on slow disks, and longer on a machine
/// under load; a commit published after the last look would wait for the next event) before
/// the thread sleeps again; a subscriber's check costs one `PRAGMA data_version`.
///
/// Only Linux has inotify here; elsewhere ``shared`` is nil and databases poll.
final class FileChangeMonitor: Sendable {
    /// A subscriber's check: looks for new commits announced by events read at the time
    /// given (in ``now()``'s clock).
    typealias Check = @Sendable (_ eventsRead: Int) -> Outcome

    /// What a check did.
    enum Outcome {
        /// It looked.
        case looked
        /// It could not look now (its database was busy with this process's own work): it is
        /// asked again shortly.
        case busy
        /// Nothing was left to look for (a commit of this process after the events saw
        /// everything they announce): no more looks until new events.
        case covered
    }

    /// The monitor's clock: monotonic microseconds.
    static func now() -> Int { monotonicMicroseconds() }

    /// The process's monitor, started on first use; nil where file events are unavailable
    /// (no inotify, or the kernel refused an instance).
    static let shared: FileChangeMonitor? = FileChangeMonitor()

    /// Why ``shared`` is nil, for `doctor`.
    static let unavailableReason = Mutex<String>("")

    /// Delays of the looks after a burst of events, in microseconds after its last event.
    static let recheckDelays = [
        200, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 64_000, 256_000, 1_000_000, 4_000_000,
    ]

    /// How soon a check that found its database busy is asked again, in microseconds. The
    /// thread sleeps through it without reading events, and the rechecks wait for it: the
    /// database is busy with this process's own work, whose commits (each several writes
    /// to the log, each an event) are then read and covered once a millisecond, not once
    /// a commit. Another process's commit meanwhile is looked for at most this much later,
    /// and this process's own write sees it by itself.
    static let busyRetryDelay = 1_000

    private struct Subscriber {
        let descriptor: Int32
        let names: Set<String>
        let check: Check
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        var isRunning = false
    }

    #if os(Linux)
        private let descriptor: Int32
    #endif
    private let state = Mutex(State())

    private init?() {
        #if os(Linux)
            descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
            guard descriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                Self.unavailableReason.withLock { $0 = "inotify_init1: \(reason)" }
                return nil
            }
        #else
            Self.unavailableReason.withLock { $0 = "file events are implemented for Linux only" }
            return nil
        #endif
    }

    /// Why a folder cannot be watched.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// A subscription; cancelled when it goes away.
    final class Subscription: Sendable {
        private let monitor: FileChangeMonitor
        private let id: Int
        /// The folder watched.
        let directory: String

        fileprivate init(monitor: FileChangeMonitor, id: Int, directory: String) {
            self.monitor = monitor
            self.id = id
            self.directory = directory
        }

        deinit { monitor.unsubscribe(id) }
    }

    /// Calls `check` on the monitor's thread whenever a file of `names` in `directory` is
    /// written, created, replaced or removed (and a few times after).
    ///
    /// - Throws: ``Refusal`` when the folder cannot be watched (the kernel's limit of
    ///   watches, a folder gone).
    func subscribe(directory: String, names: [String], check: @escaping Check) throws(Refusal)
        -> Subscription
    {
        #if os(Linux)
            let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE)
            let watch = inotify_add_watch(descriptor, directory, mask)
            guard watch >= 0 else {
                let reason = String(cString: strerror(errno))
                throw Refusal(description: "cannot watch '\(directory)': \(reason)")
            }
            let (id, start) = state.withLock { state -> (Int, Bool) in
                state.nextID += 1
                state.subscribers[state.nextID] = Subscriber(
                    descriptor: watch, names: Set(names), check: check)
                defer { state.isRunning = true }
                return (state.nextID, !state.isRunning)
            }
            if start { startThread() }
            return Subscription(monitor: self, id: id, directory: directory)
        #else
            throw Refusal(description: "file events are implemented for Linux only")
        #endif
    }

    private func unsubscribe(_ id: Int) {
        state.withLock { state in
            guard let gone = state.subscribers.removeValue(forKey: id) else { return }
            #if os(Linux)
                // The kernel hands out one watch per folder; it goes with its last subscriber.
                if !state.subscribers.values.contains(where: { $0.descriptor == gone.descriptor }) {
                    inotify_rm_watch(descriptor, gone.descriptor)
                }
            #endif
        }
    }

    #if os(Linux)
        private func startThread() {
            let context = Unmanaged.passRetained(self).toOpaque()
            var thread = pthread_t()
            let started = pthread_create(
                &thread, nil,
                { context in
                    guard let context else { return nil }
                    Unmanaged<FileChangeMonitor>.fromOpaque(context).takeRetainedValue().run()
                    return nil
                }, context)
            if started == 0 {
                pthread_detach(thread)
            } else {
                Unmanaged<FileChangeMonitor>.fromOpaque(context).release()
                state.withLock { $0.isRunning = false }
            }
        }

        /// The thread: waits for events (forever while none come), runs the checks of the
        /// subscribers they concern, then the rechecks.
        private func run() {
            var pending: Set<Int> = []
            var rechecks: [Int] = []  // delays still to come after the last burst
            var burstEnded = monotonicMicroseconds()
            var busy: Set<Int> = []  // checks that could not look, asked again at retryAt
            var retryAt = 0
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                var timeout: Int32 = -1
                var due: Int?
                if !busy.isEmpty {
                    due = retryAt
                } else if let next = rechecks.first {
                    due = burstEnded + next
                }
                if let due {
                    let wait = max(0, due - monotonicMicroseconds())
                    if wait <= Self.busyRetryDelay {
                        // poll counts whole milliseconds; events wait meanwhile, none is lost.
                        usleep(UInt32(wait))
                        timeout = 0
                    } else {
                        timeout = Int32((wait + 999) / 1000)
                    }
                }
                let ready = poll(&entry, 1, timeout)
                if ready > 0 {
                    let touched = readEvents(into: &buffer)
                    guard !touched.isEmpty else { continue }
                    pending.formUnion(touched)
                    burstEnded = monotonicMicroseconds()
                    rechecks = Self.recheckDelays
                    busy = runChecks(of: &pending, eventsRead: burstEnded)
                } else if ready == 0 {
                    let now = monotonicMicroseconds()
                    if let next = rechecks.first, burstEnded + next <= now {
                        rechecks.removeFirst()
                        busy = runChecks(of: &pending, eventsRead: burstEnded)
                        if rechecks.isEmpty { pending = [] }
                    } else if !busy.isEmpty, retryAt <= now {
                        busy = runChecks(of: &busy, eventsRead: burstEnded)
                    }
                    if pending.isEmpty { rechecks = [] }
                }
                if !busy.isEmpty { retryAt = monotonicMicroseconds() + Self.busyRetryDelay }
            }
        }

        /// Runs the checks; the subscribers whose check could not look now. A subscriber
        /// whose events are covered leaves `ids`: it has no rechecks to run.
        private func runChecks(of ids: inout Set<Int>, eventsRead: Int) -> Set<Int> {
            let checks = state.withLock { state in
                ids.compactMap { id in state.subscribers[id].map { (id, $0.check) } }
            }
            var busy: Set<Int> = []
            for (id, check) in checks {
                switch check(eventsRead) {
                case .looked: break
                case .busy: busy.insert(id)
                case .covered: ids.remove(id)
                }
            }
            return busy
        }

        /// Reads what the kernel queued; the subscribers whose files it concerns.
        private func readEvents(into buffer: inout [UInt8]) -> Set<Int> {
            var events: [(watch: Int32, name: String?)] = []
            var overflowed = false
            while true {
                let count = buffer.withUnsafeMutableBytes {
                    read(descriptor, $0.baseAddress, $0.count)
                }
                guard count > 0 else { break }
                buffer.withUnsafeBytes { bytes in
                    var offset = 0
                    let header = MemoryLayout<inotify_event>.size
                    while offset + header <= count {
                        let watch = bytes.load(fromByteOffset: offset, as: Int32.self)
                        let mask = bytes.load(fromByteOffset: offset + 4, as: UInt32.self)
                        let length = Int(bytes.load(fromByteOffset: offset + 12, as: UInt32.self))
                        if mask & UInt32(IN_Q_OVERFLOW) != 0 { overflowed = true }
                        let nameBytes = bytes[
                            (offset + header)..<min(count, offset + header + length)]
                        let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                        events.append((watch, length > 0 ? name : nil))
                        offset += header + length
                    }
                }
            }
            return state.withLock { state in
                var touched: Set<Int> = []
                for (id, subscriber) in state.subscribers {
                    if overflowed
                        || events.contains(where: {
                            $0.watch == subscriber.descriptor
                                && ($0.name.map { subscriber.names.contains($0) } ?? true)
                        })
                    {
                        touched.insert(id)
                    }
                }
                return touched
            }
        }
    #endif
}

private func monotonicMicroseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int(time.tv_sec) * 1_000_000 + Int(time.tv_nsec) / 1000
}
