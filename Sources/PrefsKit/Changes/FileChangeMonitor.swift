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
/// A process's own commits wake nothing. From the start of its first write until
/// ``quietPeriod`` after its last, a folder watched for one database only is watched for files
/// created, replaced and removed, not written: those writes are the process's own (its
/// commits see another process's by themselves, and no other process can write the log
/// while it holds the write lock), and each would otherwise cost the writer a queued event
/// and this thread a wake. When the period ends, the folder is watched for writes again and
/// the database looks once, after taking the write lock for an instant: when nobody held it,
/// every commit made meanwhile is published and that look saw it; when somebody did, the
/// looks after a burst of events follow, and find a commit published later.
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

    /// How long after this process's last write its folder stays quiet (not watched for
    /// writes), in microseconds: how late, at most, another process's commit right after
    /// this process's last one is noticed. Writes closer together than this wake nothing.
    static let quietPeriod = 20_000

    /// A subscriber's look when a quiet period of its folder ends: `.covered` when it saw
    /// everything (no write under way), and no rechecks follow.
    typealias QuietEndCheck = @Sendable () -> Outcome

    private struct Subscriber {
        let descriptor: Int32
        let names: Set<String>
        let check: Check
        let quietEndCheck: QuietEndCheck
    }

    /// A folder the kernel watches for this process, shared by its subscribers.
    private struct Watch {
        /// The path that names the watched folder itself, whatever is renamed meanwhile
        /// (`/proc/self/fd/N` of a descriptor held open); nil where there is none, and then
        /// the folder is never quiet.
        var pinnedPath: String?
        var pinnedDescriptor: Int32 = -1
        var subscribers = 0
        /// Watched for files created, replaced and removed only, not written.
        var isQuiet = false
        /// Writes of this process under way on the folder's one database.
        var writesInFlight = 0
        /// When the last of them ended, in ``now()``'s clock.
        var lastWriteEnded = 0
        /// Its subscribers are to look as after a burst of events (the folder was quiet).
        var owesALook = false
        /// Counts the quiet periods: a write can tell whether the one it began in lasted.
        var quietPeriods = 0

        /// When the thread should end the quiet period; nil when it is not quiet.
        func quietEnds() -> Int? {
            guard isQuiet else { return nil }
            return (writesInFlight > 0 ? FileChangeMonitor.now() : lastWriteEnded)
                + FileChangeMonitor.quietPeriod
        }
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var watches: [Int32: Watch] = [:]
        var nextID = 0
        var isRunning = false
    }

    #if os(Linux)
        private let descriptor: Int32
        /// The thread's doorbell: a pipe whose reading end it polls beside the events.
        private let doorbell: (read: Int32, write: Int32)
        private static let watchedMask = UInt32(
            IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE)
        private static let quietMask = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE)
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
            var ends: [Int32] = [-1, -1]
            if pipe(&ends) == 0 {
                for end in ends {
                    _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                    _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                }
            }
            // Without a doorbell the thread cannot be told a quiet period began: folders are
            // then never quiet.
            doorbell = (ends[0], ends[1])
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
        private let watch: Int32
        /// The folder watched.
        let directory: String

        fileprivate init(monitor: FileChangeMonitor, id: Int, watch: Int32, directory: String) {
            self.monitor = monitor
            self.id = id
            self.watch = watch
            self.directory = directory
        }

        deinit { monitor.unsubscribe(id) }

        /// Called before a write of this process on the database: the folder goes quiet if
        /// this is the only database watched in it. Pair with ``ownWriteEnded()``.
        ///
        /// - Returns: The quiet period the write runs in; nil when the folder is watched for
        ///   writes.
        func ownWriteBegins() -> Int? { monitor.ownWriteBegins(watch) }

        /// Whether the folder has stayed quiet since `period` (what ``ownWriteBegins()``
        /// returned) began: no event of its files was read meanwhile, and the monitor looks
        /// once the period ends.
        func isQuiet(since period: Int) -> Bool { monitor.isQuiet(watch, since: period) }

        /// Called once the write committed or failed, after it read what committed before it.
        func ownWriteEnded() { monitor.ownWriteEnded(watch) }

        /// Whether the folder is quiet now: not watched for writes (for the tests).
        var isQuiet: Bool { monitor.isQuiet(watch) }
    }

    /// Calls `check` on the monitor's thread whenever a file of `names` in `directory` is
    /// written, created, replaced or removed (and a few times after).
    ///
    /// - Throws: ``Refusal`` when the folder cannot be watched (the kernel's limit of
    ///   watches, a folder gone).
    func subscribe(
        directory: String, names: [String], check: @escaping Check,
        quietEndCheck: @escaping QuietEndCheck
    ) throws(Refusal) -> Subscription {
        #if os(Linux)
            let (id, watch, start, ring) = try state.withLock {
                state throws(Refusal) -> (Int, Int32, Bool, Bool) in
                // Under the lock: a quiet period of this folder cannot begin or end meanwhile.
                // Watching it again for writes ends one (the kernel keeps one watch a folder).
                let watch = inotify_add_watch(descriptor, directory, Self.watchedMask)
                guard watch >= 0 else {
                    let reason = String(cString: strerror(errno))
                    throw Refusal(description: "cannot watch '\(directory)': \(reason)")
                }
                var entry = state.watches[watch] ?? pinnedWatch(directory, watch)
                entry.subscribers += 1
                let ring = entry.isQuiet
                if entry.isQuiet {
                    // Its database looks as after events: its folder was not watched for writes.
                    entry.isQuiet = false
                    entry.owesALook = true
                }
                state.watches[watch] = entry
                state.nextID += 1
                state.subscribers[state.nextID] = Subscriber(
                    descriptor: watch, names: Set(names), check: check,
                    quietEndCheck: quietEndCheck)
                defer { state.isRunning = true }
                return (state.nextID, watch, !state.isRunning, ring)
            }
            if start { startThread() }
            if ring { ringDoorbell() }
            return Subscription(monitor: self, id: id, watch: watch, directory: directory)
        #else
            throw Refusal(description: "file events are implemented for Linux only")
        #endif
    }

    private func unsubscribe(_ id: Int) {
        state.withLock { state in
            guard let gone = state.subscribers.removeValue(forKey: id) else { return }
            #if os(Linux)
                guard var entry = state.watches[gone.descriptor] else { return }
                entry.subscribers -= 1
                guard entry.subscribers == 0 else {
                    state.watches[gone.descriptor] = entry
                    return
                }
                // The kernel hands out one watch per folder; it goes with its last subscriber.
                state.watches[gone.descriptor] = nil
                inotify_rm_watch(descriptor, gone.descriptor)
                if entry.pinnedDescriptor >= 0 { close(entry.pinnedDescriptor) }
            #endif
        }
    }

    private func ownWriteBegins(_ watch: Int32) -> Int? {
        #if os(Linux)
            let (period, ring) = state.withLock { state -> (Int?, Bool) in
                // In place: a write of a quiet folder costs one lookup.
                guard let index = state.watches.index(forKey: watch) else { return (nil, false) }
                state.watches.values[index].writesInFlight += 1
                if state.watches.values[index].isQuiet {
                    return (state.watches.values[index].quietPeriods, false)
                }
                var entry = state.watches.values[index]
                defer { state.watches[watch] = entry }
                // A folder watched for another database too stays watched: that database's
                // commits by other processes must wake it while this process writes. And only
                // a running thread can end a quiet period.
                guard entry.subscribers == 1, state.isRunning, doorbell.write >= 0,
                    let path = entry.pinnedPath,
                    setMask(Self.quietMask, of: watch, at: path, in: state)
                else { return (nil, false) }
                entry.isQuiet = true
                entry.quietPeriods += 1
                return (entry.quietPeriods, true)
            }
            // The thread ends the period; it may be asleep with nothing due.
            if ring { ringDoorbell() }
            return period
        #else
            return nil
        #endif
    }

    private func ownWriteEnded(_ watch: Int32) {
        let now = Self.now()
        state.withLock { state in
            guard let index = state.watches.index(forKey: watch) else { return }
            state.watches.values[index].writesInFlight -= 1
            state.watches.values[index].lastWriteEnded = now
        }
    }

    private func isQuiet(_ watch: Int32) -> Bool {
        state.withLock { $0.watches[watch]?.isQuiet ?? false }
    }

    private func isQuiet(_ watch: Int32, since period: Int) -> Bool {
        state.withLock { state in
            guard let entry = state.watches[watch] else { return false }
            return entry.isQuiet && entry.quietPeriods == period
        }
    }

    #if os(Linux)
        /// A new folder's watch, with the path that names that folder from now on: a
        /// descriptor of it held open. Without one, the folder is never quiet.
        private func pinnedWatch(_ directory: String, _ watch: Int32) -> Watch {
            let pinned = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard pinned >= 0 else { return Watch() }
            let path = "/proc/self/fd/\(pinned)"
            // The path must lead to the folder the kernel watches (no /proc, or the folder
            // replaced between the two lookups: never quiet).
            guard inotify_add_watch(descriptor, path, Self.watchedMask) == watch else {
                close(pinned)
                return Watch()
            }
            return Watch(pinnedPath: path, pinnedDescriptor: pinned)
        }

        /// Sets the mask of a watched folder, through the path pinned to it; false when that
        /// path leads elsewhere (a watch made by mistake is let go).
        private func setMask(_ mask: UInt32, of watch: Int32, at path: String, in state: State)
            -> Bool
        {
            let got = inotify_add_watch(descriptor, path, mask)
            if got >= 0, got != watch, state.watches[got] == nil {
                inotify_rm_watch(descriptor, got)
            }
            return got == watch
        }

        private func ringDoorbell() {
            var byte: UInt8 = 1
            _ = write(doorbell.write, &byte, 1)
        }

        /// Ends the quiet periods that are over, and takes the looks owed; the subscribers
        /// that are to look as after a burst of events.
        private func endQuietPeriods() -> Set<Int> {
            let now = Self.now()
            return state.withLock { state in
                var owed: [Int32] = []
                for (watch, entry) in state.watches {
                    if entry.owesALook {
                        state.watches[watch]?.owesALook = false
                        owed.append(watch)
                    }
                    guard let ends = entry.quietEnds(), ends <= now, let path = entry.pinnedPath
                    else { continue }
                    state.watches[watch]?.isQuiet = false
                    if !setMask(Self.watchedMask, of: watch, at: path, in: state) {
                        // The folder is gone (the kernel dropped its watch): never quiet again.
                        state.watches[watch]?.pinnedPath = nil
                    }
                    owed.append(watch)
                }
                let ids = state.subscribers.filter { owed.contains($0.value.descriptor) }.keys
                return Set(ids)
            }
        }

        private func quietEndLook(_ id: Int) -> Outcome {
            guard let check = state.withLock({ $0.subscribers[id]?.quietEndCheck }) else {
                return .covered
            }
            return check()
        }

        /// When the next quiet period ends, if one is under way.
        private func nextQuietEnd() -> Int? {
            state.withLock { state in state.watches.values.compactMap { $0.quietEnds() }.min() }
        }

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
                var entries = [
                    pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: doorbell.read, events: Int16(POLLIN), revents: 0),
                ]
                var timeout: Int32 = -1
                var due: Int?
                if !busy.isEmpty {
                    due = retryAt
                } else if let next = rechecks.first {
                    due = burstEnded + next
                }
                if let quietEnd = nextQuietEnd() { due = min(due ?? quietEnd, quietEnd) }
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
                let ready = poll(&entries, nfds_t(entries.count), timeout)
                guard ready >= 0 else { continue }  // a signal
                if entries[1].revents != 0 {
                    while buffer.withUnsafeMutableBytes({ read(doorbell.read, $0.baseAddress, 64) })
                        > 0
                    {}
                }
                var touched = entries[0].revents != 0 ? readEvents(into: &buffer) : []
                // A look that found no write under way saw all: no rechecks.
                for id in endQuietPeriods() where quietEndLook(id) != .covered {
                    touched.insert(id)
                }
                if !touched.isEmpty {
                    pending.formUnion(touched)
                    burstEnded = monotonicMicroseconds()
                    rechecks = Self.recheckDelays
                    busy = runChecks(of: &pending, eventsRead: burstEnded)
                } else {
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
