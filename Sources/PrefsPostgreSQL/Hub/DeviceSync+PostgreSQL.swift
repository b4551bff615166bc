internal import PostgresCore
import PrefsKit
import PrefsSync

/// A PostgreSQL hub, and its standby, reached by connection strings.
struct PostgreSQLHubConnector: SyncHubConnector {
    let target: String
    let options: PostgreSQLOptions

    /// As libpq parsed it, without the password.
    var remembered: String {
        ConnectionString.withoutSecrets(target) ?? ConnectionString.redacted(target)
    }

    var standbyWaitMilliseconds: Int? {
        options.standbyTarget == nil ? nil : options.standbyWaitMilliseconds
    }

    func openHub(account: String?) throws -> SyncHubHandle {
        var options = options
        options.account = account
        options.watchesForChanges = false
        return try Self.open(target, options)
    }

    func openStandby(account: String) throws -> SyncHubHandle {
        guard let standby = options.standbyTarget else { throw SyncError.notConfigured }
        var options = options
        options.account = account
        options.watchesForChanges = false
        options.isReadOnly = true
        options.notificationTarget = nil
        options.standbyTarget = nil
        return try Self.open(standby, options)
    }

    private static func open(_ target: String, _ options: PostgreSQLOptions) throws
        -> SyncHubHandle
    {
        let engine = try PostgreSQLEngine.open(target: target, options: options)
        let database = try AppDatabase(
            engine: engine, path: engine.target, options: options.database)
        return SyncHubHandle(database: database, hub: engine)
    }
}

extension DeviceSync {
    /// Opens the hub, a PostgreSQL database, for the account. Sync is turned on for the
    /// device (and the device bound to the account) by the first round that completes: a
    /// first round that fails (a wrong account, a hub that refuses) leaves the device as it
    /// was.
    ///
    /// - Parameters:
    ///   - database: The device's database file (SQLite).
    ///   - target: A libpq connection string of the hub; its password (if any) is never
    ///     kept: credentials come from libpq's own mechanisms (`.pgpass`, `PGPASSWORD`).
    ///   - account: The account to sync (a service role must name one); nil for the
    ///     account the device synced before, or the role's own.
    ///   - hubOptions: How the hub is opened (behind a transaction pooler:
    ///     ``PostgreSQLOptions/isBehindTransactionPooler`` and
    ///     ``PostgreSQLOptions/notificationTarget``; a standby for pulls:
    ///     ``PostgreSQLOptions/standbyTarget``); its account is `account`'s.
    /// - Throws: ``PrefsKit/SyncError`` when the device is not a file, or already syncs
    ///   another account; ``PrefsKit/DatabaseError`` when the hub cannot be opened.
    public convenience init(
        database: AppDatabase, hub target: String, account: String? = nil,
        hubOptions: PostgreSQLOptions = PostgreSQLOptions()
    ) throws {
        // Checked before anything opens them: a path would make a file.
        guard AppDatabase.isConnectionString(target) else {
            throw SyncError.hubIsNotAServer(target: target)
        }
        if let standby = hubOptions.standbyTarget, !AppDatabase.isConnectionString(standby) {
            throw SyncError.standbyIsNotAServer(target: standby)
        }
        try self.init(
            database: database,
            connector: PostgreSQLHubConnector(target: target, options: hubOptions),
            account: account)
    }

    /// Opens the hub the device synced with last time, with `hubOptions` as
    /// ``init(database:hub:account:hubOptions:)`` takes them.
    ///
    /// - Throws: ``PrefsKit/SyncError/notConfigured`` when it never synced.
    public convenience init(
        database: AppDatabase, hubOptions: PostgreSQLOptions = PostgreSQLOptions()
    ) throws {
        let (hub, account) = try Self.rememberedHub(of: database)
        try self.init(database: database, hub: hub, account: account, hubOptions: hubOptions)
    }
}
