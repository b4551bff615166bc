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

    /// The environment the proxy variables are read from (tests name their own).
    package var environment: [String: String]?
}

extension SyncServerOptions {
    /// Why plain HTTP to this machine would go through a proxy the environment names, which
    /// would read the token in clear; nil when it would not. On Linux, URLSession
    /// (FoundationNetworking, libcurl) follows `http_proxy` and `ALL_PROXY` and offers no way
    /// to turn them off for one session; https:// through a proxy is a tunnel, and the token
    /// stays inside TLS.
    static func proxyProblem(for server: URL, environment: [String: String]) -> String? {
        #if canImport(FoundationNetworking)
            guard server.scheme?.lowercased() == "http", let host = server.host?.lowercased()
            else { return nil }
            let variables = ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"]
            guard let variable = variables.first(where: { !(environment[$0] ?? "").isEmpty })
            else { return nil }
            let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            let exempt = [environment["no_proxy"], environment["NO_PROXY"]].compactMap { $0 }
                .flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard !exempt.contains(where: { $0 == "*" || $0 == host || $0 == bare }) else {
                return nil
            }
            return "\(variable) names a proxy, which would read the device token in clear on its"
                + " way to this machine: add \(bare) to no_proxy, or unset \(variable)"
        #else
            return nil
        #endif
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
    ///   ``PrefsKit/DatabaseError/invalidConnectionOption(path:detail:)`` for plain HTTP that
    ///   a proxy named by `http_proxy` or `ALL_PROXY` would carry (Linux; `no_proxy` exempts
    ///   the host) or a server that answers with a redirect, which is not followed;
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
        if let problem = SyncServerOptions.proxyProblem(
            for: server, environment: options.environment ?? ProcessInfo.processInfo.environment)
        {
            throw DatabaseError.invalidConnectionOption(
                path: server.absoluteString, detail: problem)
        }
        let transport = URLSessionTransport(
            base: server, anchors: options.certificateAuthority.map { [$0] } ?? [])
        try self.init(
            database: database,
            connector: HTTPHubConnector(transport: transport, token: token), account: nil)
    }
}
