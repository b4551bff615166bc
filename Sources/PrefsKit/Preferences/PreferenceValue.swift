#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// A stored preference value together with its type.
///
/// Arrays and dictionaries hold property-list values (bool, int, double, string, date,
/// data, array, dictionary), as in UserDefaults. A `.json` value holds the JSON text of a
/// `Codable` value.
public enum PreferenceValue: Sendable {
    /// `true` or `false`.
    case bool(Bool)
    /// A 64-bit signed integer.
    case int(Int)
    /// A floating-point number; NaN and the infinities included.
    case double(Double)
    /// A 32-bit floating-point number, kept as such (`string(forKey:)` shows "12.34", not the
    /// digits of its widening to Double).
    case float(Float)
    /// Text.
    case string(String)
    /// An address, kept as its absolute string.
    case url(URL)
    /// A moment, to the full precision of `Date`.
    case date(Date)
    /// Bytes.
    case data(Data)
    /// A list of property-list values.
    case array([PreferenceValue])
    /// Property-list values by string key.
    case dictionary([String: PreferenceValue])
    /// The JSON text of a `Codable` value.
    case json(String)

    /// The type this value is stored with.
    public var type: PreferenceType {
        switch self {
        case .bool: .bool
        case .int: .int
        case .double: .double
        case .float: .float
        case .string: .string
        case .url: .url
        case .date: .date
        case .data: .data
        case .array: .array
        case .dictionary: .dictionary
        case .json: .json
        }
    }
}

extension PreferenceValue {
    /// Converts a UserDefaults-style value (`Bool`, integers, `Double`, `Float`, `String`,
    /// `URL`, `Date`, `Data`, arrays and dictionaries of those) to a preference value.
    ///
    /// - Returns: nil when the value is of another type.
    public init?(any value: Any) {
        switch value {
        case let value as PreferenceValue: self = value
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .int(value)
        case let value as Int8: self = .int(Int(value))
        case let value as Int16: self = .int(Int(value))
        case let value as Int32: self = .int(Int(value))
        case let value as Int64: self = .int(Int(value))
        case let value as UInt8: self = .int(Int(value))
        case let value as UInt16: self = .int(Int(value))
        case let value as UInt32: self = .int(Int(value))
        case let value as UInt:
            guard let exact = Int(exactly: value) else { return nil }
            self = .int(exact)
        case let value as UInt64:
            guard let exact = Int(exactly: value) else { return nil }
            self = .int(exact)
        case let value as Double: self = .double(value)
        case let value as Float: self = .float(value)
        case let value as String: self = .string(value)
        case let value as Substring: self = .string(String(value))
        case let value as URL: self = .url(value)
        case let value as Date: self = .date(value)
        case let value as Data: self = .data(value)
        case let value as [Any]:
            var elements: [PreferenceValue] = []
            elements.reserveCapacity(value.count)
            for element in value {
                guard let converted = PreferenceValue(any: element) else { return nil }
                elements.append(converted)
            }
            self = .array(elements)
        case let value as [String: Any]:
            var entries: [String: PreferenceValue] = [:]
            for (key, element) in value {
                guard let converted = PreferenceValue(any: element) else { return nil }
                entries[key] = converted
            }
            self = .dictionary(entries)
        default:
            return nil
        }
    }

    /// The value as UserDefaults' `object(forKey:)` returns it: `Bool`, `Int`, `Double`,
    /// `String`, `URL`, `Date`, `Data`, `[Any]`, `[String: Any]`; JSON as its text.
    public var anyValue: Any {
        switch self {
        case .bool(let value): value
        case .int(let value): value
        case .double(let value): value
        case .float(let value): value
        case .string(let value): value
        case .url(let value): value
        case .date(let value): value
        case .data(let value): value
        case .array(let value): value.map(\.anyValue)
        case .dictionary(let value): value.mapValues(\.anyValue)
        case .json(let value): value
        }
    }

    /// The most bytes a string, data or JSON value may hold: SQLite's limit on one value
    /// (`SQLITE_MAX_LENGTH`, as Debian builds it).
    public static let maximumBytes = 1_000_000_000

    /// The error for a value of `bytes` bytes, more than ``maximumBytes``.
    package static func tooLarge(key: String, bytes: Int) -> PreferenceError {
        .invalidValue(
            key: key,
            reason: "it holds \(bytes) bytes, more than the \(maximumBytes) a value may hold")
    }

    /// Throws when the value cannot be stored: one larger than ``maximumBytes``, or a `.json`
    /// value (anywhere in it) whose text is not JSON.
    func validateForStorage(key: String) throws(PreferenceError) {
        switch self {
        case .string(let text) where text.utf8.count > Self.maximumBytes:
            throw Self.tooLarge(key: key, bytes: text.utf8.count)
        case .data(let data) where data.count > Self.maximumBytes:
            throw Self.tooLarge(key: key, bytes: data.count)
        case .json(let text) where text.utf8.count > Self.maximumBytes:
            throw Self.tooLarge(key: key, bytes: text.utf8.count)
        case .array(let elements):
            for element in elements { try element.validateForStorage(key: key) }
        case .dictionary(let entries):
            for element in entries.values { try element.validateForStorage(key: key) }
        case .json(let text):
            do {
                _ = try JSONValue(parsing: text)
            } catch {
                throw .invalidValue(key: key, reason: "not valid JSON (\(error))")
            }
        default:
            break
        }
    }
}

extension PreferenceValue: Hashable {
    /// Equal when of the same type and value; a NaN equals a NaN (as stored values, they
    /// are the same), unlike `Double`'s `==`.
    public static func == (lhs: PreferenceValue, rhs: PreferenceValue) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        case (.float(let a), .float(let b)): a == b || (a.isNaN && b.isNaN)
        case (.string(let a), .string(let b)): a == b
        case (.url(let a), .url(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)): a == b
        case (.json(let a), .json(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        switch self {
        case .bool(let value): hasher.combine(value)
        case .int(let value): hasher.combine(value)
        case .double(let value): hasher.combine(value.isNaN ? .nan : value)
        case .float(let value): hasher.combine(value.isNaN ? .nan : value)
        case .string(let value): hasher.combine(value)
        case .url(let value): hasher.combine(value)
        case .date(let value): hasher.combine(value)
        case .data(let value): hasher.combine(value)
        case .array(let value): hasher.combine(value)
        case .dictionary(let value): hasher.combine(value)
        case .json(let value): hasher.combine(value)
        }
    }
}
