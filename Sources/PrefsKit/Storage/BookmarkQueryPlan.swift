/// What a ``BookmarkQuery`` means, once, above the engines: its filters (a folder path as the
/// ids of its folders and their subfolders, and for a one-name path the category's folder,
/// which has no row), its order with the id as the last key, and its page. Each engine renders
/// it in its own SQL (``render(_:)``) and binds the values; none of them decides what a query
/// means.
package struct BookmarkQueryPlan: Sendable {
    /// One condition a listed bookmark meets.
    package enum Condition: Sendable, Equatable {
        case kind(String)
        case category(String)
        /// In one of these folders; with a category, also a bookmark with no folder row of
        /// that category (the top-level folder named after it).
        case folder(ids: [Int64], orCategory: String?)
        case tag(String)
        /// In no folder row: in the folder named after its category, or in none.
        case outsideFolders
        case noCategory
        case someCategory
    }

    /// One key of the order.
    package enum OrderKey: Sendable, Equatable {
        /// By kind, in byte order.
        case kind
        case position
        case created
        /// By title, ASCII letters folded, then bytes.
        case title
        case id
    }

    package var conditions: [Condition] = []
    package var order: [OrderKey]
    package var isDescending: Bool
    /// At most this many rows; nil for all.
    package var limit: Int?
    /// Rows skipped first.
    package var offset: Int

    /// The plan of a query. `folderIDs` gives the ids of the folders of a path and of every
    /// folder under them (none when the path names no folder).
    ///
    /// - Throws: ``BookmarkError/invalid(_:)`` for a negative limit or offset.
    package init(_ query: BookmarkQuery, folderIDs: ([String]) throws -> [Int64]) throws {
        try query.validatePaging()
        if let kind = query.kind { conditions.append(.kind(kind)) }
        if let category = query.category { conditions.append(.category(category)) }
        if let path = query.folder, !path.isEmpty {
            conditions.append(
                .folder(ids: try folderIDs(path), orCategory: path.count == 1 ? path[0] : nil))
        }
        if let tag = query.tag { conditions.append(.tag(tag)) }
        switch query.sort {
        // A kind's positions are distinct: no id needed.
        case .position: order = [.kind, .position]
        case .created: order = [.created, .id]
        case .title: order = [.title, .id]
        }
        isDescending = query.isDescending
        limit = query.limit
        offset = query.offset
    }

    /// The plan of the bookmarks a browser's bookmark file writes under `group`, in list
    /// order. A top-level folder's group holds, besides its rows, the bookmarks in no folder
    /// whose category is its name.
    package init(_ group: BookmarkFileGroup) {
        switch group {
        case .folder(let id, let category):
            conditions = [.folder(ids: [id], orCategory: category)]
        case .category(let category): conditions = [.outsideFolders, .category(category)]
        case .loose: conditions = [.outsideFolders, .noCategory]
        }
        order = [.kind, .position]
        isDescending = false
        limit = nil
        offset = 0
    }

    /// The bookmarks in no folder that have a category, in list order: the categories a
    /// bookmark file shows as folders come from them (``categories(ofRows:)``).
    package static var categorizedOutsideFolders: BookmarkQueryPlan {
        var plan = BookmarkQueryPlan(.loose)
        plan.conditions = [.outsideFolders, .someCategory]
        return plan
    }

    /// The categories of rows read in list order, each once, in the order of its first
    /// row; names differing in any byte are different.
    package static func categories(ofRows rows: some Sequence<String>) -> [String] {
        var names: [String] = []
        var seen: Set<ExactName> = []
        for name in rows where seen.insert(ExactName(name)).inserted { names.append(name) }
        return names
    }

    /// The statement that numbers each kind's positions densely from 0 in their order (ties
    /// by id), writing only the rows whose position changes.
    package static func renumbering(_ dialect: Dialect) -> (sql: String, values: [Value]) {
        let scope = dialect.scope.conditions.map { $0 + " AND " }.joined()
        let inner =
            dialect.scope.conditions.isEmpty
            ? "" : " WHERE " + dialect.scope.conditions.joined(separator: " AND ")
        return (
            """
            UPDATE bookmark AS b SET position = ranked.dense
            FROM (
                SELECT b.id, row_number() OVER (PARTITION BY b.kind ORDER BY b.position, b.id) - 1
                    AS dense
                FROM bookmark b\(inner)
            ) AS ranked
            WHERE \(scope)b.id = ranked.id AND b.position <> ranked.dense
            """, dialect.scope.values
        )
    }

    /// A value bound to a statement.
    package enum Value: Sendable, Equatable {
        case text(String)
        case integer(Int64)
        case null
    }

    /// How one engine spells what a plan needs.
    package struct Dialect: Sendable {
        /// The placeholder of the value at a position, from 1 (`?` or `$1`).
        package var placeholder: @Sendable (Int) -> String
        /// Conditions every statement starts with, and their values (an account).
        package var scope: (conditions: [String], values: [Value])
        /// The test that the folder id is in a list bound as one value (`P`).
        package var folderIn: @Sendable (String) -> String
        /// A list of ids as that one value.
        package var idList: @Sendable ([Int64]) -> String
        /// What ties a tag row to the bookmark `b`, besides its id.
        package var tagJoin: String
        /// The order expression of each key but the id.
        package var kindOrder: String
        package var titleOrder: String
        /// The LIMIT value meaning "no limit" when only an offset is given.
        package var unlimited: Value
        /// Whether "in these folders, or in none with this category" is read as two ordered
        /// scans joined by UNION ALL (which SQLite merges without sorting) rather than one
        /// condition with OR. Only orders by columns take it.
        package var splitsFolderOrCategory: Bool

        package init(
            placeholder: @escaping @Sendable (Int) -> String,
            scope: (conditions: [String], values: [Value]),
            folderIn: @escaping @Sendable (String) -> String,
            idList: @escaping @Sendable ([Int64]) -> String, tagJoin: String, kindOrder: String,
            titleOrder: String, unlimited: Value, splitsFolderOrCategory: Bool = false
        ) {
            self.placeholder = placeholder
            self.scope = scope
            self.folderIn = folderIn
            self.idList = idList
            self.tagJoin = tagJoin
            self.kindOrder = kindOrder
            self.titleOrder = titleOrder
            self.unlimited = unlimited
            self.splitsFolderOrCategory = splitsFolderOrCategory
        }
    }

    /// Which half of a folder-or-category condition a branch of a split listing reads.
    private enum Branch { case folders, category }

    /// The WHERE clause of the plan's conditions (empty when there are none), and its values.
    package func whereClause(_ dialect: Dialect) -> (sql: String, values: [Value]) {
        whereClause(dialect, branch: nil, after: [])
    }

    private func whereClause(_ dialect: Dialect, branch: Branch?, after earlier: [Value]) -> (
        sql: String, values: [Value]
    ) {
        var values = earlier + dialect.scope.values
        var conditions = dialect.scope.conditions
        func bind(_ value: Value) -> String {
            values.append(value)
            return dialect.placeholder(values.count)
        }
        // One folder is an equality, which an index on the folder reads in its order.
        func folderTest(_ ids: [Int64]) -> String {
            if ids.count == 1 { return "b.folder_id = " + bind(.integer(ids[0])) }
            return dialect.folderIn(bind(.text(dialect.idList(ids))))
        }
        for condition in self.conditions {
            switch condition {
            case .kind(let kind): conditions.append("b.kind = " + bind(.text(kind)))
            case .category(let category):
                conditions.append("b.category = " + bind(.text(category)))
            case .folder(_, let category?) where branch == .category:
                conditions.append("b.folder_id IS NULL AND b.category = " + bind(.text(category)))
            case .folder(let ids, _) where branch == .folders:
                conditions.append(folderTest(ids))
            case .folder(let ids, let category):
                var test = "(" + folderTest(ids)
                if let category {
                    test +=
                        " OR (b.folder_id IS NULL AND b.category = " + bind(.text(category)) + ")"
                }
                conditions.append(test + ")")
            case .tag(let tag):
                conditions.append(
                    "EXISTS (SELECT 1 FROM bookmark_tag t WHERE \(dialect.tagJoin)"
                        + "t.bookmark_id = b.id AND t.tag = " + bind(.text(tag)) + ")")
            case .outsideFolders: conditions.append("b.folder_id IS NULL")
            case .noCategory: conditions.append("b.category IS NULL")
            case .someCategory: conditions.append("b.category IS NOT NULL")
            }
        }
        return (
            conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "),
            Array(values.dropFirst(earlier.count))
        )
    }

    /// The listing statement: `columns` of bookmark `b`, filtered, ordered and paged.
    package func listing(columns: String, _ dialect: Dialect) -> (sql: String, values: [Value]) {
        let direction = isDescending ? " DESC" : " ASC"
        var sql: String
        var values: [Value]
        let split =
            dialect.splitsFolderOrCategory && !order.contains(.title)
            && conditions.contains { if case .folder(_, _?) = $0 { true } else { false } }
        if split {
            // A compound statement orders by its result columns, named as in `columns`.
            let (folders, first) = whereClause(dialect, branch: .folders, after: [])
            let (category, second) = whereClause(dialect, branch: .category, after: first)
            sql =
                "SELECT \(columns) FROM bookmark b" + folders + " UNION ALL SELECT \(columns)"
                + " FROM bookmark b" + category
            values = first + second
        } else {
            (sql, values) = whereClause(dialect)
            sql = "SELECT \(columns) FROM bookmark b" + sql
        }
        sql +=
            " ORDER BY "
            + order.map { key -> String in
                switch key {
                case .kind: split ? "kind" : dialect.kindOrder
                case .position: split ? "position" : "b.position"
                case .created: split ? "created_at" : "b.created_at"
                case .title: dialect.titleOrder
                case .id: split ? "id" : "b.id"
                }
            }.map { $0 + direction }.joined(separator: ", ")
        // No paging clause when nothing limits the rows: one step less for each of them.
        if limit != nil || offset > 0 {
            values.append(limit.map { .integer(Int64($0)) } ?? dialect.unlimited)
            sql += " LIMIT " + dialect.placeholder(values.count)
            values.append(.integer(Int64(offset)))
            sql += " OFFSET " + dialect.placeholder(values.count)
        }
        return (sql, values)
    }

    /// The counting statement of the plan's conditions (its order and page do not count).
    package func counting(_ dialect: Dialect) -> (sql: String, values: [Value]) {
        let (clause, values) = whereClause(dialect)
        return ("SELECT count(*) FROM bookmark b" + clause, values)
    }
}
