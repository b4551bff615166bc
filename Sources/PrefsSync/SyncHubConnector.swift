import PrefsKit
import Synchronization

/// How a device reaches its hub: PrefsPostgreSQL's connector opens a server's database by
/// its connection string; ``HTTPHubConnector`` speaks the sync protocol to `prefs-server`.
package protocol SyncHubConnector: Sendable {
    /// The hub as the device file remembers it: never a password or a token.
    var remembered: String { get }
    /// Opens the hub acting for `account` (nil: the login role's, or the token's, own).
    func openHub(account: String?) throws -> SyncHubHandle
    /// How long a pull waits for the standby to hold what the device has seen; nil when
    /// pulls have no standby to read.
    var standbyWaitMilliseconds: Int? { get }
    /// Opens the standby, read-only, acting for `account`.
    func openStandby(account: String) throws -> SyncHubHandle
}

/// A hub as its connector opened it, typed, reached one call at a time: under its
/// database's lock (the engine is the connection the lock guards), or under a lock of its
/// own for a hub that is no database of this process (a sync server).
package final class SyncHubHandle: @unchecked Sendable {
    /// The hub's database; nil for a hub reached through a sync server.
    package let database: AppDatabase?
    private let hub: any SyncHub
    /// For a hub without a database: one call at a time.
    private let calls = Mutex<Void>(())
    /// The commit token of a hub without a database (``HTTPSyncHub/changeToken()``).
    private let token: (@Sendable () -> Int64)?

    /// The database and its engine's hub side, as the connector opened them.
    package init(database: AppDatabase, hub: any SyncHub) {
        self.database = database
        self.hub = hub
        token = nil
    }

    /// A hub reached through a sync server.
    package init(server hub: HTTPSyncHub) {
        database = nil
        self.hub = hub
        token = { hub.changeToken() }
    }

    /// Runs hub calls one at a time, with the engine's errors in their documented form.
    package func callAsFunction<T>(_ body: (any SyncHub) throws -> T) throws -> T {
        guard let database else {
            return try calls.withLock { _ in try body(hub) }
        }
        return try database.withEngine { _ in try body(hub) }
    }

    /// A number that moves when the hub's account changed (another device pushed, the
    /// server app wrote); nil when it cannot be read.
    package func changeToken() -> Int64? {
        if let token { return token() }
        return try? database?.withEngine { try $0.commitToken() }
    }
}

/// A hub reached over HTTPS through `prefs-server`, with a device token.
package struct HTTPHubConnector: SyncHubConnector {
    let transport: any SyncHTTPTransport
    let token: String

    package init(transport: any SyncHTTPTransport, token: String) {
        self.transport = transport
        self.token = token
    }

    package var remembered: String { transport.server }
    package var standbyWaitMilliseconds: Int? { nil }

    package func openHub(account: String?) throws -> SyncHubHandle {
        let hub = try HTTPSyncHub(transport: transport, token: token)
        if let account, account != hub.account {
            throw SyncError.otherAccount(device: account, requested: hub.account)
        }
        return SyncHubHandle(server: hub)
    }

    package func openStandby(account: String) throws -> SyncHubHandle {
        throw SyncError.notConfigured
    }
}
