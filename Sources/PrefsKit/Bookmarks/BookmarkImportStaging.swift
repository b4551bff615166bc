internal import SQLiteCore

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// A bookmark file's links kept on disk while the file is read, for an import of any size
/// in bounded memory: each link is checked and written to a private temporary SQLite file
/// as it comes; once the file is read, the copies of each link are found by sorting the
/// links by the hash of their identity (``resolveCopies()``), and the links are handed to
/// the store in file order with their copies merged in, exactly as
/// ``BookmarkStore/importDocument(_:progress:)`` merges them in memory.
///
/// The copies are not looked up as each link comes: an index of the hashes filled in the
/// file's order takes each one at a random place, and once it outgrows the staging file's
/// cache every link cost reads and writes of the file, more the larger the file.
///
/// The file is read to its end before the store is opened, so a file that is not a
/// bookmark file changes nothing.
package final class BookmarkImportStaging {
    /// The folders, skipped links and warnings of the file; its links are here instead.
    package private(set) var document: BookmarkImportDocument
    /// Links that were checked and kept, copies included.
    package private(set) var count = 0
    /// Links that are copies of an earlier one (known after ``resolveCopies()``).
    private(set) var merged = 0
    /// Links that the check refused, after the reader's own skipped ones.
    private var refused: [BookmarkImportDocument.Issue] = []
    /// Whether a first copy gave a position (our own export): positions are then settled
    /// (known after ``resolveCopies()``).
    private(set) var hasPositions = false

    private let connection: Connection
    private let insert: Statement
    /// The hash that groups a link with its copies: ``identityHash(kind:itemID:)``.
    private let hashing: (String, String) -> Int64
    /// Whether ``resolveCopies()`` has run.
    private var isResolved = false
    /// Each folder's path, found and checked once for all its links.
    private var paths: [(path: [String], error: BookmarkError?)?] = []
    /// Bit n: the link of sequence number n has later copies.
    private var hasCopies: [UInt64] = []

    /// Opens an empty staging file (deleted when this goes).
    ///
    /// - Parameter hashing: The identity hash; tests give one under which every link
    ///   collides.
    /// - Throws: ``DatabaseError`` when the temporary file cannot be made.
    package init(
        format: BookmarkImportDocument.Format,
        hashing: @escaping (String, String) -> Int64 = { identityHash(kind: $0, itemID: $1) }
    ) throws {
        document = BookmarkImportDocument(format: format)
        self.hashing = hashing
        do {
            // An empty path is SQLite's private temporary file, removed when it is closed.
            connection = try Connection(path: "")
            try connection.execute(sql: "PRAGMA journal_mode = OFF")
            try connection.execute(sql: "PRAGMA synchronous = OFF")
            try connection.execute(
                sql: """
                    CREATE TABLE link (
                        seq INTEGER PRIMARY KEY, hash INTEGER NOT NULL, first INTEGER,
                        kind TEXT NOT NULL, item_id TEXT NOT NULL,
                        positioned INTEGER NOT NULL, body BLOB NOT NULL)
                    """)
            insert = try connection.makeStatement(
                sql: """
                    INSERT INTO link (seq, hash, kind, item_id, positioned, body)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """)
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
        do {
            try insert.bind(Int64(count), at: 1)
            try insert.bind(hashing(link.draft.kind, link.draft.itemID), at: 2)
            try insert.bind(link.draft.kind, at: 3)
            try insert.bind(link.draft.itemID, at: 4)
            try insert.bind(Int64(link.position == nil ? 0 : 1), at: 5)
            try insert.bind(.blob(StagedLink.encoded(link)), at: 6)
            _ = try insert.step()
            insert.reset()
        } catch {
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

    /// Finds the copies of each link, once the file is read: sets each later copy's
    /// `first` to the sequence number of its first copy, and counts ``merged`` and
    /// ``hasPositions``. Runs once; later calls do nothing.
    ///
    /// The index of the hashes is made in one sort, and read in its order: a link whose
    /// hash the link before it in that order lacks has no earlier copy. Only links with the
    /// hash of another (a copy, or two identities with one hash) are compared by identity.
    ///
    /// - Throws: ``DatabaseError`` when the staging file cannot be read or written.
    func resolveCopies() throws {
        guard !isResolved else { return }
        do {
            try connection.execute(sql: "CREATE INDEX link_by_hash ON link (hash, seq)")
            try connection.execute(
                sql: "CREATE TABLE copy (seq INTEGER PRIMARY KEY, first INTEGER NOT NULL)")
            let byHash = try connection.makeStatement(
                sql: "SELECT hash, seq FROM link ORDER BY hash, seq")
            let identity = try connection.makeStatement(
                sql: "SELECT kind, item_id FROM link WHERE seq = ?")
            let firstCopy = try connection.makeStatement(
                sql: "SELECT min(seq) FROM link WHERE hash = ?1 AND kind = ?2 AND item_id = ?3")
            let record = try connection.makeStatement(
                sql: "INSERT INTO copy (seq, first) VALUES (?, ?)")
            var previous: Int64?
            while try byHash.step() {
                let hash = byHash.int64(at: 0)
                let sequence = byHash.int64(at: 1)
                defer { previous = hash }
                guard hash == previous else { continue }
                try identity.bind(sequence, at: 1)
                guard try identity.step() else {
                    identity.reset()
                    continue
                }
                let kind = identity.text(at: 0)
                let itemID = identity.text(at: 1)
                identity.reset()
                try firstCopy.bind(hash, at: 1)
                try firstCopy.bind(kind, at: 2)
                try firstCopy.bind(itemID, at: 3)
                let first = try firstCopy.step() ? firstCopy.int64(at: 0) : sequence
                firstCopy.reset()
                guard first < sequence else { continue }
                try record.bind(sequence, at: 1)
                try record.bind(first, at: 2)
                _ = try record.step()
                record.reset()
            }
            // In the order of the sequence numbers, so the table is written front to back.
            try connection.execute(
                sql: """
                    UPDATE link SET first = (SELECT first FROM copy WHERE copy.seq = link.seq)
                    WHERE seq IN (SELECT seq FROM copy)
                    """)
            try connection.execute(
                sql: "CREATE INDEX link_by_first ON link (first, seq) WHERE first IS NOT NULL")
            let firsts = try connection.makeStatement(sql: "SELECT first FROM copy")
            var merged = 0
            while try firsts.step() {
                merged += 1
                let first = Int(firsts.int64(at: 0))
                let word = first / 64
                if hasCopies.count <= word {
                    hasCopies += repeatElement(0, count: word + 1 - hasCopies.count)
                }
                hasCopies[word] |= 1 << UInt64(first % 64)
            }
            self.merged = merged
            hasPositions =
                try connection.scalar(
                    Int64.self,
                    sql: "SELECT EXISTS (SELECT 1 FROM link WHERE first IS NULL AND positioned)")
                == 1
            isResolved = true
        } catch {
            throw DatabaseError.ioError(
                path: "a temporary file", detail: "cannot stage the import: \(error)")
        }
    }

    /// The links, in file order, each with its later copies merged into it; the reader
    /// starts from the first link each time this is called.
    ///
    /// - Throws: ``DatabaseError`` when the staging file cannot be read.
    func mergedLinks() throws -> () throws -> BookmarkImportDocument.Link? {
        try resolveCopies()
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
