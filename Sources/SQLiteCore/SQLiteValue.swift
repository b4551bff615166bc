#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// A value of one of SQLite's five storage classes.
///
/// See <https://www.sqlite.org/datatype3.html>.
package enum SQLiteValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An 8-byte IEEE floating-point number.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes, kept as given.
    case blob(Data)

    /// Whether this is SQL `NULL`.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension SQLiteValue: CustomStringConvertible {
    /// A short rendering for messages; blobs show their size only.
    package var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'\(value)'"
        case .blob(let value): "<\(value.count) bytes>"
        }
    }
}

extension SQLiteValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    /// NULL, from `nil`.
    package init(nilLiteral: ()) { self = .null }
    /// An INTEGER, from an integer literal.
    package init(integerLiteral value: Int64) { self = .integer(value) }
    /// A REAL, from a floating-point literal.
    package init(floatLiteral value: Double) { self = .real(value) }
    /// TEXT, from a string literal.
    package init(stringLiteral value: String) { self = .text(value) }
    /// An INTEGER 1 or 0, from `true` or `false`.
    package init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}
