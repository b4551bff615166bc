import Foundation
import PrefsKit
import TestSupport
import Testing

/// kill -9 while a process upgrades stored values to a key's new shape: each value ends in
/// its old shape without a version, or in its new shape with version 2, never a mix and
/// never lost.
@Suite struct ValueUpgradeKillTests {
    @Test func aKillDuringUpgradesLeavesEachValueOldOrNew() async throws {
        let trials = Reliability.isLong ? 200 : 20
        let keys = 200
        let partWay = try await Reliability.killAtRandomMoments(
            trials: trials, in: try TemporaryFolder(),
            prepare: { path in
                try PreferenceStore(database: try AppDatabase(path: path)).transaction { edit in
                    for index in 0..<keys {
                        try edit.setValue(.json(#"{"width":\#(index)}"#), forKey: "layout\(index)")
                    }
                }
            },
            helperArguments: { ["upgrade", $0, "layout", String(keys)] },
            check: { trial, path in
                let store = PreferenceStore(database: try AppDatabase(path: path))
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
                return upgraded > 0 && upgraded < keys
            })
        Reliability.report(
            "value upgrades under kill -9: \(trials) trials, \(partWay) killed part-way")
    }
}
