import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Browsers' bookmark files, read and written: what `import PrefsInterchange` adds to a
/// ``PrefsKit/BookmarkStore``. PrefsKit alone reads and writes its own JSON.
extension BookmarkStore {
    /// Every bookmark as a Netscape bookmark file, in its folders (empty folders too).
    ///
    /// - Throws: ``DatabaseError`` when the read fails.
    public func exportHTML() throws -> String {
        var text = ""
        try exportHTML { text += $0 }
        return text
    }

    /// The same file as ``exportHTML()``, handed to `write` piece by piece as the bookmarks
    /// are read folder by folder, all in one snapshot of the database: any number of
    /// bookmarks is exported in constant memory.
    ///
    /// - Throws: `write`'s error, or ``DatabaseError`` when the read fails.
    public func exportHTML(to write: (String) throws -> Void) throws {
        try readingSnapshot { repository in
            try NetscapeBookmarkFile.write(
                folders: try repository?.folders() ?? [],
                categoryFolders: try repository?.categoriesOutsideFolders() ?? [],
                links: { group, visit in try repository?.forEach(in: group, visit) }, to: write)
        }
    }

    /// Imports a bookmark file of any format that import reads, told apart by its content:
    /// our JSON, a Netscape bookmark file, Chromium's `Bookmarks` JSON, Safari's
    /// `Bookmarks.plist` (binary or XML). Firefox's `places.sqlite` needs its path:
    /// ``importFile(atPath:bytes:format:progress:)``.
    ///
    /// - Returns: What the import did.
    /// - Throws: ``BookmarkError/malformedImport(_:)`` for a file that none of the formats
    ///   reads (nothing is imported), ``DatabaseError``.
    @discardableResult
    public func importFile(_ bytes: [UInt8], progress: ImportProgress? = nil) throws
        -> BookmarkImportSummary
    {
        try importDocument(try Self.document(reading: bytes), progress: progress)
    }

    /// Imports a bookmark file from a path: every format of ``importFile(_:progress:)``,
    /// and Firefox's `places.sqlite`, which is opened read-only and immutable (never
    /// written, safe while Firefox has it open).
    ///
    /// - Throws: ``BookmarkError/malformedImport(_:)``, ``DatabaseError``.
    /// - Parameters:
    ///   - path: Where the file is (read only for `places.sqlite`).
    ///   - bytes: The file's content.
    ///   - format: The format to read; nil to tell it by the content.
    ///   - progress: Called with (done, total) as the import goes.
    @discardableResult
    public func importFile(
        atPath path: String, bytes: [UInt8], format: BookmarkImportDocument.Format? = nil,
        progress: ImportProgress? = nil
    ) throws -> BookmarkImportSummary {
        try importDocument(
            try Self.document(reading: bytes, atPath: path, format: format), progress: progress)
    }

    /// Reads a bookmark file in a given format, or one told apart by its content.
    ///
    /// - Throws: ``BookmarkError/malformedImport(_:)`` naming what is wrong;
    ///   ``DatabaseError/ioError(path:detail:)`` when a running Firefox's places.sqlite
    ///   cannot be copied to be read.
    public static func document(
        reading bytes: [UInt8], atPath path: String?, format: BookmarkImportDocument.Format?
    ) throws -> BookmarkImportDocument {
        do {
            return try readDocument(bytes, atPath: path, format: format)
        } catch let error as InterchangeError {
            throw BookmarkError.malformedImport(error.description)
        }
    }

    private static func readDocument(
        _ bytes: [UInt8], atPath path: String?, format: BookmarkImportDocument.Format?
    ) throws -> BookmarkImportDocument {
        let isSQLite = bytes.starts(with: Array("SQLite format 3\0".utf8))
        switch format {
        case nil:
            if isSQLite, let path { return try FirefoxPlaces.document(atPath: path) }
            return try document(reading: bytes)
        case .firefox:
            guard let path, isSQLite else {
                throw BookmarkError.malformedImport(
                    "Firefox's places.sqlite is an SQLite file read from a path")
            }
            return try FirefoxPlaces.document(atPath: path)
        case .safari:
            return try SafariBookmarkFile.document(reading: bytes)
        case .html:
            do {
                return try NetscapeBookmarkFile.document(reading: bytes)
            } catch {
                throw InterchangeError(reason: error.reason, location: error.location)
            }
        case .json, .chromium:
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw BookmarkError.malformedImport("the JSON file is not valid UTF-8")
            }
            let json: JSONValue
            do {
                json = try JSONValue(parsing: text)
            } catch {
                throw BookmarkError.malformedImport("invalid JSON: \(error)")
            }
            return format == .chromium
                ? try ChromiumBookmarkFile.document(reading: json) : try jsonDocument(json)
        }
    }

    /// Reads a bookmark file of a format told apart by its content.
    ///
    /// - Throws: ``BookmarkError/malformedImport(_:)`` naming what is wrong.
    public static func document(reading bytes: [UInt8]) throws(BookmarkError)
        -> BookmarkImportDocument
    {
        if bytes.starts(with: Array("bplist00".utf8)) || Self.isXMLPropertyList(bytes) {
            do {
                return try SafariBookmarkFile.document(reading: bytes)
            } catch {
                throw .malformedImport(error.description)
            }
        }
        if bytes.starts(with: Array("SQLite format 3\0".utf8)) {
            throw .malformedImport(
                "an SQLite file is read as Firefox's places.sqlite only from a path, not from standard input"
            )
        }
        let start = bytes.firstIndex { !(NetscapeBookmarkFile.isSpaceOrBOM($0)) } ?? bytes.endIndex
        if start < bytes.endIndex,
            bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "[")
        {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw .malformedImport("the JSON file is not valid UTF-8")
            }
            let json: JSONValue
            do {
                json = try JSONValue(parsing: text)
            } catch {
                throw .malformedImport("invalid JSON: \(error)")
            }
            if json["roots"] != nil {
                do {
                    return try ChromiumBookmarkFile.document(reading: json)
                } catch {
                    throw .malformedImport(error.description)
                }
            }
            return try Self.jsonDocument(json)
        }
        do {
            var document = try NetscapeBookmarkFile.document(reading: bytes)
            if String(validating: bytes, as: UTF8.self) == nil {
                document.warnings.insert(
                    .init(
                        place: .line(1),
                        message: "the file is not valid UTF-8; invalid bytes were replaced"),
                    at: 0)
            }
            return document
        } catch {
            throw .malformedImport(error.description)
        }
    }

    /// Whether a file whose first bytes (64 KB, or all of a shorter file) are these is read
    /// as a Netscape bookmark file: in the given format, or told apart as
    /// ``document(reading:)`` tells it.
    package static func readsAsNetscapeFile(
        head: [UInt8], format: BookmarkImportDocument.Format?
    ) -> Bool {
        switch format {
        case .html: return true
        case nil:
            if head.starts(with: Array("bplist00".utf8)) || isXMLPropertyList(head)
                || head.starts(with: Array("SQLite format 3\0".utf8))
            {
                return false
            }
            let start =
                head.firstIndex { !(NetscapeBookmarkFile.isSpaceOrBOM($0)) } ?? head.endIndex
            return start < head.endIndex && head[start] != UInt8(ascii: "{")
                && head[start] != UInt8(ascii: "[")
        default: return false
        }
    }

    /// Whether a file whose first bytes (64 KB, or all of a shorter file) are these may be
    /// our JSON export, read as ``document(reading:)`` reads it: a JSON object (whether it
    /// is Chromium's file instead shows only further on, where a `roots` member is).
    package static func mayReadAsJSONExport(
        head: [UInt8], format: BookmarkImportDocument.Format?
    ) -> Bool {
        switch format {
        case .json: return true
        case nil:
            if head.starts(with: Array("bplist00".utf8)) || isXMLPropertyList(head) {
                return false
            }
            let start =
                head.firstIndex { !(NetscapeBookmarkFile.isSpaceOrBOM($0)) } ?? head.endIndex
            return start < head.endIndex && head[start] == UInt8(ascii: "{")
        default: return false
        }
    }

    /// Whether a file whose first bytes are these may be Chromium's `Bookmarks` file, read as
    /// ``document(reading:)`` or in the given format reads it: a JSON object.
    package static func mayReadAsChromiumFile(
        head: [UInt8], format: BookmarkImportDocument.Format?
    ) -> Bool {
        format == .chromium || (format == nil && mayReadAsJSONExport(head: head, format: nil))
    }

    /// Reads Chromium's `Bookmarks` file, handed over in pieces twice, into a staging file,
    /// for ``importStaged(_:progress:)``: the outcome of reading it whole, in memory that does
    /// not grow with its links. Nil when it must be read whole after all (it is not valid
    /// JSON, or not a Chromium file; the whole reading names the problem).
    ///
    /// - Parameter pieces: Makes a reader of the file's pieces from its start (called twice).
    /// - Throws: ``BookmarkError/malformedImport(_:)`` when the file changed between the two
    ///   readings, the pieces' errors, ``DatabaseError`` when the staging file fails.
    package static func stageChromiumFile(reading pieces: () throws -> () throws -> [UInt8]?)
        throws -> BookmarkImportStaging?
    {
        try ChromiumBookmarkFile.stage(reading: pieces)
    }

    /// Whether a file whose first bytes are these is read as Safari's binary
    /// `Bookmarks.plist`, in the given format or told apart by its content.
    package static func readsAsBinarySafariFile(
        head: [UInt8], format: BookmarkImportDocument.Format?
    ) -> Bool {
        (format == nil || format == .safari) && head.starts(with: Array("bplist00".utf8))
    }

    /// Reads Safari's binary `Bookmarks.plist` from a file where its objects are into a
    /// staging file, for ``importStaged(_:progress:)``: the outcome of reading it whole, in
    /// memory that does not grow with it. Nil when it must be read whole after all (the
    /// whole reading names what is wrong with it, or it shares a folder or link).
    ///
    /// - Parameters:
    ///   - size: The file's size.
    ///   - read: The file's bytes at an offset (fewer only at its end).
    /// - Throws: `read`'s errors, ``DatabaseError`` when the staging file fails.
    package static func stageBinarySafariFile(
        size: Int, read: @escaping (_ offset: Int, _ count: Int) throws -> [UInt8]
    ) throws -> BookmarkImportStaging? {
        try SafariBookmarkFile.stage(size: size, read: read)
    }

    /// Whether a file whose first bytes are these is read as an XML property list: Safari's
    /// `Bookmarks.plist` converted to XML (`plutil -convert xml1`), in the given format or
    /// told apart by its content.
    package static func readsAsXMLSafariFile(
        head: [UInt8], format: BookmarkImportDocument.Format?
    ) -> Bool {
        (format == nil || format == .safari) && !head.starts(with: Array("bplist".utf8))
            && isXMLPropertyList(head)
    }

    /// Reads Safari's `Bookmarks.plist` in XML, handed over in pieces twice, into a staging
    /// file, for ``importStaged(_:progress:)``: the outcome of reading it whole, in memory
    /// that does not grow with its links. Nil when it must be read whole after all (the
    /// whole reading names what is wrong with it).
    ///
    /// - Parameter pieces: Makes a reader of the file's pieces from its start (called twice).
    /// - Throws: ``BookmarkError/malformedImport(_:)`` when the file changed between the two
    ///   readings, the pieces' errors, ``DatabaseError`` when the staging file fails.
    package static func stageXMLSafariFile(reading pieces: () throws -> () throws -> [UInt8]?)
        throws -> BookmarkImportStaging?
    {
        try SafariBookmarkFile.stageXML(reading: pieces)
    }

    /// Reads a Netscape bookmark file handed over in pieces into a staging file, for
    /// ``importStaged(_:progress:)``: the same outcome as reading it whole, in memory that
    /// does not grow with it. Nil when the file must be read whole after all (a tag or
    /// text longer than 1 MB).
    ///
    /// - Parameters:
    ///   - next: The file's next piece, nil at its end.
    ///   - isValidUTF8: Asked at the end: whether the file was valid UTF-8 (when not, a
    ///     warning says that invalid bytes were replaced, as for a file read whole).
    /// - Throws: ``BookmarkError/malformedImport(_:)`` for a file that is not a bookmark
    ///   file, `next`'s errors, ``DatabaseError`` when the staging file fails.
    package static func stageNetscapeFile(
        reading next: @escaping () throws -> [UInt8]?, isValidUTF8: () -> Bool
    ) throws -> BookmarkImportStaging? {
        let staging: BookmarkImportStaging?
        do {
            staging = try NetscapeBookmarkFile.stage(reading: next)
        } catch let error as InterchangeError {
            throw BookmarkError.malformedImport(error.description)
        }
        if let staging, !isValidUTF8() {
            staging.insertWarning(
                .init(
                    place: .line(1),
                    message: "the file is not valid UTF-8; invalid bytes were replaced"))
        }
        return staging
    }

    private static func isXMLPropertyList(_ bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes.prefix(512), as: UTF8.self)
        return head.contains("<plist") || head.contains("<!DOCTYPE plist")
    }

    /// Imports a Netscape bookmark file (a browser's export, or ours) in one transaction.
    ///
    /// - Parameters:
    ///   - text: The file's text.
    ///   - progress: Called with (done, total) as the import goes.
    /// - Returns: What the import did.
    /// - Throws: ``BookmarkError/malformedImport(_:)`` for a file that is not a bookmark
    ///   file, ``DatabaseError``.
    @discardableResult
    public func importHTML(_ text: String, progress: ImportProgress? = nil) throws
        -> BookmarkImportSummary
    {
        let document: BookmarkImportDocument
        do {
            document = try NetscapeBookmarkFile.document(reading: Array(text.utf8))
        } catch {
            throw BookmarkError.malformedImport(error.description)
        }
        return try importDocument(document, progress: progress)
    }
}

extension BookmarkImportDocument {
    /// The browser format that bytes look like, told cheaply from their content (to point
    /// a user who gives a bookmark file to the preference import to the right command).
    public static func browserFormat(of bytes: [UInt8]) -> Format? {
        if bytes.starts(with: Array("SQLite format 3\0".utf8)) { return .firefox }
        let head = String(decoding: bytes.prefix(1 << 16), as: UTF8.self)
        if head.contains("WebBookmarkType") { return .safari }
        if NetscapeBookmarkFile.looksLikeBookmarkFile(bytes) { return .html }
        let trimmed = head.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if trimmed.hasPrefix("{"), head.contains("\"roots\""), head.contains("\"bookmark_bar\"") {
            return .chromium
        }
        return nil
    }
}
