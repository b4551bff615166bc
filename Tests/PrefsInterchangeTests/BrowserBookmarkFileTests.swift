import Foundation
import SQLiteCore
import TestSupport
import Testing

@testable import PrefsInterchange
@testable import PrefsKit

/// A second, deliberately simple reader of Netscape bookmark files (regular expressions
/// over the text), to count what a file holds independently of the importer.
struct ReferenceBookmarkFile {
    struct Link {
        var url: String
        var title: String
        var folder: [String]
        var addDate: Int?
        var tags: [String]
        var note: String?
    }

    var links: [Link] = []
    var folderCount = 0

    init(_ text: String) throws {
        let pattern = try NSRegularExpression(
            pattern: #"<(/?)(DL|H3|A|DD)\b([^>]*)>([^<]*)"#, options: [.caseInsensitive])
        let attribute = try NSRegularExpression(
            pattern: #"([A-Z_]+)="([^"]*)""#, options: [.caseInsensitive])
        let source = text as NSString
        var stack: [String?] = []
        var pending: String?
        var lastWasLink = false
        for match in pattern.matches(in: text, range: NSRange(location: 0, length: source.length)) {
            let isClosing = source.substring(with: match.range(at: 1)) == "/"
            let name = source.substring(with: match.range(at: 2)).uppercased()
            let attributes = source.substring(with: match.range(at: 3))
            let body = source.substring(with: match.range(at: 4))
            var values: [String: String] = [:]
            let attributeText = attributes as NSString
            for pair in attribute.matches(
                in: attributes, range: NSRange(location: 0, length: attributeText.length))
            {
                values[attributeText.substring(with: pair.range(at: 1)).uppercased()] =
                    Self.decoded(attributeText.substring(with: pair.range(at: 2)))
            }
            switch (name, isClosing) {
            case ("H3", false):
                pending = Self.decoded(body).trimmingCharacters(in: .whitespacesAndNewlines)
                folderCount += 1
                lastWasLink = false
            case ("DL", false):
                stack.append(pending)
                pending = nil
            case ("DL", true):
                if !stack.isEmpty { stack.removeLast() }
                lastWasLink = false
            case ("A", false):
                links.append(
                    Link(
                        url: values["HREF"] ?? "",
                        title: Self.decoded(body).trimmingCharacters(in: .whitespacesAndNewlines),
                        folder: stack.compactMap { $0 } + (pending.map { _ in [] } ?? []),
                        addDate: values["ADD_DATE"].flatMap { Int($0) },
                        tags: (values["TAGS"] ?? "").split(separator: ",").map(String.init),
                        note: nil))
                lastWasLink = true
            case ("DD", false):
                if lastWasLink {
                    links[links.count - 1].note = body.trimmingCharacters(
                        in: .whitespacesAndNewlines)
                }
                lastWasLink = false
            default:
                break
            }
        }
    }

    static func decoded(_ text: String) -> String {
        text.replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(
            of: "&quot;", with: "\""
        )
        .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
        .replacingOccurrences(of: "&amp;", with: "&")
    }
}

enum RealFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/real")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    static let htmlFiles = [
        "ddg_bookmarks_chrome.html", "ddg_bookmarks_firefox.html", "ddg_bookmarks_safari.html",
        "linkding_simple_valid_import_file.html",
    ]
}

@Suite struct BrowserBookmarkFileTests {
    let folder: TemporaryFolder
    let bookmarks: BookmarkStore

    init() throws {
        folder = try TemporaryFolder()
        bookmarks = BookmarkStore(database: try AppDatabase(path: folder.path("prefs.sqlite")))
    }

    /// What a comparison of two stores looks at: everything but ids and positions.
    static func comparable(_ list: [Bookmark]) -> [String] {
        list.map {
            "\($0.kind)|\($0.itemID)|\($0.title)|\($0.urlString ?? "")|\($0.folder)|\($0.tags)|"
                + "\($0.note ?? "")|\(Int($0.createdAt.timeIntervalSince1970))"
        }.sorted()
    }

    @Test(arguments: RealFixtures.htmlFiles)
    func realBrowserExportsImportWhole(name: String) throws {
        let bytes = try RealFixtures.bytes(name)
        let reference = try ReferenceBookmarkFile(String(decoding: bytes, as: UTF8.self))
        let distinct = Set(reference.links.map(\.url))
        let summary = try bookmarks.importFile(atPath: name, bytes: bytes)
        #expect(summary.format == .html)
        #expect(summary.added == distinct.count)
        #expect(summary.merged == reference.links.count - distinct.count)
        #expect(summary.skipped.isEmpty)
        #expect(summary.warnings.isEmpty, "\(summary.warnings)")
        let stored = try bookmarks.list()
        #expect(stored.count == distinct.count)
        for url in distinct {
            let copies = reference.links.filter { $0.url == url }
            let bookmark = try #require(stored.first { $0.itemID == url }, "\(url)")
            #expect(bookmark.kind == "link")
            #expect(bookmark.urlString == url)
            #expect(bookmark.title == copies[0].title)
            #expect(bookmark.folder == copies[0].folder)
            // The other copies' folders are kept as tags.
            let otherFolders = Set(
                copies.dropFirst().map(\.folder).filter { $0 != copies[0].folder && !$0.isEmpty })
            #expect(
                Set(bookmark.tags)
                    == Set(copies.flatMap(\.tags)).union(otherFolders.map(BookmarkFolderPath.text)))
            #expect(bookmark.note == copies.compactMap(\.note).first)
            if let seconds = copies.compactMap(\.addDate).min() {
                let expected =
                    Double(seconds)
                    / (seconds > 100_000_000_000_000
                        ? 1_000_000 : seconds > 100_000_000_000 ? 1000 : 1)
                #expect(bookmark.createdAt.timeIntervalSince1970 == expected)
            }
        }
        // The folder tree, empty and same-named folders included.
        #expect(try bookmarks.folders().count == reference.folderCount)
    }

    @Test(arguments: RealFixtures.htmlFiles)
    func realBrowserExportsRoundTripUnchanged(name: String) throws {
        try bookmarks.importFile(atPath: name, bytes: try RealFixtures.bytes(name))
        let exported = try bookmarks.exportHTML()
        let original = try ReferenceBookmarkFile(
            String(decoding: try RealFixtures.bytes(name), as: UTF8.self))
        let written = try ReferenceBookmarkFile(exported)
        #expect(written.folderCount == original.folderCount)

        // A second import of the export changes nothing, here or in a new database.
        let again = try bookmarks.importHTML(exported)
        #expect(again.added == 0 && again.updated == 0 && again.merged == 0)
        #expect(again.unchanged == (try bookmarks.count()))
        #expect(try bookmarks.exportHTML() == exported)
        let copy = BookmarkStore(database: try AppDatabase.inMemory())
        try copy.importHTML(exported)
        #expect(Self.comparable(try copy.list()) == Self.comparable(try bookmarks.list()))
        #expect(try copy.exportHTML() == exported)
        // And a second import of the browser's own file changes nothing either.
        let browserAgain = try bookmarks.importFile(
            atPath: name, bytes: try RealFixtures.bytes(name))
        #expect(browserAgain.added == 0 && browserAgain.updated == 0)
    }

    @Test func chromeExportKeepsFoldersDuplicatesAndCountsTruthfully() throws {
        let summary = try bookmarks.importFile(
            atPath: "c.html", bytes: try RealFixtures.bytes("ddg_bookmarks_chrome.html"))
        #expect(
            summary.description == "Added 11, updated 0, unchanged 0, merged 1 duplicate, skipped 0"
        )
        #expect(try bookmarks.folders().count == 13)
        let guardian = try #require(
            try bookmarks.bookmark(
                kind: "link", itemID: "https://www.theguardian.com/international"))
        #expect(guardian.folder == ["FolderA-Level1", "FolderA-Level2", "FolderA-Level3"])
        #expect(guardian.category == "FolderA-Level3")
        #expect(
            guardian.title
                == "News, sport and opinion from the Guardian's global edition | The Guardian")
        let underA = try bookmarks.list(BookmarkQuery(folder: ["FolderA-Level1"], sort: .title))
        #expect(
            underA.map(\.title) == [
                "Digg - What the Internet is talking about right now",
                "News, sport and opinion from the Guardian's global edition | The Guardian",
                "Wikipedia",
            ])
        #expect(
            try bookmarks.count(BookmarkQuery(folder: ["FolderA-Level1", "FolderA-Level2"])) == 2)
        #expect(try bookmarks.count(BookmarkQuery(folder: ["DuplicateFolderName"])) == 2)
        let groups = try bookmarks.groupedByFolder()
        #expect(groups.first?.folder == [])
        #expect(
            groups.map(\.folder).contains(["FolderB-Level1", "FolderB-Level2", "FolderB-Level3-b"]))
    }

    @Test func safariLayoutKeepsTheFirstFolder() throws {
        try bookmarks.importFile(
            atPath: "s.html", bytes: try RealFixtures.bytes("ddg_bookmarks_safari.html"))
        let apple = try #require(
            try bookmarks.bookmark(kind: "link", itemID: "https://www.apple.com/uk"))
        #expect(apple.folder == ["Favourites"])
        let names = try bookmarks.folders().filter { $0.parentID == nil }.map(\.name)
        #expect(names.prefix(3) == ["Favourites", "Bookmarks Menu", "Reading List"])
    }

    @Test func safariPropertyListImportsEveryLeaf() throws {
        let bytes = try RealFixtures.bytes("safari_Bookmarks.plist")
        // Count independently: walk the property list for leaves and lists.
        var leaves: [(url: String, title: String)] = []
        var lists = 0
        var pending = [try PropertyList.decode(Data(bytes))]
        while let value = pending.popLast() {
            guard case .dictionary(let item) = value else { continue }
            if item["WebBookmarkType"] == .string("WebBookmarkTypeLeaf"),
                case .string(let url)? = item["URLString"]
            {
                var title = ""
                if case .dictionary(let uri)? = item["URIDictionary"],
                    case .string(let text)? = uri["title"]
                {
                    title = text
                }
                leaves.append((url, title))
            }
            if item["WebBookmarkType"] == .string("WebBookmarkTypeList") { lists += 1 }
            if case .array(let children)? = item["Children"] { pending += children }
        }
        let summary = try bookmarks.importFile(atPath: "Bookmarks.plist", bytes: bytes)
        #expect(summary.format == .safari)
        #expect(summary.added == Set(leaves.map(\.url)).count)
        #expect(summary.merged == leaves.count - Set(leaves.map(\.url)).count)
        #expect(try bookmarks.folders().count == lists - 1)  // the root is the top level
        let duck = try #require(
            try bookmarks.bookmark(kind: "link", itemID: "https://duckduckgo.com/"))
        #expect(duck.title == "DuckDuckGo")
        #expect(duck.folder == ["Favorites", "Folder"])
        #expect(duck.tags == ["Another Folder/Subfolder", "Favorites"])
        let html = try bookmarks.exportHTML()
        #expect(try bookmarks.importHTML(html).unchanged == 1)
    }

    @Test func preferencePropertyListsAreNotBookmarkFiles() throws {
        for name in [
            "bm_com.apple.dock.plist", "bm_com.apple.finder.plist",
            "Alitejawi_com.googlecode.iterm2.plist",
        ] {
            let error = #expect(throws: BookmarkError.self) {
                try bookmarks.importFile(atPath: name, bytes: try RealFixtures.bytes(name))
            }
            #expect(
                error?.description
                    == "Malformed import: a property list that is not Safari's Bookmarks.plist (no WebBookmarkTypeList at its root)"
            )
        }
        #expect(try bookmarks.count() == 0)
    }

    @Test func tolerantReaderTakesWhatOtherToolsWrite() throws {
        // DuckDuckGo's namespace attribute, a byte-order mark, CRLF, comments, unknown tags,
        // Vivaldi's DESCRIPTION, a folder's <DD>, a missing </H3>, a title over two lines.
        let html =
            "\u{FEFF}<!DOCTYPE NETSCAPE-Bookmark-file-1>\r\n"
            + "<HTML xmlns:duckduckgo=\"https://duckduckgo.com/bookmarks\">\r\n"
            + "<!-- comment <A HREF=\"https://ignored.example\">x</A> -->\r\n"
            + "<Title>Bookmarks</Title><H1>Bookmarks</H1>\r\n<DL><p>\r\n"
            + "  <DT><H3 ADD_DATE=\"1700000000\" duckduckgo:favorite=\"true\">Work</H3>\r\n"
            + "  <DD>Things for work\r\n"
            + "  <DL><p>\r\n"
            + "    <DT><A HREF=\"https://a.example\" ICON_URI=\"x\" DESCRIPTION=\"From Vivaldi\" LAST_CHARSET=\"UTF-8\">A\r\n   title</A>\r\n"
            + "    <DT><H3>Unclosed\r\n"
            + "    <DL><p><DT><A HREF=\"https://b.example\">B</A></DL><p>\r\n"
            + "  </DL><p>\r\n"
            + "  <DT><A HREF=\"https://c.example\"><b>C</b> link</A>\r\n  <DD>C's note\r\n"
            + "</DL><p>\r\n</HTML>\r\n"
        let summary = try bookmarks.importFile(Array(html.utf8))
        #expect(summary.added == 3)
        #expect(summary.skipped.isEmpty)
        #expect(summary.warnings.map(\.description) == ["line 11: <H3> is not closed"])
        let a = try #require(try bookmarks.bookmark(kind: "link", itemID: "https://a.example"))
        #expect(a.title == "A title")
        #expect(a.note == "From Vivaldi")
        #expect(a.folder == ["Work"])
        let b = try #require(try bookmarks.bookmark(kind: "link", itemID: "https://b.example"))
        #expect(b.folder == ["Work", "Unclosed"])
        let c = try #require(try bookmarks.bookmark(kind: "link", itemID: "https://c.example"))
        #expect(c.title == "C link")
        #expect(c.note == "C's note")
        let work = try #require(try bookmarks.folders().first { $0.name == "Work" })
        #expect(work.description == "Things for work")
        #expect(work.createdAt == Date(timeIntervalSince1970: 1_700_000_000))
        // The folder's description survives an export and a re-import.
        let copy = BookmarkStore(database: try AppDatabase.inMemory())
        try copy.importHTML(try bookmarks.exportHTML())
        #expect(try copy.folders().first { $0.name == "Work" }?.description == "Things for work")
    }

    @Test func laterTitleWinsOnlyWhenNewer() throws {
        let html = """
            <!DOCTYPE NETSCAPE-Bookmark-file-1>
            <DL><p>
            <DT><A HREF="https://x.example" LAST_MODIFIED="100" TAGS="a">Old</A>
            <DT><A HREF="https://x.example" LAST_MODIFIED="200" TAGS="b">New</A>
            <DT><A HREF="https://x.example" LAST_MODIFIED="150">Middle</A>
            <DT><A HREF="https://y.example">First</A>
            <DT><A HREF="https://y.example">Second</A>
            </DL><p>
            """
        let summary = try bookmarks.importHTML(html)
        #expect(
            summary.description == "Added 2, updated 0, unchanged 0, merged 3 duplicates, skipped 0"
        )
        #expect(try bookmarks.bookmark(kind: "link", itemID: "https://x.example")?.title == "New")
        #expect(
            try bookmarks.bookmark(kind: "link", itemID: "https://x.example")?.tags == ["a", "b"])
        #expect(try bookmarks.bookmark(kind: "link", itemID: "https://y.example")?.title == "First")
    }

    @Test func chromiumBookmarksFile() throws {
        // Microseconds since 1601: 13_300_000_000_000_000 is 2022-06-14T...
        func webkit(_ unix: Int) -> String { String((unix + 11_644_473_600) * 1_000_000) }
        let json = """
            {"checksum": "x", "version": 1, "roots": {
              "bookmark_bar": {"type": "folder", "name": "Bookmarks bar", "date_added": "\(webkit(1_600_000_000))", "children": [
                {"type": "folder", "name": "Work", "date_added": "\(webkit(1_600_000_100))", "children": [
                  {"type": "url", "name": "Swift", "url": "https://swift.org/", "date_added": "\(webkit(1_650_000_000))",
                   "meta_info": {"Description": "The language"}}
                ]},
                {"type": "url", "name": "Bookmarklet", "url": "javascript:void(0)"}
              ]},
              "other": {"type": "folder", "name": "Other bookmarks", "children": [
                {"type": "url", "name": "SQLite", "url": "https://sqlite.org/", "date_added": "bad"}
              ]},
              "synced": {"type": "folder", "name": "Mobile bookmarks", "children": []}
            }}
            """
        let summary = try bookmarks.importFile(Array(json.utf8))
        #expect(summary.format == .chromium)
        #expect(summary.added == 2)
        #expect(
            summary.skipped.map(\.description) == [
                "roots.bookmark_bar.children[1]: a javascript: bookmarklet is not a link"
            ])
        #expect(
            summary.warnings.map(\.description) == [
                "roots.other.children[0]: date_added 'bad' is not a Chromium time; the import time is used"
            ])
        let swift = try #require(try bookmarks.bookmark(kind: "link", itemID: "https://swift.org/"))
        #expect(swift.folder == ["Bookmarks bar", "Work"])
        #expect(swift.note == "The language")
        #expect(swift.createdAt == Date(timeIntervalSince1970: 1_650_000_000))
        #expect(try bookmarks.bookmark(kind: "link", itemID: "https://sqlite.org/")?.folder == [])
        #expect(
            try bookmarks.folders().map(\.name) == ["Bookmarks bar", "Work", "Mobile bookmarks"])
    }

    /// A places.sqlite made from Firefox's documented schema (the tables import reads).
    func makePlaces(at path: String, keepOpen: Bool = false) throws -> Connection {
        let connection = try Connection(path: path)
        try connection.execute(
            sql: keepOpen ? "PRAGMA journal_mode = WAL" : "PRAGMA journal_mode = DELETE")
        for statement in [
            "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url LONGVARCHAR, title LONGVARCHAR, rev_host LONGVARCHAR, visit_count INTEGER DEFAULT 0, guid TEXT)",
            "CREATE TABLE moz_bookmarks (id INTEGER PRIMARY KEY, type INTEGER, fk INTEGER DEFAULT NULL, parent INTEGER, position INTEGER, title LONGVARCHAR, keyword_id INTEGER, folder_type TEXT, dateAdded INTEGER, lastModified INTEGER, guid TEXT, syncStatus INTEGER NOT NULL DEFAULT 0, syncChangeCounter INTEGER NOT NULL DEFAULT 1)",
            "CREATE TABLE moz_anno_attributes (id INTEGER PRIMARY KEY, name VARCHAR(32) UNIQUE NOT NULL)",
            "CREATE TABLE moz_items_annos (id INTEGER PRIMARY KEY, item_id INTEGER NOT NULL, anno_attribute_id INTEGER, content LONGVARCHAR, flags INTEGER DEFAULT 0, expiration INTEGER DEFAULT 0, type INTEGER DEFAULT 0, dateAdded INTEGER DEFAULT 0, lastModified INTEGER DEFAULT 0)",
            "INSERT INTO moz_places (id, url, title) VALUES (1, 'https://www.mozilla.org/', 'Mozilla'), (2, 'https://swift.org/', 'Swift'), (3, 'place:sort=8', NULL)",
            """
            INSERT INTO moz_bookmarks (id, type, fk, parent, position, title, dateAdded, lastModified, guid) VALUES
                (1, 2, NULL, 0, 0, '', 0, 0, 'root________'),
                (2, 2, NULL, 1, 0, 'menu', 0, 0, 'menu________'),
                (3, 2, NULL, 1, 1, 'toolbar', 0, 0, 'toolbar_____'),
                (4, 2, NULL, 1, 2, 'tags', 0, 0, 'tags________'),
                (5, 2, NULL, 1, 3, 'unfiled', 0, 0, 'unfiled_____'),
                (6, 2, NULL, 1, 4, 'mobile', 0, 0, 'mobile______'),
                (10, 1, 1, 2, 0, 'Mozilla', 1600000000000000, 1600000100000000, 'aaaaaaaaaaaa'),
                (11, 2, NULL, 3, 0, 'Dev', 1600000000000000, 1600000000000000, 'bbbbbbbbbbbb'),
                (12, 1, 2, 11, 0, 'Swift language', 1650000000000000, 1650000000000000, 'cccccccccccc'),
                (13, 3, NULL, 11, 1, NULL, 0, 0, 'dddddddddddd'),
                (14, 1, 3, 5, 0, 'Recent', 0, 0, 'eeeeeeeeeeee'),
                (20, 2, NULL, 4, 0, 'lang', 0, 0, 'ffffffffffff'),
                (21, 1, 2, 20, 0, NULL, 0, 0, 'gggggggggggg')
            """,
            "INSERT INTO moz_anno_attributes (id, name) VALUES (1, 'bookmarkProperties/description')",
            "INSERT INTO moz_items_annos (item_id, anno_attribute_id, content) VALUES (12, 1, 'A note')",
        ] {
            try connection.execute(sql: statement)
        }
        return connection
    }

    func expectPlacesImported(_ summary: BookmarkImportSummary) throws {
        #expect(summary.format == .firefox)
        #expect(summary.added == 2)
        #expect(
            summary.skipped.map(\.description) == [
                "moz_bookmarks id 14: a Firefox query (place:) is not a link"
            ])
        let swift = try #require(try bookmarks.bookmark(kind: "link", itemID: "https://swift.org/"))
        #expect(swift.title == "Swift language")
        #expect(swift.folder == ["Bookmarks Toolbar", "Dev"])
        #expect(swift.tags == ["lang"])
        #expect(swift.note == "A note")
        #expect(swift.createdAt == Date(timeIntervalSince1970: 1_650_000_000))
        let mozilla = try #require(
            try bookmarks.bookmark(kind: "link", itemID: "https://www.mozilla.org/"))
        #expect(mozilla.folder == [])
        #expect(mozilla.updatedAt == Date(timeIntervalSince1970: 1_600_000_100))
    }

    @Test func firefoxPlacesIsReadWithoutBeingTouched() throws {
        let path = folder.path("places.sqlite")
        _ = try makePlaces(at: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        try expectPlacesImported(try bookmarks.importFile(atPath: path, bytes: Array(before)))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
    }

    @Test func firefoxPlacesIsReadWhileFirefoxHoldsItOpen() throws {
        let path = folder.path("places.sqlite")
        let firefox = try makePlaces(at: path, keepOpen: true)
        // Firefox's recent writes are in the WAL, not yet in the file.
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        let wal = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        try expectPlacesImported(try bookmarks.importFile(atPath: path, bytes: bytes))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "-wal")) == wal)
        try firefox.execute(
            sql: "INSERT INTO moz_places (id, url) VALUES (9, 'https://still.writable/')")
    }

    @Test func anSQLiteFileThatIsNotPlacesIsRefused() throws {
        let path = folder.path("other.sqlite")
        let other = try Connection(path: path)
        try other.execute(sql: "CREATE TABLE t (x)")
        let error = #expect(throws: BookmarkError.self) {
            try bookmarks.importFile(
                atPath: path, bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        #expect(
            error?.description
                == "Malformed import: an SQLite file that is not Firefox's places.sqlite (no moz_bookmarks table)"
        )
    }
}

@Suite struct BookmarkFolderMigrationTests {
    @Test func categoriesWrittenBeforeFoldersBecomeTopLevelFolders() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("old.sqlite")
        // A file as version 5 wrote it, with categorized and uncategorized bookmarks.
        do {
            let connection = try Connection(path: path)
            try connection.execute(sql: "PRAGMA journal_mode = WAL")
            let before = SQLiteEngine.migrations.filter { $0.version <= 5 }
            _ = try Migrator(migrations: before, applicationID: AppDatabase.applicationID).migrate(
                connection)
            try connection.execute(
                sql: """
                    INSERT INTO bookmark (kind, item_id, title, category, position, created_at, updated_at)
                    VALUES ('movie', '1', 'Aquaman', 'DC', 0, 0, 0), ('movie', '2', 'Venom', NULL, 1, 0, 0),
                        ('movie', '3', 'Black/White', 'AC/DC', 2, 0, 0)
                    """)
        }
        let bookmarks = BookmarkStore(database: try AppDatabase(path: path))
        let listed = try bookmarks.list()
        #expect(listed.map(\.category) == ["DC", nil, "AC/DC"])
        #expect(listed.map(\.folder) == [["DC"], [], ["AC/DC"]])
        #expect(try bookmarks.list(BookmarkQuery(folder: ["DC"])).map(\.title) == ["Aquaman"])
        #expect(
            try bookmarks.list(BookmarkQuery(folder: BookmarkFolderPath.components("AC\\/DC"))).map(
                \.title) == ["Black/White"])
        #expect(try bookmarks.folders().isEmpty)
        // The app keeps writing categories; imports of the export keep them where they were.
        try bookmarks.add(BookmarkDraft(kind: "movie", itemID: "4", title: "Joker", category: "DC"))
        let html = try bookmarks.exportHTML()
        let summary = try bookmarks.importHTML(html)
        #expect(summary.unchanged == 4)
        #expect(try bookmarks.exportHTML() == html)
        #expect(
            try bookmarks.list(BookmarkQuery(folder: ["DC"])).map(\.title) == ["Aquaman", "Joker"])
    }

    @Test func addingWithoutAFolderKeepsAnImportedBookmarkInItsFolder() throws {
        let bookmarks = BookmarkStore(database: try AppDatabase.inMemory())
        try bookmarks.add(
            BookmarkDraft(kind: "link", itemID: "x", title: "X", folder: ["Bar", "Work"]))
        #expect(try bookmarks.bookmark(kind: "link", itemID: "x")?.folder == ["Bar", "Work"])
        // The app updates the title and names the same category: the folder stays.
        try bookmarks.add(BookmarkDraft(kind: "link", itemID: "x", title: "X2", category: "Work"))
        #expect(try bookmarks.bookmark(kind: "link", itemID: "x")?.folder == ["Bar", "Work"])
        // Another category moves it to that category's top-level folder.
        try bookmarks.add(BookmarkDraft(kind: "link", itemID: "x", title: "X3", category: "Home"))
        #expect(try bookmarks.bookmark(kind: "link", itemID: "x")?.folder == ["Home"])
        #expect(try bookmarks.folders().map(\.name) == ["Bar", "Work"])
    }
}
