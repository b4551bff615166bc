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

extension PreferenceType: CustomStringConvertible {
    public var description: String { rawValue }
}
