internal import SQLiteCore

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The SQLite implementation of ``SelectionRepository`` over the `selection` table.
final class SQLiteSelectionRepository: SelectionRepository {
    let connection: Connection
    private static let columns = "name, selected_index, count, policy, item_id, updated_at"
    // Literals, so that the statement cache finds them by address (the columns as above).
    private static let byNameSQL: StaticString = """
        SELECT name, selected_index, count, policy, item_id, updated_at FROM selection
        WHERE name = ?
        """
    private static let saveSQL: StaticString = """
        INSERT OR REPLACE INTO selection (name, selected_index, count, policy, item_id, updated_at)
        VALUES (?, ?, ?, ?, ?, ?)
        """

    init(connection: Connection) {
        self.connection = connection
    }

    func selection(named name: String) throws -> Selection? {
        let statement = try connection.cachedStatement(literal: Self.byNameSQL)
        return try statement.rows(arguments: [name]).first.flatMap(Self.selection(from:))
    }

    func save(_ selection: Selection) throws {
        let statement = try connection.cachedStatement(literal: Self.saveSQL)
        try statement.execute(arguments: [
            selection.name, selection.index, selection.count, selection.policy.rawValue,
            selection.itemID, selection.updatedAt,
        ])
    }

    func delete(named name: String) throws -> Bool {
        try connection.execute(sql: "DELETE FROM selection WHERE name = ?", arguments: [name])
        return connection.changes > 0
    }

    func all() throws -> [Selection] {
        try connection.rows(sql: "SELECT \(Self.columns) FROM selection ORDER BY name")
            .compactMap(Self.selection(from:))
    }

    private static func selection(from row: Row) -> Selection? {
        guard let name = row.get(0, as: String.self), let count = row.get(2, as: Int.self),
            let policy = row.get(3, as: String.self).flatMap(SelectionPolicy.init(rawValue:))
        else { return nil }
        return Selection(
            stored: name, index: row.get(1, as: Int.self), count: count, policy: policy,
            itemID: row.get(4, as: String.self),
            updatedAt: row.get(5, as: Date.self) ?? Date(timeIntervalSinceReferenceDate: 0))
    }
}
