import Foundation
import TestSupport
import Testing

@testable import PrefsInterchange
@testable import PrefsKit

/// Malformed and hostile bookmark files: each gets a clear error or warnings, never a
/// crash or a hang, and what it does hold is imported.
@Suite struct HostileBookmarkFileTests {
    let bookmarks: BookmarkStore

    init() throws {
        bookmarks = BookmarkStore(database: try AppDatabase.inMemory())
    }

    static let header = "<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n"

    @Test func tenThousandNestedFoldersAreCappedWithAWarning() throws {
        var html = Self.header
        for level in 0..<10_000 { html += "<DT><H3>L\(level)</H3>\n<DL><p>\n" }
        html += "<DT><A HREF=\"https://deep.example\">Deep</A>\n"
        html += String(repeating: "</DL><p>\n", count: 10_001)
        let summary = try bookmarks.importHTML(html)
        #expect(summary.added == 1)
        #expect(
            summary.warnings.map(\.description) == [
                "line 515: folders nested deeper than 256 levels are merged into their ancestor at that depth"
            ])
        let deep = try #require(try bookmarks.list().first)
        #expect(deep.folder.count == BookmarkImportDocument.maximumFolderDepth)
        #expect(deep.folder.last == "L255")
        #expect(try bookmarks.folders().count == 256)
        let copy = BookmarkStore(database: try AppDatabase.inMemory())
        try copy.importHTML(try bookmarks.exportHTML())
        #expect(try copy.list().first?.folder == deep.folder)
    }

    @Test func deeplyNestedListsWithoutFoldersAreRead() throws {
        let html =
            Self.header + String(repeating: "<DL><p>", count: 10_000)
            + "<DT><A HREF=\"https://x.example\">X</A>" + String(repeating: "</DL>", count: 20_000)
        let summary = try bookmarks.importHTML(html)
        #expect(summary.added == 1)
        #expect(summary.warnings.count == 9_999)
        #expect(summary.warnings.first?.message == "</DL> without an open <DL> is ignored")
    }

    @Test func aFiftyMegabyteTitleIsKeptWhole() throws {
        let title = String(repeating: "a", count: 50 << 20)
        let html = Self.header + "<DT><A HREF=\"https://big.example\">\(title)</A>\n</DL><p>\n"
        let summary = try bookmarks.importHTML(html)
        #expect(summary.added == 1)
        #expect(try bookmarks.list().first?.title.utf8.count == 50 << 20)
    }

    @Test func unterminatedTagsEndTheFileWithWarnings() throws {
        let cases: [(String, Int, [String])] = [
            (
                Self.header
                    + "<DT><A HREF=\"https://a.example\">A</A>\n<DT><A HREF=\"https://b.example\"",
                2,
                ["line 4: the tag <A> is not closed with '>'", "line 4: <A> is not closed"]
            ),
            (Self.header + "<DT><H3>Folder", 0, ["line 3: <H3> is not closed"]),
            (
                Self.header
                    + "<DT><A HREF=\"https://a.example\">A</A>\n<!-- never closed <DT><A HREF=\"https://b.example\">B</A>",
                1,
                ["line 4: a comment is not closed; the rest of the file is ignored"]
            ),
            (
                Self.header
                    + "<DT><A HREF=\"https://a.example\">A</A>\n<DT><A HREF=\"https://b.example\"\n   <DT><A HREF=\"https://c.example\">C</A>",
                3,
                ["line 4: the tag <A> is not closed with '>'", "line 4: <A> is not closed"]
            ),
        ]
        for (html, count, warnings) in cases {
            let store = BookmarkStore(database: try AppDatabase.inMemory())
            let summary = try store.importHTML(html)
            #expect(summary.added == count, "\(html)")
            #expect(summary.warnings.map(\.description) == warnings, "\(html)")
        }
    }

    @Test func nulAndControlBytesAreRemovedFromTitlesWithAWarning() throws {
        let html =
            Self.header
            + "<DT><A HREF=\"https://a.example\" TAGS=\"x\u{0}y\">A\u{0}B&#1;C</A>\n<DD>note\u{0}here\n</DL>"
        let summary = try bookmarks.importHTML(html)
        #expect(summary.added == 1)
        #expect(
            summary.warnings.map(\.description) == [
                "line 3: control characters in a title were removed"
            ])
        let link = try #require(try bookmarks.list().first)
        #expect(link.title == "ABC")
        #expect(link.tags == ["xy"])
        #expect(link.note == "notehere")
    }

    @Test func randomBytesNeverCrash() throws {
        var generator = SeededGenerator(seed: 42)
        let pieces = [
            "<DT>", "<DL><p>", "</DL>", "<H3>", "</H3>", "<A HREF=\"https://x.example/", "\">",
            "</A>",
            "<DD>", "&amp;", "&#0;", "\u{0}", "\"", "'", "<", ">", "<!--", "-->", "\r\n",
            "ADD_DATE=\"x\"",
        ]
        for _ in 0..<300 {
            var html = Self.header
            for _ in 0..<Int.random(in: 1...60, using: &generator) {
                html += pieces[Int.random(in: 0..<pieces.count, using: &generator)]
                if Bool.random(using: &generator) {
                    html += String(Int.random(in: 0...99, using: &generator))
                }
            }
            let store = BookmarkStore(database: try AppDatabase.inMemory())
            let summary = try store.importHTML(html)
            #expect(summary.added + summary.merged + summary.skipped.count >= 0)
            // Whatever was imported exports and imports back unchanged.
            let exported = try store.exportHTML()
            let again = try store.importHTML(exported)
            #expect(again.added == 0 && again.updated == 0, "\(html)")
        }
    }
}
