/// What a synced field belongs to, as text: its parts (`suite`, `key`; `kind`, `item id`;
/// `kind`, `item id`, `tag`) each as the uppercase hex of its UTF-8 bytes, joined by dots,
/// as the device's triggers write it with SQLite's `hex()`.
package enum SyncIdent {
    package static func make(_ parts: [String]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return parts.map { part in
            var text: [UInt8] = []
            text.reserveCapacity(part.utf8.count * 2)
            for byte in part.utf8 {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0F)])
            }
            return String(decoding: text, as: UTF8.self)
        }.joined(separator: ".")
    }

    /// The parts; nil when the text is not an ident.
    package static func parts(_ ident: String) -> [String]? {
        var parts: [String] = []
        for piece in ident.split(separator: ".", omittingEmptySubsequences: false) {
            let digits = Array(piece.utf8)
            guard digits.count % 2 == 0 else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(digits.count / 2)
            var index = 0
            while index < digits.count {
                guard let high = value(of: digits[index]), let low = value(of: digits[index + 1])
                else { return nil }
                bytes.append(high << 4 | low)
                index += 2
            }
            guard let part = String(validating: bytes, as: UTF8.self) else { return nil }
            parts.append(part)
        }
        return parts
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
