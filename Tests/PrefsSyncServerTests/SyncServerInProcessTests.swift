import Foundation
import PrefsHTTPSync
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import Synchronization
import TestSupport
import Testing

@testable import PrefsSyncServer

/// The sync server in the test's own process, on a real hub: driven by requests made in
/// memory, and by the real client over a socket of port 0.
@Suite(.serialized) struct SyncServerInProcessTests {
    let postgres: PostgresServer
    let database: String
    let folder: TemporaryFolder
    let log = RouterTests.LogLines()

    init() throws {
        postgres = try PostgresServer.start()
        database = try postgres.makeDatabase()
        // The hub's schema, made by the superuser; then the server's own role.
        var options = PostgreSQLOptions()
        options.account = "admin"
        _ = try AppDatabase.postgreSQL(postgres.target(database: database), options: options)
        try postgres.makeLoginRoles([("sync_service", "prefs_service")])
        folder = try TemporaryFolder()
    }

    private var hubTarget: String { postgres.target(database: database, user: "sync_service") }

    private func server(hub: String? = nil) throws -> SyncServer {
        let log = log
        return try SyncServer(SyncServer.Configuration(hub: hub ?? hubTarget)) { log.write($0) }
    }

    private func token(_ account: String) throws -> String {
        var options = PostgreSQLOptions()
        options.account = account
        options.watchesForChanges = false
        let hub = try AppDatabase.postgreSQL(hubTarget, options: options)
        return try DeviceTokens.issue(on: hub, name: account + "'s phone").token
    }

    @Test func aRequestMadeInMemoryReachesTheHubForItsTokensAccount() throws {
        let server = try server()
        let alice = try token("alice")
        let bearer = ["Authorization": "Bearer " + alice]
        let account = server.respond(to: HTTPRequest("GET", "/v1/account", headers: bearer))
        #expect(account.status == 200)
        let answer = try JSONDecoder().decode(
            SyncWire.AccountResponse.self, from: Data(account.body))
        #expect(answer.account == "alice")
        let unknown = server.respond(
            to: HTTPRequest("GET", "/v1/account", headers: ["Authorization": "Bearer prefs_x"]))
        #expect(unknown.status == 401)
        #expect(log.all.count == 2)
        #expect(log.all[0].contains("account=alice") && !log.all.joined().contains(alice))
    }

    @Test func twoDevicesSyncThroughTheServerInThisProcess() throws {
        let server = try server()
        var limits = HTTPDaemon.Limits()
        limits.connections = 16
        let daemon = try HTTPDaemon(
            router: server.router, workers: server.workers, address: "127.0.0.1", port: 0,
            limits: limits)
        defer { daemon.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(daemon.port)"))
        let phone = try AppDatabase(path: folder.path("phone.db"))
        let laptop = try AppDatabase(path: folder.path("laptop.db"))
        PreferenceStore(database: phone).set("dark", forKey: "theme")
        let phoneToken = try token("alice")
        let laptopToken = try token("alice")
        #expect(try DeviceSync(database: phone, server: url, token: phoneToken).sync().pushed == 1)
        #expect(
            try DeviceSync(database: laptop, server: url, token: laptopToken).sync().pulled == 1)
        #expect(PreferenceStore(database: laptop).string(forKey: "theme") == "dark")
        // No answer of 500 or more: no line with a cause.
        #expect(!log.all.isEmpty && log.all.allSatisfy { !$0.contains("cause=") })
    }

    @Test func aBodyWithAnUnknownTokenIsRefusedBeforeAByteOfItIsRead() throws {
        let server = try server()
        let daemon = try HTTPDaemon(
            router: server.router, workers: server.workers, address: "127.0.0.1", port: 0,
            limits: HTTPDaemon.Limits())
        defer { daemon.stop() }
        let alice = try token("alice")
        // Headers that announce 8 MB and wait for "100 Continue": none comes, the refusal
        // does, and the body is never sent.
        for (token, status) in [("prefs_unknown", 401), (alice, 100)] {
            guard let socket = RawHTTP.connect(port: Int(daemon.port)) else {
                Issue.record("cannot connect")
                return
            }
            defer { close(socket) }
            var timeout = timeval(tv_sec: 3, tv_usec: 0)
            setsockopt(
                socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let started = ContinuousClock.now
            RawHTTP.send(
                socket,
                Array(
                    ("POST /v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)"
                        + "\r\nContent-Type: application/json\r\nContent-Length: 8000000\r\n"
                        + "Expect: 100-continue\r\n\r\n").utf8))
            let answer = RawHTTP.readResponse(socket)
            #expect(answer?.status == status, "\(token)")
            if status == 401 {
                // At once, not after the socket's 3 s: the server did not wait for the body.
                #expect(ContinuousClock.now - started < .seconds(2))
                #expect(answer?.body.contains("bad_token") == true)
            }
        }
        // The refusal is logged once, as a whole request is.
        #expect(log.all.filter { $0.contains(" 401 ") }.count == 1)
    }

    @Test func oneTokenCannotHoldMoreLongPollsThanItsShare() throws {
        var configuration = SyncServer.Configuration(hub: hubTarget)
        configuration.maxLongPollsPerToken = 2
        let log = log
        let server = try SyncServer(configuration) { log.write($0) }
        let alice = try token("alice")
        let other = try token("alice")
        @Sendable func poll(_ token: String, wait: Int) -> HTTPResponse {
            server.respond(
                to: HTTPRequest(
                    "GET", "/v1/changes", query: ["after": "1000", "wait": String(wait)],
                    headers: ["Authorization": "Bearer " + token]))
        }
        // Two polls of one token wait; a third is refused at once; another token's waits.
        let waiting = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: waiting) { _ = poll(alice, wait: 5_000) }
        }
        // Both in progress (the queue may start them late on a busy machine).
        let ready = ContinuousClock.now + .seconds(4)
        while server.longPolls(ofToken: alice) < 2, ContinuousClock.now < ready {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(server.longPolls(ofToken: alice) == 2)
        let started = ContinuousClock.now
        let refused = poll(alice, wait: 3_000)
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "1")
        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(poll(other, wait: 100).status == 200)
        server.finishLongPolls()
        waiting.wait()
        #expect(poll(alice, wait: 0).status == 200)
    }

    @Test func oneAccountHoldsAtMostHalfThePoolAndOthersAreServedMeanwhile() throws {
        let pool = try SyncHubPool(
            target: hubTarget, size: 2, waitMilliseconds: 3_000,
            statementTimeoutMilliseconds: 30_000)
        #expect(pool.accountShare == 1)
        let alice = try token("alice")
        let bob = try token("bob")
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? pool.withAccount(token: alice) { _ in
                holding.signal()
                release.wait()
            }
        }
        holding.wait()
        // Alice's second request is refused at once (503 busy for the server), not after
        // the pool's wait, and not with Bob's connection.
        let started = ContinuousClock.now
        #expect(throws: SyncHubPool.Refusal.busy) { try pool.withAccount(token: alice) { _ in } }
        #expect(
            throws: SyncHubPool.Refusal.busy,
            "an account found before a connection is taken is held to its share too"
        ) { try pool.withAccount(token: alice, verifiedAccount: "alice") { _ in } }
        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(try pool.withAccount(token: bob) { $0.account } == "bob")
        release.signal()
        // Hers back, she is served again.
        let again = ContinuousClock.now + .seconds(3)
        var served: String?
        while served == nil, ContinuousClock.now < again {
            served = try? pool.withAccount(token: alice) { $0.account }
            if served == nil { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(served == "alice")
    }

    /// Whether this process may hold 1,200 files open (its hard limit allows it).
    static let mayOpenManyFiles: Bool = {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return false }
        return limit.rlim_max >= 1_200
    }()

    @Test(.enabled(if: mayOpenManyFiles, "the hard limit on open files is below 1,200"))
    func aServerWhoseSocketIsNumberedPastTheSelectLimitServes() throws {
        var limit = rlimit()
        _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let before = limit
        limit.rlim_cur = max(limit.rlim_cur, min(limit.rlim_max, 4_096))
        #expect(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        defer {
            var restored = before
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &restored)
        }
        // 1,100 files open first: the listening socket and every connection are numbered
        // past FD_SETSIZE (1,024), which select() cannot watch.
        let held = (0..<1_100).map { _ in open("/dev/null", O_RDONLY) }
        defer { for descriptor in held where descriptor >= 0 { close(descriptor) } }
        #expect(held.allSatisfy { $0 >= 0 })
        let server = try server()
        let daemon = try HTTPDaemon(
            router: server.router, workers: server.workers, address: "127.0.0.1", port: 0,
            limits: HTTPDaemon.Limits())
        defer { daemon.stop() }
        let answer = RawHTTP.exchange(
            port: Int(daemon.port),
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(answer?.status == 200)
    }

    @Test func aHubThatCannotBeReachedIsA503WhoseLogLineSaysWhy() throws {
        let server = try server(hub: "host=\(folder.path("nowhere")) dbname=prefs")
        let ready = server.respond(to: HTTPRequest("GET", "/readyz"))
        #expect(ready.status == 503)
        #expect(ready.header("Retry-After") == "1")
        let account = server.respond(
            to: HTTPRequest("GET", "/v1/account", headers: ["Authorization": "Bearer prefs_x"]))
        #expect(account.status == 503)
        let lines = log.all
        #expect(lines.count == 2)
        for line in lines {
            // The cause names the socket libpq could not reach; the answer does not.
            #expect(line.contains("cause=\"") && line.contains("nowhere"), "\(line)")
        }
        #expect(!String(decoding: account.body, as: UTF8.self).contains("nowhere"))
        // healthz needs no hub.
        #expect(server.respond(to: HTTPRequest("GET", "/healthz")).status == 200)
    }

    /// A failure while acting for an account is logged with that account and its cause (a
    /// hub function gone: 500), never `account=-`.
    @Test func aFailureForAnAccountIsLoggedWithTheAccount() throws {
        let server = try server()
        let alice = try token("alice")
        let renamed = try postgres.psql(
            "ALTER FUNCTION prefs_sync_now_ms() RENAME TO prefs_sync_now_ms_gone",
            database: database)
        #expect(renamed.status == 0, "\(renamed.stderr)")
        let pull = server.respond(
            to: HTTPRequest(
                "POST", "/v1/pull", headers: ["Authorization": "Bearer " + alice],
                body: Array(#"{"device": "phone01", "after": 0}"#.utf8)))
        #expect(pull.status == 500)
        let line = try #require(log.all.last)
        #expect(line.contains(" 500 ") && line.contains("account=alice"), "\(line)")
        #expect(line.contains("cause=\"") && line.contains("prefs_sync_now_ms"), "\(line)")
    }
}
