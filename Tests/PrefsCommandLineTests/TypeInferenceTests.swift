import Foundation
import PrefsKit
import TestSupport
import Testing

/// `prefs set` without --type: the declared type, else the stored value's type, else (a new
/// key) inferred, where text that would not read back the same stays a string.
@Suite struct TypeInferenceTests {
    let folder: TemporaryFolder
    let db: String

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
    }

    func set(_ key: String, _ value: String, _ extra: [String] = []) throws -> ProcessOutput {
        try runPrefs(["--db", db, "set", key, value] + extra)
    }

    func stored(_ key: String) throws -> PreferenceValue? {
        try PreferenceStore(database: try AppDatabase(path: db)).storedValue(forKey: key)
    }

    @Test func floatsAndNonFiniteNumbersAreStoredWhenTheTypeSaysSo() throws {
        #expect(try set("ratio", "12.34", ["--type", "float"]).status == 0)
        #expect(try stored("ratio") == .float(12.34))
        let read = try runPrefs(["--db", db, "get", "ratio"])
        #expect(read.stdout == "12.34\n")
        for (text, value) in [("nan", PreferenceValue.double(.nan)), ("-inf", .double(-.infinity))]
        {
            #expect(try set("d", text, ["--type", "double"]).status == 0)
            #expect(try stored("d") == value)
            #expect(try runPrefs(["--db", db, "get", "d"]).stdout == text + "\n")
        }
        // A stored float keeps its type on the next set without --type.
        #expect(try set("ratio", "0.1").status == 0)
        #expect(try stored("ratio") == .float(0.1))
        let json = try runPrefs(["--db", db, "--json", "get", "ratio"])
        #expect(json.stdout.contains("\"float\""), "\(json.stdout)")
        #expect(json.stdout.contains("0.1"))
    }

    @Test func newKeysInferOnlyWhatReadsBackTheSame() throws {
        let cases: [(String, PreferenceValue)] = [
            ("true", .bool(true)), ("42", .int(42)), ("-7", .int(-7)), ("0", .int(0)),
            ("0.5", .double(0.5)),
            ("-12.25", .double(-12.25)),
            ("02134", .string("02134")), ("+1", .string("+1")), (" 1", .string(" 1")),
            ("1 ", .string("1 ")),
            ("1e5", .string("1e5")), ("1.50", .string("1.50")), (".5", .string(".5")),
            ("5.", .string("5.")),
            ("00.5", .string("00.5")), ("-0", .string("-0")),
            ("99999999999999999999", .string("99999999999999999999")),
            ("True", .string("True")), ("nan", .string("nan")),
        ]
        for (index, (text, expected)) in cases.enumerated() {
            let result = try set("k\(index)", text)
            #expect(result.status == 0, "\(text): \(result.stderr)")
            #expect(try stored("k\(index)") == expected, "\(text)")
        }
    }

    @Test func aStoredValueKeepsItsType() throws {
        #expect(try set("volume", "0.5").status == 0)
        #expect(try set("volume", "1").status == 0)
        #expect(try stored("volume") == .double(1))
        #expect(try set("flag", "true").status == 0)
        #expect(try set("flag", "0").status == 0)
        #expect(try stored("flag") == .bool(false))
        #expect(try set("name", "x").status == 0)
        #expect(try set("name", "12").status == 0)
        #expect(try stored("name") == .string("12"))

        let refused = try set("volume", "loud")
        #expect(refused.status == 65)
        #expect(
            refused.stderr
                == "Error: 'loud' is not a valid double for 'volume' (expected a number such as 0.5, or nan, inf, -inf);"
                + " 'volume' holds a double; pass --type to store another type\n")
        #expect(try stored("volume") == .double(1))
        // "an int", not "a int".
        #expect(try set("count", "3").status == 0)
        #expect(
            try set("count", "many").stderr.hasSuffix(
                " 'count' holds an int; pass --type to store another type\n"))
        // --type changes it on purpose.
        #expect(try set("volume", "loud", ["--type", "string"]).status == 0)
        #expect(try stored("volume") == .string("loud"))
    }

    @Test func aDeclaredKeyUsesItsDeclaredType() throws {
        #expect(try runPrefs(["--db", db, "declare", "zip", "--type", "string"]).status == 0)
        #expect(try set("zip", "02134").status == 0)
        #expect(try set("zip", "12345").status == 0)
        #expect(try stored("zip") == .string("12345"))
    }
}
