/// The database as the package's other modules reach it (the sync wing): a reader that sees
/// what the file holds once the caches caught up with other processes' commits and cannot
/// change it, and a writer inside a write transaction whose commit brings caches and
/// observers up to date. Both live only for the call that hands them out, under the lock.
package struct DatabaseReader {
    let state: DatabaseState

    /// The device's sync state, to read; nil for an engine that cannot be a device (a
    /// server) or a file that has no schema yet.
    package var sync: (any SyncDeviceReading)? { state.engine.sync }
    /// What the device's sync keeps for people to read; nil as ``sync`` is.
    package var syncRecords: (any SyncDeviceRecords)? { state.engine.syncRecords }
}

/// The database inside a write transaction (see ``DatabaseReader``).
package struct DatabaseWriter {
    let state: DatabaseState

    /// The engine the transaction runs on, for its repositories.
    package var engine: any StorageEngine { state.engine }
    /// The device side of sync; nil as ``DatabaseReader/sync`` is.
    package var sync: (any SyncRepository)? { state.engine.sync }
    /// Says that the transaction is about to change bookmarks without their store (a merge),
    /// so that their cached reads and observers hear of it at the commit.
    package func willChangeBookmarks() { state.feed.states.willChangeBookmarks() }
}

extension AppDatabase {
    /// Reads under the database's lock, after the caches caught up with other processes'
    /// commits; a read that found a server connection lost is run again once.
    package func withReader<T>(_ body: (DatabaseReader) throws -> T) throws -> T {
        try read { state in try body(DatabaseReader(state: state)) }
    }

    /// Runs writes in one write transaction (or nested in the open one), then brings caches
    /// and observers up to date.
    package func withWriter<T>(_ body: (DatabaseWriter) throws -> T) throws -> T {
        try write { state in try body(DatabaseWriter(state: state)) }
    }
}
