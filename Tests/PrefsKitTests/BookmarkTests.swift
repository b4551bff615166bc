import Foundation
import SQLiteCore
import TestSupport
import Testing

@testable import PrefsInterchange
@testable import PrefsKit

@Suite struct BookmarkTests {
    let folder: TemporaryFolder
    let path: String
    let bookmarks: BookmarkStore

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("prefs.sqlite")
        bookmarks = BookmarkStore(database: try AppDatabase(path: path))
    }

    func london(title: String = "London") -> BookmarkDraft {
        BookmarkDraft(kind: "trip", itemID: "london", title: title, tags: ["uk", "city"])
    }

    /// The movie fixtures as bookmarks, in file order.
    func addMovies() throws -> [Fixtures.Movie] {
        let movies = try Fixtures.movies
        for movie in movies {
            try bookmarks.add(
                BookmarkDraft(
                    kind: "movie", itemID: String(movie.id), title: movie.title,
                    url: URL(string: movie.trailerLink), category: movie.catagory,
                    tags: movie.isFeaturedMovie ? ["featured"] : [], note: movie.description))
        }
        return movies
    }

    func positions(_ kind: String) throws -> [Int] {
        try bookmarks.list(BookmarkQuery(kind: kind)).map(\.position)
    }

    @Test func toggleTwiceLeavesNothing() throws {
        #expect(try bookmarks.toggle(london()) == true)
        #expect(try bookmarks.isBookmarked(kind: "trip", itemID: "london"))
        #expect(try bookmarks.toggle(london()) == false)
        #expect(try !bookmarks.isBookmarked(kind: "trip", itemID: "london"))
        #expect(try bookmarks.count() == 0)
        let connection = try Connection(path: path, mode: .readOnly)
        #expect(try connection.scalar(Int.self, sql: "SELECT count(*) FROM bookmark_tag") == 0)
        #expect(try connection.scalar(Int.self, sql: "SELECT count(*) FROM bookmark_search") == 0)
    }

    @Test func addingTwiceUpdatesInsteadOfDuplicating() throws {
        let first = try bookmarks.add(london())
        var changed = london(title: "London, UK")
        changed.tags = ["europe"]
        let second = try bookmarks.add(changed)
        #expect(try bookmarks.count() == 1)
        #expect(second.id == first.id)
        #expect(second.createdAt == first.createdAt)
        #expect(second.updatedAt > first.updatedAt)
        #expect(second.title == "London, UK")
        #expect(second.tags == ["europe"])
        #expect(try bookmarks.search("uk").map(\.id) == [first.id])  // the title, not the old tag
        #expect(try bookmarks.search("city").isEmpty)
    }

    @Test func idsAreNeverReusedAfterDeletes() throws {
        let a = try bookmarks.add(BookmarkDraft(kind: "trip", itemID: "a", title: "A"))
        let b = try bookmarks.add(BookmarkDraft(kind: "trip", itemID: "b", title: "B"))
        #expect(try bookmarks.remove(id: b.id))
        let c = try bookmarks.add(BookmarkDraft(kind: "trip", itemID: "c", title: "C"))
        #expect(c.id > b.id)
        #expect(try bookmarks.remove(kind: "trip", itemID: "a"))
        #expect(try bookmarks.bookmark(id: c.id)?.position == 0)
        let reopened = BookmarkStore(database: try AppDatabase(path: path))
        let d = try reopened.add(BookmarkDraft(kind: "trip", itemID: "a", title: "A again"))
        #expect(d.id > c.id)
        #expect(d.id != a.id)
        #expect(try !bookmarks.remove(id: 9_999))
    }

    @Test func moveKeepsPositionsDense() throws {
        let trips = try Fixtures.trips
        var ids: [Int64] = []
        for trip in trips {
            ids.append(
                try bookmarks.add(
                    BookmarkDraft(kind: "trip", itemID: trip.image, title: trip.destination)
                ).id)
        }
        try bookmarks.add(BookmarkDraft(kind: "article", itemID: "a1", title: "Article"))
        #expect(try positions("trip") == Array(0..<13))
        try bookmarks.move(id: ids[10], to: 1)
        #expect(try positions("trip") == Array(0..<13))
        #expect(
            try bookmarks.list(BookmarkQuery(kind: "trip")).prefix(3).map(\.title) == [
                "Paris", "Vancouver", "Florence",
            ])
        try bookmarks.move(id: ids[0], to: 12)
        #expect(try positions("trip") == Array(0..<13))
        #expect(try bookmarks.list(BookmarkQuery(kind: "trip")).last?.title == "Paris")
        try bookmarks.remove(id: ids[5])
        #expect(try positions("trip") == Array(0..<12))
        #expect(try positions("article") == [0])
        #expect(throws: BookmarkError.positionOutOfRange(position: 12, count: 12, kind: "trip")) {
            try bookmarks.move(id: ids[1], to: 12)
        }
        #expect(throws: BookmarkError.notFound(id: 999)) { try bookmarks.move(id: 999, to: 0) }
    }

    @Test func moviesGroupedByCategory() throws {
        _ = try addMovies()
        let groups = try bookmarks.groupedByCategory(BookmarkQuery(kind: "movie"))
        #expect(groups.map(\.category) == ["Action and adventure", "DC", "Marvel"])
        #expect(groups.map(\.bookmarks.count) == [4, 4, 4])
        #expect(
            groups[1].bookmarks.map(\.title) == [
                "Aquaman", "Batman v Superman: Dawn of Justice", "Justice League", "Wonder Women",
            ])
    }

    @Test func filtersSortingAndPaging() throws {
        let movies = try addMovies()
        #expect(try bookmarks.count(BookmarkQuery(category: "Marvel")) == 4)
        #expect(
            try bookmarks.list(BookmarkQuery(tag: "featured")).count
                == movies.filter(\.isFeaturedMovie).count)
        #expect(try bookmarks.list(BookmarkQuery(kind: "trip")).isEmpty)
        let byTitle = try bookmarks.list(BookmarkQuery(sort: .title)).map(\.title)
        #expect(byTitle == movies.map(\.title).sorted { $0.lowercased() < $1.lowercased() })
        let descending = try bookmarks.list(BookmarkQuery(sort: .title, isDescending: true)).map(
            \.title)
        #expect(descending == byTitle.reversed())
        let page = try bookmarks.list(BookmarkQuery(sort: .position, limit: 5, offset: 5)).map(
            \.position)
        #expect(page == [5, 6, 7, 8, 9])
        let created = try bookmarks.list(BookmarkQuery(sort: .created)).map(\.itemID)
        #expect(created == movies.map { String($0.id) })
    }

    @Test func searchByTitleWordTagPrefixAndNote() throws {
        _ = try addMovies()
        try bookmarks.add(london())
        #expect(try bookmarks.search("avengers").count == 4)
        #expect(try bookmarks.search("featured").count == 4)
        #expect(try bookmarks.search("lond*").map(\.itemID) == ["london"])
        #expect(try bookmarks.search("lond").isEmpty)
        #expect(try bookmarks.search("thanos").map(\.title) == ["Avengers: Infinity War"])
        #expect(try bookmarks.search("youtube").count == 12)
        #expect(try bookmarks.search("ÉNDGAME").map(\.title) == ["Avengers: Endgame"])
        #expect(try bookmarks.search("\"unbalanced OR NEAR( title:x").isEmpty)
        #expect(throws: BookmarkError.invalid("The search text is empty")) {
            try bookmarks.search("  * ")
        }
    }

    /// A bulk add writes its search rows at its end: an update of an item added earlier in
    /// the same batch, and a bad draft that undoes the batch, leave the index in step.
    @Test func bulkAddsKeepTheSearchIndexInStep() throws {
        var drafts = (0..<300).map { index in
            BookmarkDraft(
                kind: "movie", itemID: "m\(index)", title: "Movie \(index)",
                category: "category\(index % 7)", tags: ["bulk"])
        }
        // The same item again, renamed: the update comes after the first copy's insert.
        drafts.append(
            BookmarkDraft(kind: "movie", itemID: "m5", title: "Renamed five", tags: ["bulk"]))
        #expect(try bookmarks.add(contentsOf: drafts) == 301)
        #expect(try bookmarks.search("bulk", limit: 1_000).count == 300)
        #expect(try bookmarks.search("renamed").map(\.itemID) == ["m5"])
        #expect(try bookmarks.search("\"Movie 5\"").isEmpty)
        let database = try AppDatabase(path: path)
        #expect(try database.diagnostics().searchIndexMismatchCount == 0)

        var failing = (0..<50).map { index in
            BookmarkDraft(kind: "trip", itemID: "t\(index)", title: "Trip \(index)")
        }
        failing.insert(BookmarkDraft(kind: "trip", itemID: "", title: "No id"), at: 25)
        #expect(throws: BookmarkError.self) { try bookmarks.add(contentsOf: failing) }
        #expect(try bookmarks.search("trip").isEmpty)
        #expect(try bookmarks.count() == 300)
        #expect(try database.diagnostics().searchIndexMismatchCount == 0)
        // A single add after the failed batch writes its row at once.
        try bookmarks.add(london())
        #expect(try bookmarks.search("london").map(\.itemID) == ["london"])
    }

    @Test func searchIndexStaysInStepAndIsRebuiltAfterOutsideWrites() throws {
        _ = try addMovies()
        try bookmarks.add(
            BookmarkDraft(
                kind: "trip", itemID: "london", title: "London",
                tags: ["uk", "city", "uk", "Ünïcode", "a b"]))
        var changed = london(title: "London, UK")
        changed.tags = ["zeta", "alpha"]
        try bookmarks.add(changed)
        try bookmarks.remove(kind: "movie", itemID: "1")
        let database = try AppDatabase(path: path)
        #expect(try database.diagnostics().searchIndexMismatchCount == 0)

        // Another tool edits the tables without the index: a title, a tag, a new row, a deleted row.
        let outside = try Connection(path: path, mode: .readWrite)
        try outside.execute(
            sql: "UPDATE bookmark SET title = 'Renamed Avengers' WHERE item_id = '2'")
        try outside.execute(
            sql:
                "INSERT INTO bookmark_tag (bookmark_id, tag) SELECT id, 'extra' FROM bookmark WHERE item_id = '3'"
        )
        try outside.execute(sql: "DELETE FROM bookmark WHERE item_id = '4'")
        let report = try database.diagnostics()
        #expect(report.searchIndexMismatchCount == 3)
        #expect(!report.isHealthy)
        #expect(try bookmarks.search("renamed").isEmpty)

        try bookmarks.rebuildSearchIndex()
        #expect(try database.diagnostics().searchIndexMismatchCount == 0)
        #expect(try database.diagnostics().isHealthy)
        #expect(try bookmarks.search("renamed").map(\.itemID) == ["2"])
        #expect(try bookmarks.search("extra").map(\.itemID) == ["3"])
    }

    @Test func jsonRoundTripKeepsIdsPositionsAndTimes() throws {
        _ = try addMovies()
        try bookmarks.add(london())
        try bookmarks.remove(kind: "movie", itemID: "3")
        let moved = try bookmarks.bookmark(kind: "movie", itemID: "12")
        try bookmarks.move(id: try #require(moved).id, to: 0)
        let exported = try bookmarks.exportJSON()
        let target = BookmarkStore(database: try AppDatabase.inMemory())
        #expect(try target.importJSON(exported).added == 12)
        #expect(try target.list() == bookmarks.list())
        #expect(try target.exportJSON() == exported)
    }

    @Test func htmlRoundTripKeepsIdentityOrderAndFields() throws {
        _ = try addMovies()
        try bookmarks.add(london())
        let html = try bookmarks.exportHTML()
        #expect(html.hasPrefix("<!DOCTYPE NETSCAPE-Bookmark-file-1>"))
        let target = BookmarkStore(database: try AppDatabase.inMemory())
        #expect(try target.importHTML(html).added == 13)
        func comparable(_ list: [Bookmark]) -> [String] {
            list.map {
                "\($0.kind)|\($0.itemID)|\($0.title)|\($0.url?.absoluteString ?? "")|\($0.category ?? "")|"
                    + "\($0.tags)|\($0.note ?? "")|\(Int($0.createdAt.timeIntervalSince1970))"
            }.sorted()
        }
        #expect(comparable(try target.list()) == comparable(try bookmarks.list()))
        // The whole order of each kind, across the category folders.
        #expect(try target.list().map(\.itemID) == bookmarks.list().map(\.itemID))
        #expect(try target.list().map(\.position) == bookmarks.list().map(\.position))
    }

    @Test func readsABrowserExportWithNestedFoldersTagsAndEntities() throws {
        let html = """
            <!DOCTYPE NETSCAPE-Bookmark-file-1>
            <META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
            <TITLE>Bookmarks</TITLE>
            <H1>Bookmarks Menu</H1>
            <DL><p>
                <DT><H3 ADD_DATE="1700000000" PERSONAL_TOOLBAR_FOLDER="true">Toolbar</H3>
                <DL><p>
                    <DT><H3>Travel &amp; Food</H3>
                    <DL><p>
                        <DT><A HREF="https://example.com/a?x=1&amp;y=2" ADD_DATE="1700000100" LAST_MODIFIED="1700000200" TAGS="food,paris">Caf&eacute; &lt;Paris&gt; &#233;t&#xE9;</A>
                        <DD>Best croissants
                    </DL><p>
                    <DT><A HREF='https://swift.org' ADD_DATE=1700000300>Swift</A>
                </DL><p>
                <DT><A HREF="https://sqlite.org">SQLite</A>
            </DL><p>
            """
        let summary = try bookmarks.importHTML(html)
        #expect(summary.added == 3)
        #expect(summary.warnings.isEmpty && summary.skipped.isEmpty)
        let all = try bookmarks.list(BookmarkQuery(sort: .created))
        let cafe = try #require(all.first { $0.itemID == "https://example.com/a?x=1&y=2" })
        #expect(cafe.kind == "link")
        #expect(cafe.title == "Caf&eacute; <Paris> été")
        #expect(cafe.category == "Travel & Food")
        #expect(cafe.folder == ["Toolbar", "Travel & Food"])
        #expect(cafe.tags == ["food", "paris"])
        #expect(cafe.note == "Best croissants")
        #expect(cafe.createdAt == Date(timeIntervalSince1970: 1_700_000_100))
        #expect(cafe.updatedAt == Date(timeIntervalSince1970: 1_700_000_200))
        #expect(all.first { $0.title == "Swift" }?.category == "Toolbar")
        #expect(all.first { $0.title == "SQLite" }?.category == nil)
    }

    @Test func aFileThatIsNotABookmarkFileImportsNothing() throws {
        try bookmarks.add(london())
        let before = try bookmarks.exportJSON()
        let error = #expect(throws: BookmarkError.self) {
            try bookmarks.importHTML("<html><p>Hello, <b>world</b></p></html>")
        }
        #expect(
            error?.description
                == "Malformed import: not a Netscape bookmark file (no <!DOCTYPE NETSCAPE-Bookmark-file-1> and no <A HREF> links) at line 1"
        )
        #expect(try bookmarks.exportJSON() == before)
    }

    /// Damaged files import what they hold and say, line by line, what was odd.
    static let damagedHTML:
        [(html: String, titles: [String], skipped: [String], warnings: [String])] = [
            (
                "<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF=\"https://a.b\">Open\n</DL>",
                ["Open"], [], ["line 3: <A> is not closed"]
            ),
            (
                "<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n</DL>\n</DL>\n<DT><A HREF=\"https://a.b\">A</A>",
                ["A"], [], ["line 4: </DL> without an open <DL> is ignored"]
            ),
            (
                "<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF=\"https://a.b\" TAGS=\"x>Bad</A>\n<DT><A HREF=\"https://c.d\">C</A>",
                ["Bad", "C"], [], ["line 3: an attribute of <A> is missing its closing quote"]
            ),
            (
                "<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A ADD_DATE=\"1\">No link</A>",
                [], ["line 3: a link without a URL ('No link')"], []
            ),
            (
                "<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n\n<DT><A HREF=\"https://a.b\" POSITION=\"-1\">A</A>",
                ["A"], [], ["line 4: POSITION '-1' is not a non-negative integer; ignored"]
            ),
            (
                "<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF=\"javascript:alert(1)\">JS</A>\n<DT><A HREF=\"place:sort=8\">Recent</A>\n<DT><A HREF=\"https://a.b\" ADD_DATE=\"soon\">A</A>",
                ["A"],
                [
                    "line 3: a javascript: bookmarklet is not a link ('JS')",
                    "line 4: a Firefox query (place:) is not a link ('Recent')",
                ],
                ["line 5: ADD_DATE 'soon' is not a Unix time; the import time is used"]
            ),
        ]

    @Test(arguments: damagedHTML)
    func damagedHTMLImportsWhatItHoldsAndSaysWhere(
        html: String, titles: [String], skipped: [String], warnings: [String]
    ) throws {
        let summary = try bookmarks.importHTML(html)
        #expect(try bookmarks.list().map(\.title) == titles)
        #expect(summary.added == titles.count)
        #expect(summary.skipped.map(\.description) == skipped)
        #expect(summary.warnings.map(\.description) == warnings)
    }

    static let malformedJSON: [(String, String)] = [
        ("[", "Malformed import: invalid JSON: unexpected end of input at line 1, column 2"),
        (
            #"{"bookmarks": 3}"#,
            #"Malformed import: expected an array of bookmarks or {"bookmarks": [...]}"#
        ),
        (
            #"[{"kind": "trip", "itemID": "a", "title": "A"}, {"kind": "trip", "title": "B"}]"#,
            "Malformed import: bookmarks[1] has no string 'itemID'"
        ),
        (
            #"[{"kind": "trip", "itemID": "a", "title": "A", "createdAt": "yesterday"}]"#,
            "Malformed import: bookmarks[0].createdAt 'yesterday' is not an ISO 8601 date"
        ),
        (
            #"[{"kind": "", "itemID": "a", "title": "A"}]"#,
            "Malformed import: bookmarks[0]: The kind of a bookmark cannot be empty"
        ),
    ]

    @Test(arguments: malformedJSON)
    func malformedJSONImportsNothing(text: String, message: String) throws {
        try bookmarks.add(london())
        let before = try bookmarks.exportJSON()
        let error = #expect(throws: BookmarkError.self) { try bookmarks.importJSON(text) }
        #expect(error?.description == message)
        #expect(try bookmarks.exportJSON() == before)
    }

    @Test func failedWriteAfterValidLinksImportsNone() throws {
        let html = """
            <!DOCTYPE NETSCAPE-Bookmark-file-1>
            <DL><p>
                <DT><A HREF="https://one.example">One</A>
                <DT><A HREF="https://two.example">Two</A>
                <DT><A HREF="https://three.example" KIND="x" ITEM_ID="x">Three</A>
            </DL><p>
            """
        // The third link's kind and item ID already belong to a bookmark that a trigger
        // (another tool's) refuses to change: the whole import rolls back.
        try bookmarks.add(BookmarkDraft(kind: "x", itemID: "x", title: "Kept"))
        let connection = try Connection(path: path)
        try connection.execute(
            sql:
                "CREATE TRIGGER refuse BEFORE UPDATE ON bookmark BEGIN SELECT raise(ABORT, 'refused'); END"
        )
        #expect(throws: (any Error).self) { try bookmarks.importHTML(html) }
        #expect(try bookmarks.list().map(\.title) == ["Kept"])
    }

    @Test func invalidDraftsAreRejected() throws {
        #expect(throws: BookmarkError.invalid("The item ID of a bookmark cannot be empty")) {
            try bookmarks.add(BookmarkDraft(kind: "trip", itemID: " ", title: "x"))
        }
        #expect(
            throws: BookmarkError.invalid("The tag of a bookmark cannot contain control characters")
        ) {
            try bookmarks.add(
                BookmarkDraft(kind: "trip", itemID: "x", title: "x", tags: ["a\u{1F}b"]))
        }
        #expect(try bookmarks.count() == 0)
    }
}

@Suite struct BookmarkConcurrencyTests {
    @Test func concurrentWritersOnSeparateConnectionsKeepPositionsDense() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("prefs.sqlite")
        _ = try AppDatabase(path: path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let store = BookmarkStore(database: try AppDatabase(path: path))
                    for item in 0..<50 {
                        try store.add(
                            BookmarkDraft(
                                kind: "trip", itemID: "\(writer)-\(item)", title: "T\(item)"))
                        if item % 10 == 0 {
                            try store.remove(kind: "trip", itemID: "\(writer)-\(item)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let store = BookmarkStore(database: try AppDatabase(path: path))
        let all = try store.list(BookmarkQuery(kind: "trip"))
        #expect(all.count == 4 * 45)
        #expect(all.map(\.position) == Array(0..<(4 * 45)))
        let connection = try Connection(path: path, mode: .readOnly)
        #expect(try connection.scalar(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(
            try connection.scalar(Int.self, sql: "SELECT count(*) FROM bookmark_search") == 4 * 45)
    }
}
