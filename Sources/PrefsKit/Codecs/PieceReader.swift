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
}
