/// The values bound to a statement's `?` parameters, written as an array literal.
///
/// ```swift
/// try connection.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [kind, itemID])
/// ```
package struct StatementArguments: ExpressibleByArrayLiteral, Sendable {
    /// The values in parameter order.
    package var values: [SQLiteValue]

    /// Creates arguments from values in parameter order.
    package init(_ values: [SQLiteValue]) {
        self.values = values
    }

    /// Creates arguments from convertible values in parameter order; nil binds NULL.
    package init(arrayLiteral elements: (any SQLiteValueConvertible)?...) {
        values = elements.map { $0?.sqliteValue ?? .null }
    }
}
