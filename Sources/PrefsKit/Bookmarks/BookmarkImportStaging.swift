internal import SQLiteCore

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// A bookmark file's links kept on disk while the file is read, for an import of any size
/// in bounded memory: each link is checked and written to a private temporary SQLite file
/// as it comes, with its copies in the file found through an index there, and then handed
/// to the store in file order with its copies merged into it, exactly as
/// ``BookmarkStore/importDocument(_:progress:)`` merges them in memory.
///
/// The file is read to its end before the store is opened, so a file that is not a
/// bookmark file changes nothing.
package final class BookmarkImportStaging {
    /// The folders, skipped links and warnings of the file; its links are here instead.
    package private(set) var document: BookmarkImportDocument
    /// Links that were checked and kept, copies included.
    package private(set) var count = 0
    /// Links that are copies of an earlier one.
    private(set) var merged = 0
    /// Links that the check refused, after the reader's own skipped ones.
    private var refused: [BookmarkImportDocument.Issue] = []
    /// Whether a first copy gave a position (our own export): positions are then settled.
    private(set) var hasPositions = false

    private let connection: Connection
    private let firstCopy: Statement
    private let insert: Statement
    /// Each folder's path, found and checked once for all its links.
    private var paths: [(path: [String], error: BookmarkError?)?] = []
    /// Bit n: the link of sequence number n has later copies.
    private var hasCopies: [UInt64] = []

    /// Opens an empty staging file (deleted when this goes).
    ///
    /// - Throws: ``DatabaseError`` when the temporary file cannot be made.
    package init(format: BookmarkImportDocument.Format) throws {
        document = BookmarkImportDocument(format: format)
        do {
            // An empty path is SQLite's private temporary file, removed when it is closed.
            connection = try Connection(path: "")
            try connection.execute(sql: "PRAGMA journal_mode = OFF")
            try connection.execute(sql: "PRAGMA synchronous = OFF")
            try connection.execute(
                sql: """
                    CREATE TABLE link (
                        seq INTEGER PRIMARY KEY, hash INTEGER NOT NULL, first INTEGER,
                        kind TEXT NOT NULL, item_id TEXT NOT NULL, body BLOB NOT NULL)
                    """)
            // Only first copies are looked up by identity, and only later copies by theirs.
            try connection.execute(
                sql: "CREATE INDEX link_by_hash ON link (hash) WHERE first IS NULL")
            try connection.execute(
                sql: "CREATE INDEX link_by_first ON link (first, seq) WHERE first IS NOT NULL")
            firstCopy = try connection.makeStatement(
                sql: """
                    SELECT seq FROM link
                    WHERE hash = ?1 AND first IS NULL AND kind = ?2 AND item_id = ?3
                    """)
            insert = try connection.makeStatement(
                sql:
                    "INSERT INTO link (seq, hash, first, kind, item_id, body) VALUES (?, ?, ?, ?, ?, ?)"
            )
            try connection.execute(sql: "BEGIN")
        } catch {
            throw DatabaseError.ioError(
                path: "a temporary file", detail: "cannot stage the import: \(error)")
        }
    }

    /// Checks a link of the file (the folders it names must be in ``document`` already)
    /// and keeps it; a link that fails the check is listed as skipped.
    ///
    /// - Parameter folders: The file's folders so far.
    /// - Throws: ``DatabaseError`` when the staging file cannot be written.
    package func add(_ link: BookmarkImportDocument.Link, folders: [BookmarkImportDocument.Folder])
        throws
    {
        document.folders = folders
        var link = link
        do {
            try BookmarkStore.prepare(&link, in: document, paths: &paths)
        } catch {
            refused.append(.init(place: link.place, message: "\(error)"))
            return
        }
        let hash = Self.identityHash(kind: link.draft.kind, itemID: link.draft.itemID)
        let sequence = Int64(count)
        do {
            try firstCopy.bind(hash, at: 1)
            try firstCopy.bind(link.draft.kind, at: 2)
            try firstCopy.bind(link.draft.itemID, at: 3)
            let first: Int64? = try firstCopy.step() ? firstCopy.int64(at: 0) : nil
            firstCopy.reset()
            if let first {
                merged += 1
                let word = Int(first) / 64
                if hasCopies.count <= word { hasCopies += repeatElement(0, count: word + 1) }
                hasCopies[word] |= 1 << UInt64(Int(first) % 64)
            } else if link.position != nil {
                hasPositions = true
            }
            try insert.bind(sequence, at: 1)
            try insert.bind(hash, at: 2)
            try insert.bind(first.map(SQLiteValue.integer) ?? .null, at: 3)
            try insert.bind(link.draft.kind, at: 4)
            try insert.bind(link.draft.itemID, at: 5)
            try insert.bind(.blob(StagedLink.encoded(link)), at: 6)
            _ = try insert.step()
            insert.reset()
        } catch {
            firstCopy.reset()
            insert.reset()
            throw DatabaseError.ioError(
                path: "a temporary file", detail: "cannot stage the import: \(error)")
        }
        count += 1
    }

    /// Ends the reading: the reader's document (folders, skipped links, warnings).
    package func finish(_ read: BookmarkImportDocument) {
        document = read
        document.links = []
        document.skipped += refused
        refused = []
    }

    /// Puts a warning before the reader's.
    package func insertWarning(_ warning: BookmarkImportDocument.Issue) {
        document.warnings.insert(warning, at: 0)
    }

    /// The links, in file order, each with its later copies merged into it; the reader
    /// starts from the first link each time this is called.
    ///
    /// - Throws: ``DatabaseError`` when the staging file cannot be read.
    func mergedLinks() throws -> () throws -> BookmarkImportDocument.Link? {
        do {
            let all = try connection.makeStatement(
                sql: "SELECT seq, body FROM link WHERE first IS NULL ORDER BY seq")
            let copies = try connection.makeStatement(
                sql: "SELECT body FROM link WHERE first = ? ORDER BY seq")
            let hasCopies = hasCopies
            return {
                do {
                    guard try all.step() else { return nil }
                    let sequence = Int(all.int64(at: 0))
                    var link = try StagedLink.decoded(all.blob(at: 1))
                    let word = sequence / 64
                    if word < hasCopies.count, hasCopies[word] & (1 << UInt64(sequence % 64)) != 0 {
                        try copies.bind(Int64(sequence), at: 1)
                        defer { copies.reset() }
                        while try copies.step() {
                            BookmarkStore.merge(
                                try StagedLink.decoded(copies.blob(at: 0)), into: &link)
                        }
                    }
                    return link
                } catch let error as DatabaseError {
                    throw error
                } catch {
                    throw DatabaseError.ioError(
                        path: "a temporary file", detail: "cannot read the staged import: \(error)")
                }
            }
        } catch {
            throw DatabaseError.ioError(
                path: "a temporary file", detail: "cannot read the staged import: \(error)")
        }
    }

    /// FNV-1a of the kind's and the item ID's bytes, with a byte that UTF-8 never holds
    /// between them: equal identities have equal hashes in every process.
    static func identityHash(kind: String, itemID: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in kind.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash = (hash ^ 0xFF) &* 0x100_0000_01b3
        for byte in itemID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int64(bitPattern: hash)
    }
}

/// A checked link as the bytes of a staging row, and back.
enum StagedLink {
    static func encoded(_ link: BookmarkImportDocument.Link) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        func integer(_ value: Int64) {
            withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
        }
        func text(_ value: String) {
            integer(Int64(value.utf8.count))
            bytes += value.utf8
        }
        func optional<T>(_ value: T?, _ write: (T) -> Void) {
            if let value {
                bytes.append(1)
                write(value)
            } else {
                bytes.append(0)
            }
        }
        func date(_ value: Date) {
            integer(Int64(bitPattern: value.timeIntervalSinceReferenceDate.bitPattern))
        }
        func texts(_ values: [String]) {
            integer(Int64(values.count))
            values.forEach(text)
        }
        let draft = link.draft
        text(draft.kind)
        text(draft.itemID)
        text(draft.title)
        optional(draft.url?.absoluteString, text)
        optional(draft.category, text)
        optional(draft.folder, texts)
        texts(draft.tags)
        optional(draft.note, text)
        optional(link.folder) { integer(Int64($0)) }
        optional(link.id, integer)
        optional(link.position) { integer(Int64($0)) }
        optional(link.createdAt, date)
        optional(link.updatedAt, date)
        switch link.place {
        case .line(let line):
            bytes.append(0)
            integer(Int64(line))
        case .path(let path):
            bytes.append(1)
            text(path)
        }
        return Data(bytes)
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String { "a staged link is cut short" }
    }

    static func decoded(_ data: Data) throws -> BookmarkImportDocument.Link {
        try data.withUnsafeBytes {
            (buffer: UnsafeRawBufferPointer) throws -> BookmarkImportDocument.Link in
            var offset = 0
            func integer() throws -> Int64 {
                guard offset + 8 <= buffer.count else { throw Malformed() }
                var value: Int64 = 0
                withUnsafeMutableBytes(of: &value) {
                    $0.copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + 8]))
                }
                offset += 8
                return Int64(littleEndian: value)
            }
            func text() throws -> String {
                let count = Int(try integer())
                guard count >= 0, offset + count <= buffer.count else { throw Malformed() }
                defer { offset += count }
                return String(decoding: buffer[offset..<offset + count], as: UTF8.self)
            }
            func flag() throws -> Bool {
                guard offset < buffer.count else { throw Malformed() }
                defer { offset += 1 }
                return buffer[offset] != 0
            }
            func date() throws -> Date {
                Date(
                    timeIntervalSinceReferenceDate: Double(
                        bitPattern: UInt64(bitPattern: try integer())))
            }
            func texts() throws -> [String] {
                let count = Int(try integer())
                guard count >= 0, count <= buffer.count else { throw Malformed() }
                var values: [String] = []
                values.reserveCapacity(count)
                for _ in 0..<count { values.append(try text()) }
                return values
            }
            let kind = try text()
            let itemID = try text()
            let title = try text()
            let url = try flag() ? URL(string: try text()) : nil
            let category = try flag() ? try text() : nil
            let folder = try flag() ? try texts() : nil
            let tags = try texts()
            let note = try flag() ? try text() : nil
            var link = BookmarkImportDocument.Link(
                draft: BookmarkDraft(
                    kind: kind, itemID: itemID, title: title, url: url, category: category,
                    folder: folder, tags: tags, note: note),
                place: .line(0))
            link.folder = try flag() ? Int(try integer()) : nil
            link.id = try flag() ? try integer() : nil
            link.position = try flag() ? Int(try integer()) : nil
            link.createdAt = try flag() ? try date() : nil
            link.updatedAt = try flag() ? try date() : nil
            link.place = try flag() ? .path(try text()) : .line(Int(try integer()))
            return link
        }
    }
}
