import Foundation
import Synchronization

/// Collects what an observation yields, for checks from the test's task.
public final class Collected<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []

    public init() {}

    /// Adds an item (from the observing task).
    public func append(_ item: Element) { lock.withLock { items.append(item) } }

    /// Everything collected so far.
    public var all: [Element] { lock.withLock { items } }

    /// Waits until the condition holds or the time is up; true when it held.
    /// (Generous deadlines: on a 2-core machine the task that collects may wait for a
    /// thread while synchronous suites, such as the power-cut trials, hold the pool.)
    public func wait(upTo seconds: Double, until condition: ([Element]) -> Bool) async -> Bool {
        await waitUntil(upTo: seconds) { condition(all) }
    }
}

/// Checks a condition until it holds or the time is up; true when it held. For what
/// another thread or process brings about, where a fixed sleep would be a guess.
///
/// The time counted is the waiter's: a pause of 2 ms from which the waiter came back late
/// (its task waited for a thread of the pool, held by other tests) counts at most 0.25 s,
/// since whatever it waits for may have waited for the same threads.
public func waitUntil(upTo seconds: Double = 10, _ condition: () throws -> Bool) async rethrows
    -> Bool
{
    var left = seconds
    while left > 0 {
        let checking = Date()
        if try condition() { return true }
        let pausing = Date()
        try? await Task.sleep(for: .milliseconds(2))
        left -= pausing.timeIntervalSince(checking) + min(Date().timeIntervalSince(pausing), 0.25)
    }
    return try condition()
}

/// The blocking form of ``waitUntil(upTo:_:)``, for synchronous tests.
public func waitUntilSync(upTo seconds: Double = 10, _ condition: () throws -> Bool) rethrows
    -> Bool
{
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(2_000)
    }
    return try condition()
}

/// Whether a process has a file open (Linux: its `/proc/PID/fd` links). Where that cannot
/// be read, true, so that a caller's wait ends at once.
public func process(_ pid: Int32, hasOpened path: String) -> Bool {
    #if os(Linux)
        let folder = "/proc/\(pid)/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            return false
        }
        let wanted = URL(fileURLWithPath: path).standardizedFileURL.path
        return entries.contains {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0))
                == wanted
        }
    #else
        return true
    #endif
}

/// Reads from a pipe up to and including a newline, waiting at most `seconds` for each part
/// of it; nil when nothing came in time (or the writer closed the pipe first).
public func readLine(from descriptor: Int32?, timeout seconds: Double) -> String? {
    guard let descriptor else { return nil }
    var line: [UInt8] = []
    while !line.contains(UInt8(ascii: "\n")) {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&request, 1, Int32(seconds * 1000)) > 0 else { return nil }
        var byte: UInt8 = 0
        guard read(descriptor, &byte, 1) == 1 else { return nil }
        line.append(byte)
    }
    return String(decoding: line, as: UTF8.self)
}

/// Runs a long synchronous body (minutes of schedules) on a thread of its own, not on one
/// of the cooperative pool's threads. The pool has a thread per core (two here); a body
/// that held one for minutes, beside another such body, would stop every other test's
/// tasks, and a test waiting for a task of its own would see its deadline pass with the
/// task never run. The body stays in the test's task (its issues are the test's).
public func onItsOwnThread<Result: Sendable>(
    _ body: () throws -> Result
) async throws -> Result {
    let thread = OwnThreadExecutor()
    defer { thread.stop() }
    return try await withTaskExecutorPreference(thread) { try body() }
}

/// Whether the caller runs on a thread of ``onItsOwnThread(_:)``.
public func isOnItsOwnThread() -> Bool {
    OwnThreadExecutor.threads.withLock { $0.contains(UInt(bitPattern: Int(pthread_self()))) }
}

/// A task executor with one thread of its own, which ends when stopped.
final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {
    /// The threads running now.
    static let threads = Mutex<Set<UInt>>([])
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init() {
        let thread = Thread { [self] in run() }
        thread.stackSize = 16 << 20
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    func stop() {
        condition.withLock {
            stopped = true
            condition.signal()
        }
    }

    private func run() {
        let me = UInt(bitPattern: Int(pthread_self()))
        Self.threads.withLock { _ = $0.insert(me) }
        defer { Self.threads.withLock { _ = $0.remove(me) } }
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
