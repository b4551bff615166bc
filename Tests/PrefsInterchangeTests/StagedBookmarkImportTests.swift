import Foundation
import SQLiteCore
import TestSupport
import Testing

@testable import PrefsInterchange
@testable import PrefsKit

/// A Netscape bookmark file read in pieces into a staging file
/// (`BookmarkStore.stageNetscapeFile`) and stored from there (`importStaged`) must give
/// what reading it whole gives (`importDocument`): the same summary, to the line of each
/// skipped link and warning, and the same bookmarks and folders, wherever the pieces are
/// cut; and nil (read it whole) when a tag outgrows the window.
@Suite struct StagedBookmarkImportTests {
    static func pieces(of bytes: [UInt8], size: Int) -> () throws -> [UInt8]? {
        var offset = 0
        return {
            guard offset < bytes.count else { return nil }
            defer { offset += size }
            return Array(bytes[offset..<min(bytes.count, offset + size)])
        }
    }

    /// A file with what the merge and the reader must get right: copies of a link in other
    /// folders, with other tags, newer and older titles, notes by `<DD>` (two for one
    /// link), folders of one name side by side, folder descriptions, skipped links, bad
    /// dates, and a folder whose name is refused.
    static func file(links: Int, seed: UInt64) -> String {
        var random = SeededGenerator(seed: seed)
        var html = """
            <!DOCTYPE NETSCAPE-Bookmark-file-1>
            <META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
            <TITLE>Bookmarks</TITLE>
            <H1>Bookmarks</H1>
            <DL><p>

            """
        var depth = 1
        for index in 0..<links {
            let roll = Int.random(in: 0..<100, using: &random)
            if roll < 3 {
                let name = ["Work", "Caf\u{E9}", "Cafe\u{301}", "Work", "", "  "][
                    Int.random(in: 0..<6, using: &random)]
                html += "<DT><H3 ADD_DATE=\"1600000000\">\(name)</H3>\n"
                if roll == 0 { html += "<DD>about \(index)\n" }
                html += "<DL><p>\n"
                depth += 1
            } else if roll < 5 && depth > 1 {
                html += "</DL><p>\n"
                depth -= 1
            }
            let target = Int.random(in: 0...(links / 3), using: &random)
            let tags = ["", " TAGS=\"a,b\"", " TAGS=\"c, a\""][
                Int.random(in: 0..<3, using: &random)]
            let modified =
                Bool.random(using: &random)
                ? " LAST_MODIFIED=\"\(Int.random(in: 1_600_000_000...1_700_000_000, using: &random))\""
                : ""
            let title = ["Title \(index)", "caf\u{E9} &amp; \(index)", "", "a\u{7}b"][
                Int.random(in: 0..<4, using: &random)]
            html +=
                "<DT><A HREF=\"https://example.com/\(target)\" ADD_DATE=\"\(1_500_000_000 + index)\"\(tags)\(modified)>\(title)</A>\n"
            if Int.random(in: 0..<5, using: &random) == 0 {
                html += "<DD>note \(index)\nline two\n"
            }
            if Int.random(in: 0..<40, using: &random) == 0 { html += "<DD>a second note\n" }
            if Int.random(in: 0..<50, using: &random) == 0 {
                html += "<DT><A HREF=\"javascript:void(0)\">bookmarklet</A>\n"
            }
            if Int.random(in: 0..<80, using: &random) == 0 {
                html += "<DT><A HREF=\"https://dates.example/\(index)\" ADD_DATE=\"soon\">bad</A>\n"
            }
        }
        html += String(repeating: "</DL><p>\n", count: depth)
        return html
    }

    /// Each bookmark's fields that the file decides (not the import's own time).
    static func contents(_ store: BookmarkStore) throws -> [String] {
        try store.list().map { bookmark in
            let created = bookmark.createdAt.timeIntervalSince1970
            return [
                "\(bookmark.id)", bookmark.kind, bookmark.itemID, bookmark.title,
                bookmark.urlString ?? "-", bookmark.folder.joined(separator: "/"),
                bookmark.tags.joined(separator: ","), bookmark.note ?? "-", "\(bookmark.position)",
                created < 1_700_000_001 ? "\(created)" : "now",
            ].joined(separator: "|")
        }
    }

    /// Expects equal lists, naming the first difference.
    static func expectSame(
        _ staged: [String], _ whole: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let first = zip(staged, whole).first { $0 != $1 }
        let same = staged == whole
        #expect(
            same,
            "\(staged.count) against \(whole.count); first difference: \(first.map { "\($0) | \($1)" } ?? "-")",
            sourceLocation: sourceLocation)
    }

    /// Expects two stores to hold the same bookmarks and folders.
    static func expectSameStores(
        _ staged: BookmarkStore, _ whole: BookmarkStore,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        expectSame(try contents(staged), try contents(whole), sourceLocation: sourceLocation)
        #expect(
            try folders(staged) == (try folders(whole)), sourceLocation: sourceLocation)
    }

    static func folders(_ store: BookmarkStore) throws -> [String] {
        try store.folders().map {
            "\($0.id) \($0.parentID ?? 0) \($0.name) \($0.description ?? "-")"
        }
    }

    func importBoth(
        _ html: String, size: Int, into prepare: (BookmarkStore) throws -> Void = { _ in }
    )
        throws -> (whole: BookmarkStore, staged: BookmarkStore, summaries: [BookmarkImportSummary])
    {
        let whole = BookmarkStore(database: try AppDatabase.inMemory())
        let staged = BookmarkStore(database: try AppDatabase.inMemory())
        try prepare(whole)
        try prepare(staged)
        let bytes = Array(html.utf8)
        let wholeSummary = try whole.importDocument(try BookmarkStore.document(reading: bytes))
        let staging = try #require(
            try BookmarkStore.stageNetscapeFile(
                reading: Self.pieces(of: bytes, size: size), isValidUTF8: { true }))
        let stagedSummary = try staged.importStaged(staging)
        return (whole, staged, [wholeSummary, stagedSummary])
    }

    @Test(arguments: [1, 7, 4_096, 1 << 20])
    func theStagedImportIsTheWholeImportWhereverThePiecesAreCut(size: Int) throws {
        let html = Self.file(links: size == 1 ? 300 : 3_000, seed: UInt64(size))
        let (whole, staged, summaries) = try importBoth(html, size: size)
        #expect(summaries[0].merged > 0 && !summaries[0].skipped.isEmpty)
        #expect(!summaries[0].warnings.isEmpty)
        #expect(summaries[1] == summaries[0])
        try Self.expectSame(Self.contents(staged), Self.contents(whole))
        #expect(try Self.folders(staged) == (try Self.folders(whole)))
    }

    /// An attack on the identity hash (FNV-1a, which a file can be written to collide):
    /// links with one hash and other identities stay apart, and only real copies merge.
    /// Staged under a hash every link shares, and under one that groups them by the item
    /// ID's length, the import is still the whole import.
    @Test(arguments: [false, true])
    func linksThatShareAnIdentityHashAreToldApartByTheirIdentity(byLength: Bool) throws {
        let bytes = Array(Self.file(links: 400, seed: byLength ? 21 : 22).utf8)
        let document = try BookmarkStore.document(reading: bytes)
        let staging = try BookmarkImportStaging(
            format: .html,
            hashing: { _, itemID in byLength ? Int64(itemID.utf8.count) : 42 })
        for link in document.links { try staging.add(link, folders: document.folders) }
        staging.finish(document)
        let whole = BookmarkStore(database: try AppDatabase.inMemory())
        let staged = BookmarkStore(database: try AppDatabase.inMemory())
        let wholeSummary = try whole.importDocument(document)
        let stagedSummary = try staged.importStaged(staging)
        #expect(wholeSummary.merged > 0)
        #expect(stagedSummary == wholeSummary)
        try Self.expectSame(Self.contents(staged), Self.contents(whole))
        #expect(try Self.folders(staged) == (try Self.folders(whole)))
    }

    /// Into a store that holds some of the links already, with other fields: the same
    /// added, updated and unchanged counts, and the same bookmarks after.
    @Test func intoAStoreThatHoldsSomeOfTheLinks() throws {
        let first = Self.file(links: 2_000, seed: 11)
        let second = Self.file(links: 2_000, seed: 12)
        let (whole, staged, summaries) = try importBoth(second, size: 65_536) { store in
            try store.importDocument(try BookmarkStore.document(reading: Array(first.utf8)))
        }
        #expect(summaries[0].added > 0 && summaries[0].updated > 0)
        #expect(summaries[1] == summaries[0])
        try Self.expectSame(Self.contents(staged), Self.contents(whole))
        #expect(try Self.folders(staged) == (try Self.folders(whole)))
    }

    /// Our own export carries ids, kinds, item IDs and positions: a round trip through
    /// the staging file keeps them.
    @Test func ourOwnExportRoundTrips() throws {
        let source = BookmarkStore(database: try AppDatabase.inMemory())
        try source.importDocument(
            try BookmarkStore.document(reading: Array(Self.file(links: 2_000, seed: 3).utf8)))
        try source.add(BookmarkDraft(kind: "trip", itemID: "t1", title: "Lisbon", tags: ["x"]))
        try source.move(id: try #require(try source.list().last?.id), to: 0)
        let html = try source.exportHTML()
        let (whole, staged, summaries) = try importBoth(html, size: 10_000)
        #expect(summaries[1] == summaries[0])
        try Self.expectSame(Self.contents(staged), Self.contents(whole))
        #expect(
            try staged.list().map { [$0.kind, $0.itemID, "\($0.position)"] }
                == (try source.list().map { [$0.kind, $0.itemID, "\($0.position)"] }))
    }

    /// A title longer than the window (at least 1 MB ahead of each tag, at most 2 MB and a
    /// piece) could read differently in a window: the file is read whole instead. So is an unclosed comment that runs past
    /// the window. In a file that ends inside the window, the same title stages.
    @Test func aTagLongerThanTheWindowIsReadWhole() throws {
        let long = String(repeating: "t", count: 3_000_000)
        let tail = String(
            repeating: "<DT><A HREF=\"https://tail.example/x\">x</A>\n", count: 60_000)
        for middle in [
            "<DT><A HREF=\"https://a.example\">\(long)</A>\n",
            "<DT><A HREF=\"https://a.example\" TITLE=\"\(long)>x</A>\n",
            "<!-- \(long)\n",
        ] {
            let html = StagedBookmarkImportTests.header + middle + tail + "</DL>\n"
            #expect(
                try BookmarkStore.stageNetscapeFile(
                    reading: Self.pieces(of: Array(html.utf8), size: 65_536),
                    isValidUTF8: { true }) == nil)
        }
        let short =
            StagedBookmarkImportTests.header
            + "<DT><A HREF=\"https://a.example\">\(String(repeating: "t", count: 900_000))</A>\n</DL>\n"
        let (whole, staged, summaries) = try importBoth(short, size: 65_536)
        #expect(summaries[1] == summaries[0])
        #expect(try staged.list().first?.title.count == 900_000)
        try Self.expectSame(Self.contents(staged), Self.contents(whole))
    }

    static let header = "<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n"

    @Test func aFileThatIsNotABookmarkFileStagesNothing() throws {
        let text = String(repeating: "just some text\n", count: 100_000)
        #expect(throws: BookmarkError.self) {
            try BookmarkStore.stageNetscapeFile(
                reading: Self.pieces(of: Array(text.utf8), size: 65_536), isValidUTF8: { true })
        }
    }

    /// A write that fails on the last link (a trigger of another tool refuses it) stores
    /// none of the links before it.
    @Test func aFailedWriteOnTheLastLinkStoresNone() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("store.sqlite")
        let store = BookmarkStore(database: try AppDatabase(path: path))
        try store.add(BookmarkDraft(kind: "link", itemID: "https://last.example", title: "Kept"))
        let connection = try Connection(path: path)
        try connection.execute(
            sql:
                "CREATE TRIGGER refuse BEFORE UPDATE ON bookmark BEGIN SELECT raise(ABORT, 'refused'); END"
        )
        let html =
            Self.file(links: 2_000, seed: 5).replacingOccurrences(of: "</DL><p>\n", with: "")
            + "<DT><A HREF=\"https://last.example\">Changed</A>\n"
        let staging = try #require(
            try BookmarkStore.stageNetscapeFile(
                reading: Self.pieces(of: Array(html.utf8), size: 4_096), isValidUTF8: { true }))
        #expect(throws: (any Error).self) { try store.importStaged(staging) }
        #expect(try store.list().map(\.title) == ["Kept"])
        #expect(try store.folders().isEmpty)
    }
}
