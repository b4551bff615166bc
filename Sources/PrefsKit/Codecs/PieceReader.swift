/// A reader of a document whose bytes come in pieces (a large import read one entry at a
/// time): it holds the bytes from the one it is at on, reads pieces as far ahead as it is
/// asked to look, and drops what it has gone past.
protocol PieceReader {
    /// The next piece of the document, nil at its end.
    var next: () throws -> [UInt8]? { get }
    /// The bytes read and not yet dropped.
    var buffer: [UInt8] { get set }
    /// Where the reader is in ``buffer``.
    var position: Int { get set }
    /// Whether `next` said the document ended.
    var isAtEnd: Bool { get set }
}

extension PieceReader {
    /// Whether the byte at `index` is there, reading pieces until it is.
    mutating func load(through index: Int) throws -> Bool {
        while index >= buffer.count {
            guard !isAtEnd, let piece = try next() else {
                isAtEnd = true
                return false
            }
            buffer += piece
        }
        return true
    }

    /// Drops the bytes before the position once they are many; only where no range into
    /// the buffer is held (between values or entries).
    mutating func discardConsumed() {
        guard position >= 1 << 16 else { return }
        buffer.removeSubrange(..<position)
        position = 0
    }

    /// Where the string starting at `start` (its opening quote) ends, past its closing
    /// quote; nil when the document ends first.
    mutating func endOfString(from start: Int) throws -> Int? {
        var index = start + 1
        while try load(through: index) {
            switch buffer[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    /// Where a number or literal starting at `start` ends: at the next comma, bracket,
    /// brace or space, or the document's end.
    mutating func endOfBareValue(from start: Int) throws -> Int {
        var index = start
        while try load(through: index) {
            switch buffer[index] {
            case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x09, 0x0A, 0x0D:
                return index
            default:
                index += 1
            }
        }
        return index
    }

    mutating func skipWhitespace() throws {
        while let byte = try peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            position += 1
        }
    }

    mutating func take(_ byte: UInt8) throws -> Bool {
        guard try peek() == byte else { return false }
        position += 1
        return true
    }

    mutating func peek() throws -> UInt8? {
        try load(through: position) ? buffer[position] : nil
    }
}
