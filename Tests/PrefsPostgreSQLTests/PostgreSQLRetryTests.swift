import Dispatch
import Foundation
import PrefsTestSupport
import TestSupport
import Testing

@testable import PrefsKit
@testable import PrefsPostgreSQL

/// A deadlock between two transactions of one account: the server aborts one, which runs
/// again by itself and commits; neither caller sees an error.
@Suite struct PostgreSQLRetryTests {
    let server: PostgresServer
    let target: String

    init() throws {
        server = try PostgresServer.start()
        target = server.target(database: try server.makeDatabase())
    }

    private func open() throws -> AppDatabase {
        var options = PostgreSQLOptions()
        options.account = "admin"
        return try AppDatabase.postgreSQL(target, options: options)
    }

    private func retries(of database: AppDatabase) -> Int {
        database.state.withLock { ($0.engine as? PostgreSQLEngine)?.retryCount ?? -1 }
    }

    @Test func aDeadlockedTransactionRunsAgainAndCommits() throws {
        let first = try open()
        let second = try open()
        try SelectionStore(database: first).define("carousel", count: 13, policy: .clamp)
        // The first locks the carousel's row, then wants the account's change counter; the
        // second holds the counter (a preference write), then wants the carousel's row.
        let firstLocked = DispatchSemaphore(value: 0)
        let secondLocked = DispatchSemaphore(value: 0)
        // Threads of their own: blocked on semaphores, tasks could wait for a free thread of
        // the shared pool while the other side's wait runs out.
        let firstDone = TransactionThread {
            var isFirstRun = true
            try first.transaction {
                try SelectionStore(database: first).select(3, in: "carousel")
                if isFirstRun {
                    isFirstRun = false
                    firstLocked.signal()
                    _ = secondLocked.wait(timeout: .now() + 10)
                }
                try PreferenceStore(database: first).set(1, for: .launchCount)
            }
        }
        let secondDone = TransactionThread {
            var isFirstRun = true
            try second.transaction {
                if isFirstRun {
                    isFirstRun = false
                    _ = firstLocked.wait(timeout: .now() + 10)
                }
                try PreferenceStore(database: second).set(true, for: .hasViewedWalkthrough)
                secondLocked.signal()
                try SelectionStore(database: second).select(7, in: "carousel")
            }
        }
        try firstDone.wait()
        try secondDone.wait()
        // One of them was the server's victim and ran again (on a loaded machine the reruns
        // may meet again, so more than once is allowed; none is not).
        #expect(retries(of: first) + retries(of: second) >= 1)
        let reader = try open()
        #expect(PreferenceStore(database: reader)[.launchCount] == 1)
        #expect(PreferenceStore(database: reader)[.hasViewedWalkthrough])
        let selected = try SelectionStore(database: reader).selection(named: "carousel")?.index
        #expect(selected == 3 || selected == 7)
    }
}

/// Runs a throwing closure on a thread of its own; `wait()` joins it and rethrows.
final class TransactionThread: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var failure: (any Error)?

    init(_ body: @escaping @Sendable () throws -> Void) {
        let thread = Thread { [self] in
            do { try body() } catch { failure = error }
            done.signal()
        }
        thread.start()
    }

    func wait() throws {
        done.wait()
        if let failure { throw failure }
    }
}
