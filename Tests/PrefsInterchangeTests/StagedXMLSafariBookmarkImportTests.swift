import Foundation
import TestSupport
import Testing

@testable import PrefsInterchange
@testable import PrefsKit

/// Safari's `Bookmarks.plist` in XML, read twice in pieces into a staging file
/// (`BookmarkStore.stageXMLSafariFile`), must give what decoding it whole gives: the same
/// summary and the same bookmarks and folders, wherever the pieces are cut; nil (read it
/// whole, where the problem is named) for anything the whole reading refuses or reads in a
/// way the walk does not follow; an error when the file changes between the readings.
@Suite struct StagedXMLSafariBookmarkImportTests {
    static func pieces(_ bytes: [UInt8], _ size: Int) -> () throws -> [UInt8]? {
        StagedBookmarkImportTests.pieces(of: bytes, size: size)
    }

    static func stage(_ bytes: [UInt8], size: Int = 4_096) throws -> BookmarkImportStaging? {
        try BookmarkStore.stageXMLSafariFile(reading: { Self.pieces(bytes, size) })
    }

    static func xml(_ value: PreferenceValue) -> [UInt8] {
        Array(PropertyList.encode(value, format: .xml))
    }

    /// Imports the bytes whole and staged; the summaries and stores must match.
    @discardableResult
    static func expectSameBothWays(
        _ bytes: [UInt8], size: Int = 4_096, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> BookmarkImportSummary {
        let whole = BookmarkStore(database: try AppDatabase.inMemory())
        let staged = BookmarkStore(database: try AppDatabase.inMemory())
        let document = try BookmarkStore.document(reading: bytes)
        #expect(document.format == .safari, sourceLocation: sourceLocation)
        let wholeSummary = try whole.importDocument(document)
        let staging = try #require(
            try Self.stage(bytes, size: size), sourceLocation: sourceLocation)
        let stagedSummary = try staged.importStaged(staging)
        #expect(stagedSummary == wholeSummary, sourceLocation: sourceLocation)
        try StagedBookmarkImportTests.expectSameStores(staged, whole)
        return wholeSummary
    }

    /// The tree of the binary file's tests (folders in folders, proxies, nodes of unknown
    /// types and nodes that are not dictionaries, links with children, a `Children` that is
    /// not an array, the reading list), written as XML with its keys sorted: each folder's
    /// `Children` comes before its `Title` and type.
    @Test(arguments: [(1, 1), (2, 7), (3, 4_096), (4, 1 << 20)] as [(UInt64, Int)])
    func theStagedImportIsTheWholeImportWhereverThePiecesAreCut(seed: UInt64, size: Int) throws {
        let links = size == 1 ? 200 : 3_000
        let bytes = Self.xml(StagedSafariBookmarkImportTests.tree(links: links, seed: seed))
        let text = String(decoding: bytes, as: UTF8.self)
        let children = try #require(text.range(of: "<key>Children</key>"))
        let title = try #require(text.range(of: "<key>Title</key>"))
        #expect(children.lowerBound < title.lowerBound)
        let summary = try Self.expectSameBothWays(bytes, size: size)
        #expect(summary.merged > 0 && summary.skipped.count > 3)
    }

    /// Safari's own file, converted to XML, walks as it reads whole.
    @Test func safarisOwnFileInXMLWalksAsItReadsWhole() throws {
        let binary = try RealFixtures.bytes("safari_Bookmarks.plist")
        let bytes = Self.xml(try PropertyList.decode(Data(binary)))
        #expect(try Self.expectSameBothWays(bytes, size: 1_000).added > 0)
    }

    /// Whatever markup the format allows between and inside the elements: comments and
    /// processing instructions between entries and nodes, CDATA and character references
    /// in values and keys (`Child&#114;en` is `Children`), empty elements, a byte-order
    /// mark and a DOCTYPE.
    @Test(arguments: [1, 5, 64])
    func markupTheFormatAllowsReadsAsWhole(size: Int) throws {
        let file = """
            \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><!-- top --><dict>
            <key>Child&#114;en</key><array><!-- first -->
              <dict><key>Children</key><array>
                <dict><key>URIDictionary</key><dict><key>title</key><string><![CDATA[A <b> title]]></string></dict>
                  <?pi here?><key>URLString</key><string>https://a.example/&amp;x</string>
                  <key>WebBookmarkType</key><string>WebBookmarkTypeLeaf</string></dict>
                <dict/>
                <string>not a node</string>
                <dict><key>URLString</key><string>https://b.example</string><key><![CDATA[WebBookmarkType]]></key><string>WebBookmarkTypeLeaf</string></dict>
              </array><key>Title</key><string>caf&#xE9;</string><key>WebBookmarkType</key><string>WebBookmarkTypeList</string></dict>
              <dict><key>Children</key><array/><key>Title</key><string/><key>WebBookmarkType</key><string>WebBookmarkTypeList</string></dict>
            </array>
            <key>Title</key><string></string>
            <key>WebBookmarkType</key><string>WebBookmarkTypeList</string>
            </dict></plist>

            """
        let summary = try Self.expectSameBothWays(Array(file.utf8), size: size)
        #expect(summary.added == 2 && summary.skipped.count == 1)
    }

    /// A file the whole reading refuses, or reads in a way the walk does not follow, is left
    /// to it (nil); where the whole reading refuses it, it names the problem.
    @Test(arguments: [
        // The whole reading refuses these.
        ("a key twice", "<key>Title</key><string>A</string><key>Title</key><string>B</string>"),
        (
            "a key in two Unicode spellings",
            "<key>Caf\u{E9}</key><string>A</string><key>Cafe\u{301}</key><string>B</string>"
        ),
        ("text between entries", "<key>Title</key><string>A</string> stray"),
        ("an unknown element", "<key>Title</key><title>A</title>"),
        ("a key without a value", "<key>Title</key>"),
        ("a value that does not end", "<key>Title</key><string>A"),
        ("children twice", "<key>Children</key><array/><key>Children</key><array/>"),
    ])
    func whatTheWholeReadingRefusesIsReadWhole(name: String, insert: String) throws {
        let file = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>Children</key><array>
            <dict><key>URLString</key><string>https://a.example</string>
            <key>WebBookmarkType</key><string>WebBookmarkTypeLeaf</string>\(insert)</dict>
            </array><key>WebBookmarkType</key><string>WebBookmarkTypeList</string></dict></plist>
            """
        #expect(try Self.stage(Array(file.utf8), size: 3) == nil, "\(name)")
    }

    /// What the walk does not follow is left to the whole reading: a node `<dict>` with an
    /// attribute or a space, a `Children` array with one, another top than a dictionary, a
    /// file that is not Safari's bookmarks, and one cut short.
    @Test(arguments: [
        "<dict  ><key>URLString</key><string>https://a.example</string></dict>",
        "<dict x=\"1\"/>",
    ])
    func whatTheWalkDoesNotFollowIsReadWhole(node: String) throws {
        let file = """
            <plist version="1.0"><dict><key>Children</key><array>\(node)</array>
            <key>WebBookmarkType</key><string>WebBookmarkTypeList</string></dict></plist>
            """
        #expect(try Self.stage(Array(file.utf8)) == nil)
        let attributed = """
            <plist version="1.0"><dict><key>Children</key><array  ><dict/></array>
            <key>WebBookmarkType</key><string>WebBookmarkTypeList</string></dict></plist>
            """
        #expect(try Self.stage(Array(attributed.utf8)) == nil)
        let other = Self.xml(.dictionary(["Children": .array([]), "Title": .string("x")]))
        #expect(try Self.stage(other) == nil)
        let list = Self.xml(.array([.string("x")]))
        #expect(try Self.stage(list) == nil)
        let whole = Self.xml(StagedSafariBookmarkImportTests.tree(links: 50, seed: 9))
        #expect(try Self.stage(Array(whole.dropLast(20))) == nil)
        #expect(throws: BookmarkError.self) {
            try BookmarkStore.document(reading: Array(whole.dropLast(20)))
        }
    }

    /// Folders nested as deep as the nesting limit lets a file go are read whole, which
    /// refuses what is past the limit; a tree well inside it walks.
    @Test func nestingNearTheLimitIsReadWhole() throws {
        func nested(_ levels: Int) -> [UInt8] {
            var node: PreferenceValue = .dictionary([
                "WebBookmarkType": .string("WebBookmarkTypeLeaf"),
                "URLString": .string("https://deep.example"),
            ])
            for _ in 0..<levels {
                node = .dictionary([
                    "WebBookmarkType": .string("WebBookmarkTypeList"), "Title": .string("f"),
                    "Children": .array([node]),
                ])
            }
            return Self.xml(node)
        }
        let summary = try Self.expectSameBothWays(nested(60), size: 100)
        #expect(summary.added == 1)
        #expect(try Self.stage(nested(255)) == nil)
        #expect(throws: BookmarkError.self) { try BookmarkStore.document(reading: nested(300)) }
        #expect(try Self.stage(nested(300)) == nil)
    }

    /// The first reading keeps each folder's own entries; the second must find the same
    /// file. A folder renamed, a top entry added, a node added, or a link given children
    /// (empty, or with nodes of their own) in between is refused, and nothing is staged.
    @Test(arguments: [
        ("<string>Work</string>", "<string>Play</string>"),
        (
            "</array><key>WebBookmarkType</key><string>WebBookmarkTypeList</string></dict></plist>",
            "</array><key>Title</key><string>x</string><key>WebBookmarkType</key><string>WebBookmarkTypeList</string></dict></plist>"
        ),
        ("</string></dict></array>", "</string></dict><dict/></array>"),
        (
            "<key>WebBookmarkType</key><string>WebBookmarkTypeLeaf</string>",
            "<key>Children</key><array></array><key>WebBookmarkType</key><string>WebBookmarkTypeLeaf</string>"
        ),
        (
            "<key>WebBookmarkType</key><string>WebBookmarkTypeLeaf</string>",
            "<key>Children</key><array><dict><key>Children</key><array><dict/></array></dict></array><key>WebBookmarkType</key><string>WebBookmarkTypeLeaf</string>"
        ),
    ])
    func aFileThatChangesBetweenTheReadingsIsRefused(before: String, after: String) throws {
        let first = """
            <plist version="1.0"><dict><key>Children</key><array>
            <dict><key>Children</key><array><dict><key>URLString</key><string>https://a.example</string>
            <key>WebBookmarkType</key><string>WebBookmarkTypeLeaf</string></dict></array>
            <key>Title</key><string>Work</string><key>WebBookmarkType</key><string>WebBookmarkTypeList</string></dict>
            </array><key>WebBookmarkType</key><string>WebBookmarkTypeList</string></dict></plist>
            """
        let second = first.replacingOccurrences(of: before, with: after)
        #expect(second != first)
        #expect(try Self.stage(Array(second.utf8)) != nil)
        var readings = 0
        #expect(throws: BookmarkError.malformedImport("the file changed while it was read")) {
            try BookmarkStore.stageXMLSafariFile(reading: {
                readings += 1
                return Self.pieces(Array((readings == 1 ? first : second).utf8), 16)
            })
        }
    }
}
