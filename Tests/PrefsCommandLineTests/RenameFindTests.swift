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
        for (key, value) in [("zip", "02134"), ("volume", "0.5"), ("app.theme", "dark"), ("app.font", "serif")] {
            #expect(try runPrefs(["--db", db, "set", key, value]).status == 0)
        }
    }

    func prefs(_ arguments: [String]) throws -> ProcessOutput { try runPrefs(["--db", db] + arguments) }

    @Test func renameMovesAndRefusesToOverwrite() throws {
        let renamed = try prefs(["rename", "zip", "postcode"])
        #expect(renamed.status == 0)
        #expect(renamed.stderr == "Renamed 'zip' to 'postcode'\n")
        #expect(try prefs(["get", "postcode"]).stdout == "02134\n")
        #expect(try prefs(["get", "zip"]).status == 1)

        let refused = try prefs(["rename", "volume", "postcode"])
        #expect(refused.status == 64)
        #expect(refused.stderr == "Error: 'postcode' already has a value; pass --force to replace it\n")
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
