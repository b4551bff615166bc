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
