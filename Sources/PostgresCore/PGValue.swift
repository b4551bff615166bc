/// Conversions between Swift values and the text format of statement parameters and
/// results.
package enum PGValue {
    /// A `bytea` parameter in the hex input format (`\x0aff`).
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8](repeating: 0, count: 2 + bytes.count * 2)
        text[0] = UInt8(ascii: "\\")
        text[1] = UInt8(ascii: "x")
        for (index, byte) in bytes.enumerated() {
            text[2 + index * 2] = digits[Int(byte >> 4)]
            text[3 + index * 2] = digits[Int(byte & 0x0F)]
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Decodes the hex output format of `bytea`; nil for other text.
    package static func bytes(fromHex text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"),
            utf8.count % 2 == 0
        else { return nil }
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var result: [UInt8] = []
        result.reserveCapacity((utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else {
                return nil
            }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }

    /// A double as text that reads back as the same double (its description: the same text
    /// as an interpolation, without the interpolation's buffer).
    package static func text(_ value: Double) -> String { value.description }
}
