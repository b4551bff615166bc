import Foundation
import PrefsKit
import PrefsSync

#if canImport(Security)
    import Security
#endif

/// How a device reaches a sync server.
public struct SyncServerOptions: Sendable {
    /// A private CA's certificate (DER), the only one the server's chain may lead to; nil
    /// for the system's trust store. Apple platforms only: on Linux, URLSession
    /// (FoundationNetworking) trusts the system's store alone, and a private CA must be
    /// added to it (or the `prefs` command's `--ca-file` used).
    public var certificateAuthority: Data?

    /// The options: a private CA (DER), or the system's trust store.
    public init(certificateAuthority: Data? = nil) {
        self.certificateAuthority = certificateAuthority
    }
}

extension DeviceSync {
    /// Syncs through a sync server (`prefs-server`, docs/sync-protocol.md) over HTTPS, with
    /// a device token that opens one account: the device holds no database login. Sync is
    /// turned on for the device by the first round that completes.
    ///
    /// ```swift
    /// import PrefsHTTPSync
    ///
    /// let sync = try DeviceSync(
    ///     database: database, server: URL(string: "https://sync.example")!, token: token)
    /// try sync.sync()
    /// ```
    ///
    /// - Parameters:
    ///   - database: The device's database file (SQLite).
    ///   - server: `https://host[:port][/prefix]`; `http://` only for a loopback host.
    ///   - token: The device token (`prefs-server token issue`, or the app's sign-in flow
    ///     through PrefsPostgreSQL's `DeviceTokens`). It is never written to the device
    ///     file: keep it in the keychain.
    ///   - options: A private CA.
    /// - Throws: ``PrefsKit/SyncError`` for a server URL that is not HTTPS (or loopback
    ///   HTTP), or a device that syncs another account;
    ///   ``PrefsKit/DatabaseError/permissionDenied(path:detail:)`` for a token the server
    ///   refused; ``PrefsKit/DatabaseError/unavailable(path:detail:)`` when it cannot be
    ///   reached.
    public convenience init(
        database: AppDatabase, server: URL, token: String,
        options: SyncServerOptions = SyncServerOptions()
    ) throws {
        guard SyncServerAddress.isAcceptable(server.absoluteString) else {
            throw SyncError.insecureServer(server.absoluteString)
        }
        let transport = URLSessionTransport(
            base: server, anchors: options.certificateAuthority.map { [$0] } ?? [])
        try self.init(
            database: database,
            connector: HTTPHubConnector(transport: transport, token: token), account: nil)
    }
}
