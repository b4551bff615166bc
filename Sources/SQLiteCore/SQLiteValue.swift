#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// A value of one of SQLite's five storage classes.
///
/// See <https://www.sqlite.org/datatype3.html>.
public enum SQLiteValue: Sendable, Hashable {
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
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension SQLiteValue: CustomStringConvertible {
    /// A short rendering for messages; blobs show their size only.
    public var description: String {
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
    public init(nilLiteral: ()) { self = .null }
    /// An INTEGER, from an integer literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A REAL, from a floating-point literal.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// TEXT, from a string literal.
    public init(stringLiteral value: String) { self = .text(value) }
    /// An INTEGER 1 or 0, from `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}
