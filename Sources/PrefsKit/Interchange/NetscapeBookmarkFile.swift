import FoundationEssentials

/// The Netscape bookmark file that browsers export and import (`bookmarks.html`).
///
/// Folders (`<H3>` followed by `<DL>`) may nest; a bookmark's category is its innermost
/// folder. `ADD_DATE` and `LAST_MODIFIED` are Unix seconds, `TAGS` is comma-separated, a
/// `<DD>` after a link is its note. Our own export adds `KIND`, `ITEM_ID` and `POSITION`
/// attributes (browsers ignore them) so that a round trip keeps each bookmark's identity
/// and its place among the bookmarks of its kind, across folders; links from a browser
/// become kind `link` with the URL as their item ID, in file order.
public enum NetscapeBookmarkFile {
    /// One link read from a file.
    public struct Entry: Sendable, Hashable {
        public var draft: BookmarkDraft
        public var createdAt: Date?
        public var updatedAt: Date?
        /// The place among the bookmarks of its kind, from our own export; nil for a browser's.
        public var position: Int?
    }

    /// Why a file could not be read, with its line.
    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        public let reason: String
        public let line: Int
        public var description: String { "line \(line): \(reason)" }
    }

    /// The kind given to links imported from a browser.
    public static let browserKind = "link"

    // MARK: - Writing

    /// Writes bookmarks, grouped into one folder per category, in the given order.
    public static func document(for bookmarks: [Bookmark]) -> String {
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
        var categories: [String] = []
        var byCategory: [String: [Bookmark]] = [:]
        for bookmark in bookmarks {
            guard let category = bookmark.category else { continue }
            if byCategory[category] == nil { categories.append(category) }
            byCategory[category, default: []].append(bookmark)
        }
        for category in categories {
            text += "    <DT><H3>\(escape(category))</H3>\n    <DL><p>\n"
            for bookmark in byCategory[category] ?? [] { text += link(bookmark, indent: "        ") }
            text += "    </DL><p>\n"
        }
        for bookmark in bookmarks where bookmark.category == nil {
            text += link(bookmark, indent: "    ")
        }
        text += "</DL><p>\n"
        return text
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
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    // MARK: - Reading

    /// Reads the links of a bookmark file.
    ///
    /// - Throws: ``ParseError`` naming the line: a missing header, an unterminated tag, a
    ///   link or folder name that is not closed, an unbalanced `</DL>`, a link without
    ///   `HREF` or identity.
    public static func entries(in text: String) throws(ParseError) -> [Entry] {
        var reader = Reader(bytes: Array(text.utf8))
        return try reader.read()
    }

    private struct Tag {
        var name: String
        var isClosing: Bool
        var attributes: [String: String]
    }

    private struct Reader: MarkupCursor {
        let bytes: [UInt8]
        var position = 0
        var entries: [Entry] = []
        var folders: [String?] = []
        var pendingFolder: String?
        var openedFolderCount = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        func error(_ reason: String) -> ParseError { ParseError(reason: reason, line: line) }

        mutating func read() throws(ParseError) -> [Entry] {
            let head = String(decoding: bytes.prefix(512), as: UTF8.self).uppercased()
            guard head.contains("<!DOCTYPE NETSCAPE-BOOKMARK-FILE-1>") else {
                throw ParseError(
                    reason: "not a Netscape bookmark file (no <!DOCTYPE NETSCAPE-Bookmark-file-1>)",
                    line: 1)
            }
            while position < bytes.count {
                guard bytes[position] == UInt8(ascii: "<") else {
                    position += 1
                    continue
                }
                if hasPrefix("<!--") {
                    try skip(past: "-->")
                    continue
                }
                if hasPrefix("<!") {
                    try skip(past: ">")
                    continue
                }
                let tag = try readTag()
                switch (tag.name, tag.isClosing) {
                case ("H3", false):
                    pendingFolder = try readText(until: "H3")
                case ("DL", false):
                    if openedFolderCount == 0 {
                        folders.append(nil)  // the top-level list
                    } else {
                        folders.append(pendingFolder)
                    }
                    openedFolderCount += 1
                    pendingFolder = nil
                case ("DL", true):
                    guard !folders.isEmpty else { throw error("</DL> without an open <DL>") }
                    folders.removeLast()
                case ("A", false):
                    try readLink(tag)
                case ("DD", false):
                    let note = readLooseText()
                    if !note.isEmpty, !entries.isEmpty, entries[entries.count - 1].draft.note == nil {
                        entries[entries.count - 1].draft.note = note
                    }
                default:
                    continue
                }
            }
            return entries
        }

        mutating func readLink(_ tag: Tag) throws(ParseError) {
            let startLine = line
            let title = try readText(until: "A")
            let href = tag.attributes["HREF"] ?? ""
            let url = href.isEmpty ? nil : URL(string: href)
            if !href.isEmpty && url == nil {
                throw ParseError(reason: "'\(href)' is not a valid URL", line: startLine)
            }
            let kind = tag.attributes["KIND"] ?? NetscapeBookmarkFile.browserKind
            let itemID = tag.attributes["ITEM_ID"] ?? href
            guard !itemID.isEmpty else {
                throw ParseError(reason: "a link without HREF", line: startLine)
            }
            let tags = (tag.attributes["TAGS"] ?? "").split(separator: ",")
                .map { String($0).trimmingWhitespace }.filter { !$0.isEmpty }
            let category = folders.last(where: { $0 != nil }) ?? nil
            entries.append(
                Entry(
                    draft: BookmarkDraft(
                        kind: kind, itemID: itemID, title: title, url: url, category: category,
                        tags: tags),
                    createdAt: tag.attributes["ADD_DATE"].flatMap(Self.date(fromUnix:)),
                    updatedAt: tag.attributes["LAST_MODIFIED"].flatMap(Self.date(fromUnix:)),
                    position: try tag.attributes["POSITION"].map { text throws(ParseError) in
                        guard let position = Int(text), position >= 0 else {
                            throw ParseError(reason: "POSITION '\(text)' is not a non-negative integer", line: startLine)
                        }
                        return position
                    }))
        }

        static func date(fromUnix text: String) -> Date? {
            guard var seconds = Double(text), seconds.isFinite, seconds >= 0 else { return nil }
            if seconds > 1e14 { seconds /= 1_000_000 } else if seconds > 1e11 { seconds /= 1000 }
            return Date(timeIntervalSince1970: seconds)
        }

        mutating func skip(past terminator: String) throws(ParseError) {
            guard advance(past: terminator) else {
                throw error("'\(terminator)' expected before the end of the file")
            }
        }

        mutating func readTag() throws(ParseError) -> Tag {
            let start = position
            position += 1
            let isClosing = skip(UInt8(ascii: "/"))
            let nameStart = position
            while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
            let name = String(decoding: bytes[nameStart..<position], as: UTF8.self).uppercased()
            guard !name.isEmpty else {
                position = start
                throw error("'<' that does not start a tag")
            }
            var attributes: [String: String] = [:]
            while true {
                skipWhitespace()
                guard position < bytes.count else {
                    position = start
                    throw error("the tag <\(name) is not closed with '>'")
                }
                if bytes[position] == UInt8(ascii: ">") {
                    position += 1
                    return Tag(name: name, isClosing: isClosing, attributes: attributes)
                }
                if bytes[position] == UInt8(ascii: "/") {
                    position += 1
                    continue
                }
                let attributeStart = position
                while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
                guard position > attributeStart else {
                    throw error("unexpected character in the tag <\(name)>")
                }
                let attribute = String(decoding: bytes[attributeStart..<position], as: UTF8.self)
                    .uppercased()
                skipWhitespace()
                var value = ""
                if position < bytes.count && bytes[position] == UInt8(ascii: "=") {
                    position += 1
                    skipWhitespace()
                    value = try readAttributeValue(in: name)
                }
                attributes[attribute] = value
            }
        }

        mutating func readAttributeValue(in tagName: String) throws(ParseError) -> String {
            guard position < bytes.count else { throw error("the tag <\(tagName) is not closed") }
            let quote = bytes[position]
            if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                position += 1
                let start = position
                while position < bytes.count && bytes[position] != quote { position += 1 }
                guard position < bytes.count else {
                    throw error("an attribute of <\(tagName)> is missing its closing quote")
                }
                let raw = String(decoding: bytes[start..<position], as: UTF8.self)
                position += 1
                return try decodeEntities(raw)
            }
            let start = position
            while position < bytes.count, !Self.isSpace(bytes[position]),
                bytes[position] != UInt8(ascii: ">")
            {
                position += 1
            }
            return try decodeEntities(String(decoding: bytes[start..<position], as: UTF8.self))
        }

        /// Reads text up to `</name>`; any other tag before it is an error.
        mutating func readText(until name: String) throws(ParseError) -> String {
            let startLine = line
            let start = position
            while position < bytes.count && bytes[position] != UInt8(ascii: "<") { position += 1 }
            let raw = String(decoding: bytes[start..<position], as: UTF8.self)
            guard position < bytes.count else {
                throw ParseError(reason: "<\(name)> is not closed", line: startLine)
            }
            let closing = try readTag()
            guard closing.isClosing, closing.name == name else {
                throw ParseError(reason: "<\(name)> is not closed before <\(closing.name)>", line: startLine)
            }
            return try decodeEntities(raw).trimmingWhitespace
        }

        /// Reads the text of a `<DD>` up to the next tag.
        mutating func readLooseText() -> String {
            let start = position
            while position < bytes.count && bytes[position] != UInt8(ascii: "<") { position += 1 }
            let raw = String(decoding: bytes[start..<position], as: UTF8.self)
            return ((try? decodeEntities(raw)) ?? raw).trimmingWhitespace
        }

        func decodeEntities(_ text: String) throws(ParseError) -> String {
            guard text.contains("&") else { return text }
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
                || byte == UInt8(ascii: "-")
        }
    }
}
