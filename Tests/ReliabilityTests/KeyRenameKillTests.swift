import Foundation
import PrefsKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// kill -9 while processes move values from previous names: each key ends with its value
/// under the old name or under the new one, never both and never neither.
@Suite struct KeyRenameKillTests {
    @Test func aKillDuringRenamesLeavesEachKeyOldOrNew() async throws {
        let folder = try TemporaryFolder()
        var generator = SystemRandomNumberGenerator()
        let trials = Reliability.isLong ? 200 : 20
        let keys = 200
        var half = 0
        for trial in 0..<trials {
            let db = folder.path("t\(trial).sqlite")
            let setup = PreferenceStore(database: try AppDatabase(path: db))
            try setup.transaction { edit in
                for index in 0..<keys { try edit.setValue(.int(index), forKey: "old\(index)") }
            }
            let adopter = try Reliability.start(
                Reliability.stressExecutable, ["adopt", db, "new", String(keys), "old"])
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...40, using: &generator)))
            kill(adopter.processIdentifier, SIGKILL)
            adopter.waitUntilExit()
            let values = try PreferenceStore(database: try AppDatabase(path: db)).storedValues()
            var moved = 0
            for index in 0..<keys {
                let old = values["old\(index)"]
                let new = values["new\(index)"]
                #expect(
                    (old == .int(index)) != (new == .int(index)),
                    "trial \(trial), key \(index): old \(String(describing: old)), new \(String(describing: new))"
                )
                if new != nil { moved += 1 }
            }
            if moved > 0 && moved < keys { half += 1 }
        }
        Reliability.report("renames under kill -9: \(trials) trials, \(half) killed part-way")
    }
}
