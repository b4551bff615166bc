import Foundation
import TestSupport
import Testing

@testable import PrefsInterchange
@testable import PrefsKit

/// Safari's binary `Bookmarks.plist` walked where its objects are into a staging file
/// (`BookmarkStore.stageBinarySafariFile`) must give what decoding it whole gives: the
/// same summary and the same bookmarks and folders; nil (read it whole, where the problem is
/// named) for anything the whole reading refuses, and for a file that shares a node between
/// two places or a field beyond what the walk may decode.
@Suite struct StagedSafariBookmarkImportTests {
    static func reader(_ bytes: [UInt8]) -> (Int, Int) throws -> [UInt8] {
        { offset, count in Array(bytes[min(offset, bytes.count)..<min(bytes.count, offset + count)])
        }
    }

    static func stage(_ bytes: [UInt8]) throws -> BookmarkImportStaging? {
        try BookmarkStore.stageBinarySafariFile(size: bytes.count, read: reader(bytes))
    }

    /// A tree with what the reading must get right: Safari's own folders, folders in
    /// folders, the History proxy, nodes of unknown types and nodes that are not
    /// dictionaries, links whose children are not read, a folder whose `Children` is not an
    /// array, copies of a link, bookmarklets, the reading list's preview text and date.
    static func tree(links: Int, seed: UInt64) -> PreferenceValue {
        var random = SeededGenerator(seed: seed)
        var made = 0
        func leaf() -> PreferenceValue {
            made += 1
            let target = Int.random(in: 0...(links / 3), using: &random)
            var item: [String: PreferenceValue] = [
                "WebBookmarkType": .string("WebBookmarkTypeLeaf"),
                "URLString": .string(
                    Int.random(in: 0..<30, using: &random) == 0
                        ? "javascript:go()" : "https://example.com/\(target)"),
                "URIDictionary": .dictionary([
                    "title": .string(
                        ["Title \(made)", "caf\u{E9} \(made)", "", " a\nb "][
                            Int.random(in: 0..<4, using: &random)])
                ]),
                "WebBookmarkUUID": .string("uuid-\(made)"),
            ]
            switch Int.random(in: 0..<20, using: &random) {
            case 0:
                item["ReadingList"] = .dictionary([
                    "PreviewText": .string("preview \(made)\nline"),
                    "DateAdded": .date(Date(timeIntervalSince1970: 1_600_000_000 + Double(made))),
                ])
            case 1:
                item["Children"] = .array([
                    .dictionary([
                        "WebBookmarkType": .string("WebBookmarkTypeLeaf"),
                        "URLString": .string("https://inside.example/\(made)"),
                    ])
                ])
            default: break
            }
            return .dictionary(item)
        }
        func list(depth: Int) -> PreferenceValue {
            var children: [PreferenceValue] = []
            for _ in 0..<Int.random(in: 0...(depth > 3 ? 6 : 30), using: &random) where made < links
            {
                switch Int.random(in: 0..<40, using: &random) {
                case 0...3 where depth < 6: children.append(list(depth: depth + 1))
                case 4: children.append(.string("not a node"))
                case 5:
                    children.append(
                        .dictionary(["WebBookmarkType": .string("WebBookmarkTypeProxy")]))
                case 6:
                    children.append(
                        .dictionary(["WebBookmarkType": .string("Other"), "Title": .int(1)]))
                default: children.append(leaf())
                }
            }
            let title = ["BookmarksBar", "BookmarksMenu", "Work", "", "caf\u{E9}"][
                Int.random(in: 0..<5, using: &random)]
            var item: [String: PreferenceValue] = [
                "WebBookmarkType": .string("WebBookmarkTypeList"), "Title": .string(title),
                "Children": .array(children),
            ]
            if Int.random(in: 0..<15, using: &random) == 0 { item["Children"] = .string("none") }
            return .dictionary(item)
        }
        var top: [PreferenceValue] = []
        while made < links { top.append(list(depth: 1)) }
        return .dictionary([
            "WebBookmarkType": .string("WebBookmarkTypeList"), "Title": .string(""),
            "WebBookmarkFileVersion": .int(1), "Children": .array(top),
        ])
    }

    static func binary(_ value: PreferenceValue) -> [UInt8] {
        Array(PropertyList.encode(value, format: .binary))
    }

    @Test(arguments: [1, 2, 3])
    func theStagedImportIsTheWholeImport(seed: UInt64) throws {
        let bytes = Self.binary(Self.tree(links: 3_000, seed: seed))
        let whole = BookmarkStore(database: try AppDatabase.inMemory())
        let staged = BookmarkStore(database: try AppDatabase.inMemory())
        let document = try BookmarkStore.document(reading: bytes)
        #expect(document.format == .safari)
        let wholeSummary = try whole.importDocument(document)
        let stagedSummary = try staged.importStaged(try #require(try Self.stage(bytes)))
        #expect(wholeSummary.merged > 0 && wholeSummary.skipped.count > 3)
        #expect(stagedSummary == wholeSummary)
        try StagedBookmarkImportTests.expectSameStores(staged, whole)
    }

    /// Safari's own file (shared strings, its proxies and reading list) walks as it reads
    /// whole.
    @Test func safarisOwnFileWalksAsItReadsWhole() throws {
        let bytes = Array(try RealFixtures.bytes("safari_Bookmarks.plist"))
        let whole = BookmarkStore(database: try AppDatabase.inMemory())
        let staged = BookmarkStore(database: try AppDatabase.inMemory())
        let wholeSummary = try whole.importDocument(try BookmarkStore.document(reading: bytes))
        let stagedSummary = try staged.importStaged(try #require(try Self.stage(bytes)))
        #expect(wholeSummary.added > 0)
        #expect(stagedSummary == wholeSummary)
        try StagedBookmarkImportTests.expectSameStores(staged, whole)
    }

    /// A binary property list made object by object, for the shapes no writer makes:
    /// shared and cyclic objects. References and offsets take four bytes.
    struct Handmade {
        private(set) var objects: [[UInt8]] = []

        private static func counted(_ marker: UInt8, _ count: Int) -> [UInt8] {
            if count < 15 { return [marker | UInt8(count)] }
            return [marker | 0x0F, 0x12] + withUnsafeBytes(of: UInt32(count).bigEndian, Array.init)
        }

        private static func references(_ list: [Int]) -> [UInt8] {
            list.flatMap { withUnsafeBytes(of: UInt32($0).bigEndian, Array.init) }
        }

        /// Adds an object, or sets one reserved before (for a cycle).
        @discardableResult
        mutating func add(_ body: [UInt8], at index: Int? = nil) -> Int {
            if let index {
                objects[index] = body
                return index
            }
            objects.append(body)
            return objects.count - 1
        }

        mutating func string(_ text: String) -> Int {
            add(Self.counted(0x50, text.utf8.count) + Array(text.utf8))
        }

        mutating func array(_ elements: [Int], at index: Int? = nil) -> Int {
            add(Self.counted(0xA0, elements.count) + Self.references(elements), at: index)
        }

        mutating func dictionary(_ pairs: [(String, Int)], at index: Int? = nil) -> Int {
            dictionary(keys: pairs.map { string($0.0) }, values: pairs.map(\.1), at: index)
        }

        /// A dictionary whose keys are objects already made (shared, as Safari writes them).
        mutating func dictionary(keys: [Int], values: [Int], at index: Int? = nil) -> Int {
            add(
                Self.counted(0xD0, keys.count) + Self.references(keys) + Self.references(values),
                at: index)
        }

        mutating func leaf(_ url: String, title: Int? = nil) -> Int {
            var pairs = [
                ("WebBookmarkType", string("WebBookmarkTypeLeaf")), ("URLString", string(url)),
            ]
            if let title { pairs.append(("URIDictionary", dictionary([("title", title)]))) }
            return dictionary(pairs)
        }

        mutating func folder(_ children: [Int], at index: Int? = nil) -> Int {
            dictionary(
                [
                    ("WebBookmarkType", string("WebBookmarkTypeList")), ("Title", string("F")),
                    ("Children", array(children)),
                ], at: index)
        }

        func bytes(top: Int) -> [UInt8] {
            var body = Array("bplist00".utf8)
            var offsets: [UInt8] = []
            for object in objects {
                offsets += withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init)
                body += object
            }
            let table = body.count
            body += offsets + [0, 0, 0, 0, 0, 0, 4, 4]
            for field in [UInt64(objects.count), UInt64(top), UInt64(table)] {
                body += withUnsafeBytes(of: field.bigEndian, Array.init)
            }
            return body
        }
    }

    /// A link reached from two folders: decoded whole it is two copies (merged); the walk
    /// reads such a file whole rather than walk a shared node twice.
    @Test func aFileThatSharesANodeIsReadWhole() throws {
        var plist = Handmade()
        let shared = plist.leaf("https://shared.example")
        let first = plist.folder([shared])
        let second = plist.folder([shared, plist.leaf("https://own.example")])
        let top = plist.folder([first, second])
        let bytes = plist.bytes(top: top)
        #expect(try BookmarkStore.document(reading: bytes).links.count == 3)
        #expect(try Self.stage(bytes) == nil)
        // Shared strings (as Safari and plutil write them) are no reason to read it whole.
        var strings = Handmade()
        let title = strings.string("same title")
        let a = strings.leaf("https://a.example", title: title)
        let b = strings.leaf("https://b.example", title: title)
        let stringsTop = strings.folder([a, b])
        let bytes2 = strings.bytes(top: stringsTop)
        let staging = try #require(try Self.stage(bytes2))
        let store = BookmarkStore(database: try AppDatabase.inMemory())
        #expect(try store.importStaged(staging).added == 2)
        #expect(try store.list().map(\.title) == ["same title", "same title"])
    }

    /// What the whole reading refuses, the walk leaves to it: a folder inside itself, a
    /// link whose field holds its folder, a reference out of range, a key twice, a top that
    /// is not Safari's, a file cut short.
    @Test func whatTheWholeReadingRefusesIsReadWhole() throws {
        var cycle = Handmade()
        let folder = cycle.add([])
        _ = cycle.folder([cycle.leaf("https://a.example"), folder], at: folder)
        var field = Handmade()
        let outer = field.add([])
        let inner = field.dictionary([
            ("WebBookmarkType", field.string("WebBookmarkTypeLeaf")),
            ("URLString", field.string("https://x.example")),
            ("Back", outer),
        ])
        _ = field.folder([inner], at: outer)
        var range = Handmade()
        let broken = range.array([99])
        let rangeTop = range.dictionary([
            ("WebBookmarkType", range.string("WebBookmarkTypeList")),
            ("Children", range.array([broken])),
        ])
        var twice = Handmade()
        let twiceTop = twice.dictionary([
            ("WebBookmarkType", twice.string("WebBookmarkTypeList")),
            (
                "Children",
                twice.array([
                    twice.dictionary([
                        ("URLString", twice.string("a")), ("URLString", twice.string("b")),
                    ])
                ])
            ),
        ])
        var other = Handmade()
        let otherTop = other.dictionary([
            ("Children", other.array([other.leaf("https://a.example")]))
        ])
        let valid = Self.binary(Self.tree(links: 50, seed: 9))
        for (name, bytes) in [
            ("a folder inside itself", cycle.bytes(top: folder)),
            ("a field that holds its folder", field.bytes(top: outer)),
            ("a reference out of range", range.bytes(top: rangeTop)),
            ("a key twice", twice.bytes(top: twiceTop)),
            ("not Safari's bookmarks", other.bytes(top: otherTop)),
            ("cut short", Array(valid.prefix(valid.count - 40))),
        ] {
            #expect(throws: BookmarkError.self, "\(name)") {
                try BookmarkStore.document(reading: bytes)
            }
            #expect(try Self.stage(bytes) == nil, "\(name)")
        }
    }

    /// A field shared by every link (60,000 bytes reached 10,000 times) is charged
    /// on every reference, as the whole reading charges it: the walk may decode four times
    /// the file and at least the whole reading's budget, and this is more.
    @Test func aSharedFieldIsChargedOnEveryReference() throws {
        var plist = Handmade()
        let title = plist.string(String(repeating: "t", count: 60_000))
        let keys = ["WebBookmarkType", "URLString", "Sync"].map { plist.string($0) }
        let values = [plist.string("WebBookmarkTypeLeaf"), plist.string("https://same.example")]
        let uri = plist.dictionary([("Data", title)])
        let leaves = (0..<10_000).map { _ in plist.dictionary(keys: keys, values: values + [uri]) }
        let top = plist.folder(leaves)
        let bytes = plist.bytes(top: top)
        #expect(bytes.count < 1_000_000)
        do {
            _ = try BookmarkStore.document(reading: bytes)
            Issue.record("read whole within the budget")
        } catch {
            #expect("\(error)".contains("MiB of text and data (the decoding limit)"), "\(error)")
        }
        #expect(try Self.stage(bytes) == nil)
    }
}
