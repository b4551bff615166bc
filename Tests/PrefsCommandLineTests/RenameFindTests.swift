import Foundation
import PrefsKit
import TestSupport
import Testing

/// `prefs rename`, `prefs find` and `prefs get --default`, end to end: exact output.
@Suite struct RenameFindTests {
    let folder: TemporaryFolder
    let db: String

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
        for (key, value) in [
            ("zip", "02134"), ("volume", "0.5"), ("app.theme", "dark"), ("app.font", "serif"),
        ] {
            #expect(try runPrefs(["--db", db, "set", key, value]).status == 0)
        }
    }

    func prefs(_ arguments: [String]) throws -> ProcessOutput {
        try runPrefs(["--db", db] + arguments)
    }

    @Test func renameMovesAndRefusesToOverwrite() throws {
        let renamed = try prefs(["rename", "zip", "postcode"])
        #expect(renamed.status == 0)
        #expect(renamed.stderr == "Renamed 'zip' to 'postcode'\n")
        #expect(try prefs(["get", "postcode"]).stdout == "02134\n")
        #expect(try prefs(["get", "zip"]).status == 1)

        let refused = try prefs(["rename", "volume", "postcode"])
        #expect(refused.status == 64)
        #expect(
            refused.stderr == "Error: 'postcode' already has a value; pass --force to replace it\n")
        #expect(try prefs(["get", "postcode"]).stdout == "02134\n")
        #expect(try prefs(["rename", "volume", "postcode", "--force"]).status == 0)
        #expect(try prefs(["get", "postcode"]).stdout == "0.5\n")

        let missing = try prefs(["rename", "nothere", "x"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: No value for 'nothere' in suite 'standard'\n")
        let history = try prefs(["history", "zip"])
        #expect(history.stdout.contains("zip: 02134 -> (removed)"))
    }

    @Test func findMatchesGlobsAndRegularExpressions() throws {
        #expect(try prefs(["find", "app.*"]).stdout == "app.font=serif\napp.theme=dark\n")
        #expect(try prefs(["find", "?ip"]).stdout == "zip=02134\n")
        #expect(try prefs(["find", "--regex", "o[ln]"]).stdout == "app.font=serif\nvolume=0.5\n")
        let none = try prefs(["find", "nothing*"])
        #expect(none.status == 1)
        #expect(none.stderr == "Error: No key of suite 'standard' matches 'nothing*'\n")
        let bad = try prefs(["find", "-E", "("])
        #expect(bad.status == 64)
        #expect(bad.stderr == "Error: '(' is not a valid regular expression\n")
    }

    @Test func getFallsBackToTheGivenDefault() throws {
        #expect(try prefs(["get", "missing", "--default", "42"]).stdout == "42\n")
        #expect(try prefs(["get", "zip", "--default", "42"]).stdout == "02134\n")
        #expect(try prefs(["get", "missing"]).status == 1)
    }
}

/// `prefs describe`: the declaration, the stored value and the last change, exact output.
@Suite struct DescribeTests {
    @Test func describesDeclaredStoredAndUnknownKeys() throws {
        let folder = try TemporaryFolder()
        let db = folder.path("prefs.sqlite")
        func prefs(_ arguments: [String]) throws -> ProcessOutput {
            try runPrefs(["--db", db] + arguments)
        }
        #expect(
            try prefs([
                "declare", "volume", "--type", "double", "--default", "0.5", "--description",
                "Output level",
            ]).status == 0)
        #expect(
            try prefs(["describe", "volume"]).stdout == """
                key: volume
                suite: standard
                declared type: double
                default: 0.5
                description: Output level
                device-local: no
                stored: (none)

                """)
        #expect(try prefs(["set", "volume", "0.8"]).status == 0)
        let described = try prefs(["describe", "volume"]).stdout
        #expect(described.contains("stored: 0.8 (double)\nlast change: "))
        #expect(described.hasSuffix(" (none) -> 0.8\n"))
        let json = try prefs(["describe", "volume", "--json"])
        let object =
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(
            (object?["declared"] as? [String: Any])?["description"] as? String == "Output level")
        #expect((object?["stored"] as? [String: Any])?["value"] as? Double == 0.8)
        #expect((object?["lastChange"] as? [String: Any])?["value"] as? Double == 0.8)

        #expect(try prefs(["set", "plain", "x"]).status == 0)
        #expect(
            try prefs(["describe", "plain"]).stdout.hasPrefix(
                "key: plain\nsuite: standard\ndeclared: no\nstored: x (string)\n"))
        let unknown = try prefs(["describe", "nope"])
        #expect(unknown.status == 1)
        #expect(
            unknown.stderr
                == "Error: 'nope' is not declared, stored or in the history of suite 'standard'\n")
    }
}

/// `-z`: entries end with NUL, key and value split by a newline (as `git config -z`).
@Suite struct NullSeparatedTests {
    @Test func listFindAndSuitesEndEntriesWithNUL() throws {
        let folder = try TemporaryFolder()
        let db = folder.path("prefs.sqlite")
        #expect(try runPrefs(["--db", db, "set", "note", "-"], stdin: "two\nlines").status == 0)
        #expect(try runPrefs(["--db", db, "set", "a", "1"]).status == 0)
        #expect(try runPrefs(["--db", db, "list", "-z"]).stdout == "a\n1\0note\ntwo\nlines\0")
        #expect(try runPrefs(["--db", db, "find", "n*", "--null"]).stdout == "note\ntwo\nlines\0")
        #expect(try runPrefs(["--db", db, "suites", "-z"]).stdout == "standard\0")
        // Without it, one line each: the newline in the value is shown escaped.
        #expect(try runPrefs(["--db", db, "list"]).stdout == "a=1\nnote=two\\nlines\n")
    }
}
