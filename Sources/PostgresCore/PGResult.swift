internal import CLibPQ

/// The rows of one statement's result, in libpq's text format.
package final class PGResult {
    let handle: OpaquePointer

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        PQclear(handle)
    }

    /// How many rows there are.
    package var rowCount: Int { Int(PQntuples(handle)) }
    /// How many columns each row has.
    package var columnCount: Int { Int(PQnfields(handle)) }
    /// Rows changed by an INSERT, UPDATE or DELETE.
    package var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    /// Whether a value is NULL.
    package func isNull(row: Int, column: Int) -> Bool {
        PQgetisnull(handle, Int32(row), Int32(column)) == 1
    }

    /// A value as text; nil for NULL.
    package func text(row: Int, column: Int) -> String? {
        if isNull(row: row, column: column) { return nil }
        return String(cString: PQgetvalue(handle, Int32(row), Int32(column)))
    }

    /// A value read as a 64-bit integer; nil for NULL or other text.
    package func integer(row: Int, column: Int) -> Int64? {
        text(row: row, column: column).flatMap { Int64($0) }
    }

    /// A value read as a double; nil for NULL or other text.
    package func double(row: Int, column: Int) -> Double? {
        text(row: row, column: column).flatMap { Double($0) }
    }

    /// A `bytea` value, decoded from the server's hex output (`\x0aff`); nil for NULL.
    package func bytes(row: Int, column: Int) -> [UInt8]? {
        guard let text = text(row: row, column: column) else { return nil }
        return PGValue.bytes(fromHex: text)
    }

    /// Whether a `boolean` value is true (`t`).
    package func bool(row: Int, column: Int) -> Bool? {
        text(row: row, column: column).map { $0 == "t" }
    }
}
