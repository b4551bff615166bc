internal import CLibPQ

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

    /// A value's bytes, for the length of `body`, without a String made of them; nil for
    /// NULL.
    package func withUTF8<R>(row: Int, column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R)
        -> R?
    {
        if isNull(row: row, column: column) { return nil }
        guard let text = PQgetvalue(handle, Int32(row), Int32(column)) else { return nil }
        let count = strlen(text)
        return text.withMemoryRebound(to: UInt8.self, capacity: count) {
            body(UnsafeBufferPointer(start: $0, count: count))
        }
    }

    /// A value read as a 64-bit integer; nil for NULL or other text. Read from libpq's
    /// bytes, without a String made of them.
    package func integer(row: Int, column: Int) -> Int64? {
        if isNull(row: row, column: column) { return nil }
        guard let text = PQgetvalue(handle, Int32(row), Int32(column)) else { return nil }
        return Self.integer(text)
    }

    /// Decimal digits after an optional sign, as `Int64("...")` reads them; nil for
    /// anything else, or a value out of range.
    package static func integer(_ text: UnsafePointer<CChar>) -> Int64? {
        var index = 0
        let isNegative = text[0] == 0x2D
        if isNegative || text[0] == 0x2B { index = 1 }
        guard text[index] != 0 else { return nil }
        var value: Int64 = 0
        while text[index] != 0 {
            let digit = Int64(text[index]) - 0x30
            guard (0...9).contains(digit) else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            // Gathered as a negative number: Int64.min has no positive twin.
            let (next, overflow2) = times.subtractingReportingOverflow(digit)
            guard !overflow, !overflow2 else { return nil }
            value = next
            index += 1
        }
        if isNegative { return value }
        let (positive, overflow) = Int64(0).subtractingReportingOverflow(value)
        return overflow ? nil : positive
    }

    /// A value read as a double; nil for NULL or other text.
    package func double(row: Int, column: Int) -> Double? {
        if isNull(row: row, column: column) { return nil }
        return PGResult.double(PQgetvalue(handle, Int32(row), Int32(column)))
    }

    /// `text` read as `Double(String)` reads it, the server's digits without a String made
    /// of them. C's reading follows the process's locale and skips leading spaces, so what
    /// it does not read whole, or what starts with a space, is read as a String.
    package static func double(_ text: UnsafePointer<CChar>?) -> Double? {
        guard let text else { return nil }
        var end: UnsafeMutablePointer<CChar>?
        let value = strtod(text, &end)
        let first = text.pointee
        if let end, end != text, end.pointee == 0, first != 0x20, !(0x09...0x0D).contains(first) {
            return value
        }
        return Double(String(cString: text))
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
