#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// A type that converts to and from an ``SQLiteValue``.
///
/// How Swift and Foundation types are stored:
///
/// | Swift | storage class | notes |
/// |---|---|---|
/// | `Bool` | INTEGER | 0 or 1 |
/// | `Int`, `Int64`, `Int32` | INTEGER | |
/// | `Double` | REAL | SQLite stores NaN as NULL, so NaN does not round-trip |
/// | `String` | TEXT | UTF-8 |
/// | `Data` | BLOB | |
/// | `Date` | REAL | seconds since 2001-01-01 UTC (Foundation's reference date), exact |
/// | `URL` | TEXT | `absoluteString` |
/// | `Optional` | NULL when nil | |
package protocol SQLiteValueConvertible: Sendable {
    /// The value to store.
    var sqliteValue: SQLiteValue { get }
    /// Reads a stored value; nil when the storage class does not fit.
    init?(sqliteValue: SQLiteValue)
}

extension SQLiteValue: SQLiteValueConvertible {
    /// The value as SQLite stores it.
    package var sqliteValue: SQLiteValue { self }
    /// Reads an SQLite value; nil when it does not convert.
    package init?(sqliteValue: SQLiteValue) { self = sqliteValue }
}

extension Bool: SQLiteValueConvertible {
    /// The value as SQLite stores it.
    package var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
    /// Reads an SQLite value; nil when it does not convert.
    package init?(sqliteValue: SQLiteValue) {
        guard case .integer(let value) = sqliteValue else { return nil }
        self = value != 0
    }
}

extension Int64: SQLiteValueConvertible {
    /// The value as SQLite stores it.
    package var sqliteValue: SQLiteValue { .integer(self) }
    /// Reads an SQLite value; nil when it does not convert.
    package init?(sqliteValue: SQLiteValue) {
        guard case .integer(let value) = sqliteValue else { return nil }
        self = value
    }
}

extension Int: SQLiteValueConvertible {
    /// The value as SQLite stores it.
    package var sqliteValue: SQLiteValue { .integer(Int64(self)) }
    /// Reads an SQLite value; nil when it does not convert.
    package init?(sqliteValue: SQLiteValue) {
        guard case .integer(let value) = sqliteValue, let exact = Int(exactly: value) else {
            return nil
        }
        self = exact
    }
}

extension Int32: SQLiteValueConvertible {
    /// The value as SQLite stores it.
    package var sqliteValue: SQLiteValue { .integer(Int64(self)) }
    /// Reads an SQLite value; nil when it does not convert.
    package init?(sqliteValue: SQLiteValue) {
        guard case .integer(let value) = sqliteValue, let exact = Int32(exactly: value) else {
            return nil
        }
        self = exact
    }
}

extension Double: SQLiteValueConvertible {
    /// The value as SQLite stores it.
    package var sqliteValue: SQLiteValue { .real(self) }
    /// Reads an SQLite value; nil when it does not convert.
    package init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension String: SQLiteValueConvertible {
    /// The value as SQLite stores it.
    package var sqliteValue: SQLiteValue { .text(self) }
    /// Reads an SQLite value; nil when it does not convert.
    package init?(sqliteValue: SQLiteValue) {
        guard case .text(let value) = sqliteValue else { return nil }
        self = value
    }
}

extension Data: SQLiteValueConvertible {
    /// The value as SQLite stores it.
    package var sqliteValue: SQLiteValue { .blob(self) }
    /// Reads an SQLite value; nil when it does not convert.
    package init?(sqliteValue: SQLiteValue) {
        guard case .blob(let value) = sqliteValue else { return nil }
        self = value
    }
}

extension Date: SQLiteValueConvertible {
    /// The value as SQLite stores it.
    package var sqliteValue: SQLiteValue { .real(timeIntervalSinceReferenceDate) }
    /// Reads an SQLite value; nil when it does not convert.
    package init?(sqliteValue: SQLiteValue) {
        guard let seconds = Double(sqliteValue: sqliteValue) else { return nil }
        self.init(timeIntervalSinceReferenceDate: seconds)
    }
}

extension URL: SQLiteValueConvertible {
    /// The value as SQLite stores it.
    package var sqliteValue: SQLiteValue { .text(absoluteString) }
    /// Reads an SQLite value; nil when it does not convert.
    package init?(sqliteValue: SQLiteValue) {
        guard case .text(let value) = sqliteValue, let url = URL(string: value) else {
            return nil
        }
        self = url
    }
}

extension Optional: SQLiteValueConvertible where Wrapped: SQLiteValueConvertible {
    /// The value as SQLite stores it.
    package var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
    /// Reads an SQLite value; nil when it does not convert.
    package init?(sqliteValue: SQLiteValue) {
        if sqliteValue.isNull {
            self = .none
        } else if let wrapped = Wrapped(sqliteValue: sqliteValue) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
}
