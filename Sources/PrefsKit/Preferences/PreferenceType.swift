internal import SQLiteCore

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
    package init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        self.init(tag: ShortText(bytes))
    }

    /// Reads a type name packed as integers (the first column of every uncached read): each
    /// name's bytes are one constant to compare with, little-endian.
    init?(tag: ShortText) {
        let candidate: PreferenceType
        switch (tag.count, tag.low) {
        case (3, 0x746e69): candidate = .int
        case (3, 0x6c7275): candidate = .url
        case (4, 0x6c6f_6f62): candidate = .bool
        case (4, 0x6574_6164): candidate = .date
        case (4, 0x6174_6164): candidate = .data
        case (4, 0x6e6f_736a): candidate = .json
        case (5, 0x74_616f_6c66): candidate = .float
        case (5, 0x79_6172_7261): candidate = .array
        case (6, 0x656c_6275_6f64): candidate = .double
        case (6, 0x676e_6972_7473): candidate = .string
        case (10, 0x616e_6f69_7463_6964) where tag.high == 0x7972: candidate = .dictionary
        default: return nil
        }
        self = candidate
    }
}

extension PreferenceType: CustomStringConvertible {
    /// The type's name, as stored and as the CLI shows it.
    public var description: String { rawValue }
}
