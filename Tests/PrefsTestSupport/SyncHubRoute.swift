import Foundation
import PrefsKit
import PrefsPostgreSQL
import TestSupport

/// How the sync suites reach their hub: straight to the test server, or, with
/// `PREFS_SYNC_THROUGH_POOLER=1`, through PgBouncer in transaction pooling with the engine
/// told so; the property tests also, with `PREFS_SYNC_THROUGH_SERVER=1`, through
/// `prefs-server` with device tokens. `.ci/run` runs the sync suites every way.
package enum SyncHubRoute {
    package static let isThroughPooler =
        ProcessInfo.processInfo.environment["PREFS_SYNC_THROUGH_POOLER"] == "1"
    package static let isThroughServer =
        ProcessInfo.processInfo.environment["PREFS_SYNC_THROUGH_SERVER"] == "1"

    /// The hub's connection string for the devices.
    package static func target(_ server: PostgresServer, database: String) throws -> String {
        isThroughPooler
            ? try PgBouncer.start().target(database: database)
            : server.target(database: database)
    }

    /// The options devices open the hub with.
    package static var options: PostgreSQLOptions {
        var options = PostgreSQLOptions()
        options.isBehindTransactionPooler = isThroughPooler
        return options
    }

    /// A device token of `account`, issued on the hub's database (through prefs-server).
    package static func deviceToken(_ server: PostgresServer, database: String, account: String)
        throws
        -> String
    {
        var service = PostgreSQLOptions()
        service.account = account
        service.watchesForChanges = false
        return try DeviceTokens.issue(
            on: AppDatabase.postgreSQL(server.target(database: database), options: service),
            name: "schedule"
        ).token
    }
}
