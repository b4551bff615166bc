#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

extension BookmarkStore {
    /// The name in the `format` field of the JSON export.
    public static let exportFormatName = "prefs-bookmarks"

    /// Every bookmark as JSON that ``importJSON(_:progress:)`` reads back with ids,
    /// positions, folders and times: `{"format": "prefs-bookmarks", "version": 1,
    /// "bookmarks": [...]}`.
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func exportJSON() throws -> String {
        var text = ""
        try exportJSON { text += $0 }
        return text
    }

    /// The same JSON as ``exportJSON()``, handed to `write` piece by piece as the bookmarks
    /// are read, so that any number of them is exported in constant memory. The database
    /// stays locked for this process until it returns.
    ///
    /// - Throws: `write`'s error, or ``DatabaseError`` when the read fails.
    public func exportJSON(to write: (String) throws -> Void) throws {
        try JSONValue.writePrettyDocument(
            [("format", .string(Self.exportFormatName)), ("version", .integer(1))],
            arrayKey: "bookmarks",
            elements: { element in
                try readingSnapshot { repository in
                    try repository?.forEach(BookmarkQuery()) { try element($0.jsonValue) }
                }
            }, to: write)
    }

    /// Runs `body` with every read in one snapshot of the database (nil: a read-only
    /// database with no schema, which holds nothing): for writers of other formats, such as
    /// a browser's bookmark file, that read group by group. Not run again after a lost
    /// connection, since the body may have handed on part of what it read.
    package func readingSnapshot<T>(_ body: ((any BookmarkRepository)?) throws -> T) throws -> T {
        try database.read(retrying: false) { state in
            state.isEmpty
                ? try body(nil) : try state.engine.snapshotRead { try body(state.bookmarks) }
        }
    }

    /// Imports the JSON export (or a bare array of bookmark objects) in one transaction:
    /// all of it or, on any error, nothing. An item already bookmarked is updated; ids are
    /// kept when free; positions are kept and then made dense per kind.
    ///
    /// - Parameters:
    ///   - text: The JSON text.
    ///   - progress: Called with (done, total) as the import goes.
    /// - Returns: What the import did.
    /// - Throws: ``BookmarkError/malformedImport(_:)`` naming the element, ``DatabaseError``.
    @discardableResult
    public func importJSON(_ text: String, progress: ImportProgress? = nil) throws
        -> BookmarkImportSummary
    {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: text)
        } catch {
            throw BookmarkError.malformedImport("invalid JSON: \(error)")
        }
        return try importDocument(try Self.jsonDocument(document), progress: progress)
    }

    package static func jsonDocument(_ document: JSONValue) throws(BookmarkError)
        -> BookmarkImportDocument
    {
        let list: [JSONValue]
        switch document["bookmarks"] ?? document {
        case .array(let elements): list = elements
        default:
            throw .malformedImport("expected an array of bookmarks or {\"bookmarks\": [...]}")
        }
        var result = BookmarkImportDocument(format: .json)
        for (index, element) in list.enumerated() {
            var entry = try ImportedBookmark(json: element, index: index)
            do {
                entry.draft = try entry.draft.validated()
            } catch {
                throw .malformedImport("bookmarks[\(index)]: \(error)")
            }
            result.links.append(
                BookmarkImportDocument.Link(
                    draft: entry.draft, id: entry.id, position: entry.position,
                    createdAt: entry.createdAt, updatedAt: entry.updatedAt,
                    place: .path("bookmarks[\(index)]")))
        }
        return result
    }

    /// Reads our JSON export handed over in pieces into a staging file, for
    /// ``importStaged(_:progress:)``: the outcome of ``jsonDocument(_:)`` on the whole
    /// file, in memory that does not grow with it. Nil when the file must be read whole
    /// after all: it is not the export's outline (`{..., "bookmarks": [...]}`, the array
    /// once), it has a `roots` member (Chromium's file), or something in it is wrong, which
    /// the whole reading then names with its place.
    ///
    /// - Parameter next: The file's next piece, nil at its end.
    /// - Throws: `next`'s errors, ``DatabaseError`` when the staging file fails.
    package static func stageJSONExport(reading next: @escaping () throws -> [UInt8]?) throws
        -> BookmarkImportStaging?
    {
        let staging = try BookmarkImportStaging(format: .json)
        var stream = JSONMemberStream(next: next)
        var index = 0
        let isWhole = try stream.walk(
            arrayKey: "bookmarks", refusing: ["roots"],
            member: { _, bytes in JSONMemberStream.isValidValue(bytes) },
            element: { bytes in
                guard String(validating: bytes, as: UTF8.self) != nil,
                    let json = try? JSONValue(parsing: Array(bytes)),
                    let entry = try? ImportedBookmark(json: json, index: index),
                    let draft = try? entry.draft.validated()
                else { return false }
                try staging.add(
                    BookmarkImportDocument.Link(
                        draft: draft, id: entry.id, position: entry.position,
                        createdAt: entry.createdAt, updatedAt: entry.updatedAt,
                        place: .path("bookmarks[\(index)]")),
                    folders: [])
                index += 1
                return true
            })
        guard isWhole else { return nil }
        staging.finish(BookmarkImportDocument(format: .json))
        return staging
    }

    /// Stores a document in one transaction: all of it or, on any error, nothing.
    ///
    /// Links are the same bookmark when their kind and item ID are (for a browser's links,
    /// the URL). Duplicates in the file merge into the first: tags are joined, the folder
    /// path of each other copy is added as a tag, and the later title wins only when its
    /// `LAST_MODIFIED` is newer. A bookmark already stored takes the file's fields
    /// (counted as updated) unless they are the same (unchanged). Folders are matched by
    /// parent, name and their order among same-named siblings, so importing a file twice
    /// changes nothing.
    ///
    /// - Throws: ``DatabaseError`` when a write fails.
    @discardableResult
    public func importDocument(_ document: BookmarkImportDocument, progress: ImportProgress? = nil)
        throws -> BookmarkImportSummary
    {
        var summary = BookmarkImportSummary(format: document.format)
        summary.skipped = document.skipped
        summary.warnings = document.warnings
        let links = Self.mergedLinks(of: document, into: &summary)
        return try store(
            folders: document.folders, links: links.count,
            hasPositions: links.contains { $0.position != nil },
            reader: {
                var iterator = links.makeIterator()
                return { iterator.next() }
            }, summary: summary, progress: progress)
    }

    /// Stores the links of a file staged on disk, as ``importDocument(_:progress:)`` stores
    /// a document: in one transaction, all of it or nothing, with the same merging and the
    /// same counts, in memory that does not grow with the file.
    ///
    /// - Throws: ``DatabaseError`` when a write or the staging file fails.
    @discardableResult
    package func importStaged(_ staging: BookmarkImportStaging, progress: ImportProgress? = nil)
        throws -> BookmarkImportSummary
    {
        try staging.resolveCopies()
        var summary = BookmarkImportSummary(format: staging.document.format)
        summary.skipped = staging.document.skipped
        summary.warnings = staging.document.warnings
        summary.merged = staging.merged
        return try store(
            folders: staging.document.folders, links: staging.count - staging.merged,
            hasPositions: staging.hasPositions, reader: { try staging.mergedLinks() },
            summary: summary, progress: progress)
    }

    /// Stores folders and merged links in one transaction.
    ///
    /// - Parameters:
    ///   - links: How many links `reader` gives.
    ///   - reader: Makes a reader of the links from the first (again if the write is run
    ///     again).
    ///   - summary: The counts so far (skipped, warnings, merged).
    private func store(
        folders: [BookmarkImportDocument.Folder], links count: Int, hasPositions: Bool,
        reader: () throws -> () throws -> BookmarkImportDocument.Link?,
        summary start: BookmarkImportSummary, progress: ImportProgress?
    ) throws -> BookmarkImportSummary {
        try write { state in
            var summary = start
            let repository = state.bookmarks
            let folderIDs = try Self.storeFolders(folders, in: repository)
            let now = Date()
            let step = max(1, count / 100)
            let next = try reader()
            var index = 0
            try repository.batchingSearchRows {
                while let link = try next() {
                    defer { index += 1 }
                    if index % step == 0 { progress?(index, count) }
                    let placement: BookmarkPlacement =
                        link.folder.map { .folder(folderIDs[$0]) } ?? .draft
                    // Insert first: a new bookmark (the usual case) then costs no lookup.
                    var id = link.id
                    if let wanted = id, try repository.bookmark(id: wanted) != nil { id = nil }
                    if let stored = try repository.insertIfAbsent(
                        link.draft, in: placement, at: link.updatedAt ?? now, id: id,
                        createdAt: link.createdAt)
                    {
                        if let position = link.position, position != stored.position {
                            // Ties with existing positions are settled by id in the renumbering.
                            try repository.setPosition(position, id: stored.id)
                        }
                        summary.added += 1
                    } else if let existing = try repository.bookmark(
                        kind: link.draft.kind, itemID: link.draft.itemID)
                    {
                        let incoming = Self.merged(link.draft, into: existing)
                        // By bytes: a title that differs only in its Unicode spelling is
                        // an update, not "unchanged".
                        let isSame =
                            ExactName.sameBytes(existing.title, incoming.title)
                            && ExactName.sameBytes(
                                existing.urlString, incoming.url?.absoluteString)
                            && ExactName.sameBytes(existing.folder, incoming.folderPath)
                            && ExactName.sameBytes(existing.tags, incoming.tags)
                            && ExactName.sameBytes(existing.note, incoming.note)
                            && (link.position == nil || link.position == existing.position)
                        if isSame {
                            summary.unchanged += 1
                            continue
                        }
                        _ = try repository.update(
                            id: existing.id, with: incoming, in: placement,
                            at: link.updatedAt ?? now)
                        if let position = link.position, position != existing.position {
                            try repository.setPosition(position, id: existing.id)
                        }
                        summary.updated += 1
                    }
                }
            }
            // Only explicit positions (our own exports) can leave gaps or ties.
            if hasPositions { try repository.renumberPositions() }
            progress?(count, count)
            return summary
        }
    }

    /// What a file's copy of a stored bookmark leaves it with: an empty title or note in the
    /// file never erases the stored one, and the tags are both sides' (a union), as
    /// linkding and buku merge them.
    private static func merged(_ draft: BookmarkDraft, into existing: Bookmark) -> BookmarkDraft {
        var merged = draft
        if merged.title.isEmpty { merged.title = existing.title }
        if merged.note?.isEmpty ?? true { merged.note = existing.note }
        merged.tags = Set((existing.tags + draft.tags).map(ExactName.init)).sorted().map(\.string)
        return merged
    }

    /// The document's links, validated (a bad one is skipped), with their folder path in
    /// the draft, duplicates merged into the first copy.
    private static func mergedLinks(
        of document: BookmarkImportDocument, into summary: inout BookmarkImportSummary
    ) -> [BookmarkImportDocument.Link] {
        var result: [BookmarkImportDocument.Link] = []
        result.reserveCapacity(document.links.count)
        var indexByIdentity: [BookmarkIdentity: Int] = [:]
        indexByIdentity.reserveCapacity(document.links.count)
        var paths: [(path: [String], error: BookmarkError?)?] = []
        for var link in document.links {
            do {
                try prepare(&link, in: document, paths: &paths)
            } catch {
                summary.skipped.append(.init(place: link.place, message: "\(error)"))
                continue
            }
            let identity = BookmarkIdentity(kind: link.draft.kind, itemID: link.draft.itemID)
            guard let first = indexByIdentity[identity] else {
                indexByIdentity[identity] = result.count
                result.append(link)
                continue
            }
            summary.merged += 1
            merge(link, into: &result[first])
        }
        return result
    }

    /// Checks a link and puts its folder path in its draft.
    ///
    /// - Parameter paths: Each folder's path and the outcome of its check, by index, kept
    ///   between calls so that a folder is checked once for all its links.
    /// - Throws: The reason the link is skipped.
    static func prepare(
        _ link: inout BookmarkImportDocument.Link, in document: BookmarkImportDocument,
        paths: inout [(path: [String], error: BookmarkError?)?]
    ) throws(BookmarkError) {
        if let folder = link.folder, document.folders.indices.contains(folder) {
            if paths.count < document.folders.count {
                paths += repeatElement(nil, count: document.folders.count - paths.count)
            }
            if paths[folder] == nil {
                let path = document.path(of: folder)
                var probe = BookmarkDraft(kind: "folder", itemID: "folder", title: "")
                probe.folder = path
                do {
                    _ = try probe.validated()
                    paths[folder] = (path, nil)
                } catch {
                    paths[folder] = (path, error)
                }
            }
            if let (path, error) = paths[folder] {
                if let error { throw error }
                link.draft.folder = path
            }
        } else if let folder = link.folder {
            link.draft.folder = document.path(of: folder)
        }
        link.draft = try link.draft.validated(checksFolderNames: link.folder == nil)
    }

    /// Merges a later copy of a link in the file into the first: tags joined, the copy's
    /// folder path as a tag, its title when it changed later, a note when the first has
    /// none, the earlier creation time.
    static func merge(
        _ link: BookmarkImportDocument.Link, into kept: inout BookmarkImportDocument.Link
    ) {
        var tags = Set((kept.draft.tags + link.draft.tags).map(ExactName.init))
        let keptPath = kept.draft.folderPath
        let otherPath = link.draft.folderPath
        if otherPath != keptPath && !otherPath.isEmpty {
            tags.insert(ExactName(BookmarkFolderPath.text(otherPath)))
        }
        kept.draft.tags = tags.sorted().map(\.string)
        if let newer = link.updatedAt, let older = kept.updatedAt, newer > older {
            kept.draft.title = link.draft.title
            kept.updatedAt = newer
        }
        if kept.draft.note == nil { kept.draft.note = link.draft.note }
        if let created = link.createdAt, kept.createdAt.map({ created < $0 }) ?? true {
            kept.createdAt = created
        }
    }

    /// Finds or makes the folder row of each folder of the document.
    private static func storeFolders(
        _ folders: [BookmarkImportDocument.Folder], in repository: any BookmarkRepository
    ) throws -> [Int: Int64] {
        let existing = BookmarkFolderTree(try repository.folders())
        struct Sibling: Hashable {
            var parent: Int64?
            var name: ExactName
        }
        var seen: [Sibling: Int] = [:]
        var made: [Sibling: [BookmarkFolder]] = [:]
        var result: [Int: Int64] = [:]
        for (index, folder) in folders.enumerated() {
            let parentID: Int64?
            if let parent = folder.parent {
                parentID = result[parent]  // parents come first, so always there
            } else {
                parentID = nil
            }
            let sibling = Sibling(parent: parentID, name: ExactName(folder.name))
            let ordinal = seen[sibling, default: 0]
            seen[sibling] = ordinal + 1
            let rows =
                existing.children(of: parentID).filter {
                    ExactName.sameBytes($0.name, folder.name)
                }
                + made[sibling, default: []]
            if ordinal < rows.count {
                let row = rows[ordinal]
                if let description = folder.description,
                    !ExactName.sameBytes(description, row.description)
                {
                    try repository.setFolderDescription(description, id: row.id)
                }
                result[index] = row.id
                continue
            }
            let row = try repository.insertFolder(
                name: folder.name, parentID: parentID, description: folder.description,
                createdAt: folder.createdAt, updatedAt: folder.updatedAt)
            made[sibling, default: []].append(row)
            result[index] = row.id
        }
        return result
    }
}

/// The identity of a bookmark: its kind and item ID, as bytes (as the database's unique
/// constraint compares them).
private struct BookmarkIdentity: Hashable {
    var kind: ExactName
    var itemID: ExactName

    init(kind: String, itemID: String) {
        self.kind = ExactName(kind)
        self.itemID = ExactName(itemID)
    }
}

/// Reports how far an import has come: (items done, items in all).
public typealias ImportProgress = (_ done: Int, _ total: Int) -> Void
