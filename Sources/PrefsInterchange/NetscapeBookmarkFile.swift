import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The Netscape bookmark file that browsers export and import (`bookmarks.html`).
///
/// Folders are `<H3>` names followed by a `<DL>` list, nested to any depth; a `<DD>` after
/// an `<H3>` is the folder's description, after a link its note (as is a `DESCRIPTION`
/// attribute). `ADD_DATE` and `LAST_MODIFIED` are Unix seconds (milliseconds and
/// microseconds are recognized), `TAGS` is comma-separated. Our own export adds `KIND`,
/// `ITEM_ID` and `POSITION` attributes (browsers ignore them) so that a round trip keeps
/// each bookmark's identity and its place among the bookmarks of its kind; links from a
/// browser become kind `link` with the URL as their item ID.
public enum NetscapeBookmarkFile {
    /// Why a file could not be read at all, with its line.

    /// The kind given to links imported from a browser.
    public static let browserKind = "link"

    /// Whether bytes look like a bookmark file: the doctype, or else links (`<A ... HREF=`),
    /// with or without `<DT>`, as hand-made files and buku's and Shaarli's fragments are.
    static func looksLikeBookmarkFile(_ bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self).uppercased()
        if head.contains("<!DOCTYPE NETSCAPE-BOOKMARK-FILE-1>") { return true }
        let sample = String(decoding: bytes.prefix(1 << 16), as: UTF8.self).uppercased()
        let opensLink = ["<A ", "<A\t", "<A\n", "<A\r"].contains { sample.contains($0) }
        return opensLink && sample.contains("HREF")
    }

    /// White space or a byte of the UTF-8 byte-order mark, skipped before detecting a format.
    static func isSpaceOrBOM(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0xEF
            || byte == 0xBB || byte == 0xBF
    }

    // MARK: - Writing

    /// Writes bookmarks in their folders: every folder of the tree (empty ones too), and
    /// for a bookmark with a category but no folder row, the top-level folder of that name.
    public static func document(for bookmarks: [Bookmark], folders: [BookmarkFolder] = []) -> String
    {
        let tree = BookmarkFolderTree(folders)
        let topLevel = tree.children(of: nil)
        var byFolder: [Int64: [Bookmark]] = [:]
        var categoryFolders: [String] = []
        var byCategory: [ExactName: [Bookmark]] = [:]
        var loose: [Bookmark] = []
        for bookmark in bookmarks {
            if let id = bookmark.folderID, tree.contains(id) {
                byFolder[id, default: []].append(bookmark)
            } else if let category = bookmark.category {
                if let folder = topLevel.first(where: { ExactName.sameBytes($0.name, category) }) {
                    byFolder[folder.id, default: []].append(bookmark)
                } else {
                    let name = ExactName(category)
                    if byCategory[name] == nil { categoryFolders.append(category) }
                    byCategory[name, default: []].append(bookmark)
                }
            } else {
                loose.append(bookmark)
            }
        }
        var text = ""
        // The groups come from arrays, and the sink appends: nothing here throws.
        try? write(
            folders: folders, categoryFolders: categoryFolders,
            links: { group, visit in
                let links: [Bookmark] =
                    switch group {
                    case .folder(let id, _): byFolder[id] ?? []
                    case .category(let name): byCategory[ExactName(name)] ?? []
                    case .loose: loose
                    }
                for bookmark in links { try visit(bookmark) }
            }, to: { text += $0 })
        return text
    }

    /// The same file, handed to `sink` in pieces of about 64 KB, with the bookmarks of each
    /// heading asked of `links` as it is written: an export that reads them from the
    /// database group by group holds one bookmark at a time.
    ///
    /// - Parameters:
    ///   - folders: Every folder of the tree.
    ///   - categoryFolders: The categories of bookmarks in no folder that name no top-level
    ///     folder, in the order of their first bookmark: each becomes a top-level folder.
    ///   - links: Calls its second argument with each bookmark of a group, in list order.
    package static func write(
        folders: [BookmarkFolder], categoryFolders: [String],
        links: (BookmarkFileGroup, (Bookmark) throws -> Void) throws -> Void,
        to sink: (String) throws -> Void
    ) throws {
        // The groups' closures use the sink; `links` does not keep them.
        try withoutActuallyEscaping(sink) { sink in
            var text = """
                <!DOCTYPE NETSCAPE-Bookmark-file-1>
                <!-- This is an automatically generated file.
                     It will be read and overwritten.
                     DO NOT EDIT! -->
                <META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
                <TITLE>Bookmarks</TITLE>
                <H1>Bookmarks</H1>
                <DL><p>

                """
            let tree = BookmarkFolderTree(folders)
            let topLevel = tree.children(of: nil)
            // A category's bookmarks go to the first top-level folder of its name.
            var named: Set<ExactName> = []
            var categoryOf: [Int64: String] = [:]
            for folder in topLevel where named.insert(ExactName(folder.name)).inserted {
                categoryOf[folder.id] = folder.name
            }
            enum Step {
                case folder(BookmarkFolder, depth: Int)
                case categoryFolder(String)
                case links(BookmarkFileGroup, depth: Int)
                case close(depth: Int)
            }
            var steps: [Step] = [.links(.loose, depth: 1)]
            steps += categoryFolders.filter { !named.contains(ExactName($0)) }.reversed()
                .map(Step.categoryFolder)
            steps += topLevel.reversed().map { .folder($0, depth: 1) }
            func indent(_ depth: Int) -> String { String(repeating: "    ", count: depth) }
            func flushIfFull() throws {
                if text.utf8.count >= 1 << 16 {
                    try sink(text)
                    text = ""
                }
            }
            while let step = steps.popLast() {
                switch step {
                case .folder(let folder, let depth):
                    var attributes = ""
                    if let created = folder.createdAt {
                        attributes += " ADD_DATE=\"\(unixSeconds(created))\""
                    }
                    if let updated = folder.updatedAt {
                        attributes += " LAST_MODIFIED=\"\(unixSeconds(updated))\""
                    }
                    text += "\(indent(depth))<DT><H3\(attributes)>\(escape(folder.name))</H3>\n"
                    if let description = folder.description {
                        text += "\(indent(depth))<DD>\(escape(description))\n"
                    }
                    text += "\(indent(depth))<DL><p>\n"
                    steps.append(.close(depth: depth))
                    steps.append(
                        .links(
                            .folder(id: folder.id, orCategory: categoryOf[folder.id]),
                            depth: depth + 1))
                    steps += tree.children(of: folder.id).reversed().map {
                        .folder($0, depth: depth + 1)
                    }
                case .categoryFolder(let name):
                    text += "    <DT><H3>\(escape(name))</H3>\n    <DL><p>\n"
                    steps.append(.close(depth: 1))
                    steps.append(.links(.category(name), depth: 2))
                case .links(let group, let depth):
                    let prefix = indent(depth)
                    try links(group) { bookmark in
                        text += link(bookmark, indent: prefix)
                        try flushIfFull()
                    }
                case .close(let depth):
                    text += "\(indent(depth))</DL><p>\n"
                }
                try flushIfFull()
            }
            text += "</DL><p>\n"
            try sink(text)
        }
    }

    private static func link(_ bookmark: Bookmark, indent: String) -> String {
        var attributes = "HREF=\"\(escape(bookmark.urlString ?? ""))\""
        attributes += " ADD_DATE=\"\(unixSeconds(bookmark.createdAt))\""
        attributes += " LAST_MODIFIED=\"\(unixSeconds(bookmark.updatedAt))\""
        if !bookmark.tags.isEmpty {
            attributes += " TAGS=\"\(escape(bookmark.tags.joined(separator: ",")))\""
        }
        attributes += " KIND=\"\(escape(bookmark.kind))\" ITEM_ID=\"\(escape(bookmark.itemID))\""
        attributes += " POSITION=\"\(bookmark.position)\""
        var text = "\(indent)<DT><A \(attributes)>\(escape(bookmark.title))</A>\n"
        if let note = bookmark.note { text += "\(indent)<DD>\(escape(note))\n" }
        return text
    }

    private static func unixSeconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970).rounded(.down))
    }

    static func escape(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "\n": output += "&#10;"
            case "\r": output += "&#13;"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    // MARK: - Reading

    /// Reads a bookmark file, tolerating what browsers and other tools write: any
    /// attribute on any tag, unknown tags, missing end tags, comments, CRLF, a byte-order
    /// mark, and both folder layouts (`<DT><H3>` inside a `<DL>`, or before the first one
    /// as Safari writes it). Links that cannot be imported are listed in
    /// ``BookmarkImportDocument/skipped``, doubtful things in its warnings.
    ///
    /// - Throws: ``InterchangeError`` only for a file that is not a bookmark file at all.
    public static func document(reading bytes: [UInt8]) throws(InterchangeError)
        -> BookmarkImportDocument
    {
        var reader = Reader(bytes: bytes)
        return try reader.read()
    }

    /// Reads a bookmark file handed over in pieces into a staging file, link by link,
    /// holding about 4 MB of it at a time: for an import of any size. The outcome is the
    /// one of ``document(reading:)``, or nil when the file has a tag or text so long (over
    /// 1 MB) that reading it in a window could differ; it is then read whole.
    ///
    /// - Parameter next: The file's next piece, nil at its end.
    /// - Throws: ``InterchangeError`` for a file that is not a bookmark file at all;
    ///   `next`'s errors; ``DatabaseError`` when the staging file fails.
    package static func stage(reading next: @escaping () throws -> [UInt8]?) throws
        -> BookmarkImportStaging?
    {
        let staging = try BookmarkImportStaging(format: .html)
        var reader = Reader(bytes: [])
        reader.source = next
        reader.exhausted = false
        reader.sink = { link, folders in try staging.add(link, folders: folders) }
        try reader.fill()
        let document = try reader.read()
        if let error = reader.failure { throw error }
        if reader.isCut { return nil }
        staging.finish(document)
        return staging
    }

    private struct Tag {
        var name: String
        var isClosing: Bool
        var attributes: Attributes
    }

    /// A tag's few attributes, by upper-cased name, the first of a name kept: a list
    /// searched in order costs less than hashing every name.
    private struct Attributes: ExpressibleByDictionaryLiteral {
        private var pairs: [(name: String, value: String)] = []

        init(dictionaryLiteral elements: (String, String)...) {
            pairs = elements.map { (name: $0.0, value: $0.1) }
        }

        subscript(name: String) -> String? {
            pairs.first { $0.name == name }?.value
        }

        /// Adds an attribute unless the tag has one of that name already.
        mutating func addIfAbsent(_ name: String, _ value: String) {
            if self[name] == nil { pairs.append((name, value)) }
        }
    }

    /// Tags that end the text of a title or a `<DD>` when its end tag is missing.
    private static let structuralTags: Set<String> = ["DT", "DL", "DD", "H3", "A", "HR", "P", "H1"]

    private struct Reader: MarkupCursor {
        var bytes: [UInt8]
        var position = 0
        var document = BookmarkImportDocument(format: .html)
        /// The rest of the file, in pieces, when it is read in a window; `bytes` then holds
        /// the window, from the last tag read on.
        var source: (() throws -> [UInt8]?)?
        /// Whether `bytes` reaches the end of the file.
        var exhausted = true
        /// Takes each link when it is complete (its `<DD>` note read) instead of
        /// `document.links`, with the folders so far.
        var sink: ((BookmarkImportDocument.Link, [BookmarkImportDocument.Folder]) throws -> Void)?
        /// The last link, while a `<DD>` may still add its note.
        var pendingLink: BookmarkImportDocument.Link?
        /// An error of `source` or `sink`, which stopped the reading.
        var failure: (any Error)?
        /// Whether something ran to the window's end before the file's: the outcome could
        /// differ from reading the whole file.
        var isCut = false
        /// How much of the file the window holds ahead of each tag.
        static let lookahead = 1 << 20
        /// Tags read, against the decoding budget (values and time).
        var budget = DecodingBudget()
        /// The folder of each open `<DL>` (nil for the top level).
        var lists: [Int?] = []
        var depths: [Int] = []
        var pendingFolder: Int?
        var last: Last = .nothing
        var countedUpTo = 0
        var countedLines = 1

        enum Last {
            case nothing
            case folder(Int)
            /// The pending link.
            case link
        }

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// The 1-based line of a byte offset, counted on (or back) from the last one asked
        /// for.
        mutating func line(at offset: Int) -> Int {
            if offset < countedUpTo {
                let from = max(0, offset)
                countedLines -= bytes[from..<countedUpTo].count { $0 == 0x0A }
                countedUpTo = from
            }
            let end = min(offset, bytes.count)
            let from = countedUpTo
            countedLines += bytes.withUnsafeBufferPointer { buffer in
                var lines = 0
                for index in from..<max(from, end) where buffer[index] == 0x0A { lines += 1 }
                return lines
            }
            countedUpTo = max(from, end)
            return countedLines
        }

        mutating func warn(_ message: String, at offset: Int) {
            document.warnings.append(.init(place: .line(line(at: offset)), message: message))
        }

        var currentFolder: Int? { lists.last ?? nil }

        /// Moves the window on to the position, holding at least ``lookahead`` bytes past
        /// it (or the rest of the file).
        mutating func fill() throws {
            guard !exhausted, let source else { return }
            if bytes.count - position >= Self.lookahead { return }
            if position > 0 {
                _ = line(at: position)
                bytes.removeSubrange(..<position)
                countedUpTo -= position
                position = 0
            }
            while bytes.count < 2 * Self.lookahead {
                guard let piece = try source() else {
                    exhausted = true
                    return
                }
                bytes += piece
            }
        }

        /// Hands the pending link on.
        mutating func flushLink() {
            guard let link = pendingLink else { return }
            pendingLink = nil
            guard let sink else {
                document.links.append(link)
                return
            }
            do {
                try sink(link, document.folders)
            } catch {
                failure = error
            }
        }

        /// Whether the reading must stop: a piece or the sink failed, or a tag ran to the
        /// window's end.
        mutating func mustStop() -> Bool {
            if !exhausted && bytes.count - position < 64 { isCut = true }
            return failure != nil || isCut
        }

        mutating func read() throws(InterchangeError) -> BookmarkImportDocument {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
            guard NetscapeBookmarkFile.looksLikeBookmarkFile(bytes) else {
                throw InterchangeError(
                    reason: "not a Netscape bookmark file (no <!DOCTYPE NETSCAPE-Bookmark-file-1>"
                        + " and no <A HREF> links)",
                    location: .line(1))
            }
            let head = String(decoding: bytes.prefix(4096), as: UTF8.self).uppercased()
            if !head.contains("<!DOCTYPE NETSCAPE-BOOKMARK-FILE-1>") {
                warn(
                    "no <!DOCTYPE NETSCAPE-Bookmark-file-1> header; read as a bookmark file", at: 0)
            }
            while position < bytes.count {
                do {
                    try fill()
                } catch {
                    failure = error
                    break
                }
                guard let next = bytes[position...].firstIndex(of: UInt8(ascii: "<")) else {
                    if !exhausted { isCut = true }
                    break
                }
                position = next
                if hasPrefix("<!--") {
                    let start = position
                    guard advance(past: "-->") else {
                        if !exhausted { isCut = true }
                        warn("a comment is not closed; the rest of the file is ignored", at: start)
                        break
                    }
                    if mustStop() { break }
                    continue
                }
                if position + 1 < bytes.count,
                    bytes[position + 1] == UInt8(ascii: "!")
                        || bytes[position + 1] == UInt8(ascii: "?")
                {
                    guard advance(past: ">") else {
                        if !exhausted { isCut = true }
                        break
                    }
                    if mustStop() { break }
                    continue
                }
                let start = position
                guard let tag = readTag() else {
                    position += 1
                    continue
                }
                do {
                    try budget.spend()
                } catch {
                    throw InterchangeError(reason: error.reason, location: .line(line(at: start)))
                }
                handle(tag, at: start)
                if mustStop() { break }
            }
            flushLink()
            return document
        }

        mutating func handle(_ tag: Tag, at start: Int) {
            switch (tag.name, tag.isClosing) {
            case ("H3", false):
                let name = cleanedText(readText(closing: "H3", at: start), at: start)
                var folder = BookmarkImportDocument.Folder(
                    name: name.isEmpty ? "Untitled folder" : name, parent: currentFolder)
                folder.createdAt = date(tag, "ADD_DATE", at: start)
                folder.updatedAt = date(tag, "LAST_MODIFIED", at: start)
                if name.isEmpty {
                    warn("a folder without a name is called 'Untitled folder'", at: start)
                }
                flushLink()
                pendingFolder = document.addFolder(
                    folder, depths: &depths, place: .line(line(at: start)))
                last = pendingFolder.map(Last.folder) ?? .nothing
            case ("DL", false):
                lists.append(pendingFolder ?? currentFolder)
                pendingFolder = nil
            case ("DL", true):
                flushLink()
                if lists.isEmpty {
                    warn("</DL> without an open <DL> is ignored", at: start)
                } else {
                    lists.removeLast()
                }
                pendingFolder = nil
                last = .nothing
            case ("A", false):
                flushLink()
                readLink(tag, at: start)
                pendingFolder = nil
            case ("DD", false):
                let text = readText(closing: "DD", at: start, warnsWhenUnclosed: false)
                let note = BookmarkImportDocument.cleanedNote(text)
                guard !note.isEmpty else { break }
                switch last {
                case .folder(let index):
                    document.folders[index].description = note
                case .link:
                    let existing = pendingLink?.draft.note
                    if existing == nil || existing == "" {
                        pendingLink?.draft.note = note
                    } else if existing != note {
                        pendingLink?.draft.note = (existing ?? "") + "\n" + note
                    }
                case .nothing:
                    warn("a <DD> description that follows no link or folder is ignored", at: start)
                }
                last = .nothing
                flushLink()
            default:
                break
            }
        }

        mutating func readLink(_ tag: Tag, at start: Int) {
            let title = cleanedText(readText(closing: "A", at: start), at: start)
            let place = BookmarkImportDocument.Place.line(line(at: start))
            let href = (tag.attributes["HREF"] ?? "").trimmingWhitespace
            let kind = tag.attributes["KIND"].flatMap { $0.isEmpty ? nil : $0 }
            let itemID = tag.attributes["ITEM_ID"].flatMap { $0.isEmpty ? nil : $0 }
            // Our own export names an item of the app, which may have no URL.
            let isAppItem = kind != nil && itemID != nil && href.isEmpty
            let (url, reasonToSkip) = BookmarkImportDocument.linkURL(href)
            if !isAppItem, let reason = reasonToSkip {
                let named = title.isEmpty ? reason : "\(reason) ('\(title)')"
                document.skipped.append(.init(place: place, message: named))
                last = .nothing
                return
            }
            let tags = (tag.attributes["TAGS"] ?? "").utf8.split(separator: UInt8(ascii: ","))
                .map { BookmarkImportDocument.cleaned(String(decoding: $0, as: UTF8.self)).text }
                .filter { !$0.isEmpty }
            var position: Int?
            if let text = tag.attributes["POSITION"] {
                if let value = Int(text), value >= 0 {
                    position = value
                } else {
                    warn("POSITION '\(text)' is not a non-negative integer; ignored", at: start)
                }
            }
            let description = tag.attributes["DESCRIPTION"].map(BookmarkImportDocument.cleanedNote)
            let added = date(tag, "ADD_DATE", at: start)
            pendingLink = BookmarkImportDocument.Link(
                draft: BookmarkDraft(
                    kind: kind ?? NetscapeBookmarkFile.browserKind, itemID: itemID ?? href,
                    title: title, url: url, tags: tags,
                    note: description.flatMap { $0.isEmpty ? nil : $0 }),
                folder: currentFolder, position: position,
                createdAt: added,
                // Without a LAST_MODIFIED, last changed when it was added.
                updatedAt: date(tag, "LAST_MODIFIED", at: start) ?? added, place: place)
            last = .link
        }

        mutating func cleanedText(_ raw: String, at start: Int) -> String {
            let (text, hadControl) = BookmarkImportDocument.cleaned(raw)
            if hadControl { warn("control characters in a title were removed", at: start) }
            return text
        }

        mutating func date(_ tag: Tag, _ attribute: String, at start: Int) -> Date? {
            // "0" says "no date", as Shaarli writes it.
            guard let text = tag.attributes[attribute], !text.isEmpty,
                text.trimmingWhitespace != "0"
            else { return nil }
            guard let date = NetscapeBookmarkFile.date(fromUnix: text) else {
                warn(
                    "\(attribute) '\(text)' is not a Unix time; the import time is used", at: start)
                return nil
            }
            return date
        }

        /// Reads a tag at '<', or returns nil (position unchanged) when '<' starts none.
        mutating func readTag() -> Tag? {
            let start = position
            position += 1
            let isClosing = skip(UInt8(ascii: "/"))
            let nameStart = position
            while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
            guard position > nameStart else {
                position = start
                return nil
            }
            let name = Self.upperCasedASCII(bytes[nameStart..<position])
            var tag = Tag(name: name, isClosing: isClosing, attributes: [:])
            while true {
                skipWhitespace()
                guard position < bytes.count else {
                    warn("the tag <\(name)> is not closed with '>'", at: start)
                    return tag
                }
                switch bytes[position] {
                case UInt8(ascii: ">"):
                    position += 1
                    return tag
                case UInt8(ascii: "<"):
                    warn("the tag <\(name)> is not closed with '>'", at: start)
                    return tag
                case UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "\""), UInt8(ascii: "'"):
                    position += 1
                    continue
                default:
                    break
                }
                let attributeStart = position
                while position < bytes.count, !Self.endsAttributeName(bytes[position]) {
                    position += 1
                }
                let attribute = Self.upperCasedASCII(bytes[attributeStart..<position])
                skipWhitespace()
                var value = ""
                if skip(UInt8(ascii: "=")) {
                    skipWhitespace()
                    value = readAttributeValue(in: name, tagStart: start)
                }
                tag.attributes.addIfAbsent(attribute, value)
            }
        }

        mutating func readAttributeValue(in tagName: String, tagStart: Int) -> String {
            guard position < bytes.count else { return "" }
            let quote = bytes[position]
            if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                position += 1
                let start = position
                // A value ends at its quote; one that runs into a line break first lost its
                // quote, and ends at the tag's '>' instead.
                var end = start
                while end < bytes.count && bytes[end] != quote && bytes[end] != 0x0A { end += 1 }
                if end < bytes.count && bytes[end] == quote {
                    position = end + 1
                    return Self.decodedText(bytes[start..<end])
                }
                if end == bytes.count && !exhausted { isCut = true }
                warn("an attribute of <\(tagName)> is missing its closing quote", at: tagStart)
                end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: ">") { end += 1 }
                position = end
                return Self.decodedText(bytes[start..<end])
            }
            let start = position
            while position < bytes.count, !Self.isSpace(bytes[position]),
                bytes[position] != UInt8(ascii: ">")
            {
                position += 1
            }
            return Self.decodedText(bytes[start..<position])
        }

        /// Reads text up to `</name>`, skipping inline tags; a structural tag or the end of
        /// the file before it ends the text (the end tag is missing).
        mutating func readText(closing name: String, at start: Int, warnsWhenUnclosed: Bool = true)
            -> String
        {
            var raw: [UInt8] = []
            while position < bytes.count {
                guard let next = bytes[position...].firstIndex(of: UInt8(ascii: "<")) else {
                    raw += bytes[position...]
                    position = bytes.count
                    break
                }
                raw += bytes[position..<next]
                position = next
                if hasPrefix("<!--") {
                    guard advance(past: "-->") else { break }
                    continue
                }
                let tagStart = position
                guard let tag = readTag() else {
                    raw.append(UInt8(ascii: "<"))
                    position += 1
                    continue
                }
                if tag.isClosing && tag.name == name { return Self.decodedText(raw[...]) }
                if NetscapeBookmarkFile.structuralTags.contains(tag.name) {
                    position = tagStart
                    break
                }
            }
            if warnsWhenUnclosed { warn("<\(name)> is not closed", at: start) }
            return Self.decodedText(raw[...])
        }

        /// Text with its character references decoded; bytes without '&' (most) become the
        /// string directly.
        static func decodedText(_ bytes: ArraySlice<UInt8>) -> String {
            let text = String(decoding: bytes, as: UTF8.self)
            return bytes.contains(UInt8(ascii: "&")) ? decodeEntities(text) : text
        }

        /// A tag or attribute name with ASCII letters upper-cased (HTML names are ASCII;
        /// other bytes are kept as they are).
        static func upperCasedASCII(_ bytes: ArraySlice<UInt8>) -> String {
            if !bytes.contains(where: { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) {
                return String(decoding: bytes, as: UTF8.self)
            }
            return String(
                decoding: bytes.map {
                    $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") ? $0 - 32 : $0
                },
                as: UTF8.self)
        }

        static func decodeEntities(_ text: String) -> String {
            guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
            var output = ""
            var rest = Substring(text)
            while let ampersand = rest.firstIndex(of: "&") {
                output += rest[..<ampersand]
                let after = rest[rest.index(after: ampersand)...]
                guard let semicolon = after.prefix(12).firstIndex(of: ";") else {
                    output += "&"
                    rest = after
                    continue
                }
                let name = String(after[..<semicolon])
                if let decoded = CharacterReference.text(for: name, allowsHTMLNames: true) {
                    output += decoded
                } else {
                    output += "&" + name + ";"
                }
                rest = after[after.index(after: semicolon)...]
            }
            return output + rest
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":")
        }

        static func endsAttributeName(_ byte: UInt8) -> Bool {
            isSpace(byte) || byte == UInt8(ascii: "=") || byte == UInt8(ascii: ">")
                || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "<")
        }
    }

    /// A Unix time in seconds, milliseconds or microseconds (told apart by size); before 1970
    /// too (negative).
    static func date(fromUnix text: String) -> Date? {
        guard var seconds = Double(text.trimmingWhitespace), seconds.isFinite else {
            return nil
        }
        if abs(seconds) > 1e14 {
            seconds /= 1_000_000
        } else if abs(seconds) > 1e11 {
            seconds /= 1000
        }
        return Date(timeIntervalSince1970: seconds)
    }
}
