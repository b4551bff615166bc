import Foundation
import SQLiteCore
import TestSupport
import Testing

/// Bad input through the command line: exit 64 or 65 with a clear message, the database
/// exactly as it was.
@Suite struct BadInputTests {
    let folder: TemporaryFolder
    let db: String

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
        _ = try runPrefs(["--db", db, "set", "existing", "1"])
        _ = try runPrefs(["--db", db, "declare", "flag", "--type", "bool"])
    }

    /// Every row of every table, for before/after comparison.
    func dump() throws -> String {
        let connection = try Connection(path: db, mode: .readOnly)
        var text = ""
        for table in [
            "preference", "preference_declaration", "preference_history", "selection", "bookmark",
            "bookmark_tag",
        ] {
            for row in try connection.rows(sql: "SELECT * FROM \(table) ORDER BY 1, 2") {
                text += "\(table): \(row.values)\n"
            }
        }
        return text
    }

    static let cases: [(arguments: CommandWords, status: Int32, message: String)] = [
        (
            ["set", "flag", "1.5"], 65,
            "'1.5' is not a valid bool for 'flag' (expected true or false; yes, no, 1 and 0 are read too)"
        ),
        (["set", "flag", "1", "--type", "int"], 65, "'flag' is declared as bool, not int"),
        (
            ["set", "n", "9223372036854775808", "--type", "int"], 65,
            "'9223372036854775808' is not a valid int for 'n' (expected an integer from -9223372036854775808 to 9223372036854775807)"
        ),
        (
            ["set", "d", "1e999", "--type", "double"], 65,
            "'1e999' is not a valid double for 'd' (expected a number such as 0.5, or nan, inf, -inf)"
        ),
        (
            ["set", "f", "1e39", "--type", "float"], 65,
            "'1e39' is not a valid float for 'f' (expected a number within Float's range such as 0.5, or nan, inf, -inf)"
        ),
        (
            ["set", "u", "not a url", "--type", "url"], 65,
            "'not a url' is not a valid url for 'u' (expected an absolute URL such as https://example.com)"
        ),
        (
            ["set", "j", "{oops", "--type", "json"], 65,
            "'{oops' is not a valid json for 'j' (expected JSON)"
        ),
        (["set", "", "x"], 64, "The key cannot be empty"),
        (["set", "a\nb", "x"], 64, "The key 'a\\nb' contains a NUL or newline character"),
        (
            ["set", String(repeating: "k", count: 2_000), "x"], 64,
            "The key is 2000 bytes long; keys are at most 1024 bytes"
        ),
        (["--suite", "", "set", "a", "1"], 64, "The suite name cannot be empty"),
        (
            ["selection", "set", "s", "5", "--count", "3"], 65,
            "Index 5 is out of range for 's' (valid: 0...2)"
        ),
        (
            ["bookmark", "add", "", "x", "--title", "T"], 64,
            "The kind of a bookmark cannot be empty"
        ),
        (["bookmark", "search", "*"], 64, "The search text is empty"),
    ]

    @Test(arguments: cases)
    func badInputIsRefusedAndChangesNothing(
        arguments: CommandWords, status: Int32, message: String
    )
        throws
    {
        let before = try dump()
        let result = try runPrefs(["--db", db] + arguments.words)
        #expect(result.status == status)
        #expect(result.stderr == "Error: \(message)\n")
        #expect(try dump() == before)
    }

    @Test func sqlLookingKeysAndValuesAreStoredAsText() throws {
        let key = "x'); DROP TABLE preference;--"
        let value = "1; DELETE FROM preference WHERE 1=1; --"
        #expect(try runPrefs(["--db", db, "set", key, value]).status == 0)
        #expect(try runPrefs(["--db", db, "get", key]).stdout == value + "\n")
        #expect(try runPrefs(["--db", db, "get", "existing"]).stdout == "1\n")
    }

    @Test func invalidUTF8InArgumentsIsRefused() throws {
        let before = try dump()
        // printf produces the raw byte 0xFF, which is not UTF-8.
        let result = try Reliability.shell(
            "\"$PREFS\" --db \"$DB\" set \"$(printf 'k\\377')\" v", environment: ["DB": db])
        #expect(result.status == 64)
        #expect(result.stderr == "Error: Argument 4 is not valid UTF-8\n")
        #expect(try dump() == before)
    }

    @Test func tenMegabyteValueFromStandardInput() throws {
        let value = String(repeating: "0123456789", count: 1_000_000)
        #expect(try runPrefs(["--db", db, "set", "big", "-"], stdin: value).status == 0)
        let read = try runPrefs(["--db", db, "get", "big"])
        #expect(read.stdout.count == value.count + 1)
    }

    @Test func malformedImportsChangeNothing() throws {
        let before = try dump()
        let files: [(name: String, content: String, command: [String])] = [
            ("bad.json", "{\"preferences\": [{\"key\": \"a\"}]}", ["import"]),
            ("bad.plist", "<?xml version=\"1.0\"?><plist><dict><key>a</key></plist>", ["import"]),
            // A damaged bookmark file imports what it holds; one that is none is refused.
            ("bad.html", "<html><body><p>Not bookmarks</p></body></html>", ["bookmark", "import"]),
            (
                "bad-bookmarks.plist",
                "<?xml version=\"1.0\"?><plist><dict><key>a</key><true/></dict></plist>",
                ["bookmark", "import"]
            ),
            ("bad-bookmarks.json", "[{\"kind\": \"trip\"}]", ["bookmark", "import"]),
        ]
        for file in files {
            let path = folder.path(file.name)
            try file.content.write(toFile: path, atomically: true, encoding: .utf8)
            let result = try runPrefs(["--db", db] + file.command + [path])
            #expect(result.status == 65, "\(file.name): \(result.stderr)")
            #expect(
                result.stderr.contains("in '\(path)'; nothing was imported"), "\(result.stderr)")
        }
        #expect(try dump() == before)
    }
}
