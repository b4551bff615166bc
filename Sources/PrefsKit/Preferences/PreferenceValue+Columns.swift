#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

// A value as text or bytes beside its type's name: how the PostgreSQL schema keeps it
// (Migrations/postgres/0001_schema.sql) and how the sync protocol sends it
// (docs/sync-protocol.md). Text for bool (true/false), int (decimal), double, float and
// date (their exact shortest text; a date as seconds since 2001-01-01 UTC), string, url and
// json; bytes for data, and for array and dictionary as a binary property list.
extension PreferenceValue {
    /// The text and bytes of the value (one of them nil).
    package var storedColumns: (value: String?, bytes: [UInt8]?) {
        switch self {
        case .bool(let value): (value ? "true" : "false", nil)
        case .int(let value): (String(value), nil)
        case .double(let value): ("\(value)", nil)
        case .float(let value): ("\(value)", nil)
        case .string(let value): (value, nil)
        case .url(let value): (value.absoluteString, nil)
        case .date(let value): ("\(value.timeIntervalSinceReferenceDate)", nil)
        case .data(let value): (nil, Array(value))
        case .array, .dictionary: (nil, Array(PropertyList.encode(self, format: .binary)))
        case .json(let value): (value, nil)
        }
    }

    /// Reads a value from its type's name, text and bytes; nil when they do not fit.
    package init?(storedType typeName: String?, value: String?, bytes: [UInt8]?) {
        guard let typeName, let type = PreferenceType(rawValue: typeName) else { return nil }
        switch type {
        case .bool:
            guard let value, value == "true" || value == "false" else { return nil }
            self = .bool(value == "true")
        case .int:
            guard let integer = value.flatMap({ Int($0) }) else { return nil }
            self = .int(integer)
        case .double:
            guard let real = value.flatMap({ Double($0) }) else { return nil }
            self = .double(real)
        case .float:
            guard let real = value.flatMap({ Float($0) }) else { return nil }
            self = .float(real)
        case .string:
            guard let value else { return nil }
            self = .string(value)
        case .url:
            guard let url = value.flatMap({ URL(string: $0) }) else { return nil }
            self = .url(url)
        case .date:
            guard let seconds = value.flatMap({ Double($0) }) else { return nil }
            self = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .data:
            guard let bytes else { return nil }
            self = .data(Data(bytes))
        case .array, .dictionary:
            guard let bytes,
                let decoded = try? PropertyList.decode(Data(bytes), format: .binary),
                decoded.type == type
            else { return nil }
            self = decoded
        case .json:
            guard let value else { return nil }
            self = .json(value)
        }
    }
}
