/// How a device reaches its hub: PrefsPostgreSQL's connector opens a server's database by
/// its connection string.
package protocol SyncHubConnector: Sendable {
    /// The hub as the device file remembers it: never a password.
    var remembered: String { get }
    /// Opens the hub acting for `account` (nil: the login role's own).
    func openHub(account: String?) throws -> SyncHubHandle
    /// How long a pull waits for the standby to hold what the device has seen; nil when
    /// pulls have no standby to read.
    var standbyWaitMilliseconds: Int? { get }
    /// Opens the standby, read-only, acting for `account`.
    func openStandby(account: String) throws -> SyncHubHandle
}

/// A hub as its connector opened it: the database, and its hub side, typed, reached only
/// under that database's lock (the engine is the connection the lock guards).
package final class SyncHubHandle: @unchecked Sendable {
    /// The hub's database.
    package let database: AppDatabase
    private let hub: any SyncHub

    /// The database and its engine's hub side, as the connector opened them.
    package init(database: AppDatabase, hub: any SyncHub) {
        self.database = database
        self.hub = hub
    }

    /// Runs hub calls under the database's lock, with the engine's errors in their
    /// documented form.
    package func callAsFunction<T>(_ body: (any SyncHub) throws -> T) throws -> T {
        try database.state.withLock { state in
            do {
                return try body(hub)
            } catch {
                throw state.engine.translate(error)
            }
        }
    }
}
