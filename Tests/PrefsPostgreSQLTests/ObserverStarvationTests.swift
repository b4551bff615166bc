import Dispatch
import Foundation
import Observation
import PrefsPostgreSQL
import Synchronization
import TestSupport
import Testing

@testable import PrefsKit

/// A PostgreSQL store learns of other connections' commits by polling. The polling must not
/// depend on the shared pool of Swift's tasks: an app (or a test suite) whose tasks block
/// every thread of that pool would otherwise leave its observers deaf for as long. (Seen: an
/// observer of a server store that heard nothing for 60 s while a full test suite ran.)
@Suite(.serialized) struct ObserverStarvationTests {
    @Test func aServerStoreHearsOtherCommitsWhileEveryTaskThreadIsBlocked() throws {
        let server = try PostgresServer.start()
        let target = server.target(database: try server.makeDatabase())
        var options = PostgreSQLOptions()
        options.account = "alice"
        let observed = PreferenceStore(
            database: try AppDatabase.postgreSQL(target, options: options))
        let writer = PreferenceStore(database: try AppDatabase.postgreSQL(target, options: options))
        let heard = Flag()
        withObservationTracking {
            _ = observed.integer(forKey: "launchCount")
        } onChange: {
            heard.set()
        }
        // Every thread of the shared pool, and more, blocked until released.
        let release = DispatchSemaphore(value: 0)
        let blocked = Counter()
        let blockers = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        for _ in 0..<blockers {
            Task.detached {
                blocked.add()
                release.wait()
            }
        }
        defer { for _ in 0..<blockers { release.signal() } }
        // The pool is full when a task started after the blockers does not run. (This
        // test's own thread may be one of the pool's, and other tests' tasks may hold the
        // rest: the blockers then wait their turn, and the pool is full all the same.)
        _ = waitUntilSync(upTo: 1) { blocked.value >= 1 }
        let probe = Flag()
        Task.detached { probe.set() }
        usleep(500_000)
        try #require(!probe.isSet, "the pool's threads were not all blocked")
        try writer.setValue(.int(7), forKey: "launchCount")
        let wasHeard = waitUntilSync(upTo: 5) { heard.isSet }
        #expect(wasHeard, "the commit was not heard while the task pool was blocked")
    }
}

private final class Flag: Sendable {
    private let raised = Atomic<Bool>(false)
    var isSet: Bool { raised.load(ordering: .acquiring) }
    func set() { raised.store(true, ordering: .releasing) }
}

private final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .acquiring) }
    func add() { count.add(1, ordering: .releasing) }
}
