/// The type a preference is stored with; the type travels with the value, so a value reads
/// back exactly as it was written.
public enum PreferenceType: String, Sendable, CaseIterable, Codable {
    /// Stored as INTEGER 0 or 1.
    case bool
    /// Stored as INTEGER.
    case int
    /// Stored as REAL (NaN as the text `NaN`: SQLite keeps no NaN).
    case double
    /// A 32-bit float, stored as REAL (exactly: every Float is a Double); NaN as `NaN`.
    case float
    /// Stored as TEXT.
    case string
    /// Stored as the URL's absolute string.
    case url
    /// Stored as REAL seconds since 2001-01-01 UTC.
    case date
    /// Stored as BLOB.
    case data
    /// Stored as a binary property list.
    case array
    /// Stored as a binary property list.
    case dictionary
    /// A `Codable` value stored as JSON text.
    case json
}

extension PreferenceType {
    /// Reads a type name from UTF-8 bytes (a column) without making a String.
    init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        // The length and two bytes pick the only candidate; the whole name then confirms it
        // (this runs on every uncached read).
        guard bytes.count >= 3 else { return nil }
        let candidate: PreferenceType
        switch (bytes.count, bytes[0], bytes[3 % bytes.count]) {
        case (4, UInt8(ascii: "b"), _): candidate = .bool
        case (3, UInt8(ascii: "i"), _): candidate = .int
        case (6, UInt8(ascii: "d"), _): candidate = .double
        case (5, UInt8(ascii: "f"), _): candidate = .float
        case (6, UInt8(ascii: "s"), _): candidate = .string
        case (3, UInt8(ascii: "u"), _): candidate = .url
        case (4, UInt8(ascii: "d"), UInt8(ascii: "e")): candidate = .date
        case (4, UInt8(ascii: "d"), UInt8(ascii: "a")): candidate = .data
        case (5, UInt8(ascii: "a"), _): candidate = .array
        case (10, UInt8(ascii: "d"), _): candidate = .dictionary
        case (4, UInt8(ascii: "j"), _): candidate = .json
        default: return nil
        }
        var name = candidate.rawValue
        let matches = name.withUTF8 { expected in
            var index = 0
            while index < expected.count, expected[index] == bytes[index] { index += 1 }
            return index == expected.count
        }
        guard matches else { return nil }
        self = candidate
    }
}

extension PreferenceType: CustomStringConvertible {
    /// The type's name, as stored and as the CLI shows it.
    public var description: String { rawValue }
}
