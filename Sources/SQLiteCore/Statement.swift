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

/// A prepared statement.
///
/// Bind, step, read columns, reset. Columns decode straight from SQLite, without an
/// intermediate row, through the typed accessors.
package final class Statement {
    let handle: OpaquePointer
    unowned let connection: Connection
    /// The SQL the statement was prepared from.
    package let sql: String
    /// The values of the last ``bind(_:)-(StatementArguments)``, for error messages, and the
    /// text bound since the last reset. (Reached through a pointer: stored properties of a
    /// class cost a dynamic exclusivity check on every bind and reset.)
    private let scratch: UnsafeMutablePointer<Scratch>

    private struct Scratch {
        var boundValues: [SQLiteValue] = []
        var clears = 0
        /// Bound text lives here until the next reset, so that SQLite can take it as
        /// `SQLITE_STATIC` instead of copying it into an allocation of its own per bind.
        var texts = TextArena()
        /// The parameter ``lookUp(_:at:tag:)`` bound to its caller's bytes (0: none). Those
        /// bytes are gone once it returns: unless it is bound again, any other run binds
        /// NULL to it first.
        var borrowedParameter: Int32 = 0
    }

    /// Prepares one statement. SQL that holds more than white space and comments after its
    /// first statement is refused: the rest would never run.
    init(connection: Connection, sql: String) throws {
        var pointer: OpaquePointer?
        var hasMore = false
        let code = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(
                connection.handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, &tail)
            if code == SQLITE_OK, let tail {
                hasMore = Self.holdsAnotherStatement(tail)
            }
            return code
        }
        if hasMore {
            sqlite3_finalize(pointer)
            throw SQLiteError(
                code: .misuse,
                message: "the SQL holds more than one statement; run a script without arguments",
                sql: sql)
        }
        guard code == SQLITE_OK, let pointer else {
            // An empty statement (only white space or comments) prepares to nothing.
            throw connection.makeError(code == SQLITE_OK ? SQLITE_MISUSE : code, sql: sql)
        }
        self.handle = pointer
        self.connection = connection
        self.sql = sql
        scratch = .allocate(capacity: 1)
        scratch.initialize(to: Scratch())
    }

    /// Whether SQL text left after a statement holds anything but white space, semicolons
    /// and comments.
    private static func holdsAnotherStatement(_ tail: UnsafePointer<CChar>) -> Bool {
        var rest = tail
        while rest.pointee != 0 {
            let byte = UInt8(bitPattern: rest.pointee)
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
                UInt8(ascii: ";"):
                rest += 1
            case UInt8(ascii: "-") where rest[1] == CChar(UInt8(ascii: "-")):
                while rest.pointee != 0 && rest.pointee != CChar(UInt8(ascii: "\n")) { rest += 1 }
            case UInt8(ascii: "/") where rest[1] == CChar(UInt8(ascii: "*")):
                rest += 2
                while rest.pointee != 0
                    && !(rest.pointee == CChar(UInt8(ascii: "*"))
                        && rest[1] == CChar(UInt8(ascii: "/")))
                {
                    rest += 1
                }
                if rest.pointee != 0 { rest += 2 }
            default:
                return true
            }
        }
        return false
    }

    deinit {
        sqlite3_finalize(handle)
        scratch.pointee.texts.release()
        scratch.deinitialize(count: 1)
        scratch.deallocate()
    }

    /// The number of `?` parameters.
    package var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }
    /// The number of result columns.
    package var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The name of a result column.
    package func columnName(at index: Int) -> String {
        String(cString: sqlite3_column_name(handle, Int32(index)))
    }

    // MARK: - Binding

    /// Resets the statement and binds all its parameters.
    ///
    /// - Throws: ``SQLiteError`` when the count does not match or a bind fails.
    package func bind(_ arguments: StatementArguments) throws {
        reset()
        guard arguments.values.count == parameterCount else {
            throw SQLiteError(
                code: .range,
                message: "expected \(parameterCount) arguments, got \(arguments.values.count)",
                sql: sql)
        }
        for (offset, value) in arguments.values.enumerated() {
            try bind(value, at: offset + 1)
        }
        scratch.pointee.boundValues = arguments.values
    }

    /// Binds one value to the parameter at a 1-based index.
    ///
    /// - Throws: ``SQLiteError`` when the bind fails.
    package func bind(_ value: SQLiteValue, at index: Int) throws {
        let position = Int32(index)
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, position)
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, position, integer)
        case .real(let real):
            code = sqlite3_bind_double(handle, position, real)
        case .text(let text):
            code = bindText(text, at: position)
        case .blob(let data):
            code = data.withUnsafeBytes { bytes in
                sqlite3_bind_blob64(
                    handle, position, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                    sqlite3_uint64(bytes.count), prefs_sqlite_transient())
            }
        }
        try finishBind(code, at: index)
    }

    /// Binds a string without going through ``SQLiteValue``.
    ///
    /// - Throws: ``SQLiteError`` when the bind fails.
    package func bind(_ text: String, at index: Int) throws {
        let code = bindText(text, at: Int32(index))
        try finishBind(code, at: index)
    }

    /// Binds a copy of a string that SQLite keeps until the parameter is bound again or the
    /// bindings are cleared (see ``bindingClears``): for a value that stays bound across runs
    /// of a statement that is only ever ``rewind()``-ed.
    ///
    /// - Throws: ``SQLiteError`` when the bind fails.
    package func bindKept(_ text: String, at index: Int) throws {
        var text = text
        let code = text.withUTF8 { bytes in
            sqlite3_bind_text64(
                handle, Int32(index),
                UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1))?
                    .assumingMemoryBound(to: CChar.self),
                sqlite3_uint64(bytes.count), prefs_sqlite_transient(), UInt8(SQLITE_UTF8))
        }
        try finishBind(code, at: index)
    }

    /// How many times the bindings were cleared: a value bound with ``bindKept(_:at:)`` is
    /// still bound while this has not moved.
    package var bindingClears: Int { scratch.pointee.clears }

    /// Binds a string, or NULL for nil, without going through ``SQLiteValue``.
    ///
    /// - Throws: ``SQLiteError`` when the bind fails.
    package func bind(_ text: String?, at index: Int) throws {
        let code =
            text.map { bindText($0, at: Int32(index)) } ?? sqlite3_bind_null(handle, Int32(index))
        try finishBind(code, at: index)
    }

    /// Binds an integer without going through ``SQLiteValue``.
    ///
    /// - Throws: ``SQLiteError`` when the bind fails.
    package func bind(_ integer: Int64, at index: Int) throws {
        let code = sqlite3_bind_int64(handle, Int32(index), integer)
        try finishBind(code, at: index)
    }

    /// After a bind at `index`: fails on SQLite's error, and a parameter that
    /// ``lookUp(_:at:tag:)`` left pointing at its caller's bytes no longer does.
    @inline(__always)
    private func finishBind(_ code: Int32, at index: Int) throws {
        if code != SQLITE_OK { throw connection.makeError(code, sql: sql) }
        if scratch.pointee.borrowedParameter == Int32(index) {
            scratch.pointee.borrowedParameter = 0
        }
    }

    /// Binds a real without going through ``SQLiteValue``.
    ///
    /// - Throws: ``SQLiteError`` when the bind fails.
    package func bind(_ real: Double, at index: Int) throws {
        let code = sqlite3_bind_double(handle, Int32(index), real)
        try finishBind(code, at: index)
    }

    @inline(__always)
    private func bindText(_ text: String, at position: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            let copy = scratch.pointee.texts.store(bytes)
            // SQLITE_STATIC: the copy stays put until the next reset clears the bindings.
            return sqlite3_bind_text64(
                handle, position, copy, sqlite3_uint64(bytes.count), nil, UInt8(SQLITE_UTF8))
        }
    }

    // MARK: - Stepping

    /// Advances to the next row.
    ///
    /// - Returns: true when a row is available, false when the statement is done.
    /// - Throws: ``SQLiteError`` when the step fails.
    @discardableResult
    package func step() throws -> Bool {
        if scratch.pointee.borrowedParameter != 0 { forgetBorrowedParameter() }
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.makeError(code, sql: sql, arguments: scratch.pointee.boundValues)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement so that it can run again; bindings are cleared.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        scratch.pointee.clears &+= 1
        scratch.pointee.borrowedParameter = 0
        // No binding points into the arena any more.
        scratch.pointee.texts.reuse()
        if !scratch.pointee.boundValues.isEmpty {
            scratch.pointee.boundValues.removeAll(keepingCapacity: true)
        }
    }

    /// Resets the statement for a run that binds its parameters again: cheaper than
    /// ``reset()``, which also clears the bindings. The bindings are cleared only when bound
    /// text outgrew the statement's memory for it (``bindingClears`` moves then); otherwise
    /// a parameter bound with ``bindKept(_:at:)`` or to a number keeps its value, and text
    /// bound otherwise may read as other text bound since (its memory stays valid).
    package func rewind() {
        sqlite3_reset(handle)
        if scratch.pointee.texts.reuseWouldMove {
            // The bound text is about to be freed: nothing may point to it.
            sqlite3_clear_bindings(handle)
            scratch.pointee.clears &+= 1
        }
        scratch.pointee.texts.reuse()
        if !scratch.pointee.boundValues.isEmpty {
            scratch.pointee.boundValues.removeAll(keepingCapacity: true)
        }
    }

    /// One lookup by a statement that yields at most one row whose first column is a short
    /// text tag and whose second is a value: binds `key` to the parameter at `index` (every
    /// other parameter keeps what was bound to it), steps once, reads the row, and resets
    /// the statement. The whole run is one call, with no intermediate row.
    ///
    /// SQLite reads the key from the string's own bytes, not from a copy: the run ends (the
    /// statement is reset) before they can go. The parameter is left pointing at them, so
    /// unless it is bound again, any other run of the statement (``step()``) binds NULL to
    /// it first.
    ///
    /// - Returns: the second column, with the first in `tag`; nil when there is no row.
    /// - Throws: ``SQLiteError`` when the bind or the step fails.
    package func lookUp(_ key: String, at index: Int, tag: inout ShortText) throws
        -> SQLiteValue?
    {
        let position = Int32(index)
        var found: SQLiteValue?
        // The bind's code when it failed, else the step's. A native string lends its bytes
        // as they are (no copy, no retain); a bridged one is made native first.
        let code: Int32
        if let direct = key.utf8.withContiguousStorageIfAvailable({
            lookUp($0, at: position, tag: &tag, found: &found)
        }) {
            code = direct
        } else {
            var native = key
            code = native.withUTF8 { lookUp($0, at: position, tag: &tag, found: &found) }
        }
        if code == SQLITE_ROW || code == SQLITE_DONE { return found }
        let error = connection.makeError(code, sql: sql, arguments: [.text(key)])
        sqlite3_reset(handle)
        throw error
    }

    /// ``lookUp(_:at:tag:)``'s run, over the key's bytes: the bind's code when it failed,
    /// else the step's. Resets the statement unless the step failed (the error's message is
    /// read first).
    @inline(__always)
    private func lookUp(
        _ bytes: UnsafeBufferPointer<UInt8>, at position: Int32, tag: inout ShortText,
        found: inout SQLiteValue?
    ) -> Int32 {
        // SQLITE_STATIC: the bytes stay put until the reset below.
        let bound = sqlite3_bind_text64(
            handle, position,
            UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1))?
                .assumingMemoryBound(to: CChar.self),
            sqlite3_uint64(bytes.count), nil, UInt8(SQLITE_UTF8))
        if bound != SQLITE_OK { return bound }
        // Another parameter that an earlier lookup lent bytes to reads NULL from now on.
        let earlier = scratch.pointee.borrowedParameter
        if earlier != 0 && earlier != position { sqlite3_bind_null(handle, earlier) }
        scratch.pointee.borrowedParameter = position
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW {
            tag = Self.shortText(handle, 0)
            let value = sqlite3_column_value(handle, 1)
            // A number in line; the rest (text, a blob: more code than is run) out of it,
            // so that the usual lookup runs through few lines of code.
            found =
                sqlite3_value_type(value) == SQLITE_INTEGER
                ? .integer(sqlite3_value_int64(value)) : Self.otherValue(value)
        }
        if code != SQLITE_ROW && code != SQLITE_DONE { return code }
        sqlite3_reset(handle)
        return code
    }

    /// A column's value that is not an integer, out of line (see ``value(of:)``).
    @inline(never)
    private static func otherValue(_ value: OpaquePointer?) -> SQLiteValue {
        Self.value(of: value)
    }

    /// Binds NULL where ``lookUp(_:at:tag:)`` left its caller's bytes bound.
    private func forgetBorrowedParameter() {
        sqlite3_bind_null(handle, scratch.pointee.borrowedParameter)
        scratch.pointee.borrowedParameter = 0
    }

    /// A column's text packed as ``ShortText`` (the empty text for NULL).
    @inline(__always)
    private static func shortText(_ handle: OpaquePointer, _ index: Int32) -> ShortText {
        let value = sqlite3_column_value(handle, index)
        guard let pointer = sqlite3_value_text(value) else { return ShortText() }
        return ShortText(
            UnsafeBufferPointer(start: pointer, count: Int(sqlite3_value_bytes(value))))
    }

    /// Binds the arguments and runs the statement to completion.
    ///
    /// - Throws: ``SQLiteError`` when binding or stepping fails.
    package func execute(arguments: StatementArguments = []) throws {
        try bind(arguments)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Binds the arguments and returns every row.
    ///
    /// - Throws: ``SQLiteError`` when binding or stepping fails.
    package func rows(arguments: StatementArguments = []) throws -> [Row] {
        try bind(arguments)
        var rows: [Row] = []
        while try step() {
            rows.append(currentRow())
        }
        sqlite3_reset(handle)
        return rows
    }

    // MARK: - Columns

    /// The current row's columns as a ``Row``.
    package func currentRow() -> Row {
        var values: [SQLiteValue] = []
        values.reserveCapacity(columnCount)
        for index in 0..<columnCount {
            values.append(value(at: index))
        }
        return Row(values: values)
    }

    /// A column of the current row as SQLite's value object: one call into SQLite per
    /// column read, where `sqlite3_column_type` then `sqlite3_column_int64` (or `_text`
    /// then `_bytes`) would be two, each looking the column up again. The object is
    /// "unprotected": it is read here at once, under the lock that serializes every use of
    /// the connection, and never kept.
    @inline(__always)
    fileprivate func column(_ index: Int) -> OpaquePointer? {
        sqlite3_column_value(handle, Int32(index))
    }

    /// The value of a column of the current row.
    package func value(at index: Int) -> SQLiteValue {
        Self.value(of: column(index))
    }

    /// A column's value, read from SQLite's value object.
    @inline(__always)
    private static func value(of value: OpaquePointer?) -> SQLiteValue {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: .real(sqlite3_value_double(value))
        case SQLITE_TEXT: .text(text(of: value) ?? "")
        case SQLITE_BLOB: .blob(blob(of: value))
        default: .null
        }
    }

    /// Whether a column of the current row is NULL.
    package func isNull(at index: Int) -> Bool {
        sqlite3_value_type(column(index)) == SQLITE_NULL
    }

    /// A column read as an integer (SQLite converts other classes).
    package func int64(at index: Int) -> Int64 {
        sqlite3_value_int64(column(index))
    }

    /// A column read as a real (SQLite converts other classes).
    package func double(at index: Int) -> Double {
        sqlite3_value_double(column(index))
    }

    /// A column read as text (SQLite converts other classes).
    package func text(at index: Int) -> String {
        Self.text(of: column(index)) ?? ""
    }

    /// A text column, or nil when NULL, in one call (no separate type check).
    package func optionalText(at index: Int) -> String? {
        Self.text(of: column(index))
    }

    /// Calls a closure with a text column's UTF-8 bytes, without making a String. The bytes
    /// are valid only inside the closure. (Package-wide, not public: it hands out a pointer.)
    /// Inlined, so that the closure is called directly, not through a generic thunk.
    @inlinable
    package func withUTF8Text<R>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        body(utf8Text(at: index))
    }

    /// The bytes of ``withUTF8Text(at:_:)``: valid until the statement moves on.
    @usableFromInline
    package func utf8Text(at index: Int) -> UnsafeBufferPointer<UInt8> {
        Self.utf8(of: column(index)) ?? UnsafeBufferPointer(start: nil, count: 0)
    }

    /// A column read as bytes (SQLite converts other classes).
    package func blob(at index: Int) -> Data {
        Self.blob(of: column(index))
    }

    /// A value's UTF-8 bytes (valid until the statement moves on); nil for NULL.
    @inline(__always)
    fileprivate static func utf8(of value: OpaquePointer?) -> UnsafeBufferPointer<UInt8>? {
        guard let pointer = sqlite3_value_text(value) else { return nil }
        return UnsafeBufferPointer(start: pointer, count: Int(sqlite3_value_bytes(value)))
    }

    private static func text(of value: OpaquePointer?) -> String? {
        utf8(of: value).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func blob(of value: OpaquePointer?) -> Data {
        guard let pointer = sqlite3_value_blob(value) else { return Data() }
        return Data(bytes: pointer, count: Int(sqlite3_value_bytes(value)))
    }
}

/// A text column whose value tends to repeat from row to row (a kind, a category, a joined
/// tag list): the last value is kept with its bytes, and a row with the same bytes keeps
/// that String instead of making another one.
package struct RepeatedText {
    /// The value of the last row read; nil for NULL (and before the first row).
    package private(set) var value: String? = nil
    /// Its UTF-8 bytes.
    package private(set) var bytes: [UInt8] = []

    package init() {}

    /// Reads the column of the current row; true when it differs from the last row's.
    @discardableResult
    package mutating func read(_ statement: Statement, at index: Int) -> Bool {
        guard let text = Statement.utf8(of: statement.column(index)) else {
            guard value != nil else { return false }
            value = nil
            bytes.removeAll(keepingCapacity: true)
            return true
        }
        if value != nil, bytes.count == text.count,
            bytes.withUnsafeBufferPointer({ stored in
                guard let stored = stored.baseAddress, let base = text.baseAddress else {
                    return true
                }
                return memcmp(stored, base, text.count) == 0
            })
        {
            return false
        }
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: text)
        value = String(decoding: bytes, as: UTF8.self)
        return true
    }
}
