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
    ///
    /// This runs on every uncached read, so the bytes are loaded as one integer (a name is
    /// at most 8 bytes, but for `dictionary`) and compared with each name's bytes in order.
    init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        func load<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> UInt64 {
            UInt64(T(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: T.self)))
        }
        let candidate: PreferenceType
        switch bytes.count {
        case 3:
            switch load(UInt16.self, at: 0) | load(UInt8.self, at: 2) << 16 {
            case 0x746e69: candidate = .int
            case 0x6c7275: candidate = .url
            default: return nil
            }
        case 4:
            switch load(UInt32.self, at: 0) {
            case 0x6c6f_6f62: candidate = .bool
            case 0x6574_6164: candidate = .date
            case 0x6174_6164: candidate = .data
            case 0x6e6f_736a: candidate = .json
            default: return nil
            }
        case 5:
            switch load(UInt32.self, at: 0) | load(UInt8.self, at: 4) << 32 {
            case 0x74_616f_6c66: candidate = .float
            case 0x79_6172_7261: candidate = .array
            default: return nil
            }
        case 6:
            switch load(UInt32.self, at: 0) | load(UInt16.self, at: 4) << 32 {
            case 0x656c_6275_6f64: candidate = .double
            case 0x676e_6972_7473: candidate = .string
            default: return nil
            }
        case 10:
            guard load(UInt64.self, at: 0) == 0x616e_6f69_7463_6964,
                load(UInt16.self, at: 8) == 0x7972
            else { return nil }
            candidate = .dictionary
        default:
            return nil
        }
        self = candidate
    }
}

extension PreferenceType: CustomStringConvertible {
    /// The type's name, as stored and as the CLI shows it.
    public var description: String { rawValue }
}
