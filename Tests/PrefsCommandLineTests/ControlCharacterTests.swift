import Foundation
import SQLiteCore
import TestSupport
import Testing

/// Keys, values, titles and folder names come from other people's files and devices; a
/// terminal acts on ESC, BEL, C1 codes and bidirectional overrides instead of showing them.
/// Human listings escape them always, `get` escapes them on a terminal only, and `-z`,
/// `--json` and `get` on a pipe keep the exact bytes.
@Suite struct ControlCharacterTests {
    let folder: TemporaryFolder
    let db: String
    /// A key that would turn the terminal red and a value that rings, sends a C1 CSI and
    /// reverses the rest of the line.
    static let key = "k\u{1B}[31mred"
    static let value = "v\u{7}\u{9B}31m\u{202E}evil"
    static let shownKey = "k\\u{1b}[31mred"
    static let shownValue = "v\\u{7}\\u{9b}31m\\u{202e}evil"

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
        let set = try runPrefs(["--db", db, "set", "--type", "string", Self.key, Self.value])
        #expect(set.status == 0, "\(set.stderr)")
    }

    func run(_ arguments: [String]) throws -> String {
        let result = try runPrefs(["--db", db] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result.stdout
    }

    @Test func listingsEscapeControlCharactersEvenOnAPipe() throws {
        #expect(try run(["list"]) == "\(Self.shownKey)=\(Self.shownValue)\n")
        #expect(try run(["list", "--names"]) == "\(Self.shownKey)\n")
        #expect(try run(["find", "k*"]) == "\(Self.shownKey)=\(Self.shownValue)\n")
        let history = try run(["history"])
        #expect(
            history.hasSuffix("  \(Self.shownKey): (none) -> \(Self.shownValue)\n"), "\(history)")
        #expect(!history.contains("\u{1B}") && !history.contains("\u{9B}"))
        let described = try run(["describe", Self.key])
        #expect(described.contains("stored: \(Self.shownValue) (string)"), "\(described)")
        #expect(!described.contains("\u{1B}"))
    }

    @Test func exactBytesStayExactWhereScriptsReadThem() throws {
        #expect(try run(["get", Self.key]) == Self.value + "\n")
        #expect(try run(["list", "-z"]) == "\(Self.key)\n\(Self.value)\0")
        #expect(try run(["list", "--names", "-z"]) == "\(Self.key)\0")
        let json = try run(["--json", "get", Self.key])
        let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(decoded?["value"] as? String == Self.value)
        #expect(decoded?["key"] as? String == Self.key)
    }

    @Test func bookmarkTitlesFoldersAndImportIssuesAreEscaped() throws {
        // The command line refuses control characters in bookmarks; a file written by other
        // software (or an older version) may hold them.
        #expect(
            try runPrefs(["--db", db, "bookmark", "add", "trip", "x", "--title", "T"]).status == 0)
        let connection = try Connection(path: db)
        try connection.execute(
            sql: "UPDATE bookmark SET item_id = ?, title = ?, category = ?",
            arguments: ["x\u{1B}y", "Title\u{1B}]0;owned\u{7}", "c\u{9B}"])
        let listed = try run(["bookmark", "list"])
        #expect(listed == "1\ttrip\tx\\u{1b}y\tTitle\\u{1b}]0;owned\\u{7}\tc\\u{9b}\n")
        let grouped = try run(["bookmark", "list", "--group-by", "category"])
        #expect(grouped.hasPrefix("c\\u{9b}\n"), "\(grouped)")
        // An import warning quotes the file: a link with a control in its address is skipped
        // and listed, escaped.
        let file = folder.path("bookmarks.html")
        try """
        <!DOCTYPE NETSCAPE-BOOKMARK-FILE-1>
        <DL><p>
        <DT><A HREF="javascript:alert(1)\u{1B}[2J">Bad</A>
        </DL><p>
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try runPrefs(["--db", db, "bookmark", "import", file])
        #expect(!imported.stderr.contains("\u{1B}"), "\(imported.stderr)")
    }
}
