internal import PostgresCore
import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The PostgreSQL implementation of ``BookmarkRepository`` for one account: the tables of
/// `Migrations/postgres/0001_schema.sql`, search through `tsvector` with prefix queries over
/// the `search_text` column each write keeps in step.
final class PostgreSQLBookmarkRepository: BookmarkRepository {
    let connection: PGConnection
    let account: String

    init(connection: PGConnection, account: String) {
        self.connection = connection
        self.account = account
    }

    /// The columns read into a ``Bookmark``; tags come joined by U+001F, in byte order.
    private static let columns = """
        b.id, b.kind, b.item_id, b.title, b.url, b.category, b.note, b.position,
        b.created_at, b.updated_at,
        (SELECT string_agg(t.tag, chr(31) ORDER BY t.tag COLLATE "C") FROM bookmark_tag t
            WHERE t.account = b.account AND t.bookmark_id = b.id),
        b.folder_id
        """

    private static func text(_ date: Date) -> String {
        PGValue.text(date.timeIntervalSinceReferenceDate)
    }

    private static func text(_ number: Int64?) -> String? { number.map { String($0) } }

    func bookmark(id: Int64) throws -> Bookmark? {
        try read(
            prepared: "bookmark_by_id",
            "SELECT \(Self.columns) FROM bookmark b WHERE b.account = $1 AND b.id = $2",
            [account, String(id)]
        ).first
    }

    func revisionRows(id: Int64) throws -> [BookmarkRevision] {
        let result = try connection.execute(
            prepared: "bookmark_revisions",
            """
            SELECT revision, title, url, category, folder_id, note, replaced_at
            FROM bookmark_history WHERE account = $1 AND bookmark_id = $2
            ORDER BY revision DESC
            """, [account, String(id)])
        return (0..<result.rowCount).map { row in
            BookmarkRevision(
                revision: Int(result.integer(row: row, column: 0) ?? 0),
                title: result.text(row: row, column: 1) ?? "",
                urlString: result.text(row: row, column: 2),
                category: result.text(row: row, column: 3),
                folderID: result.integer(row: row, column: 4),
                note: result.text(row: row, column: 5),
                replacedAt: Date(
                    timeIntervalSinceReferenceDate: result.double(row: row, column: 6) ?? 0))
        }
    }

    func bookmark(kind: String, itemID: String) throws -> Bookmark? {
        try read(
            prepared: "bookmark_by_item",
            """
            SELECT \(Self.columns) FROM bookmark b
            WHERE b.account = $1 AND b.kind = $2 AND b.item_id = $3
            """, [account, kind, itemID]
        ).first
    }

    func identifier(kind: String, itemID: String) throws -> Int64? {
        let result = try connection.execute(
            prepared: "bookmark_identifier",
            "SELECT id FROM bookmark WHERE account = $1 AND kind = $2 AND item_id = $3",
            [account, kind, itemID])
        return result.rowCount > 0 ? result.integer(row: 0, column: 0) : nil
    }

    func insertIfAbsent(
        _ draft: BookmarkDraft, in placement: BookmarkPlacement, at date: Date, id: Int64?,
        createdAt: Date?
    ) throws -> BookmarkInsertion? {
        let folderID = try self.folderID(of: placement, draft: draft)
        let urlText = draft.url?.absoluteString
        // The position is the next one of the kind, found in the (account, kind, position)
        // index by the same statement. Ids are drawn from one sequence for every account, so
        // an id asked for (an import's) is not kept: it may be another account's.
        let result = try connection.execute(
            prepared: "bookmark_insert",
            """
            INSERT INTO bookmark
                (account, id, kind, item_id, title, url, category, note, position, created_at,
                 updated_at, folder_id, search_text)
            VALUES ($1, DEFAULT, $2, $3, $4, $5, $6, $7,
                (SELECT coalesce(max(position) + 1, 0) FROM bookmark
                    WHERE account = $1 AND kind = $2),
                $8, $9, $10, $11)
            ON CONFLICT (account, kind, item_id) DO NOTHING
            RETURNING id, position
            """,
            [
                account, draft.kind, draft.itemID, draft.title, urlText,
                draft.category, draft.note, Self.text(createdAt ?? date), Self.text(date),
                Self.text(folderID),
                Self.searchText(
                    title: draft.title, category: draft.category, tags: draft.tags,
                    note: draft.note, url: urlText),
            ])
        guard result.rowCount > 0, let newID = result.integer(row: 0, column: 0) else {
            return nil
        }
        try saveTags(draft.tags, for: newID)
        return BookmarkInsertion(
            id: newID, position: Int(result.integer(row: 0, column: 1) ?? 0), folderID: folderID
        )
    }

    /// What search reads, in one text: the fields and the distinct tags in byte order.
    static func searchText(
        title: String, category: String?, tags: [String], note: String?, url: String?
    ) -> String {
        let sortedTags = Set(tags.map(ExactName.init)).sorted().map(\.string)
        return ([title, category ?? ""] + sortedTags + [note ?? "", url ?? ""])
            .filter { !$0.isEmpty }.joined(separator: " ")
    }

    private func saveTags(_ tags: [String], for id: Int64) throws {
        for tag in tags {
            try connection.execute(
                prepared: "bookmark_tag_insert",
                """
                INSERT INTO bookmark_tag (account, bookmark_id, tag) VALUES ($1, $2, $3)
                ON CONFLICT DO NOTHING
                """, [account, String(id), tag])
        }
    }

    /// The first folder of a name in a parent (nil: the top level).
    func childFolder(named name: String, in parent: Int64?) throws -> Int64? {
        let result = try connection.execute(
            prepared: "bookmark_child_folder",
            """
            SELECT id FROM bookmark_folder
            WHERE account = $1 AND parent_id IS NOT DISTINCT FROM $2::bigint AND name = $3
            ORDER BY position, id LIMIT 1
            """, [account, Self.text(parent), name])
        return result.rowCount > 0 ? result.integer(row: 0, column: 0) : nil
    }

    func folderTree() throws -> BookmarkFolderTree {
        BookmarkFolderTree(try folders())
    }

    func folders() throws -> [BookmarkFolder] {
        let result = try connection.execute(
            prepared: "bookmark_folders",
            """
            SELECT id, parent_id, name, description, position, created_at, updated_at
            FROM bookmark_folder WHERE account = $1 ORDER BY position, id
            """, [account])
        let folders = (0..<result.rowCount).map { row in
            BookmarkFolder(
                id: result.integer(row: row, column: 0) ?? 0,
                parentID: result.integer(row: row, column: 1),
                name: result.text(row: row, column: 2) ?? "",
                description: result.text(row: row, column: 3),
                position: Int(result.integer(row: row, column: 4) ?? 0),
                createdAt: result.double(row: row, column: 5).map(
                    Date.init(timeIntervalSinceReferenceDate:)),
                updatedAt: result.double(row: row, column: 6).map(
                    Date.init(timeIntervalSinceReferenceDate:)))
        }
        return BookmarkFolderTree(folders).ordered
    }

    func insertFolder(
        name: String, parentID: Int64?, description: String?, createdAt: Date?, updatedAt: Date?
    ) throws -> BookmarkFolder {
        let result = try connection.execute(
            prepared: "bookmark_folder_insert",
            """
            INSERT INTO bookmark_folder
                (account, parent_id, name, description, position, created_at, updated_at)
            VALUES ($1, $2, $3, $4,
                (SELECT coalesce(max(position) + 1, 0) FROM bookmark_folder
                    WHERE account = $1 AND parent_id IS NOT DISTINCT FROM $2::bigint),
                $5, $6)
            RETURNING id, position
            """,
            [
                account, Self.text(parentID), name, description, createdAt.map(Self.text),
                updatedAt.map(Self.text),
            ])
        return BookmarkFolder(
            id: result.integer(row: 0, column: 0) ?? 0, parentID: parentID, name: name,
            description: description, position: Int(result.integer(row: 0, column: 1) ?? 0),
            createdAt: createdAt, updatedAt: updatedAt)
    }

    func setFolderDescription(_ description: String?, id: Int64) throws {
        try connection.execute(
            "UPDATE bookmark_folder SET description = $3 WHERE account = $1 AND id = $2",
            [account, String(id), description])
    }

    func restate(
        kind: String, itemID: String, fields: [(name: String, value: String?)], tags: [String]
    ) throws {
        // A folder's value is the hub's to read (prefs_sync_restate does).
        let changes =
            fields.map { ("bookmark", SyncIdent.make([kind, itemID]), $0.name, $0.value) }
            + tags.map { ("tag", SyncIdent.make([kind, itemID, $0]), SyncFields.tag, nil) }
        for (entity, ident, field, value) in changes {
            try connection.execute(
                prepared: "bookmark_restate",
                "SELECT prefs_sync_restated_bookmark($1, $2, $3, $4, $5, $6)",
                [account, entity, ident, field, value == nil ? nil : "string", value])
        }
    }

    func syncedTags(kind: String, itemID: String) throws -> [String] {
        // Every tag's ident starts with the bookmark's and a dot; hex digits sort before "G".
        let ident = SyncIdent.make([kind, itemID])
        let result = try connection.execute(
            prepared: "bookmark_synced_tags",
            """
            SELECT ident FROM sync_change
            WHERE account = $1 AND entity = 'tag' AND present
                AND ident COLLATE "C" >= $2 || '.' AND ident COLLATE "C" < $2 || '.G'
                AND clock COLLATE "C" >= coalesce((SELECT clock FROM sync_change
                    WHERE account = $1 AND entity = 'bookmark' AND ident = $2
                        AND field = 'removed'), '')
            """, [account, ident])
        return (0..<result.rowCount).compactMap { row in
            result.text(row: row, column: 0).flatMap(SyncIdent.parts).flatMap {
                $0.count == 3 ? $0[2] : nil
            }
        }
    }

    func update(
        id: Int64, with draft: BookmarkDraft, in placement: BookmarkPlacement, at date: Date
    ) throws -> Bookmark {
        // Without a folder named, a bookmark stays in its folder while the category (the
        // folder's name) stays.
        let isFolderNamed = placement != .draft || draft.folder != nil
        let folderID = try self.folderID(of: placement, draft: draft)
        let urlText = draft.url?.absoluteString
        try connection.execute(
            prepared: "bookmark_update",
            """
            UPDATE bookmark SET title = $3, url = $4, category = $5, note = $6, updated_at = $7,
                folder_id = CASE WHEN $8::boolean THEN $9::bigint
                    WHEN category IS NOT DISTINCT FROM $5 THEN folder_id END,
                search_text = $10
            WHERE account = $1 AND id = $2
            """,
            [
                account, String(id), draft.title, urlText, draft.category, draft.note,
                Self.text(date), isFolderNamed ? "true" : "false", Self.text(folderID),
                Self.searchText(
                    title: draft.title, category: draft.category, tags: draft.tags,
                    note: draft.note, url: urlText),
            ])
        // Only the tags that go are deleted (and only new ones inserted): sync stamps each
        // tag's change, and an edit must not stamp the tags it kept (they would beat a
        // device's later removal of one).
        let kept = String(decoding: try JSONEncoder().encode(draft.tags), as: UTF8.self)
        try connection.execute(
            prepared: "bookmark_tags_dropped",
            """
            DELETE FROM bookmark_tag WHERE account = $1 AND bookmark_id = $2
                AND tag <> ALL (SELECT jsonb_array_elements_text($3::jsonb))
            """, [account, String(id), kept])
        try saveTags(draft.tags, for: id)
        guard let updated = try bookmark(id: id) else { throw BookmarkError.notFound(id: id) }
        return updated
    }

    @discardableResult
    func deleteRow(id: Int64) throws -> (kind: String, position: Int)? {
        let result = try connection.execute(
            "DELETE FROM bookmark WHERE account = $1 AND id = $2 RETURNING kind, position",
            [account, String(id)])
        guard result.rowCount > 0, let kind = result.text(row: 0, column: 0),
            let position = result.integer(row: 0, column: 1)
        else { return nil }
        return (kind, Int(position))
    }

    func shiftPositions(kind: String, from lower: Int, through upper: Int?, by delta: Int)
        throws
    {
        try connection.execute(
            """
            UPDATE bookmark SET position = position + $3
            WHERE account = $1 AND kind = $2 AND position >= $4 AND position <= $5
            """,
            [account, kind, String(delta), String(lower), String(upper ?? Int(Int32.max))])
    }

    func setPosition(_ position: Int, id: Int64, updatedAt: Date?) throws {
        try connection.execute(
            """
            UPDATE bookmark SET position = $3, updated_at = coalesce($4, updated_at)
            WHERE account = $1 AND id = $2
            """, [account, String(id), String(position), updatedAt.map(Self.text)])
    }

    func renumberPositions() throws {
        let (sql, values) = BookmarkQueryPlan.renumbering(dialect)
        try connection.execute(sql, Self.parameters(values))
    }

    func list(_ query: BookmarkQuery) throws -> [Bookmark] {
        let plan = try BookmarkQueryPlan(query) { try folderTree().identifiers(under: $0) }
        let (sql, values) = plan.listing(columns: Self.columns, dialect)
        return try read(prepared: nil, sql, Self.parameters(values))
    }

    // The client takes a result whole: these read every row first, then call `body`.
    func forEach(_ query: BookmarkQuery, _ body: (Bookmark) throws -> Void) throws {
        for bookmark in try list(query) { try body(bookmark) }
    }

    func forEach(in group: BookmarkFileGroup, _ body: (Bookmark) throws -> Void) throws {
        let (sql, values) = BookmarkQueryPlan(group).listing(columns: Self.columns, dialect)
        for bookmark in try read(prepared: nil, sql, Self.parameters(values)) { try body(bookmark) }
    }

    func categoriesOutsideFolders() throws -> [String] {
        let (sql, values) = BookmarkQueryPlan.categorizedOutsideFolders.listing(
            columns: "b.category", dialect)
        let result = try connection.execute(sql, Self.parameters(values))
        return BookmarkQueryPlan.categories(
            ofRows: (0..<result.rowCount).compactMap { result.text(row: $0, column: 0) })
    }

    func count(_ query: BookmarkQuery) throws -> Int {
        let plan = try BookmarkQueryPlan(query) { try folderTree().identifiers(under: $0) }
        let (sql, values) = plan.counting(dialect)
        return Int(
            try connection.execute(sql, Self.parameters(values)).integer(row: 0, column: 0) ?? 0)
    }

    /// How PostgreSQL spells a query's plan: the account first, a folder list as a bigint
    /// array, kinds and titles in byte order with ASCII letters folded for titles (SQLite's
    /// NOCASE, whatever the database's locale), and LIMIT NULL for "no limit".
    private var dialect: BookmarkQueryPlan.Dialect {
        BookmarkQueryPlan.Dialect(
            placeholder: { "$\($0)" }, scope: (["b.account = $1"], [.text(account)]),
            folderIn: { "b.folder_id = ANY(\($0)::bigint[])" },
            idList: { "{" + $0.map(String.init).joined(separator: ",") + "}" },
            tagJoin: "t.account = b.account AND ", kindOrder: "b.kind COLLATE \"C\"",
            titleOrder: "lower(b.title COLLATE \"C\") COLLATE \"C\"", unlimited: .null)
    }

    private static func parameters(_ values: [BookmarkQueryPlan.Value]) -> [String?] {
        values.map { value in
            switch value {
            case .text(let text): text
            case .integer(let integer): String(integer)
            case .null: nil
            }
        }
    }

    func search(_ search: BookmarkSearch, limit: Int, offset: Int) throws -> [Bookmark] {
        try read(
            prepared: "bookmark_search",
            """
            SELECT \(Self.columns) FROM bookmark b
            WHERE b.account = $1 AND prefs_search_vector(b.search_text) @@ prefs_search_query($2)
            ORDER BY ts_rank(prefs_search_vector(b.search_text), prefs_search_query($2)) DESC, b.id
            LIMIT $3 OFFSET $4
            """,
            [
                account, Self.queryText(for: search), String(limit), String(offset),
            ])
    }

    /// The `tsquery` text of a search: each word quoted as a lexeme (so that nothing typed
    /// is query syntax), a prefix word followed by `:*`, all of them required.
    static func queryText(for search: BookmarkSearch) -> String {
        search.terms.map { term in
            var quoted = "'"
            for character in term.word {
                if character == "'" {
                    quoted += "''"
                } else if character == "\\" {
                    quoted += "\\\\"
                } else {
                    quoted.append(character)
                }
            }
            return quoted + "'" + (term.isPrefix ? ":*" : "")
        }.joined(separator: " & ")
    }

    /// SQL for the search text of bookmark `b` from the tables, as ``searchText`` builds it.
    private static let searchTextOfBookmark = """
        concat_ws(' ', nullif(b.title, ''), nullif(b.category, ''),
            (SELECT string_agg(t.tag, ' ' ORDER BY t.tag COLLATE "C") FROM bookmark_tag t
                WHERE t.account = b.account AND t.bookmark_id = b.id AND t.tag <> ''),
            nullif(b.note, ''), nullif(b.url, ''))
        """

    func rebuildSearchIndex() throws {
        try connection.execute(
            "UPDATE bookmark b SET search_text = \(Self.searchTextOfBookmark) WHERE b.account = $1",
            [account])
    }

    func searchIndexMismatchCount() throws -> Int {
        Int(
            try connection.execute(
                """
                SELECT count(*) FROM bookmark b
                WHERE b.account = $1 AND b.search_text IS DISTINCT FROM \(Self.searchTextOfBookmark)
                """, [account]
            ).integer(row: 0, column: 0) ?? 0)
    }

    /// Runs a query of ``columns`` and reads its rows into bookmarks, folder paths included.
    private func read(prepared name: String?, _ sql: String, _ parameters: [String?]) throws
        -> [Bookmark]
    {
        let result =
            try name.map { try connection.execute(prepared: $0, sql, parameters) }
            ?? connection.execute(sql, parameters)
        var bookmarks: [Bookmark] = []
        bookmarks.reserveCapacity(result.rowCount)
        var tree: BookmarkFolderTree?
        for row in 0..<result.rowCount {
            let tagText = result.text(row: row, column: 10)
            var bookmark = Bookmark(
                id: result.integer(row: row, column: 0) ?? 0,
                kind: result.text(row: row, column: 1) ?? "",
                itemID: result.text(row: row, column: 2) ?? "",
                title: result.text(row: row, column: 3) ?? "",
                urlString: result.text(row: row, column: 4),
                category: result.text(row: row, column: 5), folder: nil,
                tags: tagText.map { $0.split(separator: "\u{1F}").map(String.init) } ?? [],
                note: result.text(row: row, column: 6),
                position: Int(result.integer(row: row, column: 7) ?? 0),
                createdAt: Date(
                    timeIntervalSinceReferenceDate: result.double(row: row, column: 8) ?? 0),
                updatedAt: Date(
                    timeIntervalSinceReferenceDate: result.double(row: row, column: 9) ?? 0))
            if let folderID = result.integer(row: row, column: 11) {
                if tree == nil { tree = BookmarkFolderTree(try folders()) }
                bookmark.folderID = folderID
                bookmark.folder = tree?.path(of: folderID) ?? []
            }
            bookmarks.append(bookmark)
        }
        return bookmarks
    }
}
