internal import PostgresCore
import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

// How each type is kept in the PostgreSQL schema (Migrations/postgres/0001_schema.sql):
// text in `value` (bool true/false, int decimal, double and date their exact shortest text,
// date as seconds since 2001-01-01 UTC), bytes in `bytes` (data; array and dictionary as a
// binary property list).
extension PreferenceValue {
    /// The `value` and `bytes` parameters of the value (one of them NULL).
    var postgresColumns: (value: String?, bytes: String?) {
        switch self {
        case .bool(let value): (value ? "true" : "false", nil)
        case .int(let value): (String(value), nil)
        case .double(let value): (PGValue.text(value), nil)
        case .float(let value): ("\(value)", nil)
        case .string(let value): (value, nil)
        case .url(let value): (value.absoluteString, nil)
        case .date(let value): (PGValue.text(value.timeIntervalSinceReferenceDate), nil)
        case .data(let value): (nil, PGValue.hex(Array(value)))
        case .array, .dictionary:
            (nil, PGValue.hex(Array(PropertyList.encode(self, format: .binary))))
        case .json(let value): (value, nil)
        }
    }

    /// Reads a value from its type and columns; nil when they do not fit.
    init?(postgresType typeName: String?, value: String?, bytes: [UInt8]?) {
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
