#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

// JSON encodings of values. At the top level the type travels beside the value (as in the
// export file and the CLI's `--json`): bool, int, double and string are JSON scalars, url
// and date are strings (dates in ISO 8601 with exact fractional seconds), data is base64,
// json is the JSON value itself; a float is written with its own shortest digits (12.34);
// an infinite double or float is the string "Infinity" or "-Infinity", a NaN "NaN". Inside arrays and dictionaries no type travels, so a double is always
// written with a fraction or exponent (2.0), and dates and data are tagged objects,
// {"$date": "..."} and {"$data": "..."}.
extension PreferenceValue {
    /// The value as JSON, without its type.
    public var jsonValue: Prefs.JSONValue {
        switch self {
        case .bool(let value): .bool(value)
        case .int(let value): .integer(value)
        case .double(let value): Self.doubleJSON(value)
        case .float(let value):
            value.isFinite ? .number(Self.numberText(value)) : Self.doubleJSON(Double(value))
        case .string(let value): .string(value)
        case .url(let value): .string(value.absoluteString)
        case .date(let value): .string(ISO8601.string(from: value))
        case .data(let value): .string(value.base64EncodedString())
        case .array(let elements): .array(elements.map(\.nestedJSONValue))
        case .dictionary(let entries):
            .object(entries.keys.sorted().map { ($0, entries[$0]?.nestedJSONValue ?? .null) })
        case .json(let text): (try? JSONValue(parsing: text)) ?? .string(text)
        }
    }

    private var nestedJSONValue: JSONValue {
        switch self {
        case .date(let value): .object([("$date", .string(ISO8601.string(from: value)))])
        case .data(let value): .object([("$data", .string(value.base64EncodedString()))])
        default: jsonValue
        }
    }

    /// A finite Float's shortest digits as a JSON number (Swift writes 1e+20 as "1e+20",
    /// which JSON accepts).
    private static func numberText(_ value: Float) -> String {
        "\(value)"
    }

    private static func doubleJSON(_ value: Double) -> JSONValue {
        if value.isNaN { return .string("NaN") }
        if value.isInfinite { return .string(value < 0 ? "-Infinity" : "Infinity") }
        return .double(value)
    }

    /// Reads a value of a known type from its JSON encoding.
    ///
    /// - Throws: ``PreferenceError/invalidValue(key:reason:)`` naming the expected form.
    public init(json: Prefs.JSONValue, type: PreferenceType, key: String) throws(PreferenceError) {
        func invalid(_ expected: String) -> PreferenceError {
            .invalidValue(key: key, reason: "expected \(expected) for type \(type)")
        }
        switch (type, json) {
        case (.bool, .bool(let value)): self = .bool(value)
        case (.int, .number(let text)):
            guard let value = Int(text) else { throw invalid("an integer") }
            self = .int(value)
        case (.double, .number(let text)):
            guard let value = Double(text) else { throw invalid("a number") }
            self = .double(value)
        case (.double, .string("Infinity")): self = .double(.infinity)
        case (.double, .string("-Infinity")): self = .double(-.infinity)
        case (.double, .string("NaN")): self = .double(.nan)
        case (.float, .number(let text)):
            guard let value = Float(text), value.isFinite else { throw invalid("a number") }
            self = .float(value)
        case (.float, .string("Infinity")): self = .float(.infinity)
        case (.float, .string("-Infinity")): self = .float(-.infinity)
        case (.float, .string("NaN")): self = .float(.nan)
        case (.string, .string(let value)): self = .string(value)
        case (.url, .string(let text)):
            guard let url = URL(string: text), url.scheme != nil else {
                throw invalid("an absolute URL")
            }
            self = .url(url)
        case (.date, .string(let text)):
            guard let date = ISO8601.date(from: text) else { throw invalid("an ISO 8601 date") }
            self = .date(date)
        case (.data, .string(let text)):
            guard let data = Data(base64Encoded: text) else { throw invalid("base64 text") }
            self = .data(data)
        case (.array, .array), (.dictionary, .object):
            self = try Self(nestedJSON: json, key: key)
        case (.json, _): self = .json(json.serialized())
        default: throw invalid(Self.jsonShape(of: type))
        }
    }

    /// Reads a value whose type is inferred from its JSON: true/false, integers,
    /// numbers with a fraction or exponent, strings, arrays, objects, and the tagged
    /// `{"$date": ...}` and `{"$data": ...}`.
    ///
    /// - Throws: ``PreferenceError/invalidValue(key:reason:)`` for null or a bad tag.
    public init(nestedJSON json: Prefs.JSONValue, key: String) throws(PreferenceError) {
        switch json {
        case .null:
            throw .invalidValue(key: key, reason: "null cannot be stored in a property list")
        case .bool(let value): self = .bool(value)
        case .number(let text):
            if !json.isFractionalNumber, let value = Int(text) {
                self = .int(value)
            } else if let value = Double(text) {
                self = .double(value)
            } else {
                throw .invalidValue(key: key, reason: "'\(text)' is out of range")
            }
        case .string(let value): self = .string(value)
        case .array(let elements):
            var values: [PreferenceValue] = []
            for element in elements { values.append(try Self(nestedJSON: element, key: key)) }
            self = .array(values)
        case .object(let members):
            if members.count == 1, let tag = members.first, tag.key == "$date" || tag.key == "$data"
            {
                self = try Self(
                    json: tag.value, type: tag.key == "$date" ? .date : .data, key: key)
                return
            }
            var entries: [String: PreferenceValue] = [:]
            for member in members {
                // A dictionary keeps one of two keys Swift calls equal: refused, not lost.
                let value = try Self(nestedJSON: member.value, key: key)
                guard entries.updateValue(value, forKey: member.key) == nil else {
                    throw .invalidValue(
                        key: key,
                        reason:
                            "the object holds the key '\(MessageText.shown(member.key))' twice"
                            + " (or in two Unicode spellings)")
                }
            }
            self = .dictionary(entries)
        }
    }

    private static func jsonShape(of type: PreferenceType) -> String {
        switch type {
        case .bool: "true or false"
        case .int: "an integer"
        case .double, .float: "a number"
        case .string, .url, .date, .data: "a string"
        case .array: "an array"
        case .dictionary: "an object"
        case .json: "JSON"
        }
    }
}
