import Foundation
import PrefsKit
import TestSupport
import Testing

/// `prefs bookmark import` and the folder options, run as the built binary.
@Suite struct BookmarkImportCommandTests {
    let folder: TemporaryFolder
    let db: String

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/real")

    func fixture(_ name: String) -> String { Self.fixtures.appendingPathComponent(name).path }

    func run(_ arguments: String..., stdin: String? = nil) throws -> ProcessOutput {
        try runPrefs(["--db", db] + arguments, stdin: stdin)
    }

    @Test func summaryInPlainTextAndJSON() throws {
        let chrome = fixture("ddg_bookmarks_chrome.html")
        let first = try run("bookmark", "import", chrome)
        #expect(first.status == 0)
        #expect(first.stdout == "")
        #expect(first.stderr == "Added 11, updated 0, unchanged 0, merged 1 duplicate, skipped 0\n")
        let again = try run("bookmark", "import", chrome, "--json")
        #expect(again.status == 0)
        #expect(again.stderr == "")
        #expect(
            again.stdout == """
                {
                  "format": "Netscape bookmark HTML",
                  "added": 0,
                  "updated": 0,
                  "unchanged": 11,
                  "merged": 1,
                  "skipped": [],
                  "warnings": []
                }

                """)
    }

    @Test func skippedLinksAndWarningsAreListedWithTheirLines() throws {
        let path = folder.path("odd.html")
        try """
        <!DOCTYPE NETSCAPE-Bookmark-file-1>
        <DL><p>
        <DT><A HREF="javascript:alert(1)">Bookmarklet</A>
        <DT><A HREF="https://a.example" ADD_DATE="tomorrow">A</A>
        </DL><p>
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let plain = try run("bookmark", "import", path)
        #expect(plain.status == 0)
        #expect(
            plain.stderr == """
                Added 1, updated 0, unchanged 0, merged 0 duplicates, skipped 1
                  skipped: line 3: a javascript: bookmarklet is not a link ('Bookmarklet')
                  warning: line 4: ADD_DATE 'tomorrow' is not a Unix time; the import time is used

                """)
        let json = try run("bookmark", "import", path, "--json")
        let object =
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let skipped = object?["skipped"] as? [[String: Any]]
        #expect(skipped?.first?["line"] as? Int == 3)
        #expect(
            skipped?.first?["reason"] as? String
                == "a javascript: bookmarklet is not a link ('Bookmarklet')")
        let warnings = object?["warnings"] as? [[String: Any]]
        #expect(warnings?.first?["line"] as? Int == 4)
        #expect(object?["unchanged"] as? Int == 1)
    }

    @Test func listByFolderAndGroupByFolder() throws {
        _ = try run("bookmark", "import", fixture("ddg_bookmarks_firefox.html"))
        let listed = try run(
            "bookmark", "list", "--folder", "FolderB-Level1/FolderB-Level2", "--sort", "title")
        #expect(listed.status == 0)
        #expect(
            listed.stdout.split(separator: "\n").map { $0.split(separator: "\t")[3] } == [
                "Bloomberg.com", "TechCrunch – Startup and Technology News", "The Verge",
            ])
        let grouped = try run("bookmark", "list", "--group-by", "folder", "--json")
        let groups =
            try JSONSerialization.jsonObject(with: Data(grouped.stdout.utf8))
            as? [String: [[String: Any]]]
        #expect(groups?["Bookmarks Toolbar"]?.first?["title"] as? String == "Getting Started")
        #expect(
            groups?["FolderA-Level1/FolderA-Level2/FolderA-Level3"]?.first?["folder"] as? [String]
                == ["FolderA-Level1", "FolderA-Level2", "FolderA-Level3"])
        let added = try run(
            "bookmark", "add", "trip", "rome", "--title", "Rome", "--folder", "Trips/AC\\/DC tour")
        #expect(added.status == 0)
        let trip = try run("bookmark", "list", "--folder", "Trips", "--json")
        let trips =
            try JSONSerialization.jsonObject(with: Data(trip.stdout.utf8)) as? [[String: Any]]
        #expect(trips?.first?["folder"] as? [String] == ["Trips", "AC/DC tour"])
        #expect(trips?.first?["category"] as? String == "AC/DC tour")
    }

    /// A second browser file re-titles and moves a bookmark that is there (issue 64): the
    /// title, URL and folder it replaced are kept, and `bookmark history` shows them, by
    /// item or by id, in text and JSON. Importing the same file again replaces nothing.
    @Test func aSecondBrowserFileKeepsTheTitleAndFolderItReplaced() throws {
        let first = folder.path("first.html")
        let second = folder.path("second.html")
        try """
        <!DOCTYPE NETSCAPE-Bookmark-file-1>
        <DL><p>
        <DT><H3>Travel</H3>
        <DL><p><DT><A HREF="https://example.com/london">London guide</A></DL><p>
        </DL><p>
        """.write(toFile: first, atomically: true, encoding: .utf8)
        try """
        <!DOCTYPE NETSCAPE-Bookmark-file-1>
        <DL><p>
        <DT><H3>Reading</H3>
        <DL><p><DT><H3>Later</H3>
        <DL><p><DT><A HREF="https://example.com/london">London: the complete guide</A></DL><p>
        </DL><p>
        </DL><p>
        """.write(toFile: second, atomically: true, encoding: .utf8)
        #expect(try run("bookmark", "import", first).status == 0)
        let none = try run("bookmark", "history", "link", "https://example.com/london")
        #expect(none.status == 0 && none.stdout == "", "\(none.stderr)")
        #expect(try run("bookmark", "import", second).status == 0)
        #expect(try run("bookmark", "import", second).status == 0)
        let listed = try run("bookmark", "list")
        #expect(listed.stdout.contains("London: the complete guide\tLater"), "\(listed.stdout)")
        let history = try run("bookmark", "history", "link", "https://example.com/london")
        #expect(history.status == 0, "\(history.stderr)")
        let fields = history.stdout.split(separator: "\n").map { $0.split(separator: "\t") }
        #expect(fields.count == 1, "\(history.stdout)")
        #expect(
            fields.first.map { [$0[0], $0[2], $0[3], $0[4]] } == [
                "1", "London guide", "https://example.com/london", "Travel",
            ])
        let json = try run("--json", "bookmark", "history", "1")
        #expect(json.status == 0, "\(json.stderr)")
        let decoded =
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(decoded?.first?["title"] as? String == "London guide")
        #expect(decoded?.first?["folder"] as? [String] == ["Travel"])
        #expect(decoded?.first?["revision"] as? Int == 1)
        let missing = try run("bookmark", "history", "9")
        #expect(missing.status == 1 && missing.stderr == "Error: No bookmark with id 9\n")
    }

    @Test func wrongFileHintsNameTheRightCommand() throws {
        let html = fixture("ddg_bookmarks_safari.html")
        let asPreferences = try run("import", html)
        #expect(asPreferences.status == 65)
        #expect(
            asPreferences.stderr
                == "Error: '\(html)' is a bookmark file (Netscape bookmark HTML), not preferences; import it with 'prefs bookmark import \(html)'\n"
        )
        let plist = fixture("bm_com.apple.dock.plist")
        let asBookmarks = try run("bookmark", "import", plist)
        #expect(asBookmarks.status == 65)
        #expect(
            asBookmarks.stderr
                == "Error: Malformed import: a property list that is not Safari's Bookmarks.plist (no WebBookmarkTypeList at its root) in '\(plist)'; nothing was imported (preferences in a property list are imported with 'prefs import')\n"
        )
        #expect(!FileManager.default.fileExists(atPath: db), "a refused file creates no database")
    }

    @Test func badFolderOptionsAreUsageErrorsAndCreateNothing() throws {
        let cases: [([String], String)] = [
            (
                ["bookmark", "add", "a", "b", "--title", "T", "--folder", ""],
                "Error: Invalid value '' for '--folder': expected a folder path such as 'Work/Projects'\n"
                    + "Usage: prefs bookmark add <kind> <item-id> --title <title> [--url <url>] [--category <category>]"
                    + " [--folder <path>] [--tag <tag> ...] [--note <text>]\n"
                    + "  See 'prefs bookmark add --help' for more information.\n"
            ),
            (
                ["bookmark", "add", "a", "b", "--title", "T", "--folder", "X", "--category", "Y"],
                "Error: Pass either --category or --folder, not both (a category is a top-level folder)\n"
                    + "Usage: prefs bookmark add <kind> <item-id> --title <title> [--url <url>] [--category <category>]"
                    + " [--folder <path>] [--tag <tag> ...] [--note <text>]\n"
                    + "  See 'prefs bookmark add --help' for more information.\n"
            ),
            (
                ["bookmark", "toggle", "a", "b", "--title", "T", "--folder", "A/B\u{1}C"],
                "Error: The folder name of a bookmark cannot contain control characters\n"
            ),
        ]
        for (arguments, stderr) in cases {
            let result = try runPrefs(["--db", db] + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr == stderr)
            #expect(result.stdout == "")
        }
        #expect(!FileManager.default.fileExists(atPath: db))
        let list = try run("bookmark", "list", "--folder", "//")
        #expect(list.status == 64)
        #expect(
            list.stderr.hasPrefix(
                "Error: Invalid value '//' for '--folder': expected a folder path such as 'Work/Projects'\n"
            ))
    }

    @Test func safariPropertyListFromStandardInput() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture("safari_Bookmarks.plist")))
        let result = try runProcess(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", "\"$0\" --db \"$1\" bookmark import - < \"$2\"", prefsExecutable().path, db,
                fixture("safari_Bookmarks.plist"),
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr == "Added 1, updated 0, unchanged 0, merged 2 duplicates, skipped 0\n")
        #expect(bytes.count > 0)
    }
}

/// What other bookmark tools' importer tests ask of a Netscape file, run through the binary.
@Suite struct ImporterCaseTests {
    let folder: TemporaryFolder
    let db: String

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
    }

    func importing(_ links: String) throws -> ProcessOutput {
        let file = folder.path("in.html")
        try """
        <!DOCTYPE NETSCAPE-Bookmark-file-1>
        <TITLE>Bookmarks</TITLE><H1>Bookmarks</H1>
        <DL><p>
        \(links)
        </DL><p>
        """.write(toFile: file, atomically: true, encoding: .utf8)
        return try runPrefs(["--db", db, "bookmark", "import", file])
    }

    func stored() throws -> [[String: Any]] {
        let listed = try runPrefs(["--db", db, "--json", "bookmark", "list"])
        return try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8))
            as? [[String: Any]] ?? []
    }

    @Test func aLinkWhoseHrefIsNotAURLIsSkippedAndCounted() throws {
        let output = try importing(
            """
            <DT><A HREF="foo.com">No scheme</A>
            <DT><A HREF="b0rked">Broken</A>
            <DT><A HREF="https://example.com/">Good</A>
            """)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(
            output.stderr.hasPrefix(
                "Added 1, updated 0, unchanged 0, merged 0 duplicates, skipped 2"),
            "\(output.stderr)")
        #expect(output.stderr.contains("'foo.com' is not a URL"), "\(output.stderr)")
        #expect(try stored().map { $0["title"] as? String } == ["Good"])
    }

    @Test func datesBefore1970AreDatesAndZeroIsNoDate() throws {
        let output = try importing(
            """
            <DT><A HREF="https://old.example/" ADD_DATE="-86400">Old</A>
            <DT><A HREF="https://none.example/" ADD_DATE="0">None</A>
            <DT><A HREF="https://added.example/" ADD_DATE="1600000000">Added</A>
            """)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(!output.stderr.contains("not a Unix time"), "\(output.stderr)")
        let rows = try stored()
        func row(_ title: String) -> [String: Any] {
            rows.first { $0["title"] as? String == title } ?? [:]
        }
        #expect((row("Old")["createdAt"] as? String ?? "").hasPrefix("1969-12-31T00:00:00."))
        // No LAST_MODIFIED: last changed when it was added.
        #expect((row("Added")["updatedAt"] as? String ?? "").hasPrefix("2020-09-13T12:26:40."))
        #expect((row("Added")["createdAt"] as? String ?? "").hasPrefix("2020-09-13T12:26:40."))
        let none = row("None")["createdAt"] as? String ?? ""
        #expect(none.hasPrefix("20"), "\(none)")
    }
}

extension ImporterCaseTests {
    /// buku's and Shaarli's test inputs, and hand-made files: links without a doctype or
    /// `<DT>`, read as bookmarks, not refused whole (exit 65).
    @Test func aFragmentOfLinksWithoutADoctypeIsReadAsBookmarks() throws {
        let file = folder.path("fragment.html")
        try """
        <a href="https://a.example/">A</a>
        <p>text <A HREF="https://b.example/" TAGS="x,y">B</A></p>
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let output = try runPrefs(["--db", db, "bookmark", "import", file])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.hasPrefix("Added 2,"), "\(output.stderr)")
        #expect(try stored().compactMap { $0["title"] as? String }.sorted() == ["A", "B"])
        let text = folder.path("text.html")
        try "<html><body><p>No links here.</p></body></html>".write(
            toFile: text, atomically: true, encoding: .utf8)
        #expect(try runPrefs(["--db", db, "bookmark", "import", text]).status == 65)
    }
}

extension ImporterCaseTests {
    /// An empty title or description in a file never erases a stored one, and tags merge
    /// (a union), as linkding and buku re-import.
    @Test func reImportingKeepsStoredTextAndMergesTags() throws {
        #expect(
            try importing(
                """
                <DT><A HREF="https://a.example/" TAGS="x,y">Title A</A>
                <DD>Note A
                """
            ).status == 0)
        let again = try importing(
            """
            <DT><A HREF="https://a.example/" TAGS="z"></A>
            """)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.hasPrefix("Added 0, updated 1,"), "\(again.stderr)")
        let row = try #require(try stored().first)
        #expect(row["title"] as? String == "Title A")
        #expect(row["note"] as? String == "Note A")
        #expect(row["tags"] as? [String] == ["x", "y", "z"])
        let same = try importing(
            """
            <DT><A HREF="https://a.example/" TAGS="y">Title A</A>
            """)
        #expect(same.stderr.hasPrefix("Added 0, updated 0, unchanged 1,"), "\(same.stderr)")
    }
}
