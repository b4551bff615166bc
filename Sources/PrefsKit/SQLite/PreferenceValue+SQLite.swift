internal import SQLiteCore

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

// How each type is kept in the `value` column (see Migrations/0001_preferences.sql and
// 0007_float_and_nan.sql): bool INTEGER 0/1, int INTEGER, double and float REAL (NaN, which
// SQLite would turn into NULL, as the TEXT 'NaN'), string TEXT, url TEXT, date REAL (seconds
// since 2001-01-01 UTC, exact), data BLOB, array and dictionary BLOB (binary property list),
// json TEXT.
extension PreferenceValue {
    /// The value as stored in the `value` column.
    var storedValue: SQLiteValue {
        switch self {
        case .bool(let value): .integer(value ? 1 : 0)
        case .int(let value): .integer(Int64(value))
        case .double(let value): value.isNaN ? .text("NaN") : .real(value)
        case .float(let value): value.isNaN ? .text("NaN") : .real(Double(value))
        case .string(let value): .text(value)
        case .url(let value): .text(value.absoluteString)
        case .date(let value): .real(value.timeIntervalSinceReferenceDate)
        case .data(let value): .blob(value)
        case .array, .dictionary: .blob(PropertyList.encode(self, format: .binary))
        case .json(let value): .text(value)
        }
    }

    /// Reads a stored value; nil when the type is unknown or the column does not fit it.
    init?(storedType: String, value: SQLiteValue) {
        guard let type = PreferenceType(rawValue: storedType) else { return nil }
        self.init(type: type, value: value)
    }

    /// Reads a stored value of a known type; nil when the column does not fit it.
    init?(type: PreferenceType, value: SQLiteValue) {
        switch (type, value) {
        case (.bool, .integer(let integer)): self = .bool(integer != 0)
        case (.int, .integer(let integer)):
            guard let exact = Int(exactly: integer) else { return nil }
            self = .int(exact)
        case (.double, .real(let real)): self = .double(real)
        case (.double, .integer(let integer)): self = .double(Double(integer))
        case (.double, .text("NaN")): self = .double(.nan)
        case (.float, .real(let real)):
            // Written from a Float, so exact; another tool's wider value reads to the nearest.
            self = .float(Float(real))
        case (.float, .integer(let integer)): self = .float(Float(integer))
        case (.float, .text("NaN")): self = .float(.nan)
        case (.string, .text(let text)): self = .string(text)
        case (.url, .text(let text)):
            guard let url = URL(string: text) else { return nil }
            self = .url(url)
        case (.date, .real(let seconds)):
            self = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.date, .integer(let seconds)):
            self = .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case (.data, .blob(let bytes)): self = .data(bytes)
        case (.array, .blob(let bytes)), (.dictionary, .blob(let bytes)):
            guard let decoded = try? PropertyList.decode(bytes, format: .binary),
                decoded.type == type
            else { return nil }
            self = decoded
        case (.json, .text(let text)): self = .json(text)
        default: return nil
        }
    }
}
