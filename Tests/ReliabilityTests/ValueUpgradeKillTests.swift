import Foundation
import PrefsKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// kill -9 while a process upgrades stored values to a key's new shape: each value ends in
/// its old shape without a version, or in its new shape with version 2, never a mix and
/// never lost.
@Suite struct ValueUpgradeKillTests {
    @Test func aKillDuringUpgradesLeavesEachValueOldOrNew() async throws {
        let folder = try TemporaryFolder()
        var generator = SystemRandomNumberGenerator()
        let trials = Reliability.isLong ? 200 : 20
        let keys = 200
        var half = 0
        for trial in 0..<trials {
            let db = folder.path("t\(trial).sqlite")
            let setup = PreferenceStore(database: try AppDatabase(path: db))
            try setup.transaction { edit in
                for index in 0..<keys {
                    try edit.setValue(.json(#"{"width":\#(index)}"#), forKey: "layout\(index)")
                }
            }
            let upgrader = try Reliability.start(
                Reliability.stressExecutable, ["upgrade", db, "layout", String(keys)])
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...40, using: &generator)))
            kill(upgrader.processIdentifier, SIGKILL)
            upgrader.waitUntilExit()
            let store = PreferenceStore(database: try AppDatabase(path: db))
            let values = try store.storedValues()
            var upgraded = 0
            for index in 0..<keys {
                let value = values["layout\(index)"]
                let version = try store.storedVersion(forKey: "layout\(index)")
                let old = value == .json(#"{"width":\#(index)}"#) && version == nil
                let new = value == .json(#"{"size":{"width":\#(index)}}"#) && version == 2
                #expect(
                    old != new,
                    "trial \(trial), key \(index): \(String(describing: value)) version \(String(describing: version))"
                )
                if new { upgraded += 1 }
            }
            if upgraded > 0 && upgraded < keys { half += 1 }
        }
        Reliability.report(
            "value upgrades under kill -9: \(trials) trials, \(half) killed part-way")
    }
}
