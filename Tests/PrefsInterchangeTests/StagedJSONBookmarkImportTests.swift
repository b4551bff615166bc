import Foundation
import TestSupport
import Testing

@testable import PrefsInterchange
@testable import PrefsKit

/// Our JSON export read in pieces into a staging file (`BookmarkStore.stageJSONExport`)
/// and stored from there must give what reading it whole gives: the same summary and the
/// same bookmarks, wherever the pieces are cut; and nil (read it whole, where the problem
/// is named) for anything that is not the export's outline or has something wrong in it.
@Suite struct StagedJSONBookmarkImportTests {
    static let pieces = StagedBookmarkImportTests.pieces(of:size:)

    /// An export with what the merge must get right: copies of an item with other tags,
    /// folders and titles, newer and older times, ids and positions (some taken twice),
    /// kinds of our own, notes, categories, nulls, members before and after the array, and
    /// text that needs escapes.
    static func file(bookmarks: Int, seed: UInt64) -> String {
        var random = SeededGenerator(seed: seed)
        func quoted(_ text: String) -> String { JSONValue.string(text).serialized() }
        var elements: [String] = []
        for index in 0..<bookmarks {
            let target = Int.random(in: 0...(bookmarks / 3), using: &random)
            let kind = ["link", "link", "trip", "caf\u{E9}"][Int.random(in: 0..<4, using: &random)]
            let itemID = kind == "link" ? "https://example.com/\(target)" : "item \(target)"
            let title = ["Title \(index)", "caf\u{E9} \"\(index)\"", "", "a/b \\ c \u{1F600}"][
                Int.random(in: 0..<4, using: &random)]
            let folder = [
                "[]", "[\"Work\"]", "[\"Caf\u{E9}\", \"Sub\"]", "null",
            ][Int.random(in: 0..<4, using: &random)]
            let tags = ["[]", "[\"a\", \"b\"]", "[\"c\", \"a\"]"][
                Int.random(in: 0..<3, using: &random)]
            var members = [
                "\"kind\": \(quoted(kind))", "\"itemID\": \(quoted(itemID))",
                "\"title\": \(quoted(title))", "\"folder\": \(folder)", "\"tags\": \(tags)",
            ]
            if kind == "link" { members.append("\"url\": \(quoted(itemID))") }
            if Int.random(in: 0..<3, using: &random) == 0 {
                members.append("\"id\": \(Int.random(in: 1...(bookmarks * 2), using: &random))")
            }
            if Int.random(in: 0..<3, using: &random) == 0 {
                members.append("\"position\": \(Int.random(in: 0...bookmarks, using: &random))")
            }
            if Bool.random(using: &random) {
                let day = Int.random(in: 10...28, using: &random)
                members.append("\"updatedAt\": \"2024-03-\(day)T10:00:00Z\"")
                members.append("\"createdAt\": \"2023-01-\(day)T09:30:00.250Z\"")
            }
            if Int.random(in: 0..<5, using: &random) == 0 {
                members.append("\"note\": \(quoted("note \(index)\nline two"))")
            }
            if Int.random(in: 0..<7, using: &random) == 0 {
                members.append("\"category\": \"reading\"")
            }
            members.shuffle(using: &random)
            elements.append("  {" + members.joined(separator: ", ") + "}")
        }
        return """
            {"format": "prefs-bookmarks", "version": 1, "note": {"nested": [1, 2, {"a": null}]},
             "bookmarks": [
            \(elements.joined(separator: ",\n"))
            ], "after": "the array"}

            """
    }

    static func contents(_ store: BookmarkStore) throws -> [String] {
        try StagedBookmarkImportTests.contents(store)
    }

    func importBoth(
        _ json: String, size: Int, into prepare: (BookmarkStore) throws -> Void = { _ in }
    )
        throws -> (whole: BookmarkStore, staged: BookmarkStore, summaries: [BookmarkImportSummary])
    {
        let whole = BookmarkStore(database: try AppDatabase.inMemory())
        let staged = BookmarkStore(database: try AppDatabase.inMemory())
        try prepare(whole)
        try prepare(staged)
        let bytes = Array(json.utf8)
        let wholeSummary = try whole.importDocument(try BookmarkStore.document(reading: bytes))
        let staging = try #require(
            try BookmarkStore.stageJSONExport(reading: Self.pieces(bytes, size)))
        let stagedSummary = try staged.importStaged(staging)
        return (whole, staged, [wholeSummary, stagedSummary])
    }

    @Test(arguments: [1, 7, 4_096, 1 << 20])
    func theStagedImportIsTheWholeImportWhereverThePiecesAreCut(size: Int) throws {
        let json = Self.file(bookmarks: size == 1 ? 300 : 3_000, seed: UInt64(size))
        let (whole, staged, summaries) = try importBoth(json, size: size)
        #expect(summaries[0].merged > 0 && summaries[0].added > 0)
        #expect(summaries[1] == summaries[0])
        StagedBookmarkImportTests.expectSame(try Self.contents(staged), try Self.contents(whole))
        #expect(try staged.list().map(\.position) == (try whole.list().map(\.position)))
    }

    /// Into a store that holds some of the items already, with other fields: the same
    /// added, updated and unchanged counts, and the same bookmarks after.
    @Test func intoAStoreThatHoldsSomeOfTheItems() throws {
        let first = Self.file(bookmarks: 2_000, seed: 11)
        let second = Self.file(bookmarks: 2_000, seed: 12)
        let (whole, staged, summaries) = try importBoth(second, size: 65_536) { store in
            try store.importDocument(try BookmarkStore.document(reading: Array(first.utf8)))
        }
        #expect(summaries[0].updated > 0 && summaries[0].unchanged + summaries[0].added > 0)
        #expect(summaries[1] == summaries[0])
        StagedBookmarkImportTests.expectSame(try Self.contents(staged), try Self.contents(whole))
    }

    /// What `BookmarkStore.exportJSON` writes comes back through the staging file as it
    /// came back read whole: ids, kinds, positions, folders, times.
    @Test func ourExportRoundTrips() throws {
        let source = BookmarkStore(database: try AppDatabase.inMemory())
        try source.importDocument(
            try BookmarkStore.document(
                reading: Array(StagedBookmarkImportTests.file(links: 2_000, seed: 3).utf8)))
        try source.add(BookmarkDraft(kind: "trip", itemID: "t1", title: "Lisbon", tags: ["x"]))
        try source.move(id: try #require(try source.list().last?.id), to: 0)
        let json = try source.exportJSON()
        let (whole, staged, summaries) = try importBoth(json, size: 10_000)
        #expect(summaries[1] == summaries[0])
        #expect(try staged.list().map(\.jsonValue) == (try source.list().map(\.jsonValue)))
        StagedBookmarkImportTests.expectSame(try Self.contents(staged), try Self.contents(whole))
    }

    /// Files the stream must not take, with what reading them whole does: each is nil, so
    /// that the whole reading names the problem (or reads another format) as before.
    @Test(arguments: [
        // An element that is not a bookmark: the whole reading names bookmarks[1].
        ("not an object", #"{"bookmarks": [{"kind": "a", "itemID": "1", "title": "t"}, 7]}"#),
        (
            "a field of the wrong type",
            #"{"bookmarks": [{"kind": "a", "itemID": "1", "title": 2}]}"#
        ),
        (
            "a bad date",
            #"{"bookmarks": [{"kind": "a", "itemID": "1", "title": "t", "createdAt": "soon"}]}"#
        ),
        ("a refused kind", #"{"bookmarks": [{"kind": "", "itemID": "1", "title": "t"}]}"#),
        (
            "a control character",
            #"{"bookmarks": [{"kind": "a", "itemID": "1", "title": "\u0007"}]}"#
        ),
        // Invalid JSON after the array: the whole reading refuses the file.
        ("invalid JSON after the array", #"{"bookmarks": [], "after": [1, }"#),
        ("text after the document", #"{"bookmarks": []} extra"#),
        ("the array twice", #"{"bookmarks": [], "bookmarks": []}"#),
        ("bookmarks that are not an array", #"{"bookmarks": {"kind": "a"}}"#),
        ("no bookmarks", #"{"format": "prefs-bookmarks"}"#),
        ("a bare array", #"[{"kind": "a", "itemID": "1", "title": "t"}]"#),
        // A roots member makes it Chromium's file when read whole, before or after the
        // array; the stream stops at its name, before its value (the whole file).
        ("roots after the array", #"{"bookmarks": [], "roots": {"other": {}}}"#),
        ("roots before the array", #"{"roots": {}, "bookmarks": []}"#),
        ("a cut file", #"{"bookmarks": [{"kind": "a", "itemID": "1", "title": "t"}"#),
    ])
    func aFileTheStreamDoesNotTakeIsReadWhole(name: String, json: String) throws {
        for size in [1, 5, 4_096] {
            #expect(
                try BookmarkStore.stageJSONExport(reading: Self.pieces(Array(json.utf8), size))
                    == nil, "\(name), pieces of \(size)")
        }
    }

    /// A `roots` member that comes after a large array: the stream has staged the array and
    /// must still give the file up, since read whole it is Chromium's bookmarks.
    @Test func aChromiumFileWhoseRootsComeLastIsNotTakenForTheExport() throws {
        var json = Self.file(bookmarks: 500, seed: 9)
        json.removeLast(2)  // "}\n"
        json +=
            #", "roots": {"bookmark_bar": {"type": "folder", "name": "Bar", "children": [{"type": "url", "name": "x", "url": "https://x.example"}]}}}"#
        #expect(
            try BookmarkStore.stageJSONExport(reading: Self.pieces(Array(json.utf8), 4_096)) == nil)
        let document = try BookmarkStore.document(reading: Array(json.utf8))
        #expect(document.format == .chromium && document.links.count == 1)
    }
}
