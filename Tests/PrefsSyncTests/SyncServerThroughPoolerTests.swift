import Dispatch
import Foundation
import PrefsHTTPSync
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import PrefsTestSupport
import TestSupport
import Testing

/// `prefs-server` reaching the hub through PgBouncer in transaction pooling, as deployed:
/// its pool's connections share the pooler's few server connections, every transaction
/// names its account, and its long polls listen on a session straight to the server.
@Suite(.serialized, .enabled(if: PgBouncer.isInstalled, "PgBouncer is not installed"))
struct SyncServerThroughPoolerTests {
    let postgres: PostgresServer
    let database: String
    let server: SyncServerProcess
    let folder: TemporaryFolder

    init() throws {
        postgres = try PostgresServer.start()
        let pooler = try PgBouncer.start()
        // `service` is one of the roles the test pooler lets in.
        database = try postgres.makePrefsDatabase(roles: [("service", "prefs_service")])
        server = try SyncServerProcess(
            hub: pooler.target(database: database, user: "service"),
            arguments: [
                "--pool-size", "12", "--listen-hub",
                postgres.target(database: database, user: "service"),
            ])
        folder = try TemporaryFolder()
    }

    private func token(_ account: String) throws -> String {
        let hub = try postgres.open(database, as: "service", account: account)
        return try DeviceTokens.issue(on: hub, name: "device").token
    }

    @Test func devicesOfManyAccountsSyncAtOnceAndNoAccountSeesAnothers() throws {
        // 12 devices of 6 accounts at once through 3 server connections: a transaction that
        // named one account must never run a statement for another.
        let accounts = (0..<6).map { "pooled\($0)" }
        let devices = try accounts.flatMap { account in
            try (0..<2).map { index in
                (
                    account: account, token: try token(account),
                    path: folder.path("\(account)-\(index).db")
                )
            }
        }
        let failures = SendableList()
        DispatchQueue.concurrentPerform(iterations: devices.count) { index in
            let device = devices[index]
            do {
                let database = try AppDatabase(path: device.path)
                for round in 0..<5 {
                    try PreferenceStore(database: database).setValue(
                        .string("\(device.account) \(round)"), forKey: "owner-\(index)")
                    try DeviceSync(database: database, server: server.url, token: device.token)
                        .sync()
                }
            } catch {
                failures.append("\(device.account): \(error)")
            }
        }
        #expect(failures.items.isEmpty, "\(failures.items)")
        for (index, device) in devices.enumerated() {
            let database = try AppDatabase(path: device.path)
            try DeviceSync(database: database, server: server.url, token: device.token).sync()
            let store = PreferenceStore(database: database)
            // Both devices of the account have both devices' keys; no other account's.
            for (other, otherDevice) in devices.enumerated() {
                let value = store.string(forKey: "owner-\(other)")
                if otherDevice.account == device.account {
                    #expect(value == "\(device.account) 4", "device \(index) key \(other)")
                } else {
                    #expect(value == nil, "device \(index) sees \(otherDevice.account)")
                }
            }
        }
    }

    @Test func aLongPollIsWokenThroughThePoolersHub() throws {
        let watcherToken = try token("watched")
        let watcher = try AppDatabase(path: folder.path("watcher.db"))
        try DeviceSync(database: watcher, server: server.url, token: watcherToken).sync()
        let position = try #require(
            RawHTTP.exchange(
                port: server.port,
                "GET /v1/account HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(watcherToken)\r\n"
                    + "Connection: close\r\n\r\n"))
        let after = try #require(
            (try JSONSerialization.jsonObject(with: Data(position.body.utf8))
                as? [String: Any])?["position"] as? Int)
        let started = Date()
        let answered = DispatchSemaphore(value: 0)
        let port = server.port
        DispatchQueue.global().async {
            _ = RawHTTP.exchange(
                port: port,
                "GET /v1/changes?after=\(after)&wait=15000 HTTP/1.1\r\nHost: x\r\n"
                    + "Authorization: Bearer \(watcherToken)\r\nConnection: close\r\n\r\n")
            answered.signal()
        }
        usleep(300_000)
        let writer = try AppDatabase(path: folder.path("writer.db"))
        try PreferenceStore(database: writer).set(true, for: .hasViewedWalkthrough)
        try DeviceSync(database: writer, server: server.url, token: try token("watched")).sync()
        #expect(answered.wait(timeout: .now() + 10) == .success)
        #expect(Date().timeIntervalSince(started) < 5)
    }
}

/// Strings gathered from several threads.
final class SendableList: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ item: String) { lock.withLock { stored.append(item) } }
    var items: [String] { lock.withLock { stored } }
}
