import Foundation
import TestSupport
import Testing

@testable import PrefsInterchange
@testable import PrefsKit

/// Chromium's `Bookmarks` file read twice in pieces into a staging file
/// (`BookmarkStore.stageChromiumFile`) and stored from there must give what reading it
/// whole gives: the same summary, to the place of each skipped entry and warning, and the
/// same bookmarks and folders, wherever the pieces are cut; nil (read it whole) for what
/// the whole reading refuses or reads as another format; and an error, nothing staged,
/// when the file changes between the two readings.
@Suite struct StagedChromiumBookmarkImportTests {
    static let pieces = StagedBookmarkImportTests.pieces(of:size:)

    /// A tree with what the reading must get right: folders whose `children` come before
    /// their `name` and `type` (Chromium's order) and after them, nodes that are not
    /// objects, of unknown types, links with children (which are not read), a member twice
    /// (the first counts), copies of a link in other folders, bad dates, bookmarklets,
    /// Vivaldi's descriptions, roots that are not objects, and names that need escapes.
    static func file(links: Int, seed: UInt64) -> String {
        var random = SeededGenerator(seed: seed)
        var made = 0
        func quoted(_ text: String) -> String { JSONValue.string(text).serialized() }
        func date() -> String {
            switch Int.random(in: 0..<20, using: &random) {
            case 0: return "\"soon\""
            case 1: return "\"0\""
            case 2: return "7"
            default:
                return
                    "\"\(13_300_000_000_000_000 + Int.random(in: 0..<1_000_000_000_000, using: &random))\""
            }
        }
        func link() -> String {
            made += 1
            let target = Int.random(in: 0...(links / 3), using: &random)
            var members = [
                "\"date_added\": \(date())", "\"guid\": \"g\(made)\"", "\"id\": \"\(made)\"",
                "\"name\": \(quoted(["Title \(made)", "caf\u{E9} \"\(made)\"", "", "  a\nb  "][Int.random(in: 0..<4, using: &random)]))",
                "\"type\": \"url\"",
                "\"url\": \(quoted(Int.random(in: 0..<30, using: &random) == 0 ? "javascript:go()" : "https://example.com/\(target)"))",
            ]
            switch Int.random(in: 0..<25, using: &random) {
            case 0: members.append("\"meta_info\": {\"Description\": \"about \(made)\"}")
            case 1: members.append("\"type\": \"folder\"")  // the first type counts
            case 2:
                members.append(
                    "\"children\": [{\"type\": \"url\", \"url\": \"https://inside.example/\(made)\"}]"
                )
            default: break
            }
            return "{" + members.joined(separator: ", ") + "}"
        }
        func folder(depth: Int) -> String {
            var children: [String] = []
            let count = Int.random(in: 0...(depth > 3 ? 6 : 30), using: &random)
            for _ in 0..<count where made < links {
                switch Int.random(in: 0..<40, using: &random) {
                case 0...3 where depth < 6: children.append(folder(depth: depth + 1))
                case 4:
                    children.append(
                        ["7", "null", "\"text\"", "[1, {\"type\": \"url\"}]"][
                            Int.random(in: 0..<4, using: &random)])
                case 5: children.append("{\"type\": \"separator\", \"name\": \"x\"}")
                default: children.append(link())
                }
            }
            let name = quoted(
                ["Work", "Caf\u{E9}", "", "Work", "a/b"][Int.random(in: 0..<5, using: &random)])
            let list = "\"children\": [" + children.joined(separator: ",\n") + "]"
            var members = [
                list, "\"date_added\": \(date())", "\"date_modified\": \(date())",
                "\"guid\": \"f\(made)\"", "\"name\": \(name)", "\"type\": \"folder\"",
            ]
            switch Int.random(in: 0..<6, using: &random) {
            case 0: members.reverse()  // name and type before the children
            case 1: members.append("\"children\": [\(link())]")  // a second children: not read
            case 2: members.append("\"meta_info\": {\"Description\": \"folder \(made)\"}")
            case 3:
                // Not a folder: its children are not read.
                members.insert("\"type\": \"url\"", at: 0)
            default: break
            }
            return "{" + members.joined(separator: ", ") + "}"
        }
        var roots: [String] = []
        while made < links {
            roots.append("\"bookmark_bar\": \(folder(depth: 1))")
            roots.append("\"other\": \(folder(depth: 1))")
            roots.append("\"synced\": \(folder(depth: 1))")
        }
        roots.insert("\"custom_root\": 7", at: 1)
        return """
            {"checksum": "abc", "roots": {\(roots.joined(separator: ",\n"))},
             "sync_metadata": "x", "version": 1}

            """
    }

    func importBoth(_ json: String, size: Int) throws
        -> (whole: BookmarkStore, staged: BookmarkStore, summaries: [BookmarkImportSummary])
    {
        let whole = BookmarkStore(database: try AppDatabase.inMemory())
        let staged = BookmarkStore(database: try AppDatabase.inMemory())
        let bytes = Array(json.utf8)
        let document = try BookmarkStore.document(reading: bytes)
        #expect(document.format == .chromium)
        let wholeSummary = try whole.importDocument(document)
        let staging = try #require(
            try BookmarkStore.stageChromiumFile(reading: { Self.pieces(bytes, size) }))
        let stagedSummary = try staged.importStaged(staging)
        return (whole, staged, [wholeSummary, stagedSummary])
    }

    @Test(arguments: [1, 7, 4_096, 1 << 20])
    func theStagedImportIsTheWholeImportWhereverThePiecesAreCut(size: Int) throws {
        let json = Self.file(links: size == 1 ? 300 : 3_000, seed: UInt64(size))
        let (whole, staged, summaries) = try importBoth(json, size: size)
        #expect(summaries[0].merged > 0 && summaries[0].added > 0)
        #expect(summaries[0].skipped.count > 3 && summaries[0].warnings.count > 3)
        #expect(summaries[1] == summaries[0])
        try StagedBookmarkImportTests.expectSameStores(staged, whole)
    }

    /// Member names are matched by their bytes, as a whole reading's subscript matches them:
    /// `Children`, `children` with a zero-width space, a fullwidth `ｔype` and a `roots`
    /// spelled with a Cyrillic `о` are other members, not the tree; folder names in two
    /// Unicode spellings (`Café`, `Cafe` with a combining accent) stay two folders. Read in
    /// pieces as read whole.
    @Test func namesInOtherSpellingsAreNotTheTree() throws {
        let json = """
            {"r\u{043E}ots": {"bookmark_bar": {"children": [{"type": "url", "url": "https://fake.example"}],
             "type": "folder"}},
             "roots": {"bookmark_bar": {
              "Children": [{"type": "url", "url": "https://not-read.example/1"}],
              "children\u{200B}": [{"type": "url", "url": "https://not-read.example/2"}],
              "children": [
               {"children": [{"type": "url", "url": "https://a.example"}], "name": "Caf\u{E9}", "type": "folder"},
               {"children": [{"type": "url", "url": "https://b.example"}], "name": "Cafe\u{301}", "type": "folder"},
               {"\u{FF54}ype": "url", "url": "https://fullwidth.example", "type": "folder", "name": "F"}],
              "name": "Bar", "type": "folder"}}}
            """
        let (whole, staged, summaries) = try importBoth(json, size: 3)
        #expect(summaries[1] == summaries[0])
        #expect(summaries[0].added == 2)
        #expect(try whole.list().map(\.itemID) == ["https://a.example", "https://b.example"])
        #expect(try whole.folders().count == 4)
        try StagedBookmarkImportTests.expectSameStores(staged, whole)
    }

    /// Folders nested as deep as JSON's nesting limit (512) lets a Chromium file go read in
    /// pieces as read whole; one level more, and both refuse the file.
    static func nested(_ levels: Int) -> String {
        var json = "{\"roots\": {\"bookmark_bar\": "
        for depth in 0..<levels {
            json +=
                "{\"children\": [{\"type\": \"url\", \"name\": \"at \(depth)\", \"url\": \"https://d.example/\(depth)\"}, "
        }
        json += "{\"type\": \"url\", \"url\": \"https://deepest.example\"}"
        for depth in (0..<levels).reversed() {
            json += "], \"name\": \"F\(depth)\", \"type\": \"folder\"}"
        }
        return json + "}}"
    }

    @Test func foldersAsDeepAsJSONAllowsReadAsWhole() throws {
        let (whole, staged, summaries) = try importBoth(Self.nested(254), size: 100)
        #expect(summaries[0].added == 255)
        #expect(summaries[1] == summaries[0])
        try StagedBookmarkImportTests.expectSameStores(staged, whole)
        let deeper = Array(Self.nested(255).utf8)
        #expect(throws: BookmarkError.self) { try BookmarkStore.document(reading: deeper) }
        #expect(try BookmarkStore.stageChromiumFile(reading: { Self.pieces(deeper, 100) }) == nil)
    }

    /// Files the stream must not take: each is nil, so that the whole reading refuses it
    /// with its own message or reads it as another format.
    @Test(arguments: [
        ("roots that are not an object", #"{"roots": 7}"#),
        ("no roots", #"{"bookmarks": []}"#),
        ("a bare array", #"[{"roots": {}}]"#),
        ("invalid JSON in a name", #"{"roots": {"bookmark_bar": {"name": "\x", "children": []}}}"#),
        ("invalid JSON after the roots", #"{"roots": {}, "version": tru}"#),
        ("a number that is not JSON", #"{"roots": {}, "version": 01}"#),
        ("a missing comma", #"{"roots": {} "version": 1}"#),
        ("a trailing comma", #"{"roots": {"other": {"children": [7,]}}}"#),
        ("text after the document", #"{"roots": {}} {}"#),
        ("a cut file", #"{"roots": {"other": {"children": [{"type": "url""#),
        ("a control character in a string", "{\"roots\": {}, \"x\": \"a\u{1}b\"}"),
        (
            "nesting deeper than JSON allows",
            "{\"roots\": {}, \"x\": " + String(repeating: "[", count: 600)
                + String(repeating: "]", count: 600) + "}"
        ),
    ])
    func aFileTheStreamDoesNotTakeIsReadWhole(name: String, json: String) throws {
        for size in [1, 5, 4_096] {
            #expect(
                try BookmarkStore.stageChromiumFile(reading: { Self.pieces(Array(json.utf8), size) }
                )
                    == nil, "\(name), pieces of \(size)")
        }
        #expect(
            (try? BookmarkStore.document(reading: Array(json.utf8)))?.format != .chromium,
            "\(name)")
    }

    /// A file that another program rewrites between the two readings (a folder renamed, a
    /// link added, a link made a folder) is refused with a one-line error; nothing is
    /// staged from it.
    @Test(arguments: [
        ("\"name\": \"Bar\"", "\"name\": \"Baz\""),
        (
            "{\"type\": \"url\", \"url\": \"https://a.example\"}",
            "{\"type\": \"url\", \"url\": \"https://a.example\"}, {\"type\": \"url\", \"url\": \"https://b.example\"}"
        ),
        (
            "\"type\": \"url\", \"url\": \"https://c.example\", \"children\": []",
            "\"type\": \"folder\", \"url\": \"https://c.example\", \"children\": []"
        ),
    ])
    func aFileThatChangesBetweenTheReadingsIsRefused(before: String, after: String) throws {
        let first = """
            {"roots": {"bookmark_bar": {"children": [{"type": "url", "url": "https://a.example"},
             {"type": "url", "url": "https://c.example", "children": []}], "name": "Bar", "type": "folder"}}}
            """
        let second = first.replacingOccurrences(of: before, with: after)
        #expect(second != first)
        var readings = 0
        #expect(throws: BookmarkError.malformedImport("the file changed while it was read")) {
            try BookmarkStore.stageChromiumFile(reading: {
                readings += 1
                return Self.pieces(Array((readings == 1 ? first : second).utf8), 16)
            })
        }
    }
}
