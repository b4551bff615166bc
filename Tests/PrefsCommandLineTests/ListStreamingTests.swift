import Foundation
import PrefsKit
import TestSupport
import Testing

/// `prefs list` writes its entries as it reads them (in chunks of about 64 KB), merging the
/// declared defaults in: the output must be what the whole list printed at once was, across
/// chunk boundaries, with a declared key that has a value listed once, with its value.
@Suite struct ListStreamingTests {
    let folder: TemporaryFolder
    let db: String

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
        let store = PreferenceStore(database: try AppDatabase(path: db))
        // Enough bytes for several chunks; keys interleave with the declared ones below.
        try store.transaction { edit in
            for index in 0..<3_000 {
                try edit.setValue(
                    .string(String(repeating: "v", count: 60) + "\(index)"),
                    forKey: "k\(index * 2)")
            }
        }
        for index in [1, 3, 2_001, 5_999, 7_777] {
            try store.declare(
                PreferenceDeclaration(key: "k\(index)", type: .int, defaultValue: .int(index)))
        }
        // Declared and stored: listed once, with the stored value.
        try store.declare(
            PreferenceDeclaration(
                key: "k4", type: .string, defaultValue: .string("the default")))
    }

    func run(_ arguments: String...) throws -> String {
        let result = try runPrefs(["--db", db] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test func everyTypeAndEveryEscapeIsWrittenAsTheWholeArrayWouldBe() throws {
        // The entries are written without building them as JSON values first: the bytes must
        // be those of the values built and serialized, for every type and every escape.
        let other = folder.path("types.sqlite")
        let store = PreferenceStore(database: try AppDatabase(path: other))
        let values: [(String, PreferenceValue)] = [
            ("bool", .bool(true)), ("int", .int(-42)), ("double", .double(0.1)),
            ("float", .float(2.5)), ("string", .string("plain")),
            ("escapes", .string("quote \" slash \\ tab \t newline \n bell \u{7} del \u{7F}")),
            ("separators", .string("line\u{2028}paragraph\u{2029} “quoted” é 🎉")),
            ("url", .url(URL(string: "https://example.com/a?b=c")!)),
            ("date", .date(Date(timeIntervalSince1970: 1_700_000_000.25))),
            ("data", .data(Data([0, 1, 2, 255]))),
            ("array", .array([.int(1), .string("two"), .array([.bool(false)])])),
            ("dictionary", .dictionary(["b": .int(2), "a": .dictionary(["c": .string("d")])])),
            ("json", .json(#"{"z": [1, {"y": null}]}"#)),
            ("key \"with\" quotes\u{1}", .int(1)),
        ]
        try store.transaction { edit in
            for (key, value) in values { try edit.setValue(value, forKey: key) }
        }
        try store.declare(PreferenceDeclaration(key: "declared", type: .int, defaultValue: .int(9)))
        let listed = try runPrefs(["--db", other, "--json", "list", "--all"])
        #expect(listed.status == 0, "\(listed.stderr)")
        var expected = values.map { (key: $0.0, value: $0.1, isDefault: false) }
        expected.append((key: "declared", value: .int(9), isDefault: true))
        expected.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        let whole = JSONValue.array(
            expected.map { entry in
                .object([
                    ("suite", .string("standard")), ("key", .string(entry.key)),
                    ("type", .string(entry.value.type.rawValue)),
                    ("value", entry.value.jsonValue), ("isDefault", .bool(entry.isDefault)),
                ])
            })
        #expect(listed.stdout == whole.serialized(.pretty) + "\n")
        // And the escapes themselves, written out: the reference above shares the writer.
        for escaped in [
            #"quote \" slash \\ tab \t newline \n bell \u0007 del \u007f"#,
            #"line\u2028paragraph\u2029 “quoted” é 🎉"#, #""key \"with\" quotes\u0001""#,
        ] {
            #expect(listed.stdout.contains(escaped), "\(escaped)")
        }
    }

    @Test func theJSONListIsTheWholeArraysBytesAcrossChunks() throws {
        let text = try run("--json", "list", "--all")
        #expect(text.utf8.count > 3 * (1 << 16))
        let parsed = try JSONValue(parsing: text)
        guard case .array(let entries) = parsed else {
            Issue.record("not an array")
            return
        }
        // The streamed text is the pretty serialization of the whole array, byte for byte.
        #expect(text == parsed.serialized(.pretty) + "\n")
        let keys = entries.compactMap { entry -> String? in
            guard case .object(let members) = entry,
                case .string(let key)? = members.first(where: { $0.key == "key" })?.value
            else { return nil }
            return key
        }
        #expect(keys.count == 3_000 + 5)
        #expect(
            zip(keys, keys.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(keys.filter { $0 == "k4" }.count == 1)
        #expect(keys.contains("k7777") && keys.contains("k1"))
        #expect(!text.contains("the default"))
    }

    @Test func theTextListHasEveryEntryOnceInByteOrder() throws {
        let lines = try run("list", "--all").split(separator: "\n").map(String.init)
        #expect(lines.count == 3_000 + 5)
        let keys = lines.map { String($0.prefix { $0 != "=" }) }
        #expect(
            zip(keys, keys.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(!lines.contains { $0.contains("the default") })
        #expect(try run("list").split(separator: "\n").count == 3_000)
    }

    @Test func anEmptyOrMissingStoreListsNothing() throws {
        let missing = folder.path("missing.sqlite")
        let result = try runPrefs(["--db", missing, "--json", "list"])
        #expect(result.stdout == "[]\n")
        #expect(try runPrefs(["--db", missing, "list"]).stdout.isEmpty)
    }
}
