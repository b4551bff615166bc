internal import SQLiteCore

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The SQLite engine: one connection to a prefs file, its repositories, and what only SQLite
/// knows (`PRAGMA data_version` as the commit token, `BEGIN IMMEDIATE`, savepoints, its
/// result codes).
///
/// Made by ``open(path:options:)``, which applies the settings of
/// `PrefsKit.docc/TheDatabaseFile.md` and migrates the schema.
final class SQLiteEngine: StorageEngine, FileBackedEngine, SyncDeviceEngine {
    let connection: Connection
    let path: String
    let isEmpty: Bool
    let preferenceRepository: SQLitePreferenceRepository
    let syncRepository: SQLiteSyncRepository
    let selectionRepository: SQLiteSelectionRepository
    let bookmarkRepository: SQLiteBookmarkRepository

    /// How long a statement waits for another connection's lock.
    let busyTimeoutMilliseconds: Int

    /// Whether ``writeTransaction(readingChangesAfter:countingRows:skipsRows:_:)`` is under
    /// way.
    private var isWriting = false

    /// The history rows this connection's writes added, their triggers' rows counted as
    /// they are written, in the transactions that count them.
    private let historyInserts: InsertCount

    /// Where the change feed starts, when opening read it (in its checks' transaction).
    private var openingFeedStart: (token: Int64, changeID: Int64)?

    init(
        connection: Connection, path: String, isEmpty: Bool, busyTimeoutMilliseconds: Int,
        feedStart: (token: Int64, changeID: Int64)? = nil
    ) {
        self.connection = connection
        historyInserts = connection.countInserts(into: "preference_history")
        self.path = path
        self.isEmpty = isEmpty
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        openingFeedStart = feedStart
        preferenceRepository = SQLitePreferenceRepository(connection: connection)
        selectionRepository = SQLiteSelectionRepository(connection: connection)
        bookmarkRepository = SQLiteBookmarkRepository(connection: connection)
        syncRepository = SQLiteSyncRepository(
            connection: connection, preferences: preferenceRepository)
    }

    var preferences: any PreferenceRepository { preferenceRepository }
    var selections: any SelectionRepository { selectionRepository }
    var bookmarks: any BookmarkRepository { bookmarkRepository }
    var sync: (any SyncRepository)? { isEmpty ? nil : syncRepository }
    var syncRecords: (any SyncDeviceRecords)? { isEmpty ? nil : syncRepository }

    var isInTransaction: Bool { connection.isInTransaction }

    var historyRowsAdded: Int? { historyInserts.count }

    func writeTransaction<T>(
        readingChangesAfter changeID: Int64, countingRows: Bool, skipsRows: () -> Bool,
        _ body: () throws -> T
    ) throws -> (value: T, changes: Result<WrittenChanges, any Error>) {
        // The history rows are read before the commit, in the transaction that wrote them:
        // the same rows (the write lock kept every other writer out since BEGIN), without
        // a read transaction of their own after it.
        preferenceRepository.transactionToken = nil
        isWriting = true
        if countingRows { connection.isCountingInserts = true }
        defer {
            isWriting = false
            preferenceRepository.transactionToken = nil
            if countingRows { connection.isCountingInserts = false }
        }
        let insertsBefore = historyInserts.count
        // The closure returns the body's value alone: a tuple of it would be a type the
        // runtime looks up at every call, this function being generic.
        var changes: Result<WrittenChanges, any Error> = .success(.newest(changeID))
        let value = try connection.transaction(.immediate) {
            let value = try body()
            if countingRows, skipsRows() {
                // The body succeeded as a whole, so every row counted since it began is
                // there, and ids only grow: the last one counted is the newest.
                if historyInserts.count != insertsBefore {
                    changes = .success(.newest(historyInserts.newestRowID))
                }
            } else {
                changes = Result { .rows(try preferenceRepository.changes(after: changeID)) }
            }
            return value
        }
        return (value, changes)
    }

    func noWriteUnderWay() -> Bool {
        connection.writeLockIsFree(busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }

    func checkpointAndTruncate() throws {
        try connection.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
    }

    func nestedTransaction<T>(_ body: () throws -> T) throws -> T {
        try connection.savepoint(body)
    }

    func snapshotRead<T>(_ body: () throws -> T) throws -> T {
        // A deferred transaction's first read takes the snapshot; the rest keep it.
        isInTransaction ? try body() : try connection.transaction(.deferred, body)
    }

    func commitToken() throws -> Int64 {
        let token = try connection.dataVersion()
        // Read inside a write transaction: what the suite's declarations flag holds under.
        if connection.isInTransaction, isWriting { preferenceRepository.transactionToken = token }
        return token
    }

    func changeFeedStart() throws -> (token: Int64, changeID: Int64) {
        if let start = openingFeedStart {
            openingFeedStart = nil
            return start
        }
        return try connection.transaction(.deferred) {
            isEmpty ? (try connection.dataVersion(), 0) : try Self.feedStart(of: connection)
        }
    }

    /// A commit writes the write-ahead log (or, in rollback mode, the file and its journal).
    var changeSignal: ChangeSignal {
        guard path != ":memory:" else { return .none }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return .files(directory: directory, names: [name, name + "-wal", name + "-journal"])
    }

    /// The files SQLite keeps for the database: the main file, its write-ahead log and its
    /// shared-memory index.
    var files: [String] {
        path == ":memory:" ? [] : [path, path + "-wal", path + "-shm"]
    }

    func restrictFileModes() throws -> [(path: String, oldMode: Int)] {
        try DatabaseFile.restrictModes(of: files)
    }
}
