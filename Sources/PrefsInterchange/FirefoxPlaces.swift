import PrefsKit
internal import SQLiteCore

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Firefox's `places.sqlite`: bookmarks in `moz_bookmarks` (type 1 a link to a
/// `moz_places` row, 2 a folder, 3 a separator) under the roots `menu________`,
/// `toolbar_____`, `unfiled_____` and `mobile______`; tags are folders under
/// `tags________` that hold a link to each tagged place; dates are microseconds since 1970.
///
/// The file is opened read-only and immutable, so nothing is ever written to it and no
/// lock is taken. Firefox keeps recent changes in `places.sqlite-wal` while it runs, which
/// an immutable reader does not see: when that file exists, the database and its WAL are
/// copied to a temporary folder and the copy is read.
///
/// The tree is read as Firefox's HTML export lays it out: the bookmarks menu at the top
/// level, the toolbar and the other and mobile bookmarks as folders.
enum FirefoxPlaces {
    private static let rootNames = [
        "toolbar_____": "Bookmarks Toolbar", "unfiled_____": "Other Bookmarks",
        "mobile______": "Mobile Bookmarks",
    ]

    /// - Throws: ``BookmarkError/malformedImport(_:)`` for a file SQLite cannot read as
    ///   places.sqlite; ``DatabaseError/ioError(path:detail:)`` when the temporary copy
    ///   cannot be made (a full disk, say).
    static func document(atPath path: String) throws -> BookmarkImportDocument {
        let manager = FileManager.default
        guard manager.fileExists(atPath: path + "-wal") else {
            return try reading(path) {
                try Connection(
                    path: path, mode: .readOnly, followsSymlinks: true, isImmutable: true)
            }
        }
        // A private copy (0700 folder, 0600 files), removed on every path when `folder` is
        // dropped: places.sqlite holds the user's history.
        let folder = try PrivateTemporaryFolder(prefix: "prefs-places")
        let copy = try folder.copy(path, as: "places.sqlite")
        _ = try folder.copy(path + "-wal", as: "places.sqlite-wal")
        return try withExtendedLifetime(folder) {
            try reading(path) { try Connection(path: copy, mode: .readWrite) }
        }
    }

    private static func reading(_ path: String, _ open: () throws -> Connection) throws
        -> BookmarkImportDocument
    {
        do {
            // A file from elsewhere: no value longer than the text budget, no statement longer
            // than the time budget (trusted_schema is off on every connection).
            let connection = try open()
            connection.limitValueLength(to: 16 << 20)
            return try connection.withTimeLimit(seconds: Double(DecodingBudget.maximumSeconds)) {
                try read(connection)
            }
        } catch let error as InterchangeError {
            throw error
        } catch {
            throw InterchangeError(
                reason: "cannot read '\(path)' as Firefox's places.sqlite: \(error)")
        }
    }

    private static func read(_ connection: Connection) throws -> BookmarkImportDocument {
        let tables = try connection.rows(sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            .compactMap { row -> String? in
                if case .text(let name) = row[0] { name } else { nil }
            }
        guard tables.contains("moz_bookmarks"), tables.contains("moz_places") else {
            throw InterchangeError(
                reason:
                    "an SQLite file that is not Firefox's places.sqlite (no moz_bookmarks table)")
        }
        // Reading must not make the file compute: a generated column would run its
        // expression on every row read (views and triggers are never read or fired here).
        for table in ["moz_bookmarks", "moz_places", "moz_items_annos", "moz_anno_attributes"]
        where tables.contains(table) {
            let generated = try connection.rows(
                sql: "SELECT count(*) FROM pragma_table_xinfo(?) WHERE hidden IN (2, 3)",
                arguments: [table])
            if case .integer(let count) = generated.first?[0], count > 0 {
                throw InterchangeError(
                    reason: "\(table) has generated columns, which Firefox never makes; not read")
            }
        }
        struct Item {
            var id: Int64
            var type: Int64
            var parent: Int64?
            var title: String?
            var url: String?
            var placeID: Int64?
            var guid: String?
            var createdAt: Date?
            var updatedAt: Date?
        }
        func date(_ value: SQLiteValue) -> Date? {
            guard case .integer(let microseconds) = value, microseconds > 0 else { return nil }
            return Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
        }
        func text(_ value: SQLiteValue) -> String? {
            if case .text(let text) = value { text } else { nil }
        }
        func integer(_ value: SQLiteValue) -> Int64? {
            if case .integer(let number) = value { number } else { nil }
        }
        let rows = try connection.rows(
            sql: """
                SELECT b.id, b.type, b.parent, b.title, p.url, b.fk, b.guid, b.dateAdded,
                    b.lastModified
                FROM moz_bookmarks b LEFT JOIN moz_places p ON p.id = b.fk
                ORDER BY b.parent, b.position, b.id
                """)
        var children: [Int64: [Item]] = [:]
        var byID: [Int64: Item] = [:]
        for row in rows {
            let item = Item(
                id: integer(row[0]) ?? 0, type: integer(row[1]) ?? 0, parent: integer(row[2]),
                title: text(row[3]), url: text(row[4]), placeID: integer(row[5]),
                guid: text(row[6]), createdAt: date(row[7]), updatedAt: date(row[8]))
            byID[item.id] = item
            if let parent = item.parent, parent != item.id {
                children[parent, default: []].append(item)
            }
        }
        var notes: [Int64: String] = [:]
        if tables.contains("moz_items_annos"), tables.contains("moz_anno_attributes") {
            for row in try connection.rows(
                sql: """
                    SELECT a.item_id, a.content FROM moz_items_annos a
                    JOIN moz_anno_attributes n ON n.id = a.anno_attribute_id
                    WHERE n.name = 'bookmarkProperties/description'
                    """)
            {
                if let id = integer(row[0]), let note = text(row[1]) { notes[id] = note }
            }
        }
        let roots = byID.values.filter { $0.guid?.hasSuffix("_") == true && $0.parent != nil }
        let root = byID.values.first { $0.guid == "root________" }
        // Tags: every link under a tag folder tags its place.
        var tagsOfPlace: [Int64: [String]] = [:]
        if let tagRoot = roots.first(where: { $0.guid == "tags________" }) {
            for tagFolder in children[tagRoot.id] ?? [] where tagFolder.type == 2 {
                let tag = BookmarkImportDocument.cleaned(tagFolder.title ?? "").text
                guard !tag.isEmpty else { continue }
                for link in children[tagFolder.id] ?? [] {
                    if let place = link.placeID { tagsOfPlace[place, default: []].append(tag) }
                }
            }
        }
        var document = BookmarkImportDocument(format: .firefox)
        var depths: [Int] = []
        var stack: [(Item, Int?)] = []
        let order = ["menu________", "toolbar_____", "unfiled_____", "mobile______"]
        let topLevel = (root.map { children[$0.id] ?? [] } ?? [])
            .filter { $0.guid != "tags________" }
            .sorted {
                (order.firstIndex(of: $0.guid ?? "") ?? 9)
                    < (order.firstIndex(of: $1.guid ?? "") ?? 9)
            }
        for item in topLevel.reversed() {
            if item.guid == "menu________" {
                for child in (children[item.id] ?? []).reversed() { stack.append((child, nil)) }
            } else {
                var named = item
                named.title = rootNames[item.guid ?? ""] ?? item.title
                stack.append((named, nil))
            }
        }
        var visited = Set<Int64>()
        while let (item, folder) = stack.popLast() {
            guard visited.insert(item.id).inserted else { continue }
            let place = BookmarkImportDocument.Place.path("moz_bookmarks id \(item.id)")
            switch item.type {
            case 2:
                let name = BookmarkImportDocument.cleaned(item.title ?? "").text
                let index = document.addFolder(
                    BookmarkImportDocument.Folder(
                        name: name.isEmpty ? "Untitled folder" : name, parent: folder,
                        description: notes[item.id], createdAt: item.createdAt,
                        updatedAt: item.updatedAt),
                    depths: &depths, place: place)
                for child in (children[item.id] ?? []).reversed() { stack.append((child, index)) }
            case 1:
                let href = (item.url ?? "").trimmingWhitespace
                let (url, reasonToSkip) = BookmarkImportDocument.linkURL(href)
                if let reason = reasonToSkip {
                    document.skipped.append(.init(place: place, message: reason))
                    continue
                }
                document.links.append(
                    BookmarkImportDocument.Link(
                        draft: BookmarkDraft(
                            kind: NetscapeBookmarkFile.browserKind, itemID: href,
                            title: BookmarkImportDocument.cleaned(item.title ?? "").text,
                            url: url,
                            tags: item.placeID.flatMap { tagsOfPlace[$0] } ?? [],
                            note: notes[item.id].map(BookmarkImportDocument.cleanedNote)),
                        folder: folder, createdAt: item.createdAt, updatedAt: item.updatedAt,
                        place: place))
            default:
                continue  // separators
            }
        }
        return document
    }
}
