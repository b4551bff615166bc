import Foundation
import TestSupport
import Testing

/// Mistakes that get pointed to what was meant: exact stderr and exit code.
@Suite struct HintTests {
    @Test(arguments: [
        (["help", "lsit"], "Error: Unknown command 'lsit'. Did you mean 'prefs help list'?\n"),
        (
            ["help", "bookmark", "lsit"],
            "Error: Unknown command 'bookmark lsit'. Did you mean 'prefs help bookmark list'?\n"
        ),
        (["help", "zzzzzz"], "Error: Unknown command 'zzzzzz'; see 'prefs --help'\n"),
        (
            ["add", "trip", "x"],
            "Error: Unknown command 'add'. Did you mean 'prefs bookmark add'?\nUsage: prefs <subcommand>\n"
                + "  See 'prefs --help' for more information.\n"
        ),
        (
            ["next", "carousel"],
            "Error: Unknown command 'next'. Did you mean 'prefs onboarding next' or 'prefs selection next'?\n"
                + "Usage: prefs <subcommand>\n  See 'prefs --help' for more information.\n"
        ),
        (
            ["reset", "volume"],
            "Error: Unexpected argument 'volume'; reset takes no key (it removes every preference of the suite);"
                + " to remove one key, use 'prefs delete volume'\nUsage: prefs reset [--force]\n"
                + "  See 'prefs reset --help' for more information.\n"
        ),
    ])
    func mistakesNameWhatWasMeant(arguments: [String], stderr: String) throws {
        let folder = try TemporaryFolder()
        let result = try runPrefs(["--db", folder.path("prefs.sqlite")] + arguments)
        #expect(result.status == 64)
        #expect(result.stdout == "")
        #expect(result.stderr == stderr)
    }
}

/// With --json, errors are JSON too, on stderr, with the same exit code.
@Suite struct JSONErrorTests {
    @Test(arguments: [
        (
            ["get", "missing", "--json"], Int32(1),
            #"{"error":{"code":1,"message":"No value for 'missing' in suite 'standard'; set one with 'prefs set missing VALUE'"}}"#
        ),
        (
            ["--json", "get"], 64,
            #"{"error":{"code":64,"message":"Missing expected argument '<key>'"}}"#
        ),
        (
            ["set", "--json", "volume", "0.5", "--type", "color"], 64,
            #"{"error":{"code":64,"message":"Invalid value 'color' for '--type': expected one of 'bool', 'int', 'double', 'float', 'string', 'url', 'date', 'data', 'array', 'dictionary', 'json'"}}"#
        ),
    ])
    func errorsAreJSONWhenJSONIsAskedFor(arguments: [String], status: Int32, stderr: String) throws
    {
        let folder = try TemporaryFolder()
        let result = try runPrefs(["--db", folder.path("prefs.sqlite")] + arguments)
        #expect(result.status == status)
        #expect(result.stdout == "")
        #expect(result.stderr == stderr + "\n")
    }

    @Test func aBadValueIsJSONWithExit65() throws {
        let folder = try TemporaryFolder()
        let db = folder.path("prefs.sqlite")
        #expect(try runPrefs(["--db", db, "set", "volume", "0.5"]).status == 0)
        let result = try runPrefs(["--db", db, "--json", "set", "volume", "loud"])
        #expect(result.status == 65)
        let parsed =
            try JSONSerialization.jsonObject(with: Data(result.stderr.utf8))
            as? [String: [String: Any]]
        #expect(parsed?["error"]?["code"] as? Int == 65)
        #expect(
            (parsed?["error"]?["message"] as? String)?.hasPrefix("'loud' is not a valid double")
                == true)
        // No engine was involved: no engine code.
        #expect(parsed?["error"]?["engineCode"] == nil)
    }

    @Test func aDamagedFilesErrorCarriesSQLitesCodeAndItsOwnError() throws {
        let folder = try TemporaryFolder()
        let db = folder.path("damaged.sqlite")
        // SQLite's header, then what is no database.
        let bytes = Array("SQLite format 3\u{0}".utf8) + Array(repeating: UInt8(0xA5), count: 4000)
        #expect(FileManager.default.createFile(atPath: db, contents: Data(bytes)))
        let result = try runPrefs(["--db", db, "--json", "get", "x"])
        #expect(result.status == 65)
        let parsed =
            try JSONSerialization.jsonObject(with: Data(result.stderr.utf8))
            as? [String: [String: Any]]
        #expect(parsed?["error"]?["engineCode"] as? String == "SQLite result code 26")
        #expect((parsed?["error"]?["cause"] as? String)?.contains("not a database") == true)
        // Without --json, the one line a person reads.
        let plain = try runPrefs(["--db", db, "get", "x"])
        #expect(plain.stderr.split(separator: "\n").count == 1)
    }
}

/// Options that do not apply are usage errors, never silently ignored.
@Suite struct InapplicableOptionTests {
    @Test func jsonIsRefusedWhereThereIsNoJSON() throws {
        let folder = try TemporaryFolder()
        let completion = try runPrefs([
            "--db", folder.path("prefs.sqlite"), "completion", "bash", "--json",
        ])
        #expect(completion.status == 64)
        #expect(
            completion.stderr
                == #"{"error":{"code":64,"message":"--json does not apply to 'prefs completion'"}}"#
                + "\n")
        let help = try runPrefs(["--db", folder.path("prefs.sqlite"), "help", "get", "--json"])
        #expect(help.status == 64)
        #expect(help.stdout == "")
    }

    @Test(arguments: [
        ["bookmark", "list"], ["selection", "list"], ["doctor"], ["bookmark", "search", "x"],
    ])
    func suiteIsRefusedWhereThereAreNoSuites(command: [String]) throws {
        let folder = try TemporaryFolder()
        let result = try runPrefs(
            ["--db", folder.path("prefs.sqlite"), "--suite", "other"] + command)
        #expect(result.status == 64)
        #expect(
            result.stderr
                == "Error: --suite does not apply to 'prefs \(command.prefix(2).joined(separator: " "))':"
                + " only preferences (and the onboarding flag) are kept per suite\n")
        // The environment's suite is a default, not an option: no error.
        let fromEnvironment = try runPrefs(
            ["--db", folder.path("prefs.sqlite")] + command, environment: ["PREFS_SUITE": "other"])
        #expect(fromEnvironment.status != 64, "\(fromEnvironment.stderr)")
    }
}

/// Commands that printed nothing (or only a message) print a JSON document with --json.
@Suite struct JSONEverywhereTests {
    @Test func quietCommandsAnswerInJSON() throws {
        let folder = try TemporaryFolder()
        let db = folder.path("prefs.sqlite")
        func json(_ arguments: [String]) throws -> String {
            let result = try runPrefs(["--db", db, "--json"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result.stdout.filter { !$0.isWhitespace }
        }
        #expect(try runPrefs(["--db", db, "set", "a", "1"]).status == 0)
        #expect(try json(["delete", "a"]) == #"{"suite":"standard","key":"a","removed":true}"#)
        #expect(
            try json(["declare", "b", "--type", "int", "--default", "3"])
                == #"{"suite":"standard","key":"b","type":"int","default":3,"description":null,"deviceLocal":false}"#
        )
        #expect(try runPrefs(["--db", db, "set", "c", "x"]).status == 0)
        #expect(try json(["reset", "--force"]) == #"{"suite":"standard","removed":1}"#)
        #expect(
            try runPrefs(["--db", db, "bookmark", "add", "trip", "x", "--title", "X"]).status == 0)
        #expect(
            try json(["bookmark", "remove", "trip", "x"])
                == #"{"kind":"trip","itemID":"x","removed":true}"#)
        #expect(try json(["version"]) == #"{"version":"0.1.0"}"#)
    }

    @Test func accountIsRefusedForAFile() throws {
        let folder = try TemporaryFolder()
        let db = folder.path("prefs.sqlite")
        let result = try runPrefs(["--db", db, "--account", "alice", "set", "a", "1"])
        #expect(result.status == 64)
        #expect(
            result.stderr
                == "Error: --account applies only to a PostgreSQL database (--db postgresql://...);"
                + " '\(db)' is a file\n")
        #expect(!FileManager.default.fileExists(atPath: db))
        // The environment's account is a default for servers: a file ignores it.
        let fromEnvironment = try runPrefs(
            ["--db", db, "set", "a", "1"], environment: ["PREFS_ACCOUNT": "alice"])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
    }

    @Test(arguments: ["", String(repeating: "a", count: 57), "a\nb"])
    func aMalformedAccountIsAUsageError(account: String) throws {
        let result = try runPrefs(["--db", "postgresql:///none", "--account", account, "get", "a"])
        #expect(result.status == 64)
        #expect(
            result.stderr
                == "Error: The account name must be 1 to 56 bytes without control characters\n")
    }
}
