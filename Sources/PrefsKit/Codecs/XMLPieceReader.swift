/// A ``PieceReader`` of XML: finds where elements, tags and the markup between them begin
/// and end, without reading what they hold (that is left to ``XMLPropertyListReader``).
protocol XMLPieceReader: PieceReader {}

extension XMLPieceReader {
    /// Goes past what comes before a property list's top value: a byte-order mark, the
    /// prolog and DOCTYPE, and the `<plist>` tag when there is one. Nil when the document
    /// does not begin as one; else whether the top value is inside a `<plist>` element.
    mutating func enterPropertyList() throws -> Bool? {
        if try hasPrefix([0xEF, 0xBB, 0xBF]) { position += 3 }
        guard try skipMisc(allowingDoctype: true), let first = try tagName() else { return nil }
        guard first == "plist" else { return false }
        guard let end = try endOfTag(from: position), buffer[end - 2] != UInt8(ascii: "/")
        else { return nil }
        position = end
        guard try skipMisc(allowingDoctype: false) else { return nil }
        return true
    }

    /// Goes past what comes after the top value (the `</plist>` tag when `isInPlist`);
    /// whether the document ends there.
    mutating func leavePropertyList(isInPlist: Bool) throws -> Bool {
        guard try skipMisc(allowingDoctype: false) else { return false }
        if isInPlist {
            guard try hasPrefix("</plist>") else { return false }
            position += 8
            guard try skipMisc(allowingDoctype: false) else { return false }
        }
        return try load(through: position) == false
    }

    /// The name of the opening tag at the position; nil for anything else.
    mutating func tagName() throws -> String? {
        try tagName(at: position)
    }

    /// The name of the opening tag at `start`; nil for anything else.
    mutating func tagName(at start: Int) throws -> String? {
        guard try load(through: start), buffer[start] == UInt8(ascii: "<") else { return nil }
        var index = start + 1
        while try load(through: index), Self.isNameByte(buffer[index]) { index += 1 }
        guard index > start + 1 else { return nil }
        return String(decoding: buffer[(start + 1)..<index], as: UTF8.self)
    }

    /// Past the `>` of the tag that starts at `start`, skipping quoted attribute values.
    mutating func endOfTag(from start: Int) throws -> Int? {
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
    mutating func endOfElement(from start: Int) throws -> Int? {
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
    mutating func endOfMarkup(from start: Int) throws -> Int? {
        // Each begins `<!` or `<?`: a tag, the most of what is met, is none of them.
        guard try load(through: start + 1),
            buffer[start + 1] == UInt8(ascii: "!") || buffer[start + 1] == UInt8(ascii: "?")
        else { return nil }
        for (opening, closing) in XMLMarkup.kinds {
            guard try hasPrefix(opening, at: start) else { continue }
            return try end(of: closing, from: start + opening.count)
        }
        return nil
    }
}

/// The markup an element may hold besides elements and text, with its end.
private enum XMLMarkup {
    static let kinds: [([UInt8], [UInt8])] = [
        (Array("<!--".utf8), Array("-->".utf8)),
        (Array("<![CDATA[".utf8), Array("]]>".utf8)),
        (Array("<?".utf8), Array("?>".utf8)),
    ]
}

extension XMLPieceReader {
    /// Past the first `terminator` at or after `start`.
    mutating func end(of terminator: [UInt8], from start: Int) throws -> Int? {
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
    mutating func skipMisc(allowingDoctype: Bool) throws -> Bool {
        var index = position
        guard try skipMisc(from: &index) else { return false }
        position = index
        if allowingDoctype, try hasPrefix("<!DOCTYPE") {
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

    mutating func skipMisc(from index: inout Int) throws -> Bool {
        while try load(through: index) {
            let byte = buffer[index]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                index += 1
            } else if try hasPrefix("<!--", at: index) || hasPrefix("<?", at: index) {
                guard let end = try endOfMarkup(from: index) else { return false }
                index = end
            } else {
                break
            }
        }
        return true
    }

    // MARK: - Bytes

    static func isNameByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte != UInt8(ascii: ">") && byte != UInt8(ascii: "/")
    }

    mutating func hasPrefix(_ prefix: [UInt8]) throws -> Bool {
        try hasPrefix(prefix, at: position)
    }

    mutating func hasPrefix(_ prefix: [UInt8], at start: Int) throws -> Bool {
        guard try load(through: start + prefix.count - 1) else { return false }
        return buffer[start..<(start + prefix.count)].elementsEqual(prefix)
    }

    /// The same for a literal, which makes no array (a walk asks for every element).
    mutating func hasPrefix(_ prefix: StaticString) throws -> Bool {
        try hasPrefix(prefix, at: position)
    }

    mutating func hasPrefix(_ prefix: StaticString, at start: Int) throws -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard try load(through: start + count - 1) else { return false }
        return prefix.withUTF8Buffer { buffer[start..<(start + count)].elementsEqual($0) }
    }
}
