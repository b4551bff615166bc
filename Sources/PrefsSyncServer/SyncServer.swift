import Dispatch
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import Synchronization

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// What `prefs-server` does with a request of the sync protocol (docs/sync-protocol.md),
/// whatever the HTTP library: the routes, one short handler per call, behind the request
/// log, compression and the limits. A handler finds the account its token opens on a
/// connection of the pool, then calls the hub's own function for it. Nothing is kept
/// between requests outside PostgreSQL, so any number of servers serve one hub.
package final class SyncServer: Sendable {
    /// How the server reaches the hub, and its limits.
    package struct Configuration: Sendable {
        /// The hub's connection string: a service role (a member of `prefs_service`).
        package var hub: String
        /// Connections to the hub, at most (the requests beyond wait for one).
        package var poolSize = 8
        /// How long a request waits for a connection before it is answered 503.
        package var poolWaitMilliseconds = 5_000
        /// The largest body taken, in bytes.
        package var maxBodyBytes = 16 << 20
        /// The most changes one push may carry.
        package var maxChanges = 100_000
        /// One page of a pull at most, whatever a device asks (a device far behind pulls
        /// page after page, and no answer holds an account whole).
        package var pullLimit = SyncPullLimit.standard
        /// The longest header line taken (name and value), in bytes.
        package var maxHeaderBytes = 64 << 10
        /// How long one statement may run on the hub.
        package var statementTimeoutMilliseconds = 30_000
        /// The longest a long poll (`GET /v1/changes`) waits.
        package var longPollMilliseconds = 25_000
        /// The long polls one token may have waiting at once on this server.
        package var maxLongPollsPerToken = 4
        /// The service token: the one that opens the calls across accounts
        /// (`/v1/admin/...`); nil: none does.
        package var serviceToken: String?
        /// Where the server listens for the accounts' notifications: a session of its own,
        /// straight to PostgreSQL (nil: the hub's string; behind a transaction pooler, name
        /// the server itself).
        package var notificationHub: String?

        package init(hub: String) { self.hub = hub }
    }

    package let configuration: Configuration
    /// Every request's way in.
    package let router: Router
    /// The threads that make the answers (``HTTPDaemon`` runs the requests on them): eight
    /// for each connection of the pool, so that requests waiting for one do not keep the
    /// others from the free ones, and no more (a burst past them waits its turn in order).
    package let workers: RequestWorkers
    private let pool: SyncHubPool
    private let calls: SyncCalls
    /// Wakes long polls when their account changes.
    private let listener: ChangeListener
    /// Set when the server stops: long polls answer at once.
    private let stopping = StopSignal()

    /// Checks the configuration; connects at the first request that needs the hub.
    /// `log` takes the request log's lines.
    package init(_ configuration: Configuration, log: @escaping @Sendable (String) -> Void)
        throws
    {
        self.configuration = configuration
        let workers = RequestWorkers(limit: max(32, configuration.poolSize * 8))
        self.workers = workers
        let pool = try SyncHubPool(
            target: configuration.hub, size: configuration.poolSize,
            waitMilliseconds: configuration.poolWaitMilliseconds,
            statementTimeoutMilliseconds: configuration.statementTimeoutMilliseconds)
        let listener = ChangeListener(target: configuration.notificationHub ?? configuration.hub)
        let calls = SyncCalls(
            configuration: configuration, pool: pool, listener: listener, stopping: stopping,
            workers: workers, positions: PositionReads(workers: workers))
        self.pool = pool
        self.calls = calls
        self.listener = listener
        router = Router(
            routes: calls.routes,
            middleware: [
                RequestLog(log), ResponseCompression(),
                RequestLimits(
                    maxHeaderBytes: configuration.maxHeaderBytes,
                    maxBodyBytes: configuration.maxBodyBytes),
                Decompression(maxBodyBytes: configuration.maxBodyBytes),
            ],
            authenticate: { token in try calls.authenticate(token) })
    }

    /// Connects and migrates the hub once, so that a server that cannot reach it says so at
    /// its start.
    package func prepare() throws { try pool.ping() }

    /// The answer to a request, on the calling thread (a long poll's too: this waits for it).
    package func respond(to request: HTTPRequest) -> HTTPResponse {
        router.respond(to: request).waited()
    }

    /// How many long polls of a token are in progress on this server.
    package func longPolls(ofToken token: String) -> Int { calls.waiting.count(token) }

    /// Answers every long poll now, with the position it has, and every later one at once:
    /// the server is stopping, and a device's next poll goes to another instance.
    package func finishLongPolls() {
        stopping.stop()
        listener.wakeAll()
    }
}
