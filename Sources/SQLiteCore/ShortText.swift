/// A short text value packed into two integers: the first 16 UTF-8 bytes, little-endian and
/// zero-padded, with the text's full length. Tags such as a type's name compare as integers,
/// without making a String.
public struct ShortText: Hashable, Sendable {
    /// Bytes 0 to 7 (byte 0 lowest).
    public var low: UInt64
    /// Bytes 8 to 15.
    public var high: UInt64
    /// The text's length in bytes; only the first 16 are kept.
    public var count: Int

    /// The empty text.
    public init() {
        low = 0
        high = 0
        count = 0
    }

    /// Packs the first 16 bytes.
    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        low = 0
        high = 0
        count = bytes.count
        for (offset, byte) in bytes.prefix(16).enumerated() {
            if offset < 8 {
                low |= UInt64(byte) << (8 * UInt64(offset))
            } else {
                high |= UInt64(byte) << (8 * UInt64(offset - 8))
            }
        }
    }

    /// Packs a string's first 16 bytes.
    public init(_ text: String) {
        var text = text
        self = text.withUTF8 { ShortText($0) }
    }
}
