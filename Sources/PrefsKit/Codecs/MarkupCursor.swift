/// A position in the UTF-8 bytes of a markup document (an XML property list, a Netscape
/// bookmark file), with the scanning steps both readers share.
package protocol MarkupCursor {
    var bytes: [UInt8] { get }
    var position: Int { get set }
}

extension MarkupCursor {
    /// Whether the bytes at the position start with the text.
    package func hasPrefix(_ text: String) -> Bool {
        let prefix = Array(text.utf8)
        return bytes.count - position >= prefix.count
            && bytes[position..<position + prefix.count].elementsEqual(prefix)
    }

    /// Moves past the next occurrence of the terminator; false (at the end) when there is none.
    package mutating func advance(past terminator: String) -> Bool {
        let length = terminator.utf8.count
        while position < bytes.count {
            if hasPrefix(terminator) {
                position += length
                return true
            }
            position += 1
        }
        return false
    }

    /// Moves past the byte when it is next; whether it was.
    package mutating func skip(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// Moves past spaces, tabs and line breaks.
    package mutating func skipWhitespace() {
        while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
    }

    /// The 1-based line of the position, for error messages.
    package var line: Int { bytes[..<min(position, bytes.count)].count { $0 == 0x0A } + 1 }

    package static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
