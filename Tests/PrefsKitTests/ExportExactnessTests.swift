import Foundation
import TestSupport
import Testing

@testable import PrefsKit

/// Every export format against every stored type: the value comes back from an import as it
/// was stored, or the format says beforehand that it cannot keep it (and `export` refuses
/// without `--lossy`). The XML property list silently rounded sub-second dates down.
@Suite struct ExportExactnessTests {
    static let values: [(String, PreferenceValue)] = [
        ("bool", .bool(true)), ("int", .int(.min)), ("big int", .int(.max)),
        ("double", .double(0.1)), ("negative zero", .double(-0.0)), ("nan", .double(.nan)),
        ("infinity", .double(-.infinity)), ("float", .float(12.34)),
        ("string", .string("Zoë 🏔 <&>")), ("empty string", .string("")),
        ("carriage return", .string("a\r\nb\rc")), ("tab and newline", .string("a\tb\nc")),
        ("control character", .string("bell\u{7}")), ("nul", .string("a\u{0}b")),
        ("url", .url(URL(string: "https://example.com/a?b=1&c=<d>")!)),
        ("whole-second date", .date(Date(timeIntervalSinceReferenceDate: 123_456))),
        ("sub-second date", .date(Date(timeIntervalSinceReferenceDate: 123_456.25))),
        ("old date", .date(Date(timeIntervalSinceReferenceDate: -3_000_000_000.5))),
        ("data", .data(Data([0, 255, 7]))), ("empty data", .data(Data())),
        ("array", .array([.int(1), .string("two"), .bool(false)])),
        ("array of dates", .array([.date(Date(timeIntervalSinceReferenceDate: 0.5))])),
        ("dictionary", .dictionary(["volume": .double(0.5), "muted": .bool(false)])),
        ("dictionary with a bell key", .dictionary(["a\u{7}": .int(1)])),
        ("json", .json(#"{"theme":"dark"}"#)),
    ]

    enum Format: String, CaseIterable {
        case json, xml, binary
    }

    @Test(arguments: Format.allCases)
    func eachValueComesBackExactOrIsNamedAsALoss(format: Format) throws {
        let folder = try TemporaryFolder()
        let database = try AppDatabase(path: folder.path("prefs.sqlite"))
        var refused: [String] = []
        for (index, (key, value)) in Self.values.enumerated() {
            let store = PreferenceStore(database: database, suite: "from\(index)")
            let into = PreferenceStore(database: database, suite: "into\(index)")
            try store.setValue(value, forKey: key)
            switch format {
            case .json:
                try into.importJSON(try store.exportJSON())
            case .xml, .binary:
                let plist: PropertyList.Format = format == .xml ? .xml : .binary
                if try !store.propertyListLosses(format: plist).isEmpty {
                    refused.append(key)
                    continue
                }
                try into.importPropertyList(try store.exportPropertyList(format: plist))
            }
            #expect(
                try into.storedValue(forKey: key) == value,
                "\(format) changed '\(key)' without saying so")
        }
        // What each format says it cannot keep (anything else must come back exact).
        let expected: [Format: Set<String>] = [
            .json: [],
            .binary: ["float", "url", "json"],
            .xml: [
                "float", "url", "json", "sub-second date", "old date", "array of dates",
                "control character", "nul", "dictionary with a bell key",
            ],
        ]
        #expect(Set(refused) == expected[format])
    }
}
