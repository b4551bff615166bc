/// Reads the entries of an XML property list whose top level is a dictionary from bytes
/// that come in pieces, holding one entry at a time (an import of any size in memory that
/// does not grow with it).
///
/// It finds where each entry (a `<key>` and the element after it) begins and ends, and
/// hands the entry to ``XMLPropertyListReader`` as a dictionary of its own, so that keys and
/// values read exactly as in a whole document. Anything it does not expect makes
/// ``walk(_:)`` return false: the caller then reads the document whole, whose parser names
/// the problem with its line.
struct XMLPropertyListEntryStream: PieceReader {
    let next: () throws -> [UInt8]?
    var buffer: [UInt8] = []
    var position = 0
    var isAtEnd = false

    /// `next` gives the next piece of the document, nil at its end.
    init(next: @escaping () throws -> [UInt8]?) {
        self.next = next
    }

    /// Walks the top-level dictionary's entries in the file's order, calling `entry` with
    /// each; either returns false to stop, and so does the walk for an outline it does not
    /// expect or an entry that does not read.
    mutating func walk(_ entry: (String, PreferenceValue) throws -> Bool) throws -> Bool {
        if try hasPrefix([0xEF, 0xBB, 0xBF]) { position += 3 }
        guard try skipMisc(allowingDoctype: true), let first = try tagName() else { return false }
        let isInPlist = first == "plist"
        if isInPlist {
            guard let end = try endOfTag(from: position), buffer[end - 2] != UInt8(ascii: "/")
            else { return false }
            position = end
            guard try skipMisc(allowingDoctype: false) else { return false }
        }
        // `<dict>` or `<dict/>` exactly: attributes are left to the whole reader.
        var isOpen = true
        if try hasPrefix(Array("<dict/>".utf8)) {
            position += 7
            isOpen = false
        } else {
            guard try hasPrefix(Array("<dict>".utf8)) else { return false }
            position += 6
        }
        while isOpen {
            guard try skipMisc(allowingDoctype: false) else { return false }
            discardConsumed()
            if try hasPrefix(Array("</dict>".utf8)) {
                position += 7
                break
            }
            guard try tagName() == "key", let keyEnd = try endOfElement(from: position) else {
                return false
            }
            var end = keyEnd
            guard try skipMisc(from: &end), let valueEnd = try endOfElement(from: end) else {
                return false
            }
            var document = Array("<dict>".utf8)
            document += buffer[position..<valueEnd]
            document += "</dict>".utf8
            guard let entries = try? XMLPropertyListReader.decodeEntries(document),
                entries.count == 1, try entry(entries[0].key, entries[0].value)
            else { return false }
            position = valueEnd
        }
        guard try skipMisc(allowingDoctype: false) else { return false }
        if isInPlist {
            guard try hasPrefix(Array("</plist>".utf8)) else { return false }
            position += 8
            guard try skipMisc(allowingDoctype: false) else { return false }
        }
        return try load(through: position) == false
    }

    // MARK: - Extents

    /// The name of the opening tag at the position; nil for anything else.
    private mutating func tagName() throws -> String? {
        guard try load(through: position), buffer[position] == UInt8(ascii: "<") else {
            return nil
        }
        var index = position + 1
        while try load(through: index), Self.isNameByte(buffer[index]) { index += 1 }
        guard index > position + 1 else { return nil }
        return String(decoding: buffer[(position + 1)..<index], as: UTF8.self)
    }

    /// Past the `>` of the tag that starts at `start`, skipping quoted attribute values.
    private mutating func endOfTag(from start: Int) throws -> Int? {
        var index = start + 1
        var quote: UInt8?
        while try load(through: index) {
            let byte = buffer[index]
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return index
            }
        }
        return nil
    }

    /// Past the end of the element that starts at `start`: its closing tag at the same
    /// depth, across comments, CDATA sections and processing instructions.
    private mutating func endOfElement(from start: Int) throws -> Int? {
        var index = start
        var depth = 0
        while try load(through: index) {
            guard buffer[index] == UInt8(ascii: "<") else {
                guard depth > 0 else { return nil }
                index += 1
                continue
            }
            if let skipped = try endOfMarkup(from: index) {
                guard depth > 0 else { return nil }
                index = skipped
                continue
            }
            guard try load(through: index + 1), let end = try endOfTag(from: index) else {
                return nil
            }
            if buffer[index + 1] == UInt8(ascii: "/") {
                depth -= 1
            } else if buffer[end - 2] != UInt8(ascii: "/") {
                depth += 1
            }
            index = end
            if depth == 0 { return index }
            guard depth > 0 else { return nil }
        }
        return nil
    }

    /// Past a comment, CDATA section or processing instruction that starts at `start`; nil
    /// for any other markup (or one that does not end).
    private mutating func endOfMarkup(from start: Int) throws -> Int? {
        for (opening, closing) in Self.markup {
            guard try hasPrefix(opening, at: start) else { continue }
            return try end(of: closing, from: start + opening.count)
        }
        return nil
    }

    private static let markup: [([UInt8], [UInt8])] = [
        (Array("<!--".utf8), Array("-->".utf8)),
        (Array("<![CDATA[".utf8), Array("]]>".utf8)),
        (Array("<?".utf8), Array("?>".utf8)),
    ]

    /// Past the first `terminator` at or after `start`.
    private mutating func end(of terminator: [UInt8], from start: Int) throws -> Int? {
        var index = start
        while try load(through: index + terminator.count - 1) {
            if buffer[index] == terminator[0],
                buffer[index..<(index + terminator.count)].elementsEqual(terminator)
            {
                return index + terminator.count
            }
            index += 1
        }
        return nil
    }

    /// Skips whitespace, comments and processing instructions (and a DOCTYPE, before the
    /// first element); false when one does not end.
    private mutating func skipMisc(allowingDoctype: Bool) throws -> Bool {
        var index = position
        guard try skipMisc(from: &index) else { return false }
        position = index
        if allowingDoctype, try hasPrefix(Array("<!DOCTYPE".utf8)) {
            var depth = 0
            var index = position
            while try load(through: index) {
                let byte = buffer[index]
                index += 1
                if byte == UInt8(ascii: "[") { depth += 1 }
                if byte == UInt8(ascii: "]") { depth -= 1 }
                if byte == UInt8(ascii: ">") && depth <= 0 {
                    position = index
                    return try skipMisc(allowingDoctype: false)
                }
            }
            return false
        }
        return true
    }

    private mutating func skipMisc(from index: inout Int) throws -> Bool {
        while try load(through: index) {
            let byte = buffer[index]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                index += 1
            } else if try hasPrefix(Array("<!--".utf8), at: index)
                || hasPrefix(Array("<?".utf8), at: index)
            {
                guard let end = try endOfMarkup(from: index) else { return false }
                index = end
            } else {
                break
            }
        }
        return true
    }

    // MARK: - Bytes

    private static func isNameByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte != UInt8(ascii: ">") && byte != UInt8(ascii: "/")
    }

    private mutating func hasPrefix(_ prefix: [UInt8]) throws -> Bool {
        try hasPrefix(prefix, at: position)
    }

    private mutating func hasPrefix(_ prefix: [UInt8], at start: Int) throws -> Bool {
        guard try load(through: start + prefix.count - 1) else { return false }
        return buffer[start..<(start + prefix.count)].elementsEqual(prefix)
    }
}
