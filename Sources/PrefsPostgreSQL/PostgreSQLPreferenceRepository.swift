internal import PostgresCore
import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The PostgreSQL implementation of ``PreferenceRepository`` over the tables of
/// `Migrations/postgres/0001_schema.sql`, for one account. History is written by the
/// schema's trigger, as in the SQLite engine.
final class PostgreSQLPreferenceRepository: PreferenceRepository {
    let connection: PGConnection
    let account: String

    init(connection: PGConnection, account: String) {
        self.connection = connection
        self.account = account
    }

    func value(suite: String, key: String) throws -> PreferenceValue? {
        let result = try connection.execute(
            prepared: "preference_value",
            "SELECT type, value, bytes FROM preference WHERE account = $1 AND suite = $2 AND key = $3",
            [account, suite, key])
        guard result.rowCount > 0 else { return nil }
        // The commonest types read from libpq's bytes, as the general reading reads them.
        switch result.withUTF8(row: 0, column: 0, PreferenceType.init(utf8:)) {
        case .int?:
            if let integer = result.integer(row: 0, column: 1) { return .int(Int(integer)) }
        case .bool?:
            let read = { (text: UnsafeBufferPointer<UInt8>) -> Bool? in
                if text.elementsEqual("true".utf8) { return true }
                return text.elementsEqual("false".utf8) ? false : nil
            }
            if let flag = result.withUTF8(row: 0, column: 1, read) ?? nil { return .bool(flag) }
        default:
            break
        }
        return PreferenceValue(
            postgresType: result.text(row: 0, column: 0), value: result.text(row: 0, column: 1),
            bytes: result.bytes(row: 0, column: 2))
    }

    func setValue(
        _ value: PreferenceValue, suite: String, key: String, version: Int?, at date: Date
    ) throws {
        let columns = value.postgresColumns
        try Self.refuseNUL(in: columns.value, key: key)
        let result = try connection.execute(
            prepared: "preference_set",
            """
            INSERT INTO preference (account, suite, key, type, value, bytes, updated_at,
                value_version)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            ON CONFLICT (account, suite, key) DO UPDATE
            SET type = excluded.type, value = excluded.value, bytes = excluded.bytes,
                updated_at = excluded.updated_at, value_version = excluded.value_version
            -- The value already stored is no change: no time moves, no one is told.
            WHERE (preference.type, preference.value, preference.bytes,
                    preference.value_version)
                IS DISTINCT FROM (excluded.type, excluded.value, excluded.bytes,
                    excluded.value_version)
            """,
            [
                account, suite, key, value.type.rawValue, columns.value, columns.bytes,
                PGValue.text(date.timeIntervalSinceReferenceDate), version.map(String.init),
            ])
        // The value stored already: no row changed, and the write is stamped all the same.
        if result.affectedRows == 0 { try restate(suite: suite, key: key, present: true) }
    }

    /// A value whose text holds a NUL character (U+0000) is refused, whole: PostgreSQL's
    /// text cannot hold one (the connection refuses any such parameter besides).
    private static func refuseNUL(in text: String?, key: String) throws(PreferenceError) {
        if let text, PGConnection.holdsNUL(text) {
            throw .invalidValue(
                key: key,
                reason: "text with a NUL character (U+0000) cannot be stored in PostgreSQL, "
                    + "whose text cannot hold it")
        }
    }

    /// Stamps for sync a write that changed no row (docs/sync.md, "Stamping").
    private func restate(suite: String, key: String, present: Bool) throws {
        try connection.execute(
            prepared: "preference_restate",
            "SELECT prefs_sync_restated_preference($1, $2, $3, $4::boolean)",
            [account, suite, key, present ? "true" : "false"])
    }

    /// One statement, one round trip: the declaration is read in it, and the row is
    /// written only when no declaration of another type stands in the way.
    func setValueUnlessDeclaredOtherwise(
        _ value: PreferenceValue, suite: String, key: String, version: Int?, at date: Date
    ) throws {
        let columns = value.postgresColumns
        try Self.refuseNUL(in: columns.value, key: key)
        var parameters: [String?] = []
        // Room for the history id the statement alone takes after them.
        parameters.reserveCapacity(9)
        parameters.append(account)
        parameters.append(suite)
        parameters.append(key)
        parameters.append(value.type.rawValue)
        parameters.append(columns.value)
        parameters.append(columns.bytes)
        parameters.append(PGValue.text(date.timeIntervalSinceReferenceDate))
        parameters.append(version.map(String.init))
        // First in a write transaction (its BEGIN not yet sent): it goes with the BEGIN
        // and the COMMIT, in one round trip; or, when nothing else comes before the
        // commit, in place of them all, as prefs_set_value.
        if connection.hasQueuedStatements {
            connection.queue(
                prepared: "preference_set_queued", Self.setQueuedSQL, parameters,
                check: Self.mismatch, refusal: Self.refusal, alone: Self.setAlone)
        } else if let failure = Self.mismatch(
            try connection.execute(prepared: "preference_set_checked", Self.setSQL, parameters),
            parameters)
        {
            throw failure
        }
    }

    /// The checked set: the declaration read, and the row written only when no
    /// declaration of another type stands in the way. Its parameters: the account, the
    /// suite, the key, the type's name, the value's text and bytes, the time, the version.
    private static let setSQL = """
        WITH declared AS (
            SELECT type FROM preference_declaration
            WHERE account = $1 AND suite = $2 AND key = $3 AND type <> $4::text
        ), stored AS (
            INSERT INTO preference (account, suite, key, type, value, bytes, updated_at,
                value_version)
            SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::bytea,
                $7::double precision, $8::integer
            WHERE NOT EXISTS (SELECT 1 FROM declared)
            ON CONFLICT (account, suite, key) DO UPDATE
            SET type = excluded.type, value = excluded.value, bytes = excluded.bytes,
                updated_at = excluded.updated_at, value_version = excluded.value_version
            WHERE (preference.type, preference.value, preference.bytes,
                    preference.value_version)
                IS DISTINCT FROM (excluded.type, excluded.value, excluded.bytes,
                    excluded.value_version)
            RETURNING 1
        ), restated AS (
            -- The value stored already: stamped for sync all the same.
            SELECT prefs_sync_restated_preference($1::text, $2::text, $3::text, true)
            WHERE NOT EXISTS (SELECT 1 FROM declared) AND NOT EXISTS (SELECT 1 FROM stored)
        )
        SELECT (SELECT type FROM declared), (SELECT count(*) FROM stored),
            (SELECT count(*) FROM restated)
        """

    /// ``setSQL`` queued among other statements of its transaction: a refused set fails (a
    /// division by zero when the key is declared otherwise), so that its transaction is
    /// aborted and nothing of it is committed. Its failure names the set
    /// (``refusal``, RefusedByDeclaration).
    private static let setQueuedSQL = """
        \(setSQL), 1 / (SELECT count(*) - 1 FROM declared)
        """

    /// A set's check, given its parameters (``setSQL``'s): the declared type that refused it.
    /// A mismatch stores nothing, so the check may come after the commit. The statement
    /// alone (prefs_set_value) names the declared type in its last column.
    private static func mismatch(_ result: PGResult, _ parameters: [String?]) -> (any Error)? {
        let column = result.columnCount == 1 + changeColumnCount ? changeColumnCount : 0
        guard let declared = result.text(row: 0, column: column) else { return nil }
        let key = parameters[2] ?? ""
        // The declaration's CHECK allows only known types, and the set's type is one.
        guard let type = PreferenceType(rawValue: declared),
            let given = parameters[3].flatMap(PreferenceType.init(rawValue:))
        else {
            return DatabaseError.internalError(
                "'\(key)' is declared with an unknown type '\(declared)'")
        }
        return PreferenceError.typeMismatch(key: key, declared: type, given: given)
    }

    /// A queued set's failure, given its parameters: the refusal of its declared type.
    private static func refusal(_ error: PGError, _ parameters: [String?]) -> (any Error)? {
        guard error.sqlState == "22012",
            let given = parameters[3].flatMap(PreferenceType.init(rawValue:))
        else { return nil }
        return RefusedByDeclaration(
            suite: parameters[1] ?? "", key: parameters[2] ?? "", given: given)
    }

    /// The set's form alone (``setAloneSQL``, told: ``setToldSQL``).
    private static let setAlone = PGConnection.Alone(
        name: "preference_set_alone", sql: setAloneSQL,
        told: (name: "preference_set_told", sql: setToldSQL))

    /// The checked set and the history read after it, in one statement that commits on its
    /// own: the set's eight parameters, then the id of the last history row seen. Its rows
    /// are those of ``changes(after:)`` with the declared type after them (migration 0022).
    private static let setAloneSQL = """
        SELECT * FROM prefs_set_value($1::text, $2::text, $3::text, $4::text, $5::text,
            $6::bytea, $7::double precision, $8::integer, $9::bigint)
        """

    /// ``setAloneSQL``'s answer told in one row of two columns instead of the history rows:
    /// the declared type (read as that form's last column), and what the rows after the
    /// given id are: 0 when there are none, the id of the one row when it is the set's own
    /// (its suite and key, its value as given), -1 otherwise (another connection's rows
    /// among them). A row of another connection that stored this very value for the key,
    /// the set then changing nothing, tells the caches what the set's own row would.
    private static let setToldSQL = """
        SELECT max(declared), CASE
            WHEN count(id) = 0 THEN 0
            WHEN count(*) = 1 AND bool_and(suite = $2::text AND key = $3::text
                AND type = $4::text AND value IS NOT DISTINCT FROM $5::text
                AND bytes IS NOT DISTINCT FROM $6::bytea) THEN max(id)
            ELSE -1 END
        FROM prefs_set_value($1::text, $2::text, $3::text, $4::text, $5::text,
            $6::bytea, $7::double precision, $8::integer, $9::bigint)
        """

    /// What the answer of a set's told form (``setToldSQL``) says of the history rows after
    /// the id it was given: `.some(nil)` none, `.some(id)` the set's own row alone, nil
    /// rows of another connection (or an answer not understood), to be read.
    static func toldRow(_ result: PGResult) -> Int64?? {
        guard result.rowCount == 1, result.columnCount == 2,
            let told = result.integer(row: 0, column: 1), told >= 0
        else { return nil }
        return .some(told == 0 ? nil : told)
    }

    func valueVersion(suite: String, key: String) throws -> Int? {
        let result = try connection.execute(
            prepared: "preference_value_version",
            "SELECT value_version FROM preference WHERE account = $1 AND suite = $2 AND key = $3",
            [account, suite, key])
        return result.rowCount > 0 ? result.text(row: 0, column: 0).flatMap { Int($0) } : nil
    }

    @discardableResult
    func removeValue(suite: String, key: String) throws -> Bool {
        let removed =
            try connection.execute(
                prepared: "preference_remove",
                "DELETE FROM preference WHERE account = $1 AND suite = $2 AND key = $3",
                [account, suite, key]
            ).affectedRows > 0
        // Not there: the removal is stamped all the same.
        if !removed { try restate(suite: suite, key: key, present: false) }
        return removed
    }

    @discardableResult
    func removeAll(suite: String) throws -> Int {
        try connection.execute(
            "DELETE FROM preference WHERE account = $1 AND suite = $2", [account, suite]
        ).affectedRows
    }

    func entries(suite: String) throws -> [(key: String, value: PreferenceValue)] {
        var values: [(key: String, value: PreferenceValue)] = []
        try forEachEntry(suite: suite) { values.append(($0, $1)) }
        return values
    }

    /// The rows come in one result of libpq's, held until the last is read.
    func forEachEntry(suite: String, _ body: (String, PreferenceValue) throws -> Void) throws {
        let result = try connection.execute(
            prepared: "preference_entries",
            """
            SELECT key, type, value, bytes FROM preference WHERE account = $1 AND suite = $2
            ORDER BY key COLLATE "C"
            """,
            [account, suite])
        for row in 0..<result.rowCount {
            if let key = result.text(row: row, column: 0),
                let value = PreferenceValue(
                    postgresType: result.text(row: row, column: 1),
                    value: result.text(row: row, column: 2),
                    bytes: result.bytes(row: row, column: 3))
            {
                try body(key, value)
            }
        }
    }

    func suites() throws -> [String] {
        let result = try connection.execute(
            """
            SELECT suite FROM (
                SELECT suite FROM preference WHERE account = $1
                UNION SELECT suite FROM preference_declaration WHERE account = $1
            ) AS suites ORDER BY suite COLLATE "C"
            """, [account])
        return (0..<result.rowCount).compactMap { result.text(row: $0, column: 0) }
    }

    func declare(_ declaration: PreferenceDeclaration, suite: String) throws {
        let columns = declaration.defaultValue?.postgresColumns
        try Self.refuseNUL(in: columns?.value ?? nil, key: declaration.key)
        try connection.execute(
            """
            INSERT INTO preference_declaration
                (account, suite, key, type, default_value, default_bytes, description,
                    device_local)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            ON CONFLICT (account, suite, key) DO UPDATE
            SET type = excluded.type, default_value = excluded.default_value,
                default_bytes = excluded.default_bytes, description = excluded.description,
                device_local = excluded.device_local
            """,
            [
                account, suite, declaration.key, declaration.type.rawValue,
                columns?.value ?? nil,
                columns?.bytes ?? nil, declaration.description,
                declaration.isDeviceLocal ? "true" : "false",
            ])
    }

    func declaredType(suite: String, key: String) throws -> PreferenceType? {
        let result = try connection.execute(
            prepared: "preference_declared_type",
            """
            SELECT type FROM preference_declaration
            WHERE account = $1 AND suite = $2 AND key = $3
            """, [account, suite, key])
        return result.rowCount > 0
            ? result.text(row: 0, column: 0).flatMap(PreferenceType.init(rawValue:)) : nil
    }

    func declarations(suite: String) throws -> [PreferenceDeclaration] {
        let result = try connection.execute(
            """
            SELECT key, type, default_value, default_bytes, description, device_local
            FROM preference_declaration
            WHERE account = $1 AND suite = $2 ORDER BY key COLLATE "C"
            """, [account, suite])
        return (0..<result.rowCount).compactMap { row in
            guard let key = result.text(row: row, column: 0),
                let typeName = result.text(row: row, column: 1),
                let type = PreferenceType(rawValue: typeName)
            else { return nil }
            return PreferenceDeclaration(
                key: key, type: type,
                defaultValue: PreferenceValue(
                    postgresType: typeName, value: result.text(row: row, column: 2),
                    bytes: result.bytes(row: row, column: 3)),
                description: result.text(row: row, column: 4),
                isDeviceLocal: result.text(row: row, column: 5) == "t")
        }
    }

    private static let changeColumns = """
        id, suite, key, type, value, bytes, old_type, old_value, old_bytes, changed_at
        """
    /// How many columns ``changeColumns`` names.
    private static let changeColumnCount = 10

    func history(suite: String, key: String?, limit: Int) throws -> [PreferenceChange] {
        let result: PGResult
        if let key {
            result = try connection.execute(
                """
                SELECT \(Self.changeColumns) FROM preference_history
                WHERE account = $1 AND suite = $2 AND key = $3 ORDER BY id DESC LIMIT $4
                """, [account, suite, key, String(max(0, limit))])
        } else {
            result = try connection.execute(
                """
                SELECT \(Self.changeColumns) FROM preference_history
                WHERE account = $1 AND suite = $2 ORDER BY id DESC LIMIT $3
                """, [account, suite, String(max(0, limit))])
        }
        return Self.changes(result)
    }

    func changes(after id: Int64) throws -> [PreferenceChange] {
        let (name, sql, parameters) = changesStatement(after: id)
        return Self.changes(try connection.execute(prepared: name, sql, parameters))
    }

    /// The statement of ``changes(after:)``, for the engine to run it after a commit in
    /// the same round trip; ``changes(_:)`` reads its result.
    func changesStatement(after id: Int64) -> (name: String, sql: String, [String?]) {
        ("preference_changes_after", Self.changesAfterSQL, [account, String(id)])
    }

    private static let changesAfterSQL = """
        SELECT \(changeColumns) FROM preference_history
        WHERE account = $1 AND id > $2 ORDER BY id
        """

    func latestChangeID() throws -> Int64 {
        let result = try connection.execute(
            "SELECT max(id) FROM preference_history WHERE account = $1", [account])
        return result.integer(row: 0, column: 0) ?? 0
    }

    func historyLimit() throws -> Int {
        let result = try connection.execute(
            "SELECT history_limit FROM prefs_account_state WHERE account = $1", [account])
        return result.rowCount > 0 ? Int(result.integer(row: 0, column: 0) ?? 10_000) : 10_000
    }

    func forgetHistory(suite: String, key: String) throws -> Int {
        let dropped = try connection.execute(
            """
            DELETE FROM preference_history WHERE account = $1 AND suite = $2 AND key = $3
                AND id < (SELECT max(id) FROM preference_history
                    WHERE account = $1 AND suite = $2 AND key = $3)
            """, [account, suite, key])
        try connection.execute(
            """
            UPDATE preference_history
            SET type = NULL, value = NULL, bytes = NULL, old_type = NULL, old_value = NULL,
                old_bytes = NULL
            WHERE account = $1 AND suite = $2 AND key = $3
            """, [account, suite, key])
        return dropped.affectedRows
    }

    func setHistoryLimit(_ limit: Int) throws {
        // The account's lock, which every writer of its history takes (held to the
        // commit): no id is given while the rows are dropped.
        try connection.execute(
            "SELECT pg_advisory_xact_lock(prefs_sync_lock_key($1))",
            [account])
        try connection.execute(
            """
            INSERT INTO prefs_account_state (account, history_limit) VALUES ($1, $2)
            ON CONFLICT (account) DO UPDATE SET history_limit = excluded.history_limit,
                -- The newest id given, kept where the next one is taken from when the
                -- rows below are all dropped (Migrations/postgres/0010_hub_is_the_store.sql):
                -- an id is never given twice.
                last_change = greatest(prefs_account_state.last_change, (
                    SELECT coalesce(max(id), 0) FROM preference_history WHERE account = $1))
            """, [account, String(limit)])
        try connection.execute(
            """
            DELETE FROM preference_history WHERE account = $1
                AND id <= (SELECT max(id) FROM preference_history WHERE account = $1) - $2
            """, [account, String(limit)])
    }

    func storedForm(of value: PreferenceValue) -> PreferenceValue? {
        switch value {
        case .bool, .int, .string, .data, .json:
            // Their text or bytes read back as written (text with a NUL is refused).
            return value
        default:
            let columns = value.storedColumns
            return PreferenceValue(
                storedType: value.type.rawValue, value: columns.value, bytes: columns.bytes)
        }
    }

    static func changes(_ result: PGResult) -> [PreferenceChange] {
        (0..<result.rowCount).map { row in
            PreferenceChange(
                id: result.integer(row: row, column: 0) ?? 0,
                suite: result.text(row: row, column: 1) ?? "",
                key: result.text(row: row, column: 2) ?? "",
                value: PreferenceValue(
                    postgresType: result.text(row: row, column: 3),
                    value: result.text(row: row, column: 4),
                    bytes: result.bytes(row: row, column: 5)),
                oldValue: PreferenceValue(
                    postgresType: result.text(row: row, column: 6),
                    value: result.text(row: row, column: 7),
                    bytes: result.bytes(row: row, column: 8)),
                changedAt: Date(
                    timeIntervalSinceReferenceDate: result.double(row: row, column: 9) ?? 0))
        }
    }
}

/// A set queued in a transaction of several statements and refused by its key's declared
/// type: its statement failed, and its transaction with it. The engine reads the declared
/// type once the transaction is rolled back (``PostgreSQLEngine``).
struct RefusedByDeclaration: Error {
    let suite: String
    let key: String
    let given: PreferenceType
}
