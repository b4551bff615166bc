import Foundation
import TestSupport
import Testing

@testable import PrefsKit

/// Version 1 of an app stored this.
private struct LayoutV1: Codable, JSONPreference, Equatable {
    var columns: Int
}

/// Version 2 renamed the field and added one.
private struct Layout: Codable, JSONPreference, Equatable {
    var columnCount: Int
    var dense: Bool
}

/// Version 3, as a newer app stores it.
private struct LayoutV3: Codable, JSONPreference, Equatable {
    var grid: [Int]
}

extension Prefs.Keys {
    fileprivate static let layoutV1 = Prefs.Key("layout", default: LayoutV1(columns: 1))
    fileprivate static let layoutV2 = Prefs.Key(
        "layout", default: Layout(columnCount: 1, dense: false), version: 2
    ) { json, version in
        #expect(version == 0 || version == 1)
        let old = try JSONDecoder().decode(LayoutV1.self, from: json)
        return Layout(columnCount: old.columns, dense: false)
    }
    fileprivate static let layoutV3 = Prefs.Key(
        "layout", default: LayoutV3(grid: []), version: 3
    ) { _, _ in
        throw CocoaError(.coderReadCorrupt)
    }
    /// A key whose migration cannot read anything.
    fileprivate static let stubborn = Prefs.Key(
        "layout", default: Layout(columnCount: 9, dense: true), version: 2
    ) { _, _ in
        throw CocoaError(.coderReadCorrupt)
    }
}

@Suite struct EvolvingValueTests {
    let folder: TemporaryFolder
    let path: String

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("prefs.sqlite")
    }

    /// A fresh connection: what another launch of the app sees.
    private func launch() throws -> PreferenceStore {
        PreferenceStore(database: try AppDatabase(path: path))
    }

    @Test func aValueThatNoLongerDecodesReadsTheDefaultAndIsKept() throws {
        let old = try launch()
        try old.set(LayoutV1(columns: 3), for: .layoutV1)
        let unversioned = Prefs.Key("layout", default: Layout(columnCount: 1, dense: false))
        let store = try launch()
        #expect(store[unversioned] == Layout(columnCount: 1, dense: false))
        #expect(try store.storedValue(forKey: "layout") == .json(#"{"columns":3}"#))
        // Reading again, or through the old type, finds it untouched.
        #expect(try launch()[.layoutV1] == LayoutV1(columns: 3))
    }

    @Test func anOlderShapeIsUpgradedOnceWithItsVersionAndHistory() throws {
        try launch().set(LayoutV1(columns: 3), for: .layoutV1)
        #expect(try launch().storedVersion(forKey: "layout") == nil)
        let store = try launch()
        #expect(store[.layoutV2] == Layout(columnCount: 3, dense: false))
        #expect(
            try store.storedValue(forKey: "layout")
                == .json(#"{"columnCount":3,"dense":false}"#))
        #expect(try store.storedVersion(forKey: "layout") == 2)
        let history = try store.history(forKey: "layout")
        #expect(history.count == 2)
        #expect(history.first?.oldValue == .json(#"{"columns":3}"#))
        // Once: later reads and launches change nothing.
        #expect(try launch()[.layoutV2] == Layout(columnCount: 3, dense: false))
        #expect(try store.history(forKey: "layout").count == 2)
        // Writes through the key carry its version.
        try store.set(Layout(columnCount: 5, dense: true), for: .layoutV2)
        #expect(try store.storedVersion(forKey: "layout") == 2)
    }

    @Test func anOlderShapeWrittenLaterByAnotherProcessIsUpgradedToo() async throws {
        let store = try launch()
        #expect(store[.layoutV2] == Layout(columnCount: 1, dense: false))
        // An old version of the app, still running elsewhere, writes its shape.
        try launch().set(LayoutV1(columns: 7), for: .layoutV1)
        #expect(await waitUntil { store[.layoutV2] == Layout(columnCount: 7, dense: false) })
        #expect(try store.storedVersion(forKey: "layout") == 2)
    }

    @Test func aNewerShapeIsNeverTouched() throws {
        try launch().set(LayoutV3(grid: [2, 2]), for: .layoutV3)
        let store = try launch()
        #expect(store[.layoutV2] == Layout(columnCount: 1, dense: false))
        #expect(try store.storedValue(forKey: "layout") == .json(#"{"grid":[2,2]}"#))
        #expect(try store.storedVersion(forKey: "layout") == 3)
        #expect(try store.history(forKey: "layout").count == 1)
    }

    @Test func aMigrationThatFailsLeavesTheValueAndReadsTheDefault() throws {
        try launch().set(LayoutV1(columns: 3), for: .layoutV1)
        let store = try launch()
        #expect(store[.stubborn] == Layout(columnCount: 9, dense: true))
        #expect(try store.storedValue(forKey: "layout") == .json(#"{"columns":3}"#))
        #expect(try store.storedVersion(forKey: "layout") == nil)
    }

    @Test func aReadOnlyStoreReadsWithoutUpgrading() throws {
        try launch().set(LayoutV1(columns: 3), for: .layoutV1)
        var options = AppDatabase.Options()
        options.isReadOnly = true
        let reader = PreferenceStore(database: try AppDatabase(path: path, options: options))
        #expect(reader[.layoutV2] == Layout(columnCount: 1, dense: false))
        #expect(try launch().storedVersion(forKey: "layout") == nil)
    }

    @Test func theCommandPrintsTheRawValueAndItsVersion() throws {
        try launch().set(LayoutV1(columns: 3), for: .layoutV1)
        _ = try launch()[.layoutV2]
        let plain = try runPrefs(["--db", path, "get", "layout", "--raw"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout == #"{"columnCount":3,"dense":false}"# + "\n")
        let json = try runPrefs(["--db", path, "--json", "get", "layout", "--raw"])
        #expect(json.stdout.contains(#""version": 2"#), "\(json.stdout)")
        #expect(json.stdout.contains(#""storedText": "{\"columnCount\":3,\"dense\":false}""#))
        let missing = try runPrefs(["--db", path, "get", "nothing", "--raw"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: No value stored for 'nothing' in suite 'standard'\n")
        let both = try runPrefs(["--db", path, "get", "layout", "--raw", "--default", "x"])
        #expect(both.status == 64)
    }
}
