#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// A type that a preference can hold.
///
/// Numbers bridge as NSNumber bridges them for `@AppStorage`: a `Bool` reads any stored
/// number (true when not zero); an `Int` reads a bool (0 or 1) or a double that is a whole
/// number in range; a `Double` or `Float` reads an int or a bool. Text never reads as a
/// number through a typed key (the UserDefaults-style getters coerce it).
///
/// Bool, Int, Double, Float, String, URL, Date, Data, arrays and string-keyed dictionaries
/// of storable values, and Optionals of all of these conform. Enums conform by declaring it
/// (`enum Theme: String, PreferenceStorable { ... }`), and any `Codable` type by adopting
/// ``JSONPreference``.
public protocol PreferenceStorable: Sendable {
    /// The type values of this Swift type are stored with.
    static var preferenceType: PreferenceType { get }
    /// Reads a stored value; nil when it has another type.
    init?(preferenceValue: PreferenceValue)
    /// The value to store; nil means "remove the key" (an Optional that is nil).
    var preferenceValue: PreferenceValue? { get }
}

// Numbers bridge between the numeric types as NSNumber does for @AppStorage on Apple
// platforms: a Bool reads any number (true when not zero), an Int reads a Bool (0 or 1) or a
// Double that is a whole number in range, a Double or Float reads a Bool or an Int. Text
// never reads as a number here (the UserDefaults-style getters coerce it).

extension Bool: PreferenceStorable {
    /// The type values of this Swift type are stored with.
    public static var preferenceType: PreferenceType { .bool }
    /// Reads a stored bool, or a number (true when not zero); nil for another type.
    public init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .bool(let value): self = value
        case .int(let value): self = value != 0
        case .double(let value): self = value != 0 && !value.isNaN
        case .float(let value): self = value != 0 && !value.isNaN
        default: return nil
        }
    }
    /// The value to store.
    public var preferenceValue: PreferenceValue? { .bool(self) }
}

extension Int: PreferenceStorable {
    /// The type values of this Swift type are stored with.
    public static var preferenceType: PreferenceType { .int }
    /// Reads a stored int, a bool (0 or 1), or a double that is a whole number in range;
    /// nil for anything else.
    public init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .int(let value): self = value
        case .bool(let value): self = value ? 1 : 0
        case .double(let value):
            guard let exact = Int(exactly: value) else { return nil }
            self = exact
        case .float(let value):
            guard let exact = Int(exactly: value) else { return nil }
            self = exact
        default: return nil
        }
    }
    /// The value to store.
    public var preferenceValue: PreferenceValue? { .int(self) }
}

extension Double: PreferenceStorable {
    /// The type values of this Swift type are stored with.
    public static var preferenceType: PreferenceType { .double }
    /// Reads a stored double, a float (widened exactly), an int, or a bool (0 or 1); nil for
    /// another type.
    public init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .double(let value): self = value
        case .float(let value): self = Double(value)
        case .int(let value): self = Double(value)
        case .bool(let value): self = value ? 1 : 0
        default: return nil
        }
    }
    /// The value to store.
    public var preferenceValue: PreferenceValue? { .double(self) }
}

extension Float: PreferenceStorable {
    /// The type values of this Swift type are stored with.
    public static var preferenceType: PreferenceType { .float }
    /// Reads a stored float, a double (to the nearest Float; nil beyond Float's range), an
    /// int, or a bool (0 or 1); nil for another type.
    public init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .float(let value): self = value
        case .double(let value):
            let narrowed = Float(value)
            guard narrowed.isFinite || !value.isFinite else { return nil }
            self = narrowed
        case .int(let value): self = Float(value)
        case .bool(let value): self = value ? 1 : 0
        default: return nil
        }
    }
    /// The value to store.
    public var preferenceValue: PreferenceValue? { .float(self) }
}

extension String: PreferenceStorable {
    /// The type values of this Swift type are stored with.
    public static var preferenceType: PreferenceType { .string }
    /// Reads a stored value; nil when it has another type.
    public init?(preferenceValue: PreferenceValue) {
        guard case .string(let value) = preferenceValue else { return nil }
        self = value
    }
    /// The value to store.
    public var preferenceValue: PreferenceValue? { .string(self) }
}

extension URL: PreferenceStorable {
    /// The type values of this Swift type are stored with.
    public static var preferenceType: PreferenceType { .url }
    /// Reads a URL, or a string holding one (inside arrays, URLs are kept as strings). A
    /// string without a scheme is a path, as property lists from macOS hold them
    /// (`~/Sites/index.html`, `/tmp/some file.txt`): it reads as the file URL that
    /// `url(forKey:)` returns, tilde expanded, as with `@AppStorage`.
    public init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .url(let value): self = value
        case .string(let text):
            if let url = URL(string: text), url.scheme != nil {
                self = url
            } else if let url = preferenceValue.coercedURL {
                self = url
            } else {
                return nil
            }
        default: return nil
        }
    }
    /// The value to store.
    public var preferenceValue: PreferenceValue? { .url(self) }
}

extension Date: PreferenceStorable {
    /// The type values of this Swift type are stored with.
    public static var preferenceType: PreferenceType { .date }
    /// Reads a stored value; nil when it has another type.
    public init?(preferenceValue: PreferenceValue) {
        guard case .date(let value) = preferenceValue else { return nil }
        self = value
    }
    /// The value to store.
    public var preferenceValue: PreferenceValue? { .date(self) }
}

extension Data: PreferenceStorable {
    /// The type values of this Swift type are stored with.
    public static var preferenceType: PreferenceType { .data }
    /// Reads a stored value; nil when it has another type.
    public init?(preferenceValue: PreferenceValue) {
        guard case .data(let value) = preferenceValue else { return nil }
        self = value
    }
    /// The value to store.
    public var preferenceValue: PreferenceValue? { .data(self) }
}

extension PreferenceValue: PreferenceStorable {
    /// Any type; a key of `PreferenceValue` is declared as JSON.
    public static var preferenceType: PreferenceType { .json }
    /// Reads a stored value; nil when it has another type.
    public init?(preferenceValue: PreferenceValue) { self = preferenceValue }
    /// The value to store.
    public var preferenceValue: PreferenceValue? { self }
}

extension Array: PreferenceStorable where Element: PreferenceStorable {
    /// The type values of this Swift type are stored with.
    public static var preferenceType: PreferenceType { .array }
    /// Reads a stored value; nil when it has another type.
    public init?(preferenceValue: PreferenceValue) {
        guard case .array(let elements) = preferenceValue else { return nil }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard let converted = Element(preferenceValue: element) else { return nil }
            result.append(converted)
        }
        self = result
    }
    /// The value to store.
    public var preferenceValue: PreferenceValue? {
        .array(compactMap(\.preferenceValue))
    }
}

extension Dictionary: PreferenceStorable where Key == String, Value: PreferenceStorable {
    /// The type values of this Swift type are stored with.
    public static var preferenceType: PreferenceType { .dictionary }
    /// Reads a stored value; nil when it has another type.
    public init?(preferenceValue: PreferenceValue) {
        guard case .dictionary(let entries) = preferenceValue else { return nil }
        var result: [String: Value] = [:]
        for (key, element) in entries {
            guard let converted = Value(preferenceValue: element) else { return nil }
            result[key] = converted
        }
        self = result
    }
    /// The value to store.
    public var preferenceValue: PreferenceValue? {
        .dictionary(compactMapValues(\.preferenceValue))
    }
}

extension Optional: PreferenceStorable where Wrapped: PreferenceStorable {
    /// The type values of this Swift type are stored with.
    public static var preferenceType: PreferenceType { Wrapped.preferenceType }
    /// Reads a stored value; nil when it has another type.
    public init?(preferenceValue: PreferenceValue) {
        guard let wrapped = Wrapped(preferenceValue: preferenceValue) else { return nil }
        self = .some(wrapped)
    }
    /// nil removes the key, as assigning nil to an optional `@AppStorage` does.
    public var preferenceValue: PreferenceValue? { self?.preferenceValue }
}

extension PreferenceStorable where Self: RawRepresentable, RawValue: PreferenceStorable {
    /// The type values of this Swift type are stored with.
    public static var preferenceType: PreferenceType { RawValue.preferenceType }
    /// Reads a stored value; nil when it has another type.
    public init?(preferenceValue: PreferenceValue) {
        guard let raw = RawValue(preferenceValue: preferenceValue) else { return nil }
        self.init(rawValue: raw)
    }
    /// The value to store.
    public var preferenceValue: PreferenceValue? { rawValue.preferenceValue }
}

extension JSONPreference {
    /// The type values of this Swift type are stored with.
    public static var preferenceType: PreferenceType { .json }

    /// Reads a stored value; nil when it has another type.
    public init?(preferenceValue: PreferenceValue) {
        let text: String
        switch preferenceValue {
        case .json(let value), .string(let value): text = value
        default: return nil
        }
        guard let decoded = try? JSONDecoder().decode(Self.self, from: Data(text.utf8)) else {
            return nil
        }
        self = decoded
    }

    /// The value to store.
    public var preferenceValue: PreferenceValue? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return nil }
        return .json(String(decoding: data, as: UTF8.self))
    }
}
