import Foundation
import TestSupport
import Testing

@testable import PrefsKit

/// A write that cannot throw (a setter) and fails is loud: one line on standard error
/// always; in a debug build under a debugger, execution stops at the fault; with
/// `PREFS_STOP_ON_FAILED_WRITE=1`, it stops there in any case. A release build without the
/// variable writes the line and goes on.
@Suite struct FailedWriteTests {
    let folder: TemporaryFolder
    let path: String

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("prefs.sqlite")
        #expect(try runPrefs(["--db", path, "set", "other", "1"]).status == 0)
    }

    @Test func theDecisionFollowsBuildDebuggerAndVariable() {
        #expect(
            FailedWrite.shouldStop(isDebugBuild: true, debuggerAttached: true, environment: nil))
        #expect(
            !FailedWrite.shouldStop(isDebugBuild: true, debuggerAttached: false, environment: nil))
        #expect(
            !FailedWrite.shouldStop(isDebugBuild: false, debuggerAttached: true, environment: nil))
        #expect(
            FailedWrite.shouldStop(isDebugBuild: false, debuggerAttached: false, environment: "1"))
        #expect(
            !FailedWrite.shouldStop(isDebugBuild: true, debuggerAttached: false, environment: "0"))
        #expect(FailedWrite.debuggerIsAttached() == false, "the test runner is not traced")
    }

    @Test func withoutADebuggerTheSetterWritesOneLineAndGoesOn() throws {
        let run = try runProcess(
            Reliability.stressExecutable, ["failed-write", path, "hasViewedWalkthrough", "1"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("went on after the failed write"))
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("prefs: a write could not be stored: ") == true)
    }

    @Test func theVariableStopsAtTheFault() throws {
        let run = try runProcess(
            Reliability.stressExecutable, ["failed-write", path, "hasViewedWalkthrough", "1"],
            environment: ["PREFS_STOP_ON_FAILED_WRITE": "1"])
        // Either the trap ends the process, or Swift's runtime backtracer (on Linux it
        // handles SIGTRAP) reports it with the stack of the fault.
        let trapped =
            run.status == SIGTRAP
            || (run.stderr.contains("Signal 5") && run.stderr.contains("FailedWrite.report"))
        #expect(trapped, "SIGTRAP was raised at the fault")
        #expect(run.stderr.contains("a write could not be stored"))
    }
}
