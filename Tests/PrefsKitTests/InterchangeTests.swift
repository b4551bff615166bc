import Foundation
import Testing

@testable import PrefsKit

@Suite struct InterchangeTests {
    let store: PreferenceStore

    init() throws {
        store = PreferenceStore(database: try AppDatabase.inMemory())
    }

    static let sample: [String: PreferenceValue] = [
        "hasViewedWalkthrough": .bool(true),
        "launchCount": .int(-3),
        "volume": .double(2.0),
        "ratio": .double(0.1),
        "huge": .double(.infinity),
        "name": .string("Zoë <&> \"q\"\n\u{1F600}"),
        "homepage": .url(URL(string: "https://example.com/a?b=c")!),
        "lastOpened": .date(Date(timeIntervalSinceReferenceDate: 817_700_000.123_456_7)),
        "early": .date(Date(timeIntervalSinceReferenceDate: -1_234.25)),
        "avatar": .data(Data((0..<300).map { UInt8($0 % 256) })),
        "list": .array([
            .int(1), .double(1.0), .string("x"), .bool(false),
            .date(Date(timeIntervalSinceReferenceDate: 5.5)), .data(Data([7])),
        ]),
        "dict": .dictionary(["a": .array([]), "b": .dictionary(["c": .int(1)])]),
        "layout": .json(#"{"height":600,"title":"Main","width":800}"#),
    ]

    func fill(_ store: PreferenceStore) throws {
        try store.transaction { edit in
            for (key, value) in Self.sample { try edit.setValue(value, forKey: key) }
        }
    }

    @Test func jsonExportImportRoundTripIsLossless() throws {
        try fill(store)
        let exported = try store.exportJSON()
        let target = PreferenceStore(database: try AppDatabase.inMemory())
        #expect(try target.importJSON(exported) == Self.sample.count)
        let imported = try target.storedValues()
        for (key, value) in Self.sample { #expect(imported[key] == value, "key \(key)") }
        #expect(imported.count == Self.sample.count)
        #expect(try target.exportJSON() == exported)
    }

    @Test func binaryPropertyListRoundTripIsLossless() throws {
        var plistSample = Self.sample
        // Property lists have no URL or JSON type: those come back as strings.
        plistSample["homepage"] = nil
        plistSample["layout"] = nil
        try store.transaction { edit in
            for (key, value) in plistSample { try edit.setValue(value, forKey: key) }
        }
        let data = try store.exportPropertyList(format: .binary)
        #expect(data.starts(with: Array("bplist00".utf8)))
        let target = PreferenceStore(database: try AppDatabase.inMemory())
        try target.importPropertyList(data)
        #expect(try target.storedValues() == plistSample)
    }

    @Test func xmlPropertyListRoundTripKeepsTypes() throws {
        let values: [String: PreferenceValue] = [
            "flag": .bool(false), "count": .int(12), "real": .double(3.0),
            "text": .string("a < b & c"),
            "when": .date(Date(timeIntervalSinceReferenceDate: 86_400)),
            "bytes": .data(Data(repeating: 0xAB, count: 100)),
            "list": .array([.int(1), .dictionary(["k": .string("v")])]),
        ]
        for (key, value) in values { try store.setValue(value, forKey: key) }
        let data = try store.exportPropertyList(format: .xml)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("<key>real</key>\n\t<real>3</real>"))
        #expect(text.contains("<string>a &lt; b &amp; c</string>"))
        #expect(text.contains("<date>2001-01-02T00:00:00Z</date>"))
        let target = PreferenceStore(database: try AppDatabase.inMemory())
        try target.importPropertyList(data)
        #expect(try target.storedValues() == values)
    }

    @Test func readsAPropertyListAsMacOSWritesIt() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>NSNavLastRootDirectory</key>
            \t<string>~/Documents</string>
            \t<key>hasViewedWalkthrough</key>
            \t<true/>
            \t<!-- a comment -->
            \t<key>Window Frame</key>
            \t<string><![CDATA[0 0 <800> 600]]></string>
            \t<key>ratio</key>
            \t<real>0.75</real>
            \t<key>caf&#233;</key>
            \t<integer>-5</integer>
            </dict>
            </plist>
            """
        try store.importPropertyList(Data(xml.utf8))
        #expect(
            try store.storedValues() == [
                "NSNavLastRootDirectory": .string("~/Documents"),
                "hasViewedWalkthrough": .bool(true),
                "Window Frame": .string("0 0 <800> 600"),
                "ratio": .double(0.75),
                "café": .int(-5),
            ])
    }

    @Test func importsAPlainJSONObjectInferringTypes() throws {
        try store.importJSON(
            #"{"a": true, "b": 2, "c": 2.0, "d": "x", "e": [1, {"$date": "2001-01-01T00:00:01.500Z"}]}"#
        )
        #expect(
            try store.storedValues() == [
                "a": .bool(true), "b": .int(2), "c": .double(2), "d": .string("x"),
                "e": .array([.int(1), .date(Date(timeIntervalSinceReferenceDate: 1.5))]),
            ])
    }

    static let malformedJSON: [(String, String)] = [
        ("{", "Malformed import: invalid JSON: unexpected end of input at line 1, column 2"),
        ("[1, 2]", "Malformed import: the JSON document is not an object"),
        (
            #"{"preferences": [{"key": "a", "type": "bool", "value": "maybe"}]}"#,
            "Malformed import: preferences[0]: Invalid value for 'a': expected true or false for type bool"
        ),
        (
            #"{"preferences": [{"key": "a", "type": "color", "value": 1}]}"#,
            "Malformed import: preferences[0]: unknown type 'color'"
        ),
        (
            #"{"preferences": [{"key": "ok", "type": "int", "value": 1}, {"type": "int"}]}"#,
            "Malformed import: preferences[1] needs string 'key' and 'type' and a 'value'"
        ),
    ]

    @Test(arguments: malformedJSON)
    func malformedJSONImportChangesNothing(text: String, message: String) throws {
        try store.setValue(.int(1), forKey: "existing")
        let error = #expect(throws: PreferenceError.self) {
            try store.importJSON(text, replacing: true)
        }
        #expect(error?.description == message)
        #expect(try store.storedValues() == ["existing": .int(1)])
    }

    static let malformedPropertyLists: [(text: String, message: String)] = [
        ("", "unexpected end of file at line 1"),
        ("<plist><dict><key>a</key></dict></plist>", "<key>a</key> has no value at line 1"),
        (
            "<plist><dict><integer>1</integer></dict></plist>",
            "expected <key> in <dict>, found <integer> at line 1"
        ),
        (
            "<plist><array><string>unterminated</array></plist>",
            "expected </string>, found <array> at line 1"
        ),
        ("<plist><integer>x1</integer></plist>", "'x1' is not an integer at line 1"),
        ("bplist00", "binary plist: too short or missing the bplist header"),
        (
            "bplist00" + String(repeating: "\u{0}", count: 40),
            "binary plist: invalid sizes in the trailer"
        ),
        ("<plist><array/></plist>", "the property list is not a dictionary"),
    ]

    @Test(arguments: malformedPropertyLists)
    func malformedPropertyListImportChangesNothing(text: String, message: String) throws {
        try store.setValue(.int(1), forKey: "existing")
        let error = #expect(throws: PreferenceError.self) {
            try store.importPropertyList(Data(text.utf8), replacing: true)
        }
        #expect(error?.description == "Malformed import: " + message)
        #expect(try store.storedValues() == ["existing": .int(1)])
    }

    @Test func importRespectsDeclaredTypes() throws {
        try store.declare(PreferenceDeclaration(key: "count", type: .int))
        #expect(throws: PreferenceError.typeMismatch(key: "count", declared: .int, given: .string))
        {
            try store.importJSON(#"{"ok": 1, "count": "3"}"#)
        }
        #expect(try store.storedValues().isEmpty)
    }

    @Test func binaryReaderSurvivesCorruptedBytes() throws {
        let valid = Array(
            PropertyList.encode(
                .dictionary(Self.sample.filter { $0.key != "layout" }),
                format: .binary))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var damaged = valid
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(
                    in: 0...255, using: &generator)
            }
            _ = try? PropertyList.decode(Data(damaged), format: .binary)
        }
        // A self-referencing array must be an error, not a stack overflow.
        let cyclic: [UInt8] =
            Array("bplist00".utf8) + [0xA1, 0x00]
            + [0x08] + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1]
            + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 10]
        #expect(throws: InterchangeError.self) { try PropertyList.decode(Data(cyclic)) }
    }

    @Test func iso8601IsExactBothWays() throws {
        for interval in [0, 0.5, -0.5, 817_700_000.123_456_7, -1_234.25, 1e-3, 63_113_904_000.0] {
            let date = Date(timeIntervalSinceReferenceDate: interval)
            let text = ISO8601.string(from: date)
            #expect(ISO8601.date(from: text) == date, "\(interval) -> \(text)")
        }
        #expect(
            ISO8601.string(from: Date(timeIntervalSinceReferenceDate: 0))
                == "2001-01-01T00:00:00.000000000Z")
        #expect(
            ISO8601.string(from: Date(timeIntervalSinceReferenceDate: -0.0000000004))
                == "2001-01-01T00:00:00.000000000Z")
        #expect(
            ISO8601.string(from: Date(timeIntervalSinceReferenceDate: 59.9999999996))
                == "2001-01-01T00:01:00.000000000Z")
        // Nine digits always, and the same Double back, for dates from 1970-07 to 2001-01 and
        // from 2001-07 on.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let magnitude = Double.random(in: 1.6e7...3e9, using: &generator)
            let interval = Bool.random(using: &generator) ? magnitude : -min(magnitude, 9.6e8)
            let date = Date(timeIntervalSinceReferenceDate: interval)
            let text = ISO8601.string(from: date)
            #expect(text.count == "2001-01-01T00:00:00.000000000Z".count, "\(text)")
            #expect(ISO8601.date(from: text) == date, "\(interval) -> \(text)")
        }
        #expect(
            ISO8601.date(from: "2001-01-01T02:00:00+02:00")
                == Date(timeIntervalSinceReferenceDate: 0))
        #expect(ISO8601.date(from: "2001-02-30T00:00:00Z") == nil)
        #expect(ISO8601.date(from: "yesterday") == nil)
    }

    @Test func jsonParserIsStrict() throws {
        for bad in [
            "", "01", "[1,]", "{\"a\":1,}", "'x'", "\"\\x\"", "[1 2]", "\"\u{01}\"", "nul",
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        ] {
            #expect(throws: InterchangeError.self, "\(bad.prefix(20))") {
                try JSONValue(parsing: bad)
            }
        }
        let value = try JSONValue(parsing: #"{"b": [1, 2.50, -3e2, "\ud83d\ude00\n"], "a": null}"#)
        #expect(value.serialized(.spaced) == #"{"b": [1, 2.50, -3e2, "😀\n"], "a": null}"#)
        #expect(value.serialized() == #"{"b":[1,2.50,-3e2,"😀\n"],"a":null}"#)
    }
}
