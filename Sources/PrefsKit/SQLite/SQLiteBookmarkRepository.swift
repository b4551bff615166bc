internal import SQLiteCore

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The SQLite implementation of ``BookmarkRepository`` over the tables of
/// `Migrations/0003_bookmarks.sql`; it keeps `bookmark_search` in step with every write.
final class SQLiteBookmarkRepository: BookmarkRepository {
    let connection: Connection

    /// The folder tree, read again when another connection committed (`data_version`) or
    /// this one wrote a folder; a folder added by a transaction that then rolled back may
    /// linger in it, which is harmless: no bookmark names it, and the next folder write
    /// (which might reuse its id) reads the tree again.
    private var folderTreeCache: (version: Int64, writes: Int, tree: BookmarkFolderTree)?
    private var folderWrites = 0

    init(connection: Connection) {
        self.connection = connection
    }

    /// The statements of an insert, kept here so that a bulk insert does not hash their
    /// SQL in the connection's statement cache four times a row.
    private enum HotStatement: Int, CaseIterable {
        case nextPosition, insert, insertTag, insertSearchRow

        var sql: String {
            switch self {
            case .nextPosition:
                "SELECT coalesce(max(position) + 1, 0) FROM bookmark WHERE kind = ?"
            case .insert:
                """
                INSERT INTO bookmark
                    (id, kind, item_id, title, url, category, note, position, created_at, updated_at,
                     folder_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (kind, item_id) DO NOTHING
                """
            case .insertTag: "INSERT OR IGNORE INTO bookmark_tag (bookmark_id, tag) VALUES (?, ?)"
            case .insertSearchRow:
                """
                INSERT INTO bookmark_search (rowid, title, category, tags, note, url)
                VALUES (?, ?, ?, ?, ?, ?)
                """
            }
        }
    }

    /// Prepared on first use. (Behind a pointer: a stored array would cost a dynamic
    /// exclusivity check on every use, four times a row.)
    private let hotStatements: UnsafeMutablePointer<Statement?> = {
        let pointer = UnsafeMutablePointer<Statement?>.allocate(
            capacity: HotStatement.allCases.count)
        pointer.initialize(repeating: nil, count: HotStatement.allCases.count)
        return pointer
    }()

    deinit {
        hotStatements.deinitialize(count: HotStatement.allCases.count)
        hotStatements.deallocate()
    }

    /// A hot statement, rewound (every use binds all its parameters), prepared on first use.
    private func statement(_ which: HotStatement) throws -> Statement {
        if let statement = hotStatements[which.rawValue] {
            statement.rewind()
            return statement
        }
        let statement = try connection.cachedStatement(sql: which.sql)
        hotStatements[which.rawValue] = statement
        return statement
    }

    func folderTree() throws -> BookmarkFolderTree {
        let version = try connection.dataVersion()
        if let cache = folderTreeCache, cache.version == version, cache.writes == folderWrites {
            return cache.tree
        }
        let tree = BookmarkFolderTree(try folders())
        folderTreeCache = (version, folderWrites, tree)
        return tree
    }

    /// The columns read into a ``Bookmark``; tags come joined by U+001F, in tag order.
    private static let columns = """
        b.id, b.kind, b.item_id, b.title, b.url, b.category, b.note, b.position,
        b.created_at, b.updated_at,
        (SELECT group_concat(t.tag, char(31)) FROM bookmark_tag t WHERE t.bookmark_id = b.id),
        b.folder_id
        """

    // Statements read often: their text is made once, not at each call (the statement cache
    // finds them by it).
    private static let byIDSQL = "SELECT \(columns) FROM bookmark b WHERE b.id = ?"
    private static let byItemSQL =
        "SELECT \(columns) FROM bookmark b WHERE b.kind = ? AND b.item_id = ?"
    private static let searchSQL = """
        SELECT \(columns) FROM bookmark_search s JOIN bookmark b ON b.id = s.rowid
        WHERE bookmark_search MATCH ? ORDER BY s.rank, b.id LIMIT ? OFFSET ?
        """

    func bookmark(id: Int64) throws -> Bookmark? {
        let statement = try connection.cachedStatement(sql: Self.byIDSQL)
        return try read(statement, [id]).first
    }

    func bookmark(kind: String, itemID: String) throws -> Bookmark? {
        let statement = try connection.cachedStatement(sql: Self.byItemSQL)
        return try read(statement, [kind, itemID]).first
    }

    func revisionRows(id: Int64) throws -> [BookmarkRevision] {
        let statement = try connection.cachedStatement(
            literal: """
                SELECT revision, title, url, category, folder_id, note, replaced_at
                FROM bookmark_history WHERE bookmark_id = ? ORDER BY revision DESC
                """)
        try statement.bind(id, at: 1)
        defer { statement.rewind() }
        var rows: [BookmarkRevision] = []
        while try statement.step() {
            rows.append(
                BookmarkRevision(
                    revision: Int(statement.int64(at: 0)), title: statement.text(at: 1),
                    urlString: statement.optionalText(at: 2),
                    category: statement.optionalText(at: 3),
                    folderID: statement.isNull(at: 4) ? nil : statement.int64(at: 4),
                    note: statement.optionalText(at: 5),
                    replacedAt: Date(timeIntervalSinceReferenceDate: statement.double(at: 6))))
        }
        return rows
    }

    func insertIfAbsent(
        _ draft: BookmarkDraft, in placement: BookmarkPlacement, at date: Date, id: Int64?,
        createdAt: Date?
    ) throws -> BookmarkInsertion? {
        let folderID = try self.folderID(of: placement, draft: draft)
        // Positions are dense, so the next one is max + 1, found in the (kind, position) index.
        let next = try statement(.nextPosition)
        try next.bind(draft.kind, at: 1)
        _ = try next.step()
        let position = next.int64(at: 0)
        next.rewind()
        let statement = try statement(.insert)
        try statement.bind(id.map(SQLiteValue.integer) ?? .null, at: 1)
        try statement.bind(draft.kind, at: 2)
        try statement.bind(draft.itemID, at: 3)
        try statement.bind(draft.title, at: 4)
        let urlText = draft.url?.absoluteString
        try statement.bind(urlText, at: 5)
        try statement.bind(draft.category, at: 6)
        try statement.bind(draft.note, at: 7)
        try statement.bind(position, at: 8)
        try statement.bind((createdAt ?? date).timeIntervalSinceReferenceDate, at: 9)
        try statement.bind(date.timeIntervalSinceReferenceDate, at: 10)
        try statement.bind(folderID.map(SQLiteValue.integer) ?? .null, at: 11)
        defer { statement.rewind() }
        try statement.step()
        guard connection.changes > 0 else { return nil }
        let newID = connection.lastInsertRowID
        try saveTags(draft.tags, for: newID)
        try index(id: newID, draft: draft, urlText: urlText)
        return BookmarkInsertion(id: newID, position: Int(position), folderID: folderID)
    }

    /// The first folder of a name in a parent (nil: the top level).
    func childFolder(named name: String, in parent: Int64?) throws -> Int64? {
        let statement = try connection.cachedStatement(
            literal: """
                SELECT id FROM bookmark_folder WHERE parent_id IS ? AND name = ?
                ORDER BY position LIMIT 1
                """)
        try statement.bind([parent, name])
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : nil
    }

    func folders() throws -> [BookmarkFolder] {
        let statement = try connection.cachedStatement(
            literal: """
                SELECT id, parent_id, name, description, position, created_at, updated_at
                FROM bookmark_folder ORDER BY position, id
                """)
        defer { statement.reset() }
        var result: [BookmarkFolder] = []
        while try statement.step() {
            result.append(
                BookmarkFolder(
                    id: statement.int64(at: 0),
                    parentID: statement.isNull(at: 1) ? nil : statement.int64(at: 1),
                    name: statement.text(at: 2),
                    description: statement.isNull(at: 3) ? nil : statement.text(at: 3),
                    position: Int(statement.int64(at: 4)),
                    createdAt: statement.isNull(at: 5)
                        ? nil : Date(timeIntervalSinceReferenceDate: statement.double(at: 5)),
                    updatedAt: statement.isNull(at: 6)
                        ? nil : Date(timeIntervalSinceReferenceDate: statement.double(at: 6))))
        }
        return BookmarkFolderTree(result).ordered
    }

    func insertFolder(
        name: String, parentID: Int64?, description: String?, createdAt: Date?, updatedAt: Date?
    ) throws -> BookmarkFolder {
        folderWrites += 1
        let next = try connection.cachedStatement(
            literal:
                "SELECT coalesce(max(position) + 1, 0) FROM bookmark_folder WHERE parent_id IS ?")
        try next.bind([parentID])
        _ = try next.step()
        let position = next.int64(at: 0)
        next.reset()
        try connection.cachedStatement(
            literal: """
                INSERT INTO bookmark_folder
                    (parent_id, name, description, position, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [parentID, name, description, position, createdAt, updatedAt])
        return BookmarkFolder(
            id: connection.lastInsertRowID, parentID: parentID, name: name,
            description: description, position: Int(position), createdAt: createdAt,
            updatedAt: updatedAt)
    }

    func setFolderDescription(_ description: String?, id: Int64) throws {
        folderWrites += 1
        try connection.execute(
            sql: "UPDATE bookmark_folder SET description = ? WHERE id = ?",
            arguments: [description, id])
    }

    func identifier(kind: String, itemID: String) throws -> Int64? {
        let statement = try connection.cachedStatement(
            literal: "SELECT id FROM bookmark WHERE kind = ? AND item_id = ?")
        try statement.bind(kind, at: 1)
        try statement.bind(itemID, at: 2)
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : nil
    }

    func update(
        id: Int64, with draft: BookmarkDraft, in placement: BookmarkPlacement, at date: Date
    )
        throws -> Bookmark
    {
        // Without a folder named, a bookmark stays in its folder while the category (the
        // folder's name) stays.
        let isFolderNamed = placement != .draft || draft.folder != nil
        let folderID = try self.folderID(of: placement, draft: draft)
        let statement = try connection.cachedStatement(
            literal: """
                UPDATE bookmark SET title = ?, url = ?, category = ?, note = ?, updated_at = ?,
                    folder_id = CASE WHEN ? THEN ? WHEN category IS ? THEN folder_id END
                WHERE id = ?
                """)
        try statement.execute(arguments: [
            draft.title, draft.url?.absoluteString, draft.category, draft.note, date,
            isFolderNamed, folderID, draft.category, id,
        ])
        // Only the tags that go are deleted (and only new ones inserted): sync stamps each
        // tag's change, and an edit of the title must not stamp the tags it kept.
        try perRow(
            """
            DELETE FROM bookmark_tag WHERE bookmark_id = ?
                AND tag NOT IN (SELECT value FROM json_each(?))
            """, [id, Self.jsonArray(draft.tags)])
        try saveTags(draft.tags, for: id)
        try writePendingSearchRows()
        try perRow("DELETE FROM bookmark_search WHERE rowid = ?", [id])
        try index(id: id, draft: draft, urlText: draft.url?.absoluteString)
        guard let updated = try bookmark(id: id) else { throw BookmarkError.notFound(id: id) }
        return updated
    }

    func restate(
        kind: String, itemID: String, fields: [(name: String, value: String?)], tags: [String]
    ) throws {
        let ident = SyncIdent.make([kind, itemID])
        for (name, value) in fields {
            try SyncCapture.restate(
                connection, entity: SyncEntity.bookmark.rawValue, ident: ident, field: name,
                present: true, value: value.map(SQLiteValue.text) ?? .null)
        }
        for tag in tags {
            try SyncCapture.restate(
                connection, entity: SyncEntity.tag.rawValue,
                ident: SyncIdent.make([kind, itemID, tag]), field: SyncFields.tag, present: true)
        }
    }

    func holdsSyncedTags() throws -> Bool {
        let statement = try connection.cachedStatement(
            literal: "SELECT EXISTS (SELECT 1 FROM sync_field WHERE entity = 'tag' AND present = 1)"
        )
        defer { statement.reset() }
        return try statement.step() && statement.int64(at: 0) != 0
    }

    func syncedTags(kind: String, itemID: String) throws -> [String] {
        // Every tag's ident starts with the bookmark's and a dot; hex digits sort before "G".
        let ident = SyncIdent.make([kind, itemID])
        let statement = try connection.cachedStatement(
            sql: """
                SELECT ident FROM sync_field
                WHERE entity = 'tag' AND present = 1 AND ident >= ?1 || '.'
                    AND ident < ?1 || '.G' AND clock >= coalesce((SELECT clock FROM sync_field
                        WHERE entity = 'bookmark' AND ident = ?1 AND field = '\(SyncFields.bookmarkRemoved)'), '')
                """)
        return try statement.rows(arguments: [ident]).compactMap { row in
            row.get(0, as: String.self).flatMap(SyncIdent.parts).flatMap {
                $0.count == 3 ? $0[2] : nil
            }
        }
    }

    /// Strings as a JSON array, for `json_each`.
    private static func jsonArray(_ strings: [String]) -> String {
        var text = "["
        for (index, string) in strings.enumerated() {
            if index > 0 { text += "," }
            text += "\""
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: text.unicodeScalars.append(scalar)
                }
            }
            text += "\""
        }
        return text + "]"
    }

    private func saveTags(_ tags: [String], for id: Int64) throws {
        guard !tags.isEmpty else { return }
        let statement = try statement(.insertTag)
        defer { statement.rewind() }
        for tag in tags {
            statement.rewind()
            try statement.bind(id, at: 1)
            try statement.bind(tag, at: 2)
            try statement.step()
        }
    }

    /// A search row of a bulk write, written when the write ends.
    private struct PendingSearchRow {
        let id: Int64
        let title: String
        let category: String?
        let tags: String
        let note: String?
        let url: String?
    }

    /// The search rows of the bulk write in progress (``batchingSearchRows(_:)``), written
    /// together at its end, or each time there are ``searchRowBatchSize`` of them: a bulk
    /// write of any size holds a bounded number.
    private var pendingSearchRows: [PendingSearchRow] = []
    private var searchRowBatches = 0
    static let searchRowBatchSize = 10_000

    func batchingSearchRows<Result>(_ body: () throws -> Result) throws -> Result {
        searchRowBatches += 1
        // On an error the transaction rolls back: what is pending goes with it.
        defer {
            searchRowBatches -= 1
            if searchRowBatches == 0 { pendingSearchRows.removeAll() }
        }
        let result = try body()
        if searchRowBatches == 1 { try writePendingSearchRows() }
        return result
    }

    /// Writes the pending search rows; every other use of the index comes after this.
    private func writePendingSearchRows() throws {
        guard !pendingSearchRows.isEmpty else { return }
        for row in pendingSearchRows { try writeSearchRow(row) }
        pendingSearchRows.removeAll(keepingCapacity: true)
    }

    private func index(id: Int64, draft: BookmarkDraft, urlText: String?) throws {
        let row = PendingSearchRow(
            id: id, title: draft.title, category: draft.category,
            tags: Self.searchText(ofTags: draft.tags), note: draft.note, url: urlText)
        if searchRowBatches > 0 {
            pendingSearchRows.append(row)
            if pendingSearchRows.count >= Self.searchRowBatchSize { try writePendingSearchRows() }
        } else {
            try writeSearchRow(row)
        }
    }

    private func writeSearchRow(_ row: PendingSearchRow) throws {
        let statement = try statement(.insertSearchRow)
        try statement.bind(row.id, at: 1)
        try statement.bind(row.title, at: 2)
        try statement.bind(row.category, at: 3)
        try statement.bind(row.tags, at: 4)
        try statement.bind(row.note, at: 5)
        try statement.bind(row.url, at: 6)
        defer { statement.rewind() }
        try statement.step()
    }

    @discardableResult
    func deleteRow(id: Int64) throws -> (kind: String, position: Int)? {
        guard let existing = try bookmark(id: id) else { return nil }
        try writePendingSearchRows()
        try perRow("DELETE FROM bookmark WHERE id = ?", [id])
        try perRow("DELETE FROM bookmark_search WHERE rowid = ?", [id])
        return (existing.kind, existing.position)
    }

    func shiftPositions(kind: String, from lower: Int, through upper: Int?, by delta: Int)
        throws
    {
        try perRow(
            """
            UPDATE bookmark SET position = position + ?
            WHERE kind = ? AND position >= ? AND position <= ?
            """, [delta, kind, lower, upper ?? Int.max])
    }

    func setPosition(_ position: Int, id: Int64, updatedAt: Date?) throws {
        if let updatedAt {
            try perRow(
                "UPDATE bookmark SET position = ?, updated_at = ? WHERE id = ?",
                [position, updatedAt, id])
        } else {
            try perRow("UPDATE bookmark SET position = ? WHERE id = ?", [position, id])
        }
    }

    /// Runs a statement that a bulk write runs once a row, from the connection's statement
    /// cache: preparing it each time (the FTS5 table's delete above all) was most of the
    /// time of a browser file imported over bookmarks that are there.
    private func perRow(_ sql: String, _ arguments: StatementArguments) throws {
        try connection.cachedStatement(sql: sql).execute(arguments: arguments)
    }

    func renumberPositions() throws {
        let (sql, values) = BookmarkQueryPlan.renumbering(Self.dialect)
        try connection.execute(sql: sql, arguments: Self.arguments(values))
    }

    func list(_ query: BookmarkQuery) throws -> [Bookmark] {
        let plan = try BookmarkQueryPlan(query) { try folderTree().identifiers(under: $0) }
        let (sql, values) = plan.listing(columns: Self.columns, Self.dialect)
        return try read(
            try connection.cachedStatement(sql: sql), Self.arguments(values), limit: query.limit)
    }

    func forEach(_ query: BookmarkQuery, _ body: (Bookmark) throws -> Void) throws {
        let plan = try BookmarkQueryPlan(query) { try folderTree().identifiers(under: $0) }
        let (sql, values) = plan.listing(columns: Self.columns, Self.dialect)
        try visit(try connection.cachedStatement(sql: sql), Self.arguments(values), body)
    }

    func forEach(in group: BookmarkFileGroup, _ body: (Bookmark) throws -> Void) throws {
        let (sql, values) = BookmarkQueryPlan(group).listing(columns: Self.columns, Self.dialect)
        try visit(try connection.cachedStatement(sql: sql), Self.arguments(values), body)
    }

    func categoriesOutsideFolders() throws -> [String] {
        let (sql, values) = BookmarkQueryPlan.categorizedOutsideFolders.listing(
            columns: "b.category", Self.dialect)
        let statement = try connection.cachedStatement(sql: sql)
        try statement.bind(Self.arguments(values))
        defer { statement.reset() }
        var runs: [String] = []
        var previous = RepeatedText()
        while try statement.step() {
            // Runs of one category are common: only a changed one is kept.
            guard previous.read(statement, at: 0), let name = previous.value else { continue }
            runs.append(name)
        }
        return BookmarkQueryPlan.categories(ofRows: runs)
    }

    func count(_ query: BookmarkQuery) throws -> Int {
        let plan = try BookmarkQueryPlan(query) { try folderTree().identifiers(under: $0) }
        let (sql, values) = plan.counting(Self.dialect)
        let statement = try connection.cachedStatement(sql: sql)
        try statement.bind(Self.arguments(values))
        defer { statement.reset() }
        guard try statement.step() else { return 0 }
        return Int(statement.int64(at: 0))
    }

    /// How SQLite spells a query's plan: a folder list as a JSON array read by `json_each`,
    /// titles by `NOCASE` (ASCII letters folded), and LIMIT -1 for "no limit".
    private static let dialect = BookmarkQueryPlan.Dialect(
        placeholder: { _ in "?" }, scope: ([], []),
        folderIn: { "b.folder_id IN (SELECT value FROM json_each(\($0)))" },
        idList: { "[" + $0.map(String.init).joined(separator: ",") + "]" }, tagJoin: "",
        kindOrder: "b.kind", titleOrder: "b.title COLLATE NOCASE", unlimited: .integer(-1),
        splitsFolderOrCategory: true)

    private static func arguments(_ values: [BookmarkQueryPlan.Value]) -> StatementArguments {
        StatementArguments(
            values.map { value -> SQLiteValue in
                switch value {
                case .text(let text): .text(text)
                case .integer(let integer): .integer(integer)
                case .null: .null
                }
            })
    }

    func search(_ search: BookmarkSearch, limit: Int, offset: Int) throws -> [Bookmark] {
        try writePendingSearchRows()
        let statement = try connection.cachedStatement(sql: Self.searchSQL)
        return try read(
            statement, [Self.matchExpression(for: search), limit, offset], limit: limit)
    }

    /// The text indexed for tags: distinct tags in byte order, as ``tagsOfBookmark`` builds
    /// it in SQL, so that the index can be checked against the tables.
    /// The FTS5 `MATCH` expression of a search: each word quoted (so that nothing typed is
    /// FTS5 syntax), a prefix word followed by `*`, all of them required.
    static func matchExpression(for search: BookmarkSearch) -> String {
        search.terms.map { "\"" + $0.word + "\"" + ($0.isPrefix ? "*" : "") }
            .joined(separator: " ")
    }

    static func searchText(ofTags tags: [String]) -> String {
        let precedes = { (a: String, b: String) in a.utf8.lexicographicallyPrecedes(b.utf8) }
        switch tags.count {
        case 0: return ""
        case 1: return tags[0]
        default:
            // Validated drafts come sorted and distinct already (ASCII sorts alike both ways).
            if zip(tags, tags.dropFirst()).allSatisfy({ precedes($0, $1) }) {
                return tags.joined(separator: " ")
            }
            return Set(tags.map(ExactName.init)).sorted().map(\.string).joined(separator: " ")
        }
    }

    /// SQL for the tags text of bookmark `b`, in the same form as ``searchText(ofTags:)``.
    private static let tagsOfBookmark = """
        coalesce((SELECT group_concat(tag, ' ') FROM
            (SELECT t.tag FROM bookmark_tag t WHERE t.bookmark_id = b.id ORDER BY t.tag)), '')
        """

    func rebuildSearchIndex() throws {
        pendingSearchRows.removeAll()
        try connection.execute(sql: "DELETE FROM bookmark_search")
        try connection.execute(
            sql: """
                INSERT INTO bookmark_search (rowid, title, category, tags, note, url)
                SELECT b.id, b.title, b.category, \(Self.tagsOfBookmark), b.note, b.url
                FROM bookmark b
                """)
    }

    func searchIndexMismatchCount() throws -> Int {
        try writePendingSearchRows()
        let differing =
            try connection.scalar(
                Int.self,
                sql: """
                    SELECT count(*) FROM bookmark b LEFT JOIN bookmark_search s ON s.rowid = b.id
                    WHERE s.rowid IS NULL OR s.title IS NOT b.title OR s.category IS NOT b.category
                        OR s.note IS NOT b.note OR s.url IS NOT b.url
                        OR s.tags IS NOT \(Self.tagsOfBookmark)
                    """) ?? 0
        let orphans =
            try connection.scalar(
                Int.self,
                sql:
                    "SELECT count(*) FROM bookmark_search WHERE rowid NOT IN (SELECT id FROM bookmark)"
            ) ?? 0
        return differing + orphans
    }

    private func read(_ statement: Statement, _ arguments: StatementArguments, limit: Int? = nil)
        throws
        -> [Bookmark]
    {
        var (bookmarks, inFolders) = try readRows(statement, arguments, limit: limit)
        // Folder paths come from the (small) folder table, read once for the whole list.
        if inFolders {
            let tree = try folderTree()
            for index in bookmarks.indices {
                if let id = bookmarks[index].folderID {
                    bookmarks[index].folder = tree.path(of: id)
                }
            }
        }
        return bookmarks
    }

    /// Calls `body` with the bookmark of each row as it is read, folder paths filled in from
    /// the folder table (read once, when a row first needs it).
    private func visit(
        _ statement: Statement, _ arguments: StatementArguments, _ body: (Bookmark) throws -> Void
    ) throws {
        var tree: BookmarkFolderTree?
        try visitRows(statement, arguments) { bookmark in
            guard let id = bookmark.folderID else { return try body(bookmark) }
            if tree == nil { tree = try folderTree() }
            var placed = bookmark
            placed.folder = tree?.path(of: id) ?? []
            try body(placed)
        }
    }

    /// The bookmarks of a query's rows, and whether any is in a folder row (its path is then
    /// still to be filled in).
    private func readRows(_ statement: Statement, _ arguments: StatementArguments, limit: Int?)
        throws
        -> (bookmarks: [Bookmark], inFolders: Bool)
    {
        var result: [Bookmark] = []
        result.reserveCapacity(min(limit ?? 64, 1_024))
        var inFolders = false
        try visitRows(statement, arguments) { bookmark in
            inFolders = inFolders || bookmark.folderID != nil
            result.append(bookmark)
        }
        return (result, inFolders)
    }

    /// Calls `body` with the bookmark of each row as it is read, its folder path not yet
    /// filled in.
    private func visitRows(
        _ statement: Statement, _ arguments: StatementArguments,
        _ body: (Bookmark) throws -> Void
    ) throws {
        try statement.bind(arguments)
        defer { statement.reset() }
        // Kinds, categories and tag sets repeat from row to row: the previous row's strings
        // and arrays are kept when the bytes are the same.
        var kind = RepeatedText()
        var category = RepeatedText()
        var folder: [String] = []
        var tagText = RepeatedText()
        var tags: [String] = []
        while try statement.step() {
            kind.read(statement, at: 1)
            if category.read(statement, at: 5) { folder = category.value.map { [$0] } ?? [] }
            if tagText.read(statement, at: 10) {
                // Split the joined tags on their bytes: no intermediate Substrings.
                tags =
                    tagText.value == nil
                    ? []
                    : tagText.bytes.split(separator: 0x1F).map {
                        String(decoding: $0, as: UTF8.self)
                    }
            }
            var bookmark = Bookmark(
                id: statement.int64(at: 0),
                kind: kind.value ?? "",
                itemID: statement.text(at: 2),
                title: statement.text(at: 3),
                urlString: statement.optionalText(at: 4),
                category: category.value,
                folder: folder, tags: tags,
                note: statement.optionalText(at: 6),
                position: Int(statement.int64(at: 7)),
                createdAt: Date(timeIntervalSinceReferenceDate: statement.double(at: 8)),
                updatedAt: Date(timeIntervalSinceReferenceDate: statement.double(at: 9)))
            if !statement.isNull(at: 11) { bookmark.folderID = statement.int64(at: 11) }
            try body(bookmark)
        }
    }
}
