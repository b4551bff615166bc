internal import PostgresCore
import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

// How each type is kept in the PostgreSQL schema: ``PreferenceValue/storedColumns``, the
// bytes as `bytea`'s hex text.
extension PreferenceValue {
    /// The `value` and `bytes` parameters of the value (one of them NULL).
    var postgresColumns: (value: String?, bytes: String?) {
        let columns = storedColumns
        return (columns.value, columns.bytes.map(PGValue.hex))
    }

    /// Reads a value from its type and columns; nil when they do not fit.
    init?(postgresType typeName: String?, value: String?, bytes: [UInt8]?) {
        self.init(storedType: typeName, value: value, bytes: bytes)
    }
}
