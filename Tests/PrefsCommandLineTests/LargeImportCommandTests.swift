import Foundation
import SQLiteCore
import TestSupport
import Testing

/// `prefs import` of a JSON export above 1 MiB reads it piece by piece, twice (checked,
/// then stored in one transaction). What it imports, and what it says about a bad file,
/// must be what reading the file whole gives: the same values, the same one-line errors
/// and exit codes, and nothing imported (not even the database made) when anything is
/// wrong.
@Suite struct LargeImportCommandTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// An export of `count` keys of every kind of value, well above the threshold.
    func export(count: Int = 30_000) throws -> String {
        let source = folder.path("source.sqlite")
        var lines = ["BEGIN;"]
        for index in 0..<count {
            let key = String(format: "key%06d", index)
            let value =
                switch index % 4 {
                case 0: "\(index)"
                case 1: "'caf\u{E9} \\\"\(index)\\\" <&>'"
                case 2: "\(index % 2)"
                default: "\(Double(index) / 7)"
                }
            let type = ["int", "string", "bool", "double"][index % 4]
            lines.append(
                "INSERT INTO preference (suite, key, type, value, updated_at)"
                    + " VALUES ('standard', '\(key)', '\(type)', \(value), 0);")
        }
        lines.append("COMMIT;")
        #expect(try runPrefs(["--db", source, "set", "seed", "1"]).status == 0)
        let script = folder.path("fill.sql")
        try lines.joined(separator: "\n").write(toFile: script, atomically: true, encoding: .utf8)
        let filled = try runProcess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "sqlite3 '\(source)' < '\(script)'"])
        #expect(filled.status == 0, "\(filled.stderr)")
        let file = folder.path("export.json")
        #expect(try runPrefs(["--db", source, "export", file]).status == 0)
        let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        #expect(size > 1 << 20, "\(size) bytes")
        return file
    }

    /// A file of many links imports on a machine kept busy (two processes spinning, one
    /// for each core here): a file's limits are its size, depth, count and the decoding
    /// thread's CPU, never the wall clock, so a busy machine takes what a quiet one takes
    /// (with 30 s of wall clock, 3 imports in 4 of a million links were refused on a loaded
    /// machine). 200,000 links in `swift test`; the million with `PREFS_RELIABILITY_LONG=1`
    /// (71 s in a debug build here, the two loops spinning throughout).
    @Test func aLargeLinkFileImportsOnABusyMachine() throws {
        let isLong = ProcessInfo.processInfo.environment["PREFS_RELIABILITY_LONG"] == "1"
        let count = isLong ? 1_000_000 : 200_000
        let file = folder.path("links.html")
        var html = "<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<TITLE>Bookmarks</TITLE>\n<DL><p>\n"
        html.reserveCapacity(count * 90)
        for index in 0..<count {
            html +=
                "<DT><A HREF=\"https://example.com/page/\(index)\" ADD_DATE=\"1700000000\">"
                + "Page \(index)</A>\n"
        }
        html += "</DL><p>\n"
        try html.write(toFile: file, atomically: false, encoding: .utf8)
        html = ""
        let spinners = try (0..<2).map { _ in
            try ChildProcess("/bin/sh", ["-c", "while :; do :; done"])
        }
        defer {
            for spinner in spinners {
                spinner.send(SIGKILL)
                _ = spinner.wait()
            }
        }
        let imported = try runPrefs([
            "--db", folder.path("links.sqlite"), "bookmark", "import", file, "--json",
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8))
        #expect((summary as? [String: Any])?["added"] as? Int == count, "\(imported.stdout)")
        let spinning = spinners.filter { $0.isRunning }.count
        #expect(spinning == 2, "the machine stayed busy throughout")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func aLargeExportImportsToTheSameValues() throws {
        let file = try export()
        let copy = folder.path("copy.sqlite")
        let imported = try runPrefs(["--db", copy, "import", file])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("Imported 30001 preferences"), "\(imported.stderr)")
        let again = folder.path("again.json")
        #expect(try runPrefs(["--db", copy, "export", again]).status == 0)
        #expect(
            FileManager.default.contents(atPath: again)
                == FileManager.default.contents(atPath: file))
        // --replace removes what the file does not hold, in the same transaction.
        #expect(try runPrefs(["--db", copy, "set", "extra", "1"]).status == 0)
        let replaced = try runPrefs(["--db", copy, "import", "--replace", "--force", file])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try runPrefs(["--db", copy, "get", "extra"]).status == 1)
    }

    /// Each broken file says what the whole reading says, exits 65, and leaves no database.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func aBrokenLargeFileSaysWhatTheWholeReadingSaysAndImportsNothing() throws {
        let file = try export()
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let cases: [(String, String, String)] = [
            // A type no one knows, far into the file.
            (
                "type", "\"key029000\",\n      \"type\": \"int\"",
                "\"key029000\",\n      \"type\": \"nonsense\""
            ),
            // A key given twice: the second is out of order.
            ("twice", "\"key020001\"", "\"key020000\""),
            // Broken JSON near the end.
            ("syntax", "\"key029998\"", "\"key029998\" ,,"),
            // A key the rules refuse.
            ("key", "\"key025000\"", "\"key025000\\u0000\""),
        ]
        try expectEachRefused(text, cases, as: "json")
    }

    /// A file whose keys are not in byte order (not written by export) is read whole, and
    /// imports all the same.
    @Test func anUnorderedLargeFileImportsWhole() throws {
        var entries: [String] = []
        for index in (0..<40_000).reversed() {
            entries.append(
                #"{"key": "k\#(index)", "type": "string", "value": "\#(String(repeating: "v", count: 20))"}"#
            )
        }
        let file = folder.path("unordered.json")
        try
            (#"{"format": "prefs-preferences", "version": 1, "suite": "standard", "preferences": ["#
            + entries.joined(separator: ",\n") + "]}")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let database = folder.path("unordered.sqlite")
        let result = try runPrefs(["--db", database, "import", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try runPrefs(["--db", database, "get", "k123"]).stdout == String(
                repeating: "v", count: 20) + "\n")
    }

    /// A property-list export above 1 MiB is read entry by entry (the XML form in pieces,
    /// the binary form where its objects are); from standard input it is read whole. Both
    /// import the same values, which export again to the source's JSON export.
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")),
        arguments: ["plist", "binary-plist"])
    func aLargePropertyListImportsAsFromStandardInput(format: String) throws {
        let json = try export(count: 40_000)
        let source = folder.path("source.sqlite")
        let file = folder.path("export.\(format)")
        let exported = try runPrefs(["--db", source, "export", "--format", format, file])
        #expect(exported.status == 0, "\(exported.stderr)")
        let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        #expect(size > 1 << 20, "\(size) bytes")
        let streamed = folder.path("streamed-\(format).sqlite")
        let whole = folder.path("whole-\(format).sqlite")
        let fromFile = try runPrefs(["--db", streamed, "import", file])
        let fromInput = try runProcess(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "'\(prefsExecutable().path)' --db '\(whole)' import - < '\(file)'"])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromInput.status == 0, "\(fromInput.stderr)")
        #expect(fromFile.stderr.contains("Imported 40001 preferences"), "\(fromFile.stderr)")
        for database in [streamed, whole] {
            let again = folder.path("again-\(format).json")
            #expect(try runPrefs(["--db", database, "export", again]).status == 0)
            #expect(
                FileManager.default.contents(atPath: again)
                    == FileManager.default.contents(atPath: json), "\(database)")
        }
    }

    /// A broken large XML property list says what the whole reading says (exit 65 and the
    /// line), and leaves no database.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func aBrokenLargePropertyListSaysWhatTheWholeReadingSays() throws {
        _ = try export()
        let file = folder.path("export.plist")
        #expect(
            try runPrefs([
                "--db", folder.path("source.sqlite"), "export", "--format", "plist", file,
            ])
            .status == 0)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let cases: [(String, String, String)] = [
            ("twice", "<key>key020001</key>", "<key>key020000</key>"),
            ("syntax", "<key>key029998</key>", "<key>key029998</key></dict>"),
            ("key", "<key>key025000</key>", "<key>key025000&#0;</key>"),
        ]
        try expectEachRefused(text, cases, as: "plist")
    }

    /// `text` with each case's `from` replaced by `to`, imported as a file: exit 65 with
    /// one line that says nothing was imported, what reading it whole from standard input
    /// says (but for the name), and no database made.
    func expectEachRefused(
        _ text: String, _ cases: [(String, String, String)], as suffix: String
    ) throws {
        for (name, from, to) in cases {
            let broken = folder.path("\(name).\(suffix)")
            guard let range = text.range(of: from) else {
                Issue.record("\(name): '\(from)' not in the export")
                continue
            }
            try text.replacingCharacters(in: range, with: to)
                .write(toFile: broken, atomically: true, encoding: .utf8)
            let database = folder.path("\(name).sqlite")
            let result = try runPrefs(["--db", database, "import", broken])
            let fromInput = try runProcess(
                URL(fileURLWithPath: "/bin/sh"),
                ["-c", "'\(prefsExecutable().path)' --db '\(database)' import - < '\(broken)'"])
            #expect(result.status == 65, "\(name): \(result.stderr)")
            #expect(fromInput.status == 65, "\(name): \(fromInput.stderr)")
            #expect(result.stderr.hasPrefix("Error: "), "\(name): \(result.stderr)")
            #expect(
                result.stderr.replacingOccurrences(of: broken, with: "-") == fromInput.stderr,
                "\(name)")
            #expect(
                result.stderr.hasSuffix("; nothing was imported\n"), "\(name): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: database), "\(name)")
        }
    }

    /// A bookmark file of `links` links over 1 MiB, with copies of links, notes, folders,
    /// a skipped link, and 'é' at odd offsets (so that 64 KB pieces cut through some).
    func bookmarkFile(links: Int = 20_000, extra: [UInt8] = []) throws -> String {
        var html = "<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<!--"
        // Two-byte characters across the first piece's end (65,536 bytes).
        if html.utf8.count % 2 == 0 { html += " " }
        html += String(repeating: "\u{E9}", count: 40_000) + " -->\n"
        for index in 0..<links {
            if index % 1_000 == 0 { html += "<DT><H3>Folder \(index % 3000)</H3>\n<DL><p>\n" }
            html +=
                "<DT><A HREF=\"https://example.com/\(index % 7_000)\" ADD_DATE=\"\(1_500_000_000 + index)\" TAGS=\"t\(index % 5)\">caf\u{E9}\u{E9} \(index)</A>\n"
            if index % 7 == 0 { html += "<DD>note \u{E9}\(index)\n" }
            if index % 999 == 0 { html += "</DL><p>\n" }
        }
        html += "<DT><A HREF=\"javascript:go()\">skipped</A>\n</DL><p>\n"
        let file = folder.path("bookmarks-\(links)-\(extra.count).html")
        try Data(Array(html.utf8) + extra).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// The JSON export with the import's own times left out.
    func bookmarks(_ database: String) throws -> String {
        let exported = try runPrefs(["--db", database, "bookmark", "export", "--format", "json"])
        #expect(exported.status == 0, "\(exported.stderr)")
        return exported.stdout.split(separator: "\n")
            .filter { !$0.contains("\"createdAt\"") && !$0.contains("\"updatedAt\"") }
            .joined(separator: "\n")
    }

    /// `prefs --json bookmark import` of a file into a database of its own, and of the same
    /// file from standard input (read whole) into another: both outputs, both databases.
    func importBothWays(_ file: String, name: String) throws -> (
        fromFile: ProcessOutput, fromInput: ProcessOutput, staged: String, whole: String
    ) {
        let staged = folder.path("\(name)-staged.sqlite")
        let whole = folder.path("\(name)-whole.sqlite")
        let fromFile = try runPrefs(["--db", staged, "--json", "bookmark", "import", file])
        let fromInput = try runProcess(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c",
                "'\(prefsExecutable().path)' --db '\(whole)' --json bookmark import - < '\(file)'",
            ])
        return (fromFile, fromInput, staged, whole)
    }

    /// A file that must be refused: from a path as from standard input, exit 65 with the
    /// same message (naming `reason`), and no database made.
    func expectRefusedBothWays(
        _ file: String, saying reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let none = folder.path("none-\(UUID().uuidString).sqlite")
        let refused = try runPrefs(["--db", none, "bookmark", "import", file])
        let fromInput = try runProcess(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "'\(prefsExecutable().path)' --db '\(none)' bookmark import - < '\(file)'"])
        #expect(refused.status == 65, "\(refused.stderr)", sourceLocation: sourceLocation)
        #expect(
            refused.stderr.contains(reason), "\(refused.stderr)", sourceLocation: sourceLocation)
        #expect(
            refused.stderr.replacingOccurrences(of: file, with: "-") == fromInput.stderr,
            sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: none), sourceLocation: sourceLocation)
    }

    /// `prefs bookmark import FILE` of a file over 1 MiB is read in pieces (staged on disk);
    /// from standard input it is read whole. Both give the same summary and bookmarks, and
    /// a character cut between two pieces is not taken for invalid UTF-8; a byte that is
    /// invalid is, with the same warning.
    @Test(arguments: [[], [0xFF, 0x0A]] as [[UInt8]])
    func aLargeBookmarkFileImportsAsFromStandardInput(extra: [UInt8]) throws {
        let (fromFile, fromInput, staged, whole) = try importBothWays(
            try bookmarkFile(extra: extra), name: "html-\(extra.count)")
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromInput.status == 0, "\(fromInput.stderr)")
        #expect(fromFile.stdout == fromInput.stdout)
        #expect(fromFile.stdout.contains("\"merged\": 13000"), "\(fromFile.stdout.prefix(300))")
        #expect(fromFile.stdout.contains("not valid UTF-8") == !extra.isEmpty)
        #expect(try bookmarks(staged) == (try bookmarks(whole)))
    }

    /// `prefs bookmark import FILE` of our JSON export over 1 MiB is read in pieces too:
    /// the same summary and bookmarks as from standard input (read whole). The same file
    /// with an element that is not a bookmark at its end fails as read whole: the same
    /// one-line error, exit 65, and no database made.
    @Test func aLargeJSONExportImportsAsFromStandardInput() throws {
        let source = folder.path("json-source.sqlite")
        #expect(
            try runPrefs(["--db", source, "bookmark", "import", try bookmarkFile()]).status == 0)
        let exported = try runPrefs(["--db", source, "bookmark", "export", "--format", "json"])
        #expect(exported.status == 0, "\(exported.stderr)")
        let file = folder.path("bookmarks.json")
        try exported.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(exported.stdout.utf8.count > 1 << 20, "\(exported.stdout.utf8.count) bytes")
        let (fromFile, fromInput, staged, whole) = try importBothWays(file, name: "json")
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromFile.stdout == fromInput.stdout)
        #expect(fromFile.stdout.contains("\"added\": 7000"), "\(fromFile.stdout.prefix(300))")
        #expect(try bookmarks(staged) == (try bookmarks(source)))
        #expect(try bookmarks(staged) == (try bookmarks(whole)))

        let broken = folder.path("broken.json")
        let end = try #require(exported.stdout.range(of: "\n  ]", options: .backwards))
        try exported.stdout.replacingCharacters(in: end, with: ",\n    7\n  ]")
            .write(toFile: broken, atomically: true, encoding: .utf8)
        try expectRefusedBothWays(broken, saying: "bookmarks[7000] is not an object")
    }

    /// Chromium's `Bookmarks` file of `links` links in Chromium's member order (a folder's
    /// children before its name), with folders, copies, a bookmarklet and a bad date.
    func chromiumFile(links: Int = 20_000, tail: String = "") throws -> String {
        var folders: [String] = []
        for start in stride(from: 0, to: links, by: 1_000) {
            let children = (start..<min(links, start + 1_000)).map { index in
                """
                {"date_added": "\(index == 5 ? "soon" : "\(13_300_000_000_000_000 + index)")", \
                "guid": "g\(index)", "id": "\(index)", "name": "caf\u{E9} \(index)", "type": "url", \
                "url": "\(index == 7 ? "javascript:go()" : "https://example.com/\(index % 15_000)")"}
                """
            }
            folders.append(
                "{\"children\": [\(children.joined(separator: ",\n"))], \"name\": \"Folder \(start)\", \"type\": \"folder\"}"
            )
        }
        let json = """
            {"checksum": "0", "roots": {"bookmark_bar": {"children": [\(folders.joined(separator: ",\n"))],
             "name": "Bookmarks bar", "type": "folder"}, "other": {"children": [], "type": "folder"}},
             "version": 1\(tail)}
            """
        let file = folder.path("Bookmarks-\(links)-\(tail.utf8.count)")
        try json.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// `prefs bookmark import FILE` of Chromium's file over 1 MiB is read twice in pieces:
    /// the same summary and bookmarks as from standard input (read whole). With invalid
    /// JSON at its very end, it fails as read whole, with the same error, exit 65, and no
    /// database made.
    @Test func aLargeChromiumFileImportsAsFromStandardInput() throws {
        let file = try chromiumFile()
        #expect(
            try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0 > 1 << 20)
        let (fromFile, fromInput, staged, whole) = try importBothWays(file, name: "chromium")
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromFile.stdout == fromInput.stdout)
        #expect(fromFile.stdout.contains("\"merged\": 4999"), "\(fromFile.stdout.prefix(400))")
        #expect(fromFile.stdout.contains("date_added 'soon'"), "\(fromFile.stdout.prefix(400))")
        #expect(try bookmarks(staged) == (try bookmarks(whole)))

        try expectRefusedBothWays(
            try chromiumFile(tail: ", \"extra\": tru"), saying: "invalid JSON")
    }

    /// Safari's `Bookmarks.plist` converted to XML, its keys sorted as `plutil` writes
    /// them (a folder's `Children` before its `Title`): `links` links in folders of 1,000,
    /// well above the threshold, with a bookmarklet (skipped) and copies of a link.
    func safariXMLFile(links: Int = 12_000, tail: String = "") throws -> String {
        func string(_ key: String, _ value: String) -> String {
            "<key>\(key)</key>\n<string>\(value)</string>\n"
        }
        var folders: [String] = []
        for start in stride(from: 0, to: links, by: 1_000) {
            let children = (start..<min(links, start + 1_000)).map { index in
                "<dict>\n<key>URIDictionary</key>\n<dict>\n" + string("title", "caf\u{E9} \(index)")
                    + "</dict>\n"
                    + string(
                        "URLString",
                        index == 7 ? "javascript:go()" : "https://example.com/\(index % 9_000)")
                    + string("WebBookmarkType", "WebBookmarkTypeLeaf")
                    + string("WebBookmarkUUID", "u\(index)") + "</dict>\n"
            }
            folders.append(
                "<dict>\n<key>Children</key>\n<array>\n\(children.joined())</array>\n"
                    + string("Title", "Folder \(start)")
                    + string("WebBookmarkType", "WebBookmarkTypeList") + "</dict>\n")
        }
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            <key>Children</key>
            <array>
            \(folders.joined())</array>
            \(string("Title", ""))\(string("WebBookmarkType", "WebBookmarkTypeList"))</dict>
            </plist>\(tail)

            """
        let file = folder.path("Bookmarks-\(links)-\(tail.utf8.count).plist")
        try xml.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// `prefs bookmark import FILE` of Safari's XML file over 1 MiB is read twice in pieces:
    /// the same summary and bookmarks as from standard input (read whole). Cut short, it
    /// fails as read whole, with the same error, exit 65, and no database made.
    @Test func aLargeSafariXMLFileImportsAsFromStandardInput() throws {
        let file = try safariXMLFile()
        #expect(
            try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0 > 1 << 20)
        let (fromFile, fromInput, staged, whole) = try importBothWays(file, name: "safari-xml")
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromFile.stdout == fromInput.stdout)
        #expect(fromFile.stdout.contains("\"added\": 9000"), "\(fromFile.stdout.prefix(400))")
        #expect(try bookmarks(staged) == (try bookmarks(whole)))

        try expectRefusedBothWays(
            try safariXMLFile(tail: "<plist>"), saying: "not a readable property list")
    }

    /// A large file that starts like markup but holds no bookmarks changes nothing, and
    /// makes no database.
    @Test func aLargeFileThatIsNotABookmarkFileMakesNoDatabase() throws {
        let file = folder.path("page.html")
        try ("<html><body>\n" + String(repeating: "<p>text</p>\n", count: 200_000))
            .write(toFile: file, atomically: true, encoding: .utf8)
        let database = folder.path("none.sqlite")
        let result = try runPrefs(["--db", database, "bookmark", "import", file])
        #expect(result.status == 65)
        #expect(result.stderr.contains("not a Netscape bookmark file"), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("; nothing was imported\n"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database))
    }
}
