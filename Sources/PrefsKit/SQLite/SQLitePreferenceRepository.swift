internal import SQLiteCore

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The SQLite implementation of ``PreferenceRepository`` over the tables of
/// `Migrations/0001_preferences.sql`. Hot paths use cached prepared statements and decode
/// straight from columns.
final class SQLitePreferenceRepository: PreferenceRepository {
    let connection: Connection

    init(connection: Connection) {
        self.connection = connection
    }

    /// The hottest read's statement, and the suite that stays bound to it between reads.
    /// (Behind a pointer: stored properties of a class cost a dynamic exclusivity check on
    /// every access.)
    private struct SelectValue {
        /// Retained while kept here (released at deinit): a read borrows it, unretained.
        var statement: Unmanaged<Statement>?
        var suite: String?
        var clears = 0
    }

    private let select: UnsafeMutablePointer<SelectValue> = {
        let pointer = UnsafeMutablePointer<SelectValue>.allocate(capacity: 1)
        pointer.initialize(to: SelectValue())
        return pointer
    }()

    deinit {
        select.pointee.statement?.release()
        select.deinitialize(count: 1)
        select.deallocate()
    }

    func value(suite: String, key: String) throws -> PreferenceValue? {
        // Kept here: the hottest read skips even the statement cache's lookup.
        let prepared: Unmanaged<Statement>
        if let kept = select.pointee.statement {
            prepared = kept
        } else {
            prepared = .passRetained(
                try connection.makeStatement(
                    sql: "SELECT type, value FROM preference WHERE suite = ? AND key = ?"))
            select.pointee.statement = prepared
        }
        return try prepared._withUnsafeGuaranteedRef { statement in
            // A store reads one suite: it stays bound (as SQLite's own copy) between reads.
            if select.pointee.suite != suite || select.pointee.clears != statement.bindingClears {
                select.pointee.suite = nil
                try statement.bindKept(suite, at: 1)
                select.pointee.suite = suite
                select.pointee.clears = statement.bindingClears
            }
            // Every parameter is bound again or kept: the lookup's rewind does not clear them.
            var tag = ShortText()
            guard let value = try statement.lookUp(key, at: 2, tag: &tag),
                let type = PreferenceType(tag: tag)
            else { return nil }
            return PreferenceValue(type: type, value: value)
        }
    }

    func setValue(
        _ value: PreferenceValue, suite: String, key: String, version: Int?, at date: Date
    ) throws {
        let statement = try connection.cachedStatement(
            literal: """
                INSERT INTO preference (suite, key, type, value, updated_at, value_version)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (suite, key) DO UPDATE
                SET type = excluded.type, value = excluded.value, updated_at = excluded.updated_at,
                    value_version = excluded.value_version
                -- The value already stored is no change: no time moves, no one is told.
                WHERE type IS NOT excluded.type OR value IS NOT excluded.value
                    OR typeof(value) IS NOT typeof(excluded.value)
                    OR value_version IS NOT excluded.value_version
                """)
        try statement.bind(suite, at: 1)
        try statement.bind(key, at: 2)
        try statement.bind(value.type.rawValue, at: 3)
        try statement.bind(value.storedValue, at: 4)
        try statement.bind(date.timeIntervalSinceReferenceDate, at: 5)
        try statement.bind(version.map { SQLiteValue.integer(Int64($0)) } ?? .null, at: 6)
        try statement.step()
        statement.reset()
        // The value stored already: no row changed, and the write is stamped all the same.
        if connection.changes == 0 { try restate(suite: suite, key: key, present: true) }
    }

    /// Stamps for sync a write that changed no row (SyncCapture.restate).
    private func restate(suite: String, key: String, present: Bool) throws {
        try SyncCapture.restate(
            connection, entity: SyncEntity.preference.rawValue,
            ident: SyncIdent.make([suite, key]),
            field: SyncFields.preference, present: present, preference: (suite, key))
    }

    func valueVersion(suite: String, key: String) throws -> Int? {
        let statement = try connection.cachedStatement(
            literal: "SELECT value_version FROM preference WHERE suite = ? AND key = ?")
        try statement.bind(suite, at: 1)
        try statement.bind(key, at: 2)
        defer { statement.reset() }
        guard try statement.step(), case .integer(let version) = statement.value(at: 0) else {
            return nil
        }
        return Int(exactly: version)
    }

    @discardableResult
    func removeValue(suite: String, key: String) throws -> Bool {
        let statement = try connection.cachedStatement(
            literal: "DELETE FROM preference WHERE suite = ? AND key = ?")
        try statement.execute(arguments: [suite, key])
        guard connection.changes > 0 else {
            // Not there: the removal is stamped all the same.
            try restate(suite: suite, key: key, present: false)
            return false
        }
        return true
    }

    @discardableResult
    func removeAll(suite: String) throws -> Int {
        try connection.execute(sql: "DELETE FROM preference WHERE suite = ?", arguments: [suite])
        return connection.changes
    }

    func entries(suite: String) throws -> [(key: String, value: PreferenceValue)] {
        var result: [(key: String, value: PreferenceValue)] = []
        try forEachEntry(suite: suite) { result.append(($0, $1)) }
        return result
    }

    func forEachEntry(suite: String, _ body: (String, PreferenceValue) throws -> Void) throws {
        // The primary key's BINARY collation: byte order.
        let statement = try connection.cachedStatement(
            literal: "SELECT key, type, value FROM preference WHERE suite = ? ORDER BY key")
        try statement.bind([suite])
        defer { statement.reset() }
        while try statement.step() {
            if let value = PreferenceValue(
                storedType: statement.text(at: 1), value: statement.value(at: 2))
            {
                try body(statement.text(at: 0), value)
            }
        }
    }

    func suites() throws -> [String] {
        try connection.rows(
            sql: """
                SELECT suite FROM preference UNION SELECT suite FROM preference_declaration
                ORDER BY suite
                """
        ).compactMap { $0.get(0, as: String.self) }
    }

    /// Whether the suite that sets last wrote to has any declaration, kept from one write
    /// transaction to the next while no other connection commits: a set in a suite without
    /// declarations then needs no statement to check its key. ``SQLiteEngine`` hands over the
    /// commit token it reads first in each write transaction (``transactionToken``); a
    /// declaration of this connection forgets it at once. A transaction that rolls back
    /// leaves at worst a "has declarations" that is no longer so, which costs a lookup, never
    /// a missed check: nothing removes a declaration. (One suite and a flag: a memo of every
    /// key's type cost a batch of new keys more than the lookups it saved.)
    private struct SuiteDeclarations {
        /// The commit token it was read under.
        let token: Int64
        let suite: String
        let hasDeclarations: Bool
    }

    @exclusivity(unchecked) private var suiteDeclarations: SuiteDeclarations?
    /// The commit token read in the write transaction under way (nil outside one): no other
    /// connection can commit until it ends, so what was read under the same token holds.
    @exclusivity(unchecked) var transactionToken: Int64?

    /// Stores a value unless the key is declared with another type, as the protocol's form
    /// does; the key's declaration is looked up only in a suite that has declarations.
    func setValueUnlessDeclaredOtherwise(
        _ value: PreferenceValue, suite: String, key: String, version: Int?, at date: Date
    ) throws {
        if try suiteHasDeclarations(suite),
            let declared = try declaredType(suite: suite, key: key), declared != value.type
        {
            throw PreferenceError.typeMismatch(key: key, declared: declared, given: value.type)
        }
        try setValue(value, suite: suite, key: key, version: version, at: date)
    }

    private func suiteHasDeclarations(_ suite: String) throws -> Bool {
        guard let token = transactionToken else { return true }
        if let kept = suiteDeclarations, kept.token == token,
            ExactName.sameBytes(kept.suite, suite)
        {
            return kept.hasDeclarations
        }
        let statement = try connection.cachedStatement(
            literal: "SELECT EXISTS (SELECT 1 FROM preference_declaration WHERE suite = ?)")
        try statement.bind(suite, at: 1)
        defer { statement.reset() }
        let hasDeclarations = try statement.step() && statement.int64(at: 0) != 0
        suiteDeclarations = SuiteDeclarations(
            token: token, suite: suite, hasDeclarations: hasDeclarations)
        return hasDeclarations
    }

    func declare(_ declaration: PreferenceDeclaration, suite: String) throws {
        suiteDeclarations = nil
        try connection.execute(
            sql: """
                INSERT OR REPLACE INTO preference_declaration
                    (suite, key, type, default_value, description, device_local)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                suite, declaration.key, declaration.type.rawValue,
                declaration.defaultValue?.storedValue, declaration.description,
                declaration.isDeviceLocal,
            ])
    }

    func declaredType(suite: String, key: String) throws -> PreferenceType? {
        let statement = try connection.cachedStatement(
            literal: "SELECT type FROM preference_declaration WHERE suite = ? AND key = ?")
        try statement.bind(suite, at: 1)
        try statement.bind(key, at: 2)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return PreferenceType(rawValue: statement.text(at: 0))
    }

    func declarations(suite: String) throws -> [PreferenceDeclaration] {
        try connection.rows(
            sql: """
                SELECT key, type, default_value, description, device_local
                FROM preference_declaration WHERE suite = ? ORDER BY key
                """,
            arguments: [suite]
        ).compactMap { row in
            guard let key = row.get(0, as: String.self),
                let typeName = row.get(1, as: String.self),
                let type = PreferenceType(rawValue: typeName)
            else { return nil }
            return PreferenceDeclaration(
                key: key, type: type,
                defaultValue: PreferenceValue(storedType: typeName, value: row[2]),
                description: row.get(3, as: String.self),
                isDeviceLocal: row.get(4, as: Bool.self) ?? false)
        }
    }

    private static let changeColumns =
        "id, suite, key, type, value, old_type, old_value, changed_at"

    func history(suite: String, key: String?, limit: Int) throws -> [PreferenceChange] {
        let rows: [Row]
        if let key {
            rows = try connection.rows(
                sql: """
                    SELECT \(Self.changeColumns) FROM preference_history
                    WHERE suite = ? AND key = ? ORDER BY id DESC LIMIT ?
                    """,
                arguments: [suite, key, limit])
        } else {
            rows = try connection.rows(
                sql: """
                    SELECT \(Self.changeColumns) FROM preference_history
                    WHERE suite = ? ORDER BY id DESC LIMIT ?
                    """,
                arguments: [suite, limit])
        }
        return rows.map(Self.change(from:))
    }

    /// Read back by every write: a literal (the columns of `changeColumns`), so that the
    /// statement cache finds it by address.
    private static let changesAfterSQL: StaticString = """
        SELECT id, suite, key, type, value, old_type, old_value, changed_at
        FROM preference_history WHERE id > ? ORDER BY id
        """

    func changes(after id: Int64) throws -> [PreferenceChange] {
        let statement = try connection.cachedStatement(literal: Self.changesAfterSQL)
        try statement.bind(id, at: 1)
        defer { statement.reset() }
        var changes: [PreferenceChange] = []
        while try statement.step() { changes.append(Self.change(readFrom: statement)) }
        return changes
    }

    /// The current history row of a statement over `changeColumns`, read from its columns
    /// as ``change(from:)`` reads a row (no row of values made first: every write reads one).
    private static func change(readFrom statement: Statement) -> PreferenceChange {
        PreferenceChange(
            id: statement.int64(at: 0),
            suite: statement.text(at: 1),
            key: statement.text(at: 2),
            value: statement.withUTF8Text(at: 3) { PreferenceType(utf8: $0) }.flatMap {
                PreferenceValue(type: $0, value: statement.value(at: 4))
            },
            oldValue: statement.withUTF8Text(at: 5) { PreferenceType(utf8: $0) }.flatMap {
                PreferenceValue(type: $0, value: statement.value(at: 6))
            },
            changedAt: Date(timeIntervalSinceReferenceDate: statement.double(at: 7)))
    }

    func latestChangeID() throws -> Int64 {
        try Self.latestChangeID(connection)
    }

    /// The newest history row's id (0 when there is none), on any connection to the file.
    static func latestChangeID(_ connection: Connection) throws -> Int64 {
        let statement = try connection.cachedStatement(
            literal: "SELECT max(id) FROM preference_history")
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : 0
    }

    func storedForm(of value: PreferenceValue) -> PreferenceValue? {
        PreferenceValue(type: value.type, value: value.storedValue)
    }

    func historyLimit() throws -> Int {
        try connection.scalar(
            Int.self, sql: "SELECT value FROM setting WHERE name = 'history_limit'") ?? 0
    }

    func setHistoryLimit(_ limit: Int) throws {
        try connection.execute(
            sql: "INSERT OR REPLACE INTO setting (name, value) VALUES ('history_limit', ?)",
            arguments: [limit])
        try connection.execute(
            sql: """
                DELETE FROM preference_history
                WHERE id <= (SELECT max(id) FROM preference_history) - ?
                """,
            arguments: [limit])
    }

    func forgetHistory(suite: String, key: String) throws -> Int {
        try connection.execute(
            sql: """
                DELETE FROM preference_history WHERE suite = ?1 AND key = ?2
                    AND id < (SELECT max(id) FROM preference_history WHERE suite = ?1 AND key = ?2)
                """,
            arguments: [suite, key])
        let dropped = connection.changes
        try connection.execute(
            sql: """
                UPDATE preference_history
                SET type = NULL, value = NULL, old_type = NULL, old_value = NULL
                WHERE suite = ? AND key = ?
                """,
            arguments: [suite, key])
        // Sync keeps the losing sides of conflicts, and a field's last value.
        let ident = SyncIdent.make([suite, key])
        try connection.execute(
            sql: "DELETE FROM sync_conflict WHERE entity = 'preference' AND ident = ?",
            arguments: [ident])
        try connection.execute(
            sql: "UPDATE sync_field SET value = NULL WHERE entity = 'preference' AND ident = ?",
            arguments: [ident])
        return dropped
    }

    private static func change(from row: Row) -> PreferenceChange {
        PreferenceChange(
            id: row.get(0) ?? 0,
            suite: row.get(1) ?? "",
            key: row.get(2) ?? "",
            value: row.get(3, as: String.self).flatMap {
                PreferenceValue(storedType: $0, value: row[4])
            },
            oldValue: row.get(5, as: String.self).flatMap {
                PreferenceValue(storedType: $0, value: row[6])
            },
            changedAt: Date(timeIntervalSinceReferenceDate: row.get(7) ?? 0))
    }
}
