internal import PostgresCore
import PrefsKit
import PrefsSync

/// How to open a database on a PostgreSQL server (``PrefsKit/AppDatabase/postgreSQL(_:options:)``):
/// what every database takes (``database``: read-only, caching, observation, the busy timeout
/// as `lock_timeout`), and what only a server has. Each setting of ``database`` reads and
/// writes as one of these too: `options.isReadOnly = true`.
@dynamicMemberLookup
public struct PostgreSQLOptions: Sendable {
    /// The settings every database takes. Those only a file has (its creation, its mode,
    /// `synchronous`) are ignored here.
    public var database = AppDatabase.Options()
    /// The account the database acts for (a service role may act for any); nil for the
    /// login role's own name.
    public var account: String?
    /// How long one statement may run before the server cancels it (`statement_timeout`),
    /// ending in ``PrefsKit/DatabaseError/timedOut(path:detail:)``. Locks wait
    /// ``PrefsKit/AppDatabase/Options/busyTimeoutMilliseconds`` (`lock_timeout`).
    public var statementTimeoutMilliseconds = 30_000
    /// Reached through a pooler in transaction mode (PgBouncer's `pool_mode = transaction`),
    /// where each transaction may run on another server connection: nothing is kept in the
    /// session. The account and the timeouts are set in every transaction
    /// (`set_config(..., true)`, in the same round trip), and every statement is sent
    /// unnamed (no prepared statements).
    public var isBehindTransactionPooler = false
    /// Behind a transaction pooler: a connection string straight to the server (not
    /// through the pooler), on which the database listens for other sessions' commits
    /// (`LISTEN` needs a session of its own). Without it, observers hear of this
    /// connection's own commits only.
    public var notificationTarget: String?
    /// For the hub of a ``PrefsKit/DeviceSync``: a connection string its pulls read from,
    /// such as a streaming standby of the hub (or several hosts with
    /// `target_session_attrs=prefer-standby`), so that the primary serves writes only. A
    /// pull reads there only once the standby holds everything the device has seen of the
    /// account (its cursor, and this round's push); until then it waits up to
    /// ``standbyWaitMilliseconds`` and then reads the hub. Pushes and the cursor the device
    /// reports go to the hub, and so does every pull while the standby cannot be reached.
    public var standbyTarget: String?
    /// How long a pull waits for ``standbyTarget`` to replay what the device has seen before
    /// it reads the hub instead.
    public var standbyWaitMilliseconds = 1_000

    /// The default options.
    public init() {}

    /// A setting of ``database``, read and written as one of these.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<AppDatabase.Options, Value>)
        -> Value
    {
        get { database[keyPath: keyPath] }
        set { database[keyPath: keyPath] = newValue }
    }
}

extension AppDatabase {
    /// Opens (and, as its owner, migrates) the prefs database on a PostgreSQL server.
    ///
    /// - Parameters:
    ///   - target: A libpq connection string (`postgresql://app@db.example/prefs`,
    ///     `host=/run/postgresql dbname=prefs user=app`); its password, if any, is never shown.
    ///   - options: The account, timeouts, pooler and standby settings.
    /// - Throws: ``PrefsKit/DatabaseError``: `.notFound` (no such database), `.accessDenied`
    ///   (another account's role), `.unavailable`, `.unsupported` (libpq cannot be loaded)...
    public static func postgreSQL(
        _ target: String, options: PostgreSQLOptions = PostgreSQLOptions()
    )
        throws(DatabaseError) -> AppDatabase
    {
        let engine = try PostgreSQLEngine.open(target: target, options: options)
        return try AppDatabase(engine: engine, path: engine.target, options: options.database)
    }
}

extension AppDatabase {
    /// Whether this build opens PostgreSQL databases (and so syncs with a hub): false in the
    /// fully static build of the tool, which leaves libpq out.
    public static var supportsServers: Bool { LibPQ.isBuiltIn }
}
