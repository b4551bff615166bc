import Foundation
import SQLiteCore
import TestSupport
import Testing

@testable import PrefsInterchange
@testable import PrefsKit

/// The bookmark exports are written as they are read: the HTML file folder by folder (each
/// heading's bookmarks read by its own query, in one snapshot), the JSON as one listing.
/// Their bytes must be those of the whole documents built from every bookmark in memory:
/// `NetscapeBookmarkFile.document(for:folders:)`, which groups the list itself, and the
/// JSON value of the whole list. The store holds every kind of heading: nested folders,
/// two top-level folders of one name, an empty folder, bookmarks in no folder whose
/// category names a top-level folder (they join the first of that name, merged with its
/// own in list order), categories with no folder, and bookmarks with neither, in several
/// kinds.
@Suite struct BookmarkExportStreamingTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    static func fill(_ bookmarks: BookmarkStore) throws {
        try bookmarks.importHTML(
            """
            <!DOCTYPE NETSCAPE-Bookmark-file-1>
            <DL><p>
                <DT><H3 ADD_DATE="1700000000">Europe</H3>
                <DD>Trips & <notes>
                <DL><p>
                    <DT><A HREF="https://example.com/paris" TAGS="fr,city">Paris</A>
                    <DT><H3>UK</H3>
                    <DL><p>
                        <DT><A HREF="https://example.com/london">London</A>
                    </DL><p>
                </DL><p>
                <DT><H3>Europe</H3>
                <DL><p>
                    <DT><A HREF="https://example.com/rome">Rome</A>
                </DL><p>
                <DT><H3>Caf\u{E9}</H3>
                <DL><p>
                    <DT><A HREF="https://example.com/cafe">A caf\u{E9}</A>
                </DL><p>
                <DT><H3>Empty</H3>
                <DL><p>
                </DL><p>
                <DT><A HREF="https://example.com/top">At the top</A>
            </DL><p>
            """)
        for index in 0..<40 {
            let kind = ["trip", "movie", "article"][index % 3]
            let category: String? =
                switch index % 5 {
                case 0: "Europe"
                case 1: "Asia"
                case 2: "Africa"
                case 3: nil
                // The folder's name in another spelling: a folder of its own, not that one.
                default: index % 2 == 0 ? "e\u{301}t\u{E9}" : "Cafe\u{301}"
                }
            try bookmarks.add(
                BookmarkDraft(
                    kind: kind, itemID: "item\(index)", title: "Title <\(index)> & co",
                    url: URL(string: "https://example.com/\(index)"), category: category,
                    tags: index % 2 == 0 ? ["x", "y"] : [], note: index % 4 == 0 ? "note" : nil))
        }
        // Enough for many pieces: one folder of 2,000 links.
        _ = try bookmarks.add(
            contentsOf: (0..<2_000).map {
                BookmarkDraft(
                    kind: "link", itemID: "dev\($0)", title: "Developer page \($0)",
                    url: URL(string: "https://example.org/dev/\($0)"), folder: ["Dev", "Docs"])
            })
    }

    @Test(arguments: ContractEngine.all)
    func theStreamedExportsAreTheWholeDocumentsBytes(engine: ContractEngine) throws {
        let bookmarks = BookmarkStore(database: try engine.open(folder, .init()))
        try Self.fill(bookmarks)
        var html: [String] = []
        try bookmarks.exportHTML { html.append($0) }
        let whole = NetscapeBookmarkFile.document(
            for: try bookmarks.list(), folders: try bookmarks.folders())
        #expect(html.joined() == whole)
        // A category spelled otherwise than a folder's name has a folder of its own.
        #expect(whole.contains("<DT><H3>Cafe\u{301}</H3>"))
        #expect(whole.contains("<DT><H3>Caf\u{E9}</H3>"))
        #expect(html.count > 3, "\(html.count) pieces")
        var json: [String] = []
        try bookmarks.exportJSON { json.append($0) }
        let wholeJSON =
            JSONValue.object([
                ("format", .string(BookmarkStore.exportFormatName)), ("version", .integer(1)),
                ("bookmarks", .array(try bookmarks.list().map(\.jsonValue))),
            ]).serialized(.pretty) + "\n"
        #expect(json.joined() == wholeJSON)
        #expect(json.count > 3, "\(json.count) pieces")
    }

    @Test func anEmptyStoreExportsAnEmptyFile() throws {
        let bookmarks = BookmarkStore(database: try AppDatabase.inMemory())
        #expect(try bookmarks.exportHTML() == NetscapeBookmarkFile.document(for: []))
        #expect(try bookmarks.exportJSON().contains("\"bookmarks\": []"))
    }

    /// Each heading is read through an index, in list order: no scan of the table per
    /// folder, and no sort (which would hold a folder's bookmarks in memory).
    @Test func eachHeadingIsReadThroughAnIndexWithoutASort() throws {
        let path = folder.path("plan.sqlite")
        try Self.fill(BookmarkStore(database: try AppDatabase(path: path)))
        let connection = try Connection(path: path, mode: .readOnly)
        let columns = "b.id, b.kind, b.title, b.position"
        let queries = [
            "SELECT \(columns) FROM bookmark b WHERE b.folder_id = 1 ORDER BY b.kind, b.position",
            "SELECT \(columns) FROM bookmark b WHERE b.folder_id = 1 UNION ALL SELECT \(columns)"
                + " FROM bookmark b WHERE b.folder_id IS NULL AND b.category = 'Europe'"
                + " ORDER BY 2, 4",
            "SELECT \(columns) FROM bookmark b WHERE b.folder_id IS NULL AND b.category = 'Asia'"
                + " ORDER BY b.kind, b.position",
            "SELECT \(columns) FROM bookmark b WHERE b.folder_id IS NULL AND b.category IS NULL"
                + " ORDER BY b.kind, b.position",
        ]
        for query in queries {
            let plan = try connection.rows(sql: "EXPLAIN QUERY PLAN " + query).compactMap {
                $0.get(3, as: String.self)
            }
            #expect(
                plan.allSatisfy { !$0.hasPrefix("SCAN") && !$0.contains("TEMP B-TREE") },
                "\(query): \(plan)")
            #expect(plan.contains { $0.contains("USING INDEX") }, "\(query): \(plan)")
        }
    }
}
