import Foundation
import Testing

@testable import PrefsKit

/// The getters of Foundation's UserDefaults convert between types (NSUserDefaults.h);
/// each row of these tables is one case.
@Suite struct UserDefaultsCompatibilityTests {
    let store: PreferenceStore

    init() throws {
        store = PreferenceStore(database: try AppDatabase.inMemory(), suite: "compat")
    }

    static let boolCases: [(PreferenceValue, Bool)] = [
        (.string("YES"), true), (.string("yes"), true), (.string("true"), true),
        (.string("1"), true), (.string("  Y"), true), (.string("007"), true),
        (.string("NO"), false), (.string("false"), false), (.string("0"), false),
        (.string("maybe"), false), (.string(""), false),
        (.int(2), true), (.int(0), false), (.double(0.5), true), (.double(0), false),
        (.bool(true), true), (.data(Data([1])), false),
    ]

    @Test(arguments: boolCases)
    func boolForKey(stored: PreferenceValue, expected: Bool) throws {
        try store.setValue(stored, forKey: "k")
        #expect(store.bool(forKey: "k") == expected)
    }

    static let integerCases: [(PreferenceValue, Int)] = [
        (.string("1234"), 1234), (.string("  -17abc"), -17), (.string("12.34"), 12),
        (.string("abc"), 0), (.string("99999999999999999999"), Int.max),
        (.bool(true), 1), (.bool(false), 0), (.double(12.34), 12), (.double(-12.99), -12),
        (.int(42), 42), (.date(Date()), 0),
    ]

    @Test(arguments: integerCases)
    func integerForKey(stored: PreferenceValue, expected: Int) throws {
        try store.setValue(stored, forKey: "k")
        #expect(store.integer(forKey: "k") == expected)
    }

    static let doubleCases: [(PreferenceValue, Double)] = [
        (.string("12.5"), 12.5), (.string(" 1e3x"), 1000), (.string("-.5"), -0.5),
        (.string("pi"), 0), (.int(3), 3), (.bool(true), 1), (.double(2.25), 2.25),
    ]

    @Test(arguments: doubleCases)
    func doubleForKey(stored: PreferenceValue, expected: Double) throws {
        try store.setValue(stored, forKey: "k")
        #expect(store.double(forKey: "k") == expected)
        #expect(store.float(forKey: "k") == Float(expected))
    }

    static let stringCases: [(PreferenceValue, String?)] = [
        (.string("hello"), "hello"), (.int(42), "42"), (.double(12.34), "12.34"),
        (.double(2), "2"), (.bool(true), "1"), (.data(Data([1])), nil),
        (.array([.string("a")]), nil),
    ]

    @Test(arguments: stringCases)
    func stringForKey(stored: PreferenceValue, expected: String?) throws {
        try store.setValue(stored, forKey: "k")
        #expect(store.string(forKey: "k") == expected)
    }

    @Test func urlForKeyReadsStringsAsFilePaths() throws {
        store.set(URL(string: "https://example.com/a")!, forKey: "web")
        #expect(store.url(forKey: "web") == URL(string: "https://example.com/a"))
        store.set("/tmp/report.txt", forKey: "path")
        #expect(store.url(forKey: "path") == URL(fileURLWithPath: "/tmp/report.txt"))
        store.set(5, forKey: "number")
        #expect(store.url(forKey: "number") == nil)
    }

    /// A typed URL key reads a path string as `url(forKey:)` does: a file URL, tilde
    /// expanded (property lists from macOS hold paths so).
    @Test(arguments: ["~/Sites/index.html", "/tmp/some file.txt", "relative/name.txt"])
    func aTypedURLKeyReadsAPathStringAsUrlForKeyDoes(path: String) throws {
        try store.setValue(.string(path), forKey: "location")
        let key = Prefs.Key("location", default: URL(string: "https://default.example")!)
        let read = store[key]
        #expect(read == store.url(forKey: "location"))
        #expect(read.isFileURL)
        if path.hasPrefix("~/") {
            let home = ProcessInfo.processInfo.environment["HOME"] ?? ""
            #expect(read.path == home + "/Sites/index.html")
        }
        try store.setValue(.string("https://example.com/a"), forKey: "location")
        #expect(store[key] == URL(string: "https://example.com/a"))
    }

    @Test func containerGettersReturnOnlyTheirType() throws {
        store.set(["a", "b"], forKey: "strings")
        store.set(["a", 1] as [Any], forKey: "mixed")
        store.set(["x": 1, "y": "two"] as [String: Any], forKey: "dict")
        store.set(Data([9, 8]), forKey: "blob")
        #expect(store.stringArray(forKey: "strings") == ["a", "b"])
        #expect(store.stringArray(forKey: "mixed") == nil)
        #expect(store.array(forKey: "mixed")?.count == 2)
        #expect(store.array(forKey: "dict") == nil)
        #expect(store.dictionary(forKey: "dict")?["y"] as? String == "two")
        #expect(store.dictionary(forKey: "strings") == nil)
        #expect(store.data(forKey: "blob") == Data([9, 8]))
        #expect(store.data(forKey: "strings") == nil)
    }

    @Test func everyPropertyListTypeRoundTripsThroughObjectForKey() throws {
        let date = Date(timeIntervalSinceReferenceDate: 1_234.567_8)
        let values: [String: Any] = [
            "bool": true, "int": 7, "double": 2.0, "string": "s", "date": date,
            "data": Data([1, 2]), "url": URL(string: "https://x.y")!,
            "array": [1, "two", 3.5, false] as [Any],
            "dict": ["nested": ["deep": date] as [String: Any]] as [String: Any],
        ]
        for (key, value) in values { store.set(value, forKey: key) }
        let reopened = try store.storedValues()
        for (key, value) in values {
            #expect(reopened[key] == PreferenceValue(any: value), "key \(key)")
        }
        #expect(store.object(forKey: "double") as? Double == 2.0)
        #expect(store.object(forKey: "double") as? Int == nil)
        #expect(store.object(forKey: "int") as? Int == 7)
        #expect(store.object(forKey: "date") as? Date == date)
        // Every stored key, and beyond them only the process's registration domain (which
        // other tests of this process add to, as UserDefaults' is shared).
        let representation = Set(store.dictionaryRepresentation().keys)
        #expect(Set(values.keys).isSubset(of: representation))
        #expect(
            representation.subtracting(values.keys).isSubset(of: store.registeredDefaults.keys))
    }

    @Test func settingNilOrRemovingDeletes() throws {
        store.set(1, forKey: "a")
        store.set(nil as Any?, forKey: "a")
        #expect(store.object(forKey: "a") == nil)
        store.set(1, forKey: "b")
        store.removeObject(forKey: "b")
        #expect(store.object(forKey: "b") == nil)
    }

    @Test func unsupportedValueIsReportedNotStored() throws {
        struct NotAPropertyList {}
        let reported = Reported()
        store.errorHandler = { reported.add("\($0)") }
        store.set(NotAPropertyList(), forKey: "odd")
        #expect(store.object(forKey: "odd") == nil)
        #expect(
            reported.messages == [
                "Invalid value for 'odd': NotAPropertyList is not a property-list type"
            ])
    }
}
