import Foundation
import TestSupport
import Testing

/// The long property suites run on threads of their own, so that they cannot stop every
/// other test's tasks (the cooperative pool has a thread per core).
struct OwnThreadTests {
    @Test func bodiesOnTheirOwnThreadsLeaveThePoolFree() async throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let started = Date()
        let reachedAt = try await withThrowingTaskGroup(of: Double?.self) { group in
            // One blocking body per core: on the pool they would hold every thread.
            for _ in 0..<cores {
                group.addTask {
                    _ = try await onItsOwnThread { usleep(2_000_000) }
                    return nil
                }
            }
            group.addTask {
                usleep(100_000)
                return await Task { Date().timeIntervalSince(started) }.value
            }
            var reached: Double?
            for try await value in group where value != nil { reached = value }
            return reached
        }
        let seconds = try #require(reachedAt)
        #expect(seconds < 1.5, "a task waited \(seconds) s for a thread")
    }
}
