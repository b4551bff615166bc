internal import PostgresCore
import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The PostgreSQL implementation of ``SelectionRepository`` over the `selection` table, for
/// one account.
final class PostgreSQLSelectionRepository: SelectionRepository {
    let connection: PGConnection
    let account: String
    private static let columns = "name, selected_index, count, policy, item_id, updated_at"

    init(connection: PGConnection, account: String) {
        self.connection = connection
        self.account = account
    }

    func selection(named name: String) throws -> Selection? {
        let result = try connection.execute(
            prepared: "selection_named",
            "SELECT \(Self.columns) FROM selection WHERE account = $1 AND name = $2",
            [account, name])
        return result.rowCount > 0 ? Self.selection(result, row: 0) : nil
    }

    func save(_ selection: Selection) throws {
        try connection.execute(
            prepared: "selection_save",
            """
            INSERT INTO selection (account, \(Self.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (account, name) DO UPDATE
            SET selected_index = excluded.selected_index, count = excluded.count,
                policy = excluded.policy, item_id = excluded.item_id,
                updated_at = excluded.updated_at
            """,
            [
                account, selection.name, selection.index.map { String($0) },
                String(selection.count), selection.policy.rawValue, selection.itemID,
                PGValue.text(selection.updatedAt.timeIntervalSinceReferenceDate),
            ])
    }

    func delete(named name: String) throws -> Bool {
        try connection.execute(
            "DELETE FROM selection WHERE account = $1 AND name = $2", [account, name]
        ).affectedRows > 0
    }

    func all() throws -> [Selection] {
        let result = try connection.execute(
            "SELECT \(Self.columns) FROM selection WHERE account = $1 ORDER BY name COLLATE \"C\"",
            [account])
        return (0..<result.rowCount).compactMap { Self.selection(result, row: $0) }
    }

    private static func selection(_ result: PGResult, row: Int) -> Selection? {
        guard let name = result.text(row: row, column: 0),
            let count = result.integer(row: row, column: 2),
            let policy = result.text(row: row, column: 3).flatMap(
                SelectionPolicy.init(rawValue:))
        else { return nil }
        return Selection(
            stored: name, index: result.integer(row: row, column: 1).map { Int($0) },
            count: Int(count), policy: policy, itemID: result.text(row: row, column: 4),
            updatedAt: Date(
                timeIntervalSinceReferenceDate: result.double(row: row, column: 5) ?? 0))
    }
}
