/// Why a preference operation failed, in words a user can act on.
public enum PreferenceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The value cannot be stored (for example NaN, or text that is not JSON).
    case invalidValue(key: String, reason: String)
    /// The key breaks a rule of ``PreferenceStore/validate(key:)``; the reason says which.
    case invalidKey(String, reason: String)
    /// The suite name breaks a rule of ``PreferenceStore/validate(suite:)``.
    case invalidSuite(String, reason: String)
    /// The value's type differs from the key's declared type.
    case typeMismatch(key: String, declared: PreferenceType, given: PreferenceType)
    /// A `Codable` value could not be encoded or decoded as JSON.
    case coding(key: String, reason: String)
    /// An import file is malformed.
    case malformedImport(String)
    /// The key has no stored value (a rename of a key that is not there).
    case noValue(key: String)
    /// A rename would overwrite the value stored under the new name.
    case wouldOverwrite(key: String)
    /// The value stored under a typed key is one the key cannot read (the typed
    /// subscript reads the key's default then): from ``PreferenceStore/checkedValue(for:)``.
    case storedTypeMismatch(key: String, stored: PreferenceType)

    /// One line a user can act on.
    public var description: String {
        switch self {
        case .invalidValue(let key, let reason):
            "Invalid value for '\(key)': \(reason)"
        case .invalidKey(_, let reason), .invalidSuite(_, let reason):
            reason
        case .typeMismatch(let key, let declared, let given):
            "'\(key)' is declared as \(declared), not \(given)"
        case .coding(let key, let reason):
            "Cannot encode or decode '\(key)' as JSON: \(reason)"
        case .malformedImport(let reason):
            "Malformed import: \(reason)"
        case .noValue(let key):
            "'\(key)' has no stored value"
        case .wouldOverwrite(let key):
            "'\(key)' already has a value"
        case .storedTypeMismatch(let key, let stored):
            "'\(key)' holds \([.int, .array].contains(stored) ? "an" : "a") \(stored) value"
                + " that this key cannot read (it reads as the key's default)"
        }
    }
}
