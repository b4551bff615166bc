/// The type a preference is stored with; the type travels with the value, so a value reads
/// back exactly as it was written.
public enum PreferenceType: String, Sendable, CaseIterable, Codable {
    case bool
    case int
    case double
    case string
    case url
    case date
    case data
    case array
    case dictionary
    /// A `Codable` value stored as JSON text.
    case json
}

extension PreferenceType {
    /// Reads a type name from UTF-8 bytes (a column) without making a String.
    init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        for type in PreferenceType.allCases where type.rawValue.utf8.elementsEqual(bytes) {
            self = type
            return
        }
        return nil
    }
}

extension PreferenceType: CustomStringConvertible {
    public var description: String { rawValue }
}
