/// A short text value packed into two integers: the first 16 UTF-8 bytes, little-endian and
/// zero-padded, with the text's full length. Tags such as a type's name compare as integers,
/// without making a String.
package struct ShortText: Hashable, Sendable {
    /// Bytes 0 to 7 (byte 0 lowest).
    package var low: UInt64
    /// Bytes 8 to 15.
    package var high: UInt64
    /// The text's length in bytes; only the first 16 are kept.
    package var count: Int

    /// The empty text.
    package init() {
        low = 0
        high = 0
        count = 0
    }

    /// Packs the first 16 bytes: whole words where the text allows, single bytes at its end
    /// (a tag is packed on every lookup).
    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        low = 0
        high = 0
        count = bytes.count
        guard let base = bytes.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        if count >= 8 {
            low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            if count >= 16 {
                high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            } else {
                for offset in 8..<count { high |= UInt64(base[offset]) << (8 * UInt64(offset - 8)) }
            }
        } else {
            for offset in 0..<count { low |= UInt64(base[offset]) << (8 * UInt64(offset)) }
        }
    }

    /// Packs a string's first 16 bytes.
    package init(_ text: String) {
        var text = text
        self = text.withUTF8 { ShortText($0) }
    }
}
