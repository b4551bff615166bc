import Dispatch
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc

    private let openFiles = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#elseif canImport(Darwin)
    import Darwin

    private let openFiles = RLIMIT_NOFILE
#endif

/// Sync as it is deployed (docs/deploy.md): nginx from that page's configuration, with TLS
/// from a CA the test makes, in front of two `prefs-server` instances, and devices that are
/// the `prefs` binary with a token file and `--ca-file`.
@Suite(.serialized, .enabled(if: NginxProxy.isInstalled, "nginx and openssl are needed"))
struct SyncServerDeploymentTests {
    let postgres: PostgresServer
    let database: String
    let instances: [SyncServerProcess]
    let nginx: NginxProxy
    let folder: TemporaryFolder

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    init() throws {
        postgres = try PostgresServer.start()
        database = try postgres.makeDatabase()
        folder = try TemporaryFolder()
        let setup = try runProcess(
            SyncServerProcess.executable,
            ["token", "issue", "--account", "setup", "--name", "setup"],
            environment: ["PREFS_HUB": postgres.target(database: database)])
        guard setup.status == 0 else { throw PostgresServerError(setup.stderr) }
        try postgres.makeLoginRoles([("sync_service", "prefs_service")])
        let hub = postgres.target(database: database, user: "sync_service")
        instances = try (0..<2).map { _ in try SyncServerProcess(hub: hub) }
        nginx = try NginxProxy(
            configuration: try NginxProxy.documentedConfiguration(repository: Self.root),
            ports: ["127.0.0.1:8081": instances[0].port, "127.0.0.1:8082": instances[1].port])
    }

    private func tokenFile(_ account: String, _ name: String) throws -> String {
        let issued = try runProcess(
            SyncServerProcess.executable,
            ["token", "issue", "--account", account, "--name", name],
            environment: ["PREFS_HUB": postgres.target(database: database, user: "sync_service")])
        #expect(issued.status == 0, "\(issued.stderr)")
        let path = folder.path(name + ".token")
        _ = FileManager.default.createFile(
            atPath: path, contents: Data(issued.stdout.utf8),
            attributes: [.posixPermissions: 0o600])
        return path
    }

    private func round(_ device: String, _ token: String, hub: Bool = false) throws
        -> ProcessOutput
    {
        try runPrefs(
            [
                "--db", folder.path(device + ".db"), "sync", "--token-file", token, "--ca-file",
                nginx.certificateAuthority,
            ] + (hub ? ["--hub", nginx.url] : []))
    }

    @Test func devicesSyncOverTLSThroughNginxAcrossBothInstances() throws {
        let laptop = try tokenFile("alice", "laptop")
        let phone = try tokenFile("alice", "phone")
        #expect(
            try runPrefs(["--db", folder.path("laptop.db"), "set", "theme", "dark"]).status == 0)
        let first = try round("laptop", laptop, hub: true)
        #expect(first.status == 0, "\(first.stderr)")
        let pulled = try round("phone", phone, hub: true)
        #expect(pulled.stdout.contains("pulled 1"), "\(pulled.stdout) \(pulled.stderr)")
        for _ in 0..<6 { #expect(try round("phone", phone).status == 0) }
        // Both instances served: nginx spreads the requests.
        for instance in instances {
            #expect(instance.log.contains(" 200 "), "\(instance.log)")
        }
        // The CA the phone was told of once is kept beside the server's address: the README's
        // next line, with no --ca-file, works.
        let remembered = try runPrefs(
            ["--db", folder.path("phone.db"), "sync", "--token-file", phone],
            environment: ["PREFS_CA_FILE": ""])
        #expect(remembered.status == 0, "\(remembered.stderr)")
        // TLS is verified: a device never told of the test CA has the certificate refused,
        // with 77 (sending again cannot help; a script that retries on 75 would loop) and the
        // remedy named.
        let tablet = try tokenFile("alice", "tablet")
        let untrusted = try runPrefs(
            ["--db", folder.path("tablet.db"), "sync", "--hub", nginx.url, "--token-file", tablet],
            environment: ["PREFS_CA_FILE": ""])
        #expect(untrusted.status == 77, "\(untrusted.stderr)")
        #expect(untrusted.stderr.lowercased().contains("certificate"), "\(untrusted.stderr)")
        #expect(untrusted.stderr.contains("--ca-file"), "\(untrusted.stderr)")
        #expect(!untrusted.stderr.contains("retry"), "\(untrusted.stderr)")
        #expect(untrusted.stderr.split(separator: "\n").count == 1, "\(untrusted.stderr)")
        // PREFS_CA_FILE names the CA for every command.
        let named = try runPrefs(
            ["--db", folder.path("tablet.db"), "sync", "--hub", nginx.url, "--token-file", tablet],
            environment: ["PREFS_CA_FILE": nginx.certificateAuthority])
        #expect(named.status == 0, "\(named.stderr)")
    }

    /// Raises this process's descriptor limit (which nginx, its child, inherits) as far as
    /// it may go; whether 10,000 connections fit.
    static let descriptorsSuffice: Bool = {
        var limit = rlimit()
        getrlimit(openFiles, &limit)
        if limit.rlim_max < 40_000 {
            var raised = limit
            raised.rlim_max = 40_000
            raised.rlim_cur = 40_000
            if setrlimit(openFiles, &raised) == 0 { return true }
        }
        limit.rlim_cur = limit.rlim_max
        setrlimit(openFiles, &limit)
        getrlimit(openFiles, &limit)
        return limit.rlim_cur >= 10_500
    }()

    @Test(.enabled(if: descriptorsSuffice, "10,000 connections need 10,500 descriptors"))
    func tenThousandConnectionsAtOnce() throws {
        let token = try tokenFile("carol", "carol")
        // Ten thousand clients connect and send nothing (nginx holds them, as it is there to).
        var sockets: [Int32] = []
        defer {
            for socket in sockets { close(socket) }
        }
        for _ in 0..<10_000 {
            guard let socket = RawHTTP.connect(port: nginx.port) else { break }
            sockets.append(socket)
        }
        #expect(sockets.count == 10_000)
        // Everyone else is still served, through TLS, by both instances.
        let round = try round("carol", token, hub: true)
        #expect(round.status == 0, "\(round.stderr)")
        for instance in instances {
            #expect(
                RawHTTP.exchange(
                    port: instance.port,
                    "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")?.status == 200)
        }
    }

    @Test func killingOneInstanceInTheMiddleOfRoundsLosesNothing() throws {
        let devices = ["a", "b", "c"]
        let tokens = try devices.map { try tokenFile("bob", "device-" + $0) }
        for (device, token) in zip(devices, tokens) {
            #expect(try round(device, token, hub: true).status == 0)
        }
        var failures: [String] = []
        for step in 0..<12 {
            if step == 5 {
                // Killed while the next rounds run: a request in flight gets no answer.
                let instance = instances[0]
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(40)) {
                    instance.killNow()
                }
            }
            for (index, device) in devices.enumerated() {
                let write = try runPrefs(
                    ["--db", folder.path(device + ".db"), "set", "\(device)-\(step)", "\(step)"])
                #expect(write.status == 0)
                let result = try round(device, tokens[index])
                if result.status != 0 { failures.append("\(device) \(step): \(result.stderr)") }
            }
        }
        // Every round completed, the killed instance's share served by the other.
        #expect(failures.isEmpty, "\(failures)")
        for (device, token) in zip(devices, tokens) {
            #expect(try round(device, token).status == 0)
        }
        // Nothing lost: every write of every device is on every device.
        for device in devices {
            let listed = try runPrefs(["--db", folder.path(device + ".db"), "--json", "export"])
            for writer in devices {
                for step in 0..<12 {
                    #expect(
                        listed.stdout.contains("\"\(writer)-\(step)\""),
                        "\(device) lacks \(writer)-\(step)")
                }
            }
            let status = try runPrefs(["--db", folder.path(device + ".db"), "sync", "status"])
            #expect(status.stdout.contains("Pending:    0"), "\(status.stdout)")
        }
    }
}
