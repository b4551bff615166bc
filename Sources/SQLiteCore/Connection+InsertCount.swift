internal import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The rows a connection inserted into one table, its triggers' inserts included, counted as
/// SQLite makes them (its update hook) while ``Connection/isCountingInserts`` is on: a write
/// that reads ``count`` before and after knows whether it added a row, and the newest row's
/// id, without a statement of its own. Off, no insert of any table calls into the count.
///
/// Every insert is counted, also one that a failed statement or a rolled-back transaction
/// or savepoint undid afterwards: compare two readings only across work that succeeded as a
/// whole.
package final class InsertCount {
    /// The count and the newest rowid, in memory of their own: read by other modules on
    /// every write, where a stored property of a class would cost a runtime exclusivity
    /// check a reading (the connection's one thread uses them, inside SQLite's calls and
    /// between them).
    fileprivate let counts: UnsafeMutablePointer<Int64>
    /// The table's name, as SQLite hands it to the hook.
    fileprivate let table: UnsafeMutablePointer<CChar>?

    /// Rows inserted while counting was on.
    package var count: Int { Int(truncatingIfNeeded: counts[0]) }
    /// The rowid of the last row counted (0 before the first).
    package var newestRowID: Int64 { counts[1] }

    fileprivate init(table: String) {
        self.table = strdup(table)
        counts = .allocate(capacity: 2)
        counts.initialize(repeating: 0, count: 2)
    }

    deinit {
        free(table)
        counts.deallocate()
    }
}

extension Connection {
    /// Makes the count of the rows inserted into `table` (a rowid table: SQLite tells of no
    /// other kind), in place of any count made before; it counts while
    /// ``isCountingInserts`` is on. The connection keeps the count.
    package func countInserts(into table: String) -> InsertCount {
        let counter = InsertCount(table: table)
        insertCount = counter
        if isCountingInserts { isCountingInserts = true }
        return counter
    }

    /// Whether the count of ``countInserts(into:)`` counts: SQLite's update hook is set while
    /// it does, and calls in at every row any statement of the connection inserts, updates or
    /// deletes, so it is on only around the writes that read the count.
    package var isCountingInserts: Bool {
        get { insertHookIsSet }
        set {
            insertHookIsSet = newValue && insertCount != nil
            guard let counter = insertCount, newValue else {
                sqlite3_update_hook(handle, nil, nil)
                return
            }
            // The hook holds no reference of its own: the connection keeps the count alive
            // for as long as the hook points at it.
            sqlite3_update_hook(
                handle, Self.countInsert, Unmanaged.passUnretained(counter).toOpaque())
        }
    }

    private static let countInsert:
        @convention(c) (
            UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
            sqlite3_int64
        ) -> Void = { context, operation, _, table, rowID in
            guard operation == SQLITE_INSERT, let context, let table else { return }
            let counter = Unmanaged<InsertCount>.fromOpaque(context).takeUnretainedValue()
            guard let counted = counter.table, strcmp(table, counted) == 0 else { return }
            counter.counts[0] &+= 1
            counter.counts[1] = rowID
        }
}
