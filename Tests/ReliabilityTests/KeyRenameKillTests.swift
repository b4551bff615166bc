import Foundation
import PrefsKit
import TestSupport
import Testing

/// kill -9 while processes move values from previous names: each key ends with its value
/// under the old name or under the new one, never both and never neither.
@Suite struct KeyRenameKillTests {
    @Test func aKillDuringRenamesLeavesEachKeyOldOrNew() async throws {
        let trials = Reliability.isLong ? 200 : 20
        let keys = 200
        let partWay = try await Reliability.killAtRandomMoments(
            trials: trials, in: try TemporaryFolder(),
            prepare: { path in
                try PreferenceStore(database: try AppDatabase(path: path)).transaction { edit in
                    for index in 0..<keys { try edit.setValue(.int(index), forKey: "old\(index)") }
                }
            },
            helperArguments: { ["adopt", $0, "new", String(keys), "old"] },
            check: { trial, path in
                let values = try PreferenceStore(database: try AppDatabase(path: path))
                    .storedValues()
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
                return moved > 0 && moved < keys
            })
        Reliability.report("renames under kill -9: \(trials) trials, \(partWay) killed part-way")
    }
}
