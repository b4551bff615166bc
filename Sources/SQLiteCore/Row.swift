internal import CSQLite

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One row of a query result, by column position.
package struct Row: Sendable, Hashable {
    /// The column values in order.
    package let values: [SQLiteValue]

    /// The value of a column, or `.null` past the end.
    package subscript(index: Int) -> SQLiteValue {
        values.indices.contains(index) ? values[index] : .null
    }

    /// A column converted to a Swift type; nil when NULL or of another class.
    package func get<T: SQLiteValueConvertible>(_ index: Int, as type: T.Type = T.self) -> T? {
        T(sqliteValue: self[index])
    }
}
