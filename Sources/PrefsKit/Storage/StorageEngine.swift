/// One open database of some storage engine: what the stores stand on.
///
/// The stores (``PreferenceStore``, ``SelectionStore``, ``BookmarkStore``, ``Walkthrough``)
/// reach the data only through this protocol and the three repositories it hands out; what
/// is particular to an engine (SQL dialect, change detection, search syntax, error codes)
/// stays behind it. ``AppDatabase`` calls every member with its lock held, so an engine
/// needs no locking of its own.
///
/// This is the core every engine has. What only some engines have is a capability of its
/// own, which an engine adopts when it has it: ``DiagnosableEngine`` (`prefs doctor`),
/// ``SettingsReportingEngine`` (the benchmark's settings), ``FileBackedEngine`` (files and
/// their modes), ``SyncDeviceEngine`` (the device side of sync) and ``SyncHub`` (the hub
/// side).
package protocol StorageEngine: AnyObject {
    /// Preferences, their declarations and their history.
    var preferences: any PreferenceRepository { get }
    /// Selected indices.
    var selections: any SelectionRepository { get }
    /// Bookmarks, their folders, tags and search index.
    var bookmarks: any BookmarkRepository { get }

    /// True for a read-only database that has no schema yet: every read finds nothing, and
    /// the stores do not ask.
    var isEmpty: Bool { get }

    /// Whether a transaction is open on this engine's connection.
    var isInTransaction: Bool { get }

    /// Runs the closure in one write transaction that takes the write lock first (so that a
    /// write never fails half-way for want of it): committed when the closure returns,
    /// rolled back when it throws. Also reads the history rows after `changeID` for the
    /// change feed: before the commit, in the same transaction, or in the commit's own round
    /// trip, as the engine can; a failure of that read does not undo the commit.
    ///
    /// With `countingRows`, the engine counts the history rows the transaction adds as they
    /// are written (``historyRowsAdded``), where it can; then `skipsRows`, asked in the
    /// transaction once the closure returned, may say that the feed needs the rows' newest
    /// id only: an engine that knows it more cheaply than the rows returns
    /// ``WrittenChanges/newest(_:)``; one that does not reads the rows. An engine that counts
    /// nothing may ask `skipsRows` before it sends a transaction of one write, and have its
    /// answer tell whether the rows are that write's alone (``WrittenChanges/toldWrite(_:)``),
    /// reading them when they are not.
    func writeTransaction<T>(
        readingChangesAfter changeID: Int64, countingRows: Bool, skipsRows: () -> Bool,
        _ body: () throws -> T
    ) throws -> (value: T, changes: Result<WrittenChanges, any Error>)

    /// How many history rows this connection's writes have added in the transactions that
    /// count them (their triggers' rows included), counted as they are written, so that two
    /// readings around a write that succeeded tell whether it added one; nil where the
    /// engine does not count.
    var historyRowsAdded: Int? { get }

    /// Copies what the write-ahead log holds into the main file and empties the log, so that
    /// old page images of forgotten values are gone; nothing where the engine has no such
    /// file. A reader that holds the log leaves it as it is.
    func checkpointAndTruncate() throws

    /// Runs the closure's reads in one read transaction, so that they all see the database
    /// as one moment left it (a writer meanwhile is seen by none of them); inside an open
    /// transaction, in that one.
    func snapshotRead<T>(_ body: () throws -> T) throws -> T

    /// Runs the closure inside the open transaction, undoing only its own writes when it
    /// throws.
    func nestedTransaction<T>(_ body: () throws -> T) throws -> T

    /// A number that changes whenever another connection commits to the database (this
    /// connection's own commits need not move it); comparing two readings tells whether the
    /// change feed has anything new. Cheap: it is read on the hot path, at most once per
    /// change-check interval.
    func commitToken() throws -> Int64

    /// Where the change feed starts: the commit token and the id of the newest history row
    /// (0 when there is none), read together, in one read transaction where the engine has
    /// them.
    func changeFeedStart() throws -> (token: Int64, changeID: Int64)

    /// How commits of other connections can be noticed without a read asking.
    var changeSignal: ChangeSignal { get }

    /// An error raised by this engine (or by the closure of a transaction) in the terms of
    /// ``DatabaseError``; errors of PrefsKit's own kinds pass through unchanged.
    func translate(_ error: any Error) -> any Error
}

/// An engine that can check itself for `prefs doctor`.
package protocol DiagnosableEngine: StorageEngine {
    /// The health report of `prefs doctor`.
    func diagnostics() throws -> DatabaseDiagnostics
}

/// An engine that can say how its connection is set up.
package protocol SettingsReportingEngine: StorageEngine {
    /// The engine's connection settings that change how it does its work, read back from the
    /// connection (the benchmark compares them with its baseline's).
    func connectionSettings() throws -> [(name: String, value: String)]
}

/// An engine whose database is files of this machine.
package protocol FileBackedEngine: StorageEngine {
    /// Takes away group and other permissions of the files the database keeps.
    func restrictFileModes() throws -> [(path: String, oldMode: Int)]

    /// Whether no connection holds the write lock at this moment, so that a look after it
    /// sees every commit whose writes to the files came before; false when that cannot be
    /// told. Never waits.
    func noWriteUnderWay() -> Bool
}

/// An engine that can be a device of sync.
package protocol SyncDeviceEngine: StorageEngine {
    /// The device side of sync as a round needs it; nil while the database has no schema
    /// (read-only, empty).
    var sync: (any SyncRepository)? { get }
    /// What the device's sync keeps for people to read; nil as ``sync`` is.
    var syncRecords: (any SyncDeviceRecords)? { get }
}

extension StorageEngine {
    package var historyRowsAdded: Int? { nil }

    /// The device side of sync, when the engine can be a device and has it.
    package var sync: (any SyncRepository)? { (self as? any SyncDeviceEngine)?.sync }
    /// What the device's sync keeps, when the engine can be a device and has it.
    package var syncRecords: (any SyncDeviceRecords)? {
        (self as? any SyncDeviceEngine)?.syncRecords
    }
}

/// What a write transaction read of the history for the change feed.
package enum WrittenChanges {
    /// The rows after the id the feed had seen.
    case rows([PreferenceChange])
    /// The newest row's id alone (the feed said it needs no more), or the id the feed had
    /// seen when the transaction added no row.
    case newest(Int64)
    /// The rows after the id the feed had seen are those of the transaction's one told
    /// write, as the engine's answer said without the rows: the id of the row it added, or
    /// nil when it added none. From an engine that counts no rows (``StorageEngine/historyRowsAdded``
    /// nil), when `skipsRows` said yes before the write was sent.
    case toldWrite(Int64?)
}

/// How an engine's database tells of other connections' commits.
package enum ChangeSignal: Sendable {
    /// Nobody else can commit (a private in-memory database).
    case none
    /// A commit writes files of one folder: watch them, then read the commit token.
    case files(directory: String, names: [String])
    /// Nothing to watch: read the commit token every so many milliseconds.
    case polling(milliseconds: Int, reason: String)
}
