import Foundation
import TestSupport
import Testing

/// The long property suites run on threads of their own, so that they cannot stop every
/// other test's tasks (the cooperative pool has a thread per core).
struct OwnThreadTests {
    @Test func aLongBodyRunsOnAThreadOfItsOwnAndStaysInItsTest() async throws {
        #expect(try await onItsOwnThread { isOnItsOwnThread() })
        #expect(!isOnItsOwnThread())
        let test = try await onItsOwnThread { Test.current?.name }
        #expect(test == Test.current?.name)
    }
}
