import Dispatch
import Foundation
import PrefsHTTPSync
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import PrefsTestSupport
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Devices syncing through `prefs-server` over HTTP with device tokens (the real binary, a
/// real hub), and what a hostile client sends it: each attack is a test named after it, and
/// ends with the documented status and a one-line JSON error while the server serves others.
@Suite(.serialized) struct SyncServerTests {
    let postgres: PostgresServer
    let database: String
    let server: SyncServerProcess
    let folder: TemporaryFolder

    init() throws {
        postgres = try PostgresServer.start()
        database = try postgres.makePrefsDatabase(roles: [("sync_service", "prefs_service")])
        server = try SyncServerProcess(
            hub: postgres.target(database: database, user: "sync_service"),
            arguments: ["--max-body", "1048576", "--timeout", "3"])
        folder = try TemporaryFolder()
    }

    /// The hub as a server app (a service role) sees one account.
    private func hub(_ account: String) throws -> AppDatabase {
        try postgres.open(database, as: "sync_service", account: account)
    }

    private func token(_ account: String, _ name: String) throws -> DeviceTokens.Issued {
        try DeviceTokens.issue(on: hub(account), name: name)
    }

    private func device(_ name: String) throws -> AppDatabase {
        try AppDatabase(path: folder.path(name + ".db"))
    }

    @discardableResult
    private func sync(_ device: AppDatabase, _ token: String) throws -> SyncReport {
        try DeviceSync(database: device, server: server.url, token: token).sync()
    }

    /// A request as the protocol's clients send it: status and body.
    private func request(
        _ method: String, _ path: String, token: String?, body: String? = nil,
        headers: [String: String] = [:]
    ) -> (status: Int, body: String)? {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let token { text += "Authorization: Bearer \(token)\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body {
            text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
        }
        text += "\r\n" + (body ?? "")
        return RawHTTP.exchange(port: server.port, text)
    }

    /// Whether the body is one line of JSON with the error code.
    private func isError(_ response: (status: Int, body: String)?, _ status: Int, _ code: String)
        -> Bool
    {
        guard let response, response.status == status, !response.body.contains("\n"),
            let object = try? JSONSerialization.jsonObject(with: Data(response.body.utf8))
                as? [String: String]
        else { return false }
        return object["error"] == code && object["message"]?.isEmpty == false
    }

    /// The ident of the key `theme` of the standard suite.
    private let theme = SyncIdent.make(["standard", "theme"])

    /// The body of a push (or a round) of device d1 that sets `theme` to dark, stamped now.
    private func themePush() -> String {
        let clock = HybridClock(
            milliseconds: Int64(Date().timeIntervalSince1970 * 1000), counter: 0, device: "d1"
        ).text
        return """
            {"device":"d1","cursor":0,"changes":[{"entity":"preference","ident":"\(theme)",\
            "field":"value","clock":"\(clock)","present":true,"type":"string","value":"dark"}]}
            """
    }

    /// The server still answers a device with a good token.
    private func stillServes() throws -> Bool {
        let issued = try token("zoe", "control")
        return request("GET", "/v1/account", token: issued.token)?.status == 200
    }

    // MARK: - Devices

    @Test func twoDevicesSyncThroughTheServerThenAServerWriteReachesBothAndARevokedTokenIsRefused()
        throws
    {
        let phoneToken = try token("alice", "Anna's iPhone")
        let laptopToken = try token("alice", "Anna's laptop")
        let phone = try device("phone")
        let laptop = try device("laptop")
        try PreferenceStore(database: phone).set(true, for: .hasViewedWalkthrough)
        #expect(try sync(phone, phoneToken.token).pushed == 1)
        let pulled = try sync(laptop, laptopToken.token)
        #expect(pulled.pulled == 1)
        #expect(PreferenceStore(database: laptop)[.hasViewedWalkthrough] == true)
        // The device file keeps the server's address, never the token.
        let status = try #require(try DeviceSync.status(of: laptop))
        #expect(status.hub == server.url.absoluteString)
        #expect(status.account == "alice")
        let file = try Data(contentsOf: URL(fileURLWithPath: folder.path("laptop.db")))
        #expect(file.range(of: Data(laptopToken.token.utf8)) == nil)

        // The server app writes; both devices get it.
        try PreferenceStore(database: hub("alice")).set(7, for: .launchCount)
        #expect(try sync(phone, phoneToken.token).pulled == 1)
        #expect(try sync(laptop, laptopToken.token).pulled == 1)
        #expect(PreferenceStore(database: phone)[.launchCount] == 7)
        #expect(PreferenceStore(database: laptop)[.launchCount] == 7)

        // Revoked: refused at the next request, the other token still works.
        #expect(try DeviceTokens.revoke(id: laptopToken.record.id, on: hub("alice")))
        let refused = #expect(throws: DatabaseError.self) { try sync(laptop, laptopToken.token) }
        guard case .permissionDenied? = refused?.kind else {
            Issue.record("expected permissionDenied, got \(String(describing: refused))")
            return
        }
        // The server's stable code is kept with the error.
        let said = refused?.underlying as? SyncServerRefusal
        #expect(said?.status == 401)
        #expect(said?.knownCode == .badToken)
        #expect(try sync(phone, phoneToken.token).pending == 0)
        let listed = try DeviceTokens.list(on: hub("alice"))
        #expect(listed.map(\.name) == ["Anna's iPhone", "Anna's laptop"])
        #expect(listed.map { $0.revokedAt == nil } == [true, false])
    }

    /// One NUL stopped a device for good (every round a 500): refused alone now, reported,
    /// and the device's other changes reach the hub.
    /// A round is one request (`POST /v1/round`) after the hub's first `GET /v1/account`:
    /// the push, the pull's first page, the cursor's report and the names come in it. A
    /// round used to be five requests (account, push, pull, report, devices).
    @Test func aRoundThroughTheServerIsOneRequest() throws {
        let phoneToken = try token("alice", "phone")
        let laptopToken = try token("alice", "laptop")
        let phone = try device("phone")
        let laptop = try device("laptop")
        try PreferenceStore(database: phone).set(true, for: .hasViewedWalkthrough)
        PreferenceStore(database: laptop).set("dark", forKey: "theme")
        let phoneSync = try DeviceSync(database: phone, server: server.url, token: phoneToken.token)
        let laptopSync = try DeviceSync(
            database: laptop, server: server.url, token: laptopToken.token)
        #expect(try phoneSync.sync().pushed == 1)
        let before = server.log.split(separator: "\n").count
        let both = try laptopSync.sync()
        #expect(both.pushed == 1 && both.pulled == 1)
        PreferenceStore(database: phone).set(3, forKey: "volume")
        let again = try phoneSync.sync()
        #expect(again.pushed == 1 && again.pulled == 1)
        #expect(PreferenceStore(database: phone).string(forKey: "theme") == "dark")
        #expect(PreferenceStore(database: laptop)[.hasViewedWalkthrough] == true)
        let lines = server.log.split(separator: "\n").dropFirst(before)
        let calls = lines.compactMap { line in
            line.split(separator: " ").dropFirst(2).prefix(2).joined(separator: " ")
        }
        #expect(calls == ["POST /v1/round", "POST /v1/round"], "\(lines)")
        // What the hub knows of the laptop: the cursor its round reported.
        let status = try #require(try DeviceSync.status(of: laptop))
        #expect(status.account == "alice")

        // A client of version 1 still makes its round call by call.
        let account = request("GET", "/v1/account", token: phoneToken.token)
        #expect(account?.body.contains(#""protocolVersion":2"#) == true)
        let pull = request(
            "POST", "/v1/pull", token: phoneToken.token, body: #"{"device":"old","after":0}"#)
        #expect(pull?.status == 200 && pull?.body.contains(#""more":false"#) == true)
        #expect(
            request(
                "POST", "/v1/report", token: phoneToken.token,
                body: #"{"device":"old","cursor":2}"#)?.status == 200)
    }

    /// A round sent again under its idempotency key (its answer lost) is answered with the
    /// same push, applied once, and a page that leaves that push out.
    @Test func aRoundSentAgainUnderItsKeyPushesOnce() throws {
        let issued = try token("alice", "phone")
        let body = themePush()
        let first = request(
            "POST", "/v1/round", token: issued.token, body: body,
            headers: ["Idempotency-Key": "round-1"])
        let second = request(
            "POST", "/v1/round", token: issued.token, body: body,
            headers: ["Idempotency-Key": "round-1"])
        #expect(first?.status == 200 && second?.status == 200)
        let answers = try [first, second].map { response in
            try JSONDecoder().decode(
                SyncWire.RoundResponse.self, from: Data((response?.body ?? "").utf8))
        }
        #expect(answers.map { $0.push?.accepted } == [1, 1])
        #expect(answers[0].push?.sequence != nil)
        #expect(answers[0].push?.sequence == answers[1].push?.sequence)
        #expect(answers.allSatisfy { $0.pull.rows.isEmpty })
        // The hub numbered one push: the second ran nothing.
        let pulled = try #require(
            request("POST", "/v1/pull", token: issued.token, body: #"{"device":"d2","after":0}"#))
        #expect(pulled.body.components(separatedBy: #""sequence""#).count == 2)
        // A round that says a key that is not one is refused before anything runs.
        #expect(
            isError(
                request(
                    "POST", "/v1/round", token: issued.token, body: body,
                    headers: ["Idempotency-Key": String(repeating: "k", count: 129)]),
                400, "bad_idempotency_key"))
    }

    /// A hostile round: a change whose value does not read as its type, 10,001 changes in
    /// a body past the server's limit, a device id with a control character. Each is refused before the
    /// hub is touched: no report of the cursor, no push.
    @Test func aBadRoundIsRefusedBeforeItReportsOrPushesAnything() throws {
        let issued = try token("alice", "phone")
        let good = themePush()
        let badValue = good.replacingOccurrences(
            of: #""type":"string","value":"dark""#, with: #""type":"int","value":"dark""#)
        let start = try #require(good.range(of: #"{"entity""#)).lowerBound
        let change = String(good[start...].dropLast(2))
        let many =
            #"{"device":"d1","cursor":7,"changes":["#
            + Array(repeating: change, count: 10_001).joined(separator: ",") + "]}"
        let badDevice = good.replacingOccurrences(
            of: #""device":"d1""#, with: #""device":"d\u0001""#)
        for (body, status, code) in [
            (badValue, 400, "malformed"), (many, 413, "body_too_large"),
            (badDevice, 400, "bad_device"),
        ] {
            let answer = request(
                "POST", "/v1/round", token: issued.token, body: body,
                headers: ["Idempotency-Key": "bad-round"])
            #expect(isError(answer, status, code), "\(String(describing: answer))")
        }
        let reported = try postgres.psql(
            "SELECT count(*) FROM sync_device; SELECT count(*) FROM sync_change",
            database: database)
        #expect(reported.stdout.split(separator: "\n") == ["0", "0"], "\(reported.stdout)")
    }

    @Test func aValueWithANULIsRefusedAloneThroughTheServer() throws {
        let issued = try token("nul", "phone")
        let phone = try device("nul-phone")
        try PreferenceStore(database: phone).setValue(.string("a\u{0}b"), forKey: "bad")
        try PreferenceStore(database: phone).setValue(.int(1), forKey: "good")
        let report = try sync(phone, issued.token)
        #expect(report.refused == 1)
        #expect(report.pending == 0)
        #expect(try sync(phone, issued.token).refused == 0)
        let app = PreferenceStore(database: try hub("nul"))
        #expect(try app.value(forKey: "good") == .int(1))
        #expect(try app.value(forKey: "bad") == nil)
    }

    /// A device that does not know the hub's declarations pushes a key the hub declares
    /// device-local and a value of another type than a declared key's: each is refused
    /// alone, with its reason, as a `set` on the hub refuses it; the hub's values stay, and
    /// the push's other change is taken.
    @Test func aPushOverADeviceLocalKeyOrADeclaredTypeIsRefusedAloneThroughTheServer() throws {
        let issued = try token("declared", "phone")
        let app = PreferenceStore(database: try hub("declared"))
        try app.declare(PreferenceDeclaration(key: "windowWidth", type: .int, isDeviceLocal: true))
        try app.declare(PreferenceDeclaration(key: "theme", type: .string))
        try app.setValue(.int(1200), forKey: "windowWidth")
        try app.setValue(.string("dark"), forKey: "theme")
        let phone = try device("declared-phone")
        try PreferenceStore(database: phone).setValue(.int(390), forKey: "windowWidth")
        try PreferenceStore(database: phone).setValue(.int(7), forKey: "theme")
        try PreferenceStore(database: phone).setValue(.bool(true), forKey: "hasViewedWalkthrough")
        let report = try sync(phone, issued.token)
        #expect(report.refused == 2, "\(report)")
        #expect(report.pending == 0)
        #expect(try app.value(forKey: "windowWidth") == .int(1200))
        #expect(try app.value(forKey: "theme") == .string("dark"))
        #expect(try app.value(forKey: "hasViewedWalkthrough") == .bool(true))
        let reasons = try DeviceSync.refusals(of: phone).map(\.reason)
        #expect(reasons.contains { $0.contains("device-local") }, "\(reasons)")
        #expect(reasons.contains { $0.contains("declares this key string") }, "\(reasons)")
    }

    /// A device pushes more than its account may hold: each change that would take the
    /// account past its bound is refused alone, with the bound in its reason; the smaller
    /// ones and the removals are taken, and the hub's count of what the account holds is
    /// what its rows hold. The history keeps its newest rows within the same bound.
    @Test func aDeviceThatFillsItsAccountIsRefusedPastTheBoundAndTheRestIsTaken() throws {
        let issued = try token("filler", "phone")
        let bound = try postgres.psql(
            "INSERT INTO prefs_account_size (account, bytes_limit) VALUES ('filler', 20000)"
                + " ON CONFLICT (account) DO UPDATE SET bytes_limit = 20000",
            database: database)
        #expect(bound.status == 0, "\(bound.stderr)")
        let phone = try device("filler-phone")
        let store = PreferenceStore(database: phone)
        try store.setValue(.string("dark"), forKey: "theme")
        let large = String(repeating: "x", count: 6_000)
        for index in 0..<5 { try store.setValue(.string(large), forKey: "big\(index)") }
        let report = try sync(phone, issued.token)
        // 3 of 6 KB fit in 20,000 bytes, with the theme and the keys' idents and clocks.
        #expect(report.refused == 2, "\(report)")
        #expect(report.pending == 0)
        let reasons = try DeviceSync.refusals(of: phone).map(\.reason)
        #expect(
            reasons.allSatisfy { $0.contains("more than its bound of 20000 bytes") }, "\(reasons)")
        let app = PreferenceStore(database: try hub("filler"))
        #expect(try app.value(forKey: "theme") == .string("dark"))
        #expect(try (0..<5).filter { try app.value(forKey: "big\($0)") != nil }.count == 3)
        // Removals and smaller values are taken at the bound, and free room for more.
        for index in 0..<3 { try store.setValue(nil, forKey: "big\(index)") }
        try store.setValue(.string("light"), forKey: "theme")
        try store.setValue(.string(large), forKey: "big3")
        try store.setValue(.string(large), forKey: "big4")
        let second = try sync(phone, issued.token)
        #expect(second.refused == 0, "\(second)")
        #expect(try app.value(forKey: "big4") == .string(large))
        #expect(try app.value(forKey: "big0") == nil)
        // The estimate is never below what the rows hold; once 1 MiB has been pushed since
        // the last count, the next push counts the rows again (and adds its own change, a
        // short one, to the count) and keeps the history within the bound.
        let recount =
            "((SELECT sum(prefs_held_size(ident, field, clock, value, bytes)) FROM sync_change"
            + " WHERE account = 'filler') + (SELECT coalesce(sum(prefs_held_size(NULL, NULL,"
            + " NULL, value, bytes)), 0) FROM preference WHERE account = 'filler'))"
        let history =
            "(SELECT sum(prefs_history_size(suite, key, value, bytes, old_value, old_bytes))"
            + " FROM preference_history WHERE account = 'filler')"
        let estimate = try postgres.psql(
            "SELECT held_bytes >= \(recount), \(history) > 20000 FROM prefs_account_size"
                + " WHERE account = 'filler'",
            database: database
        ).stdout
        // (The history is past the bound until the next count.)
        #expect(estimate.trimmingCharacters(in: .whitespacesAndNewlines) == "t|t", "\(estimate)")
        let nudged = try postgres.psql(
            "UPDATE prefs_account_size SET pushed_since_count = 1048576 WHERE account = 'filler'",
            database: database)
        #expect(nudged.status == 0, "\(nudged.stderr)")
        try store.setValue(.string("dark"), forKey: "theme")
        #expect(try sync(phone, issued.token).refused == 0)
        let counted = try postgres.psql(
            "SELECT held_bytes - \(recount) BETWEEN 0 AND 200, \(history) <= 20000,"
                + " pushed_since_count < 1048576"
                + " FROM prefs_account_size WHERE account = 'filler'",
            database: database
        ).stdout
        #expect(counted.trimmingCharacters(in: .whitespacesAndNewlines) == "t|t|t", "\(counted)")
    }

    @Test func aTokenOpensExactlyOneAccount() throws {
        let alice = try token("alice", "alice's phone")
        let bob = try token("bob", "bob's phone")
        let phone = try device("alice-phone")
        try PreferenceStore(database: phone).setValue(.string("dark"), forKey: "theme")
        try sync(phone, alice.token)
        // Bob's device pulls nothing of Alice's, and its push stays in Bob's account.
        let bobsPhone = try device("bob-phone")
        #expect(try sync(bobsPhone, bob.token).pulled == 0)
        try PreferenceStore(database: bobsPhone).setValue(.string("light"), forKey: "theme")
        try sync(bobsPhone, bob.token)
        #expect(PreferenceStore(database: try hub("alice")).string(forKey: "theme") == "dark")
        #expect(PreferenceStore(database: try hub("bob")).string(forKey: "theme") == "light")
        // A device bound to Alice's account cannot be moved to Bob's by his token.
        #expect(throws: SyncError.self) { try sync(phone, bob.token) }
    }

    /// A long poll sent on another thread: the position it started from, its answer once
    /// it came, and a semaphore signalled then.
    private final class LongPoll: Sendable {
        let position: Int
        let answer = Mutex<(status: Int, body: String)?>(nil)
        let done = DispatchSemaphore(value: 0)

        init(position: Int) { self.position = position }
    }

    /// A long poll from the account's position now.
    private func startLongPoll(_ token: String, waitMilliseconds: Int) throws -> LongPoll {
        let account = try #require(request("GET", "/v1/account", token: token))
        let poll = LongPoll(
            position: try #require(
                (try JSONSerialization.jsonObject(with: Data(account.body.utf8))
                    as? [String: Any])?["position"] as? Int))
        let port = server.port
        DispatchQueue.global().async {
            let response = RawHTTP.exchange(
                port: port,
                "GET /v1/changes?after=\(poll.position)&wait=\(waitMilliseconds) HTTP/1.1\r\n"
                    + "Host: x\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
            poll.answer.withLock { $0 = response }
            poll.done.signal()
        }
        return poll
    }

    @Test func aLongPollAnswersAsSoonAsAnotherDevicePushes() throws {
        let issued = try token("alice", "watcher")
        let started = Date()
        let poll = try startLongPoll(issued.token, waitMilliseconds: 20_000)
        usleep(300_000)
        #expect(poll.answer.withLock { $0 } == nil)
        let phone = try device("phone")
        try PreferenceStore(database: phone).set(true, for: .hasViewedWalkthrough)
        try sync(phone, try token("alice", "phone").token)
        #expect(poll.done.wait(timeout: .now() + 25) == .success)
        let elapsed = Date().timeIntervalSince(started)
        let body = try #require(poll.answer.withLock { $0 })
        #expect(body.status == 200)
        #expect(!body.body.contains(#""position":\#(poll.position)}"#), "\(body.body)")
        // Answered at the push, not at the end of the 20 s wait (with room for a loaded
        // machine).
        #expect(elapsed < 12, "\(elapsed) s")
    }

    /// The onboarding funnel across accounts goes to the server's service token alone: a
    /// device's token is 403 (it is known, and reads its own account only), another 401;
    /// the JSON is the command line's and the picture an SVG.
    @Test func theFunnelGoesToTheServiceTokenAndToNoDevicesToken() throws {
        let secret = String(repeating: "s3rvice-", count: 5)
        let file = folder.path("service.token")
        try Data((secret + "\n").utf8).write(to: URL(fileURLWithPath: file))
        let admin = try SyncServerProcess(
            hub: postgres.target(database: database, user: "sync_service"),
            arguments: ["--service-token-file", file])
        try PreferenceStore(database: try hub("funnel")).set(true, for: .hasViewedWalkthrough)
        let device = try token("funnel", "phone").token
        func get(_ path: String, _ token: String?, on port: Int? = nil) -> (
            status: Int, body: String
        )? {
            RawHTTP.exchange(
                port: port ?? admin.port,
                "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                    + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "") + "\r\n")
        }
        let json = try #require(get("/v1/admin/onboarding?threshold=1", secret))
        #expect(json.status == 200, "\(json.body)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.body.utf8)) as? [String: Any])
        #expect(object["threshold"] as? Int == 1)
        let groups = try #require(object["groups"] as? [[String: Any]])
        #expect(groups.count == 1)
        #expect((groups.first?["finished"] as? Int ?? 0) >= 1, "\(json.body)")
        #expect(!json.body.contains("funnel"), "no account is named")
        let weeks = try #require(get("/v1/admin/onboarding?by=week", secret))
        #expect(weeks.status == 200 && weeks.body.contains(#""week":"20"#), "\(weeks.body)")
        let picture = try #require(get("/v1/admin/onboarding?format=svg", secret))
        #expect(picture.status == 200)
        #expect(picture.body.contains("<svg") && picture.body.contains("</svg>"))
        // A device's token, another token, none, a query it does not take.
        let asDevice = try #require(get("/v1/admin/onboarding", device))
        #expect(asDevice.status == 403 && asDevice.body.contains("forbidden"), "\(asDevice)")
        let other = try #require(get("/v1/admin/onboarding", secret + "x"))
        #expect(other.status == 401 && other.body.contains("bad_token"))
        #expect(get("/v1/admin/onboarding", nil)?.status == 401)
        #expect(get("/v1/admin/onboarding?by=month", secret)?.status == 400)
        #expect(get("/v1/admin/onboarding?threshold=0", secret)?.status == 400)
        // The suite's server has no service token: it answers 403 to every one.
        let none = try #require(get("/v1/admin/onboarding", secret, on: server.port))
        #expect(none.status == 403 && none.body.contains("service-token-file"))
        // A service token file that is not one stops the server with one line: too short,
        // missing, a FIFO (read without waiting for a writer).
        try Data("short\n".utf8).write(to: URL(fileURLWithPath: folder.path("short.token")))
        let fifo = folder.path("fifo.token")
        #expect(mkfifo(fifo, 0o600) == 0)
        for (path, code) in [
            (folder.path("short.token"), Int32(64)), (folder.path("none.token"), 66),
            (fifo, 66),
        ] {
            let started = ContinuousClock.now
            let run = try runProcess(
                SyncServerProcess.executable,
                [
                    "serve", "--hub", postgres.target(database: database, user: "sync_service"),
                    "--listen", "127.0.0.1:0", "--service-token-file", path,
                ])
            #expect(run.status == code, "\(path): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(run.stderr.contains("service token file"))
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    /// A thousand devices waiting in a long poll hold no thread of the server: they are
    /// parked, the server's threads stay few (where a thread per connection made over a
    /// thousand), a request made meanwhile is answered at once, and one write reaches all of
    /// them.
    @Test func aThousandWaitingDevicesHoldNoThreadAndAllHearOneWrite() throws {
        let waiters = 1_000
        let busy = try SyncServerProcess(
            hub: postgres.target(database: database, user: "sync_service"),
            arguments: ["--connection-limit", "2000", "--max-polls-per-token", "250"])
        let tokens = try (0..<4).map { try token("crowd", "watcher\($0)").token }
        let account = try #require(
            RawHTTP.exchange(
                port: busy.port,
                "GET /v1/account HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(tokens[0])\r\n"
                    + "Connection: close\r\n\r\n"))
        let position = try #require(
            (try JSONSerialization.jsonObject(with: Data(account.body.utf8)) as? [String: Any])?[
                "position"] as? Int)
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        func startPoll(_ index: Int) throws -> Int32 {
            let socket = try #require(RawHTTP.connect(port: busy.port), "connection \(index)")
            #expect(
                RawHTTP.send(
                    socket,
                    Array(
                        ("GET /v1/changes?after=\(position)&wait=25000 HTTP/1.1\r\nHost: x\r\n"
                            + "Authorization: Bearer \(tokens[index % tokens.count])\r\n"
                            + "Connection: close\r\n\r\n").utf8)))
            return socket
        }
        // Devices come one after another; one told 503 (the account holds its share of the
        // hub's connections in that moment) asks again, as a client does.
        for index in 0..<waiters {
            sockets.append(try startPoll(index))
            if index % 50 == 49 { usleep(20_000) }
        }
        for _ in 0..<5 {
            usleep(500_000)
            var sets = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&sets, nfds_t(sets.count), 0) > 0 else { break }
            for (index, set) in sets.enumerated() where set.revents != 0 {
                let early = RawHTTP.readResponse(sockets[index])
                #expect(early?.status == 503, "\(String(describing: early))")
                close(sockets[index])
                sockets[index] = try startPoll(index)
            }
        }
        // Once every poll is parked and the workers that took them idled out, the server
        // has a few threads: the sockets', the listener's, the runtime's. (Counted where
        // /proc tells it.)
        #if os(Linux)
            func threads() -> Int? {
                (try? String(
                    contentsOfFile: "/proc/\(busy.process.pid)/status", encoding: .utf8))?
                    .split(separator: "\n").first { $0.hasPrefix("Threads:") }
                    .flatMap {
                        Int($0.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces))
                    }
            }
            _ = waitUntilSync(upTo: 20) { (threads() ?? .max) < 40 }
            let held = try #require(threads())
            #expect(held < 40, "\(held) threads with \(waiters) devices waiting")
        #endif
        // Still waiting, all of them; and the server answers another request at once.
        var sets = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        #expect(poll(&sets, nfds_t(sets.count), 0) == 0)
        let asked = ContinuousClock.now
        #expect(request("GET", "/healthz", token: nil)?.status == 200)
        let healthz = RawHTTP.exchange(
            port: busy.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(healthz?.status == 200)
        #expect(ContinuousClock.now - asked < .seconds(2))
        // One write: every device hears it.
        let phone = try device("crowd-phone")
        try PreferenceStore(database: phone).set(true, for: .hasViewedWalkthrough)
        let pushed = ContinuousClock.now
        try sync(phone, try token("crowd", "phone").token)
        var answered = [Bool](repeating: false, count: waiters)
        var texts = [String](repeating: "", count: waiters)
        while answered.contains(false), ContinuousClock.now - pushed < .seconds(15) {
            let waiting = sockets.enumerated().filter { !answered[$0.offset] }
            var descriptors = waiting.map {
                pollfd(fd: $0.element, events: Int16(POLLIN), revents: 0)
            }
            guard poll(&descriptors, nfds_t(descriptors.count), 500) > 0 else { continue }
            for (slot, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                let index = waiting[slot].offset
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = buffer.withUnsafeMutableBytes {
                    recv(descriptor.fd, $0.baseAddress, $0.count, 0)
                }
                if count > 0 {
                    texts[index] += String(decoding: buffer[0..<count], as: UTF8.self)
                } else {
                    answered[index] = true
                }
            }
        }
        let heard = ContinuousClock.now - pushed
        #expect(!answered.contains(false), "\(answered.filter { !$0 }.count) never answered")
        let moved = texts.filter {
            $0.hasPrefix("HTTP/1.1 200") && !$0.hasSuffix(#""position":\#(position)}"#)
        }
        let others = Set(texts.filter { !moved.contains($0) }.map { $0.suffix(120) })
        #expect(
            moved.count == waiters,
            "\(moved.count) of \(waiters) heard the write; others: \(others.prefix(3))")
        // Well before the polls' 25 s: the write woke them.
        #expect(heard < .seconds(10), "all answered \(heard) after the push")
    }

    /// SIGTERM with a long poll in flight: the poll is answered at once (with the position
    /// it has) and the server stops well within its 10 s, where it waited out the poll
    /// (24-25 s) and closed it unanswered.
    @Test func aStopAnswersTheLongPollsInFlight() throws {
        let issued = try token("alice", "stopping")
        let poll = try startLongPoll(issued.token, waitMilliseconds: 25_000)
        usleep(500_000)
        let stopping = Date()
        #expect(server.terminate() == 0)
        let took = Date().timeIntervalSince(stopping)
        #expect(took < 5, "\(took) s to stop")
        #expect(poll.done.wait(timeout: .now() + 5) == .success)
        #expect(poll.answer.withLock { $0 }?.status == 200)
    }

    @Test func watchingThroughTheServerHearsAnotherDevicesChange() async throws {
        let watcherToken = try token("alice", "watcher")
        let writerToken = try token("alice", "writer")
        let watcher = try device("watcher")
        let writer = try device("writer")
        try sync(watcher, watcherToken.token)
        try sync(writer, writerToken.token)
        let sync = try DeviceSync(database: watcher, server: server.url, token: watcherToken.token)
        // No idle rounds within the test: only the long poll can start the round.
        let task = Task.detached {
            await sync.watch(interval: .milliseconds(20), idleRounds: 100_000)
        }
        defer { task.cancel() }
        try await Task.sleep(for: .milliseconds(500))
        try PreferenceStore(database: writer).set(42, for: .launchCount)
        let started = ContinuousClock.now
        try self.sync(writer, writerToken.token)
        while PreferenceStore(database: watcher)[.launchCount] != 42,
            ContinuousClock.now - started < .seconds(30)
        {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(PreferenceStore(database: watcher)[.launchCount] == 42)
        // The device's long poll waits 20 s, so a poll that was not woken by the push
        // answers only about 19.5 s after it. A bound well short of that says the push woke
        // it, and leaves room for a machine that runs every suite at once (5.2 s seen).
        #expect(ContinuousClock.now - started < .seconds(12))
    }

    @Test func aNonLoopbackHTTPServerIsRefusedBeforeTheTokenLeaves() throws {
        let phone = try device("phone")
        #expect(throws: SyncError.insecureServer("http://sync.example")) {
            try DeviceSync(
                database: phone, server: URL(string: "http://sync.example")!, token: "prefs_x")
        }
        #expect(throws: SyncError.self) {
            try DeviceSync(
                database: phone, server: URL(string: "https://user:pw@sync.example")!,
                token: "prefs_x")
        }
    }

    // MARK: - Hostile requests

    /// A sync server that answers with a redirect to another origin never gets the token
    /// sent there, by the library's client (URLSession) or the command line's (libcurl):
    /// the round fails with the redirect named, and the other origin sees no request.
    @Test(.enabled(if: NginxProxy.isInstalled, "nginx is not installed"))
    func aRedirectToAnotherOriginNeverCarriesTheToken() throws {
        guard let other = NginxProxy.freePort() else { throw PostgresServerError("no port") }
        let configuration = """
            worker_processes 1;
            error_log /var/lib/prefs/nginx-error.log;
            pid /var/lib/prefs/nginx.pid;
            events {}
            http {
                log_format carried '$request_uri [$http_authorization]';
                access_log off;
                server {
                    listen 127.0.0.1:8443;
                    return 307 http://127.0.0.1:\(other)$request_uri;
                }
                server {
                    listen 127.0.0.1:\(other);
                    access_log /var/lib/prefs/other.log carried;
                    return 200 '{}';
                }
            }
            """
        let nginx = try NginxProxy(configuration: configuration, ports: [:])
        let redirecting = "http://127.0.0.1:\(nginx.port)"
        let issued = try token("alice", "redirected")
        let url = try #require(URL(string: redirecting))
        let refused = #expect(throws: (any Error).self) {
            try DeviceSync(database: try device("redirected"), server: url, token: issued.token)
                .sync()
        }
        #expect(refused.map { "\($0)" }?.contains("307") == true, "\(String(describing: refused))")
        let tokenFile = folder.path("redirected.token")
        try issued.token.write(toFile: tokenFile, atomically: true, encoding: .utf8)
        chmod(tokenFile, 0o600)
        let round = try runPrefs([
            "--db", folder.path("redirected-cli.db"), "sync", "--hub", redirecting,
            "--token-file", tokenFile,
        ])
        #expect(round.status == 64, "\(round.stderr)")
        #expect(round.stderr.contains("redirect (HTTP 307)"), "\(round.stderr)")
        let seen =
            (try? String(contentsOfFile: nginx.folder.path("other.log"), encoding: .utf8))
            ?? ""
        #expect(!seen.contains(issued.token), "\(seen)")
        #expect(seen.isEmpty, "\(seen)")
    }

    /// Headers sent a byte at a time hold a connection no longer than the header deadline,
    /// though each byte resets the idle timeout; a kept-alive connection's next request,
    /// sent within it, is answered.
    @Test func headersSentAByteAtATimeAreCutAtTheHeaderDeadline() throws {
        let strict = try SyncServerProcess(
            hub: postgres.target(database: database, user: "sync_service"),
            arguments: ["--timeout", "30", "--header-timeout", "2"])
        let socket = try #require(RawHTTP.connect(port: strict.port))
        defer { close(socket) }
        let started = ContinuousClock.now
        var closedAfter: Duration?
        RawHTTP.send(socket, Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
        while ContinuousClock.now - started < .seconds(8) {
            guard RawHTTP.send(socket, Array("X".utf8)) else {
                closedAfter = ContinuousClock.now - started
                break
            }
            var waiting = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if poll(&waiting, 1, 500) > 0 {
                var byte: UInt8 = 0
                if recv(socket, &byte, 1, 0) <= 0 {
                    closedAfter = ContinuousClock.now - started
                    break
                }
            }
        }
        let cut = try #require(closedAfter, "the trickled headers held the connection for 8 s")
        #expect(cut >= .milliseconds(1500) && cut < .seconds(5), "cut after \(cut)")
        // A kept-alive connection: a second request a second after the first is answered.
        let kept = try #require(RawHTTP.connect(port: strict.port))
        defer { close(kept) }
        let healthz = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        for _ in 0..<2 {
            #expect(RawHTTP.send(kept, healthz))
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(kept, $0.baseAddress, $0.count, 0) }
            #expect(
                count > 0
                    && String(decoding: buffer[0..<max(count, 0)], as: UTF8.self)
                        .hasPrefix("HTTP/1.1 200")
            )
            sleep(1)
        }
    }

    /// A new device of an account larger than one pull gets it page after page, each page
    /// within the server's limits (whole pushes: a push of 12 changes is one page of its
    /// own), and ends in step: the account is never sent in one answer.
    @Test func anAccountLargerThanAPullIsPulledPageByPage() throws {
        let paging = try SyncServerProcess(
            hub: postgres.target(database: database, user: "sync_service"),
            arguments: ["--max-pull-changes", "5", "--max-pull-bytes", "4096"])
        let issued = try token("paged", "laptop")
        let app = PreferenceStore(database: try hub("paged"))
        let laptop = try device("paged-laptop")
        try DeviceSync(database: laptop, server: paging.url, token: issued.token).sync()
        for index in 0..<23 { try app.setValue(.int(index), forKey: "one\(index)") }
        try PreferenceStore(database: laptop).transaction { store in
            for index in 0..<12 { try store.setValue(.int(index), forKey: "push\(index)") }
        }
        try DeviceSync(database: laptop, server: paging.url, token: issued.token).sync()
        for index in 0..<3 {
            try app.setValue(.string(String(repeating: "x", count: 3000)), forKey: "big\(index)")
        }
        let phone = try device("paged-phone")
        let report = try DeviceSync(database: phone, server: paging.url, token: issued.token)
            .sync()
        let store = PreferenceStore(database: phone)
        #expect(try (0..<23).allSatisfy { try store.value(forKey: "one\($0)") == .int($0) })
        #expect(try (0..<12).allSatisfy { try store.value(forKey: "push\($0)") == .int($0) })
        #expect(try (0..<3).allSatisfy { try store.value(forKey: "big\($0)") != nil })
        #expect(report.pulled >= 38, "\(report)")
        // 23 single changes by 5, the push alone, 3 values of 3,000 bytes by one or two.
        let pulls = paging.log.split(separator: "\n").filter { $0.contains("POST /v1/pull 200") }
        #expect(pulls.count >= 7, "\(pulls.count) pulls")
        #expect(try DeviceSync.status(of: phone)?.pending == 0)
        #expect(
            try DeviceSync(database: phone, server: paging.url, token: issued.token).sync()
                .pulled == 0)
    }

    /// On Linux, URLSession follows `http_proxy` and `ALL_PROXY`, and a proxy would read a
    /// plain-HTTP token in clear: the library client refuses before a byte is sent, unless
    /// `no_proxy` names the host; the server never sees the round.
    @Test func aProxyInTheEnvironmentNeverGetsTheLibrarysPlainHTTPToken() throws {
        #if canImport(FoundationNetworking)
            let issued = try token("proxied", "phone")
            let phone = try device("proxied-phone")
            let before = server.log
            for variable in ["http_proxy", "ALL_PROXY"] {
                var options = SyncServerOptions()
                options.environment = [variable: "http://127.0.0.1:9"]
                let refused = #expect(throws: DatabaseError.self) {
                    try DeviceSync(
                        database: phone, server: server.url, token: issued.token, options: options
                    ).sync()
                }
                #expect(
                    refused?.description.contains("no_proxy") == true,
                    "\(String(describing: refused))")
            }
            #expect(server.log == before)
            var exempt = SyncServerOptions()
            exempt.environment = [
                "http_proxy": "http://127.0.0.1:9", "no_proxy": "localhost,127.0.0.1",
            ]
            try DeviceSync(
                database: phone, server: server.url, token: issued.token, options: exempt
            )
            .sync()
        #endif
    }

    /// A device name of 10,000 characters, or with control characters, is a 400 with its
    /// code, not a 500 from the hub's check; a good one is taken.
    @Test func aDeviceNameTooLongOrWithControlCharactersIs400() throws {
        let issued = try token("named", "phone")
        for name in [String(repeating: "n", count: 10_000), "a\u{1b}[2Jb", "line\nbreak", ""] {
            let body = String(
                decoding: try JSONEncoder().encode(["device": "phone01", "name": name]),
                as: UTF8.self)
            let answer = request("POST", "/v1/name", token: issued.token, body: body)
            #expect(isError(answer, 400, "bad_name"), "\(String(describing: answer))")
        }
        let good = request(
            "POST", "/v1/name", token: issued.token,
            body: #"{"device": "phone01", "name": "Zoë's phone"}"#)
        #expect(good?.status == 200, "\(String(describing: good))")
        #expect(!server.log.contains(" 500 "))
    }

    /// A request that tells its body's length twice (two Content-Length headers that
    /// differ, or one beside Transfer-Encoding) is a 400 in JSON and the connection is
    /// closed: nothing after it is read as a second request (RFC 9112, 6.3).
    @Test func aLengthToldTwiceIsRefusedAndNothingAfterItRuns() throws {
        let issued = try token("framed", "phone")
        for lengths in [
            "Content-Length: 5\r\nContent-Length: 60\r\n",
            "Content-Length: 60\r\nTransfer-Encoding: chunked\r\n",
        ] {
            let smuggled =
                "GET /v1/account HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(issued.token)\r\n\r\n"
            let request =
                "POST /v1/name HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(issued.token)\r\n\(lengths)\r\n{\"a\":1}" + smuggled
            let socket = try #require(RawHTTP.connect(port: server.port))
            defer { close(socket) }
            #expect(RawHTTP.send(socket, Array(request.utf8)))
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes {
                    recv(socket, $0.baseAddress, $0.count, 0)
                }
                if count <= 0 { break }
                received += buffer[0..<count]
            }
            let text = String(decoding: received, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 400"), "\(lengths): \(text)")
            #expect(text.contains(#""error":"malformed""#), "\(text)")
            #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2, "\(text)")
        }
        #expect(try stillServes())
    }

    /// A server whose hub string names an account's role (not a member of prefs_service)
    /// reaches the hub but could act for no token's account: it does not start (77, one line
    /// naming prefs_service), where it used to say ready and fail every call; `/readyz`
    /// checks the same of a running server.
    @Test func aServerWhoseRoleCannotActForAccountsIsNotReady() throws {
        try postgres.makeLoginRoles([("plain_account", "prefs_account")])
        let wrong = try runProcess(
            SyncServerProcess.executable,
            [
                "--hub", postgres.target(database: database, user: "plain_account"),
                "--listen", "127.0.0.1:0",
            ])
        #expect(wrong.status == 77, "\(wrong.stderr)")
        #expect(wrong.stderr.contains("prefs_service"), "\(wrong.stderr)")
        #expect(wrong.stderr.split(separator: "\n").count == 1, "\(wrong.stderr)")
        let ready = RawHTTP.exchange(
            port: server.port,
            "GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(ready?.status == 200)
    }

    @Test func noToken() throws {
        #expect(isError(request("GET", "/v1/account", token: nil), 401, "no_token"))
        #expect(try stillServes())
    }

    @Test func aWrongToken() throws {
        #expect(
            isError(
                request("GET", "/v1/account", token: "prefs_" + String(repeating: "A", count: 43)),
                401, "bad_token"))
        #expect(isError(request("GET", "/v1/account", token: "not a token"), 401, "bad_token"))
        #expect(try stillServes())
    }

    @Test func aRevokedToken() throws {
        let issued = try token("alice", "lost phone")
        #expect(request("GET", "/v1/account", token: issued.token)?.status == 200)
        try DeviceTokens.revoke(id: issued.record.id, on: hub("alice"))
        #expect(isError(request("GET", "/v1/account", token: issued.token), 401, "bad_token"))
        #expect(try stillServes())
    }

    @Test func anotherAccountsToken() throws {
        let bob = try token("bob", "bob's phone")
        let answer = try #require(request("GET", "/v1/account", token: bob.token))
        #expect(answer.body.contains(#""account":"bob""#))
        #expect(!answer.body.contains("alice"))
    }

    @Test func aReplayedPushIsAnsweredAgainAndAppliedOnce() throws {
        let issued = try token("alice", "phone")
        let push = themePush()
        let first = try #require(
            request(
                "POST", "/v1/push", token: issued.token, body: push,
                headers: ["Idempotency-Key": "k-1"]))
        #expect(first.status == 200)
        #expect(first.body.contains(#""accepted":1"#))
        let again = try #require(
            request(
                "POST", "/v1/push", token: issued.token, body: push,
                headers: ["Idempotency-Key": "k-1"]))
        #expect(again.body == first.body)
        // The hub numbered one push: the second ran nothing.
        let pulled = try #require(
            request("POST", "/v1/pull", token: issued.token, body: #"{"device":"d2","after":0}"#))
        #expect(pulled.body.components(separatedBy: #""sequence""#).count == 2)
        // Without the key, the same changes again take none (the hub's own rule).
        let plain = try #require(request("POST", "/v1/push", token: issued.token, body: push))
        #expect(plain.body.contains(#""accepted":0"#))
    }

    /// A kept idempotency key is bound to the push that claimed it: another device of the
    /// account (or the same device with other changes) sending it is refused (422), not
    /// answered with the first push's receipt while its own change is dropped; a receipt
    /// older than a day is no receipt.
    @Test func anIdempotencyKeyIsBoundToItsDeviceAndChangesForADay() throws {
        let issued = try token("alice", "keys")
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        func push(_ device: String, _ value: String, counter: Int64) -> String {
            let clock = HybridClock(milliseconds: now, counter: counter, device: device).text
            return """
                {"device":"\(device)","cursor":0,"changes":[{"entity":"preference",\
                "ident":"\(theme)","field":"value","clock":"\(clock)","present":true,\
                "type":"string","value":"\(value)"}]}
                """
        }
        let key = ["Idempotency-Key": "shared-key"]
        let first = try #require(
            request(
                "POST", "/v1/push", token: issued.token, body: push("e1", "dark", counter: 1),
                headers: key))
        #expect(first.status == 200)
        let otherDevice = request(
            "POST", "/v1/push", token: issued.token, body: push("e2", "light", counter: 2),
            headers: key)
        #expect(
            isError(otherDevice, 422, "idempotency_key_reused"),
            "\(String(describing: otherDevice))")
        let otherChanges = request(
            "POST", "/v1/push", token: issued.token, body: push("e1", "light", counter: 3),
            headers: key)
        #expect(isError(otherChanges, 422, "idempotency_key_reused"))
        let same = try #require(
            request(
                "POST", "/v1/push", token: issued.token, body: push("e1", "dark", counter: 1),
                headers: key))
        #expect(same.body == first.body)
        // A day and more later, the key is free: the push runs (its change is the hub's
        // already, so it takes none).
        let aged = try postgres.psql(
            "UPDATE prefs_push_receipt SET made_at = made_at - interval '2 days'",
            database: database)
        #expect(aged.status == 0, "\(aged.stderr)")
        let later = try #require(
            request(
                "POST", "/v1/push", token: issued.token, body: push("e2", "light", counter: 2),
                headers: key))
        #expect(later.status == 200)
        #expect(later.body.contains(#""accepted":1"#), "\(later.body)")
    }

    @Test func aForgedFarFutureClock() throws {
        let issued = try token("alice", "phone")
        let future = HybridClock(
            milliseconds: Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000 * 365,
            counter: 0, device: "d1"
        ).text
        let push = """
            {"device":"d1","cursor":0,"changes":[{"entity":"preference","ident":"\(theme)",\
            "field":"value","clock":"\(future)","present":true,"type":"string","value":"mine"}]}
            """
        let answer = try #require(request("POST", "/v1/push", token: issued.token, body: push))
        #expect(answer.status == 200)
        #expect(answer.body.contains(#""accepted":0"#))
        #expect(answer.body.contains(future))
        #expect(PreferenceStore(database: try hub("alice")).string(forKey: "theme") == nil)
    }

    @Test func aMalformedBody() throws {
        let issued = try token("alice", "phone")
        #expect(
            isError(
                request("POST", "/v1/push", token: issued.token, body: "{not json"), 400,
                "malformed"))
        #expect(
            isError(
                request("POST", "/v1/pull", token: issued.token, body: #"{"after":"x"}"#), 400,
                "malformed"))
        let badValue = """
            {"device":"d1","cursor":0,"changes":[{"entity":"preference","ident":"standard.n",\
            "field":"value","clock":"x","present":true,"type":"int","value":"twelve"}]}
            """
        #expect(
            isError(
                request("POST", "/v1/push", token: issued.token, body: badValue), 400, "malformed"))
        #expect(try stillServes())
    }

    @Test func aTwoGigabyteBody() throws {
        let issued = try token("alice", "phone")
        // Announced, not sent: refused before a byte of it is read.
        let socket = try #require(RawHTTP.connect(port: server.port))
        defer { close(socket) }
        RawHTTP.send(
            socket,
            Array(
                """
                POST /v1/push HTTP/1.1\r
                Host: 127.0.0.1\r
                Authorization: Bearer \(issued.token)\r
                Content-Type: application/json\r
                Content-Length: 2147483648\r
                \r
                {"device":
                """.utf8))
        #expect(isError(RawHTTP.readResponse(socket), 413, "body_too_large"))
        // Sent without a length (chunked) past the limit: not kept, refused at its end.
        let chunk = String(repeating: "x", count: 64 << 10)
        var chunked = "POST /v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        chunked += "Authorization: Bearer \(issued.token)\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<20 { chunked += String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n" }
        chunked += "0\r\n\r\n"
        #expect(isError(RawHTTP.exchange(port: server.port, chunked), 413, "body_too_large"))
        #expect(try stillServes())
    }

    /// The bytes in gzip, by the gzip program.
    private func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let input = folder.path("body-\(UUID().uuidString)")
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let output = try runProcess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "gzip -c < '\(input)' | base64 -w0"])
        return Array(Data(base64Encoded: output.stdout) ?? Data())
    }

    /// A request with a body of bytes (which no String carries).
    private func request(
        _ method: String, _ path: String, token: String, bytes: [UInt8], headers: [String: String]
    ) -> (status: Int, body: String)? {
        guard let socket = RawHTTP.connect(port: server.port) else { return nil }
        defer { close(socket) }
        var text = "\(method) \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        text += "Authorization: Bearer \(token)\r\nContent-Length: \(bytes.count)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        RawHTTP.send(socket, Array((text + "\r\n").utf8) + bytes)
        return RawHTTP.readResponse(socket)
    }

    @Test func aCompressedPushIsTaken() throws {
        let issued = try token("alice", "phone")
        let push = themePush()
        let answer = request(
            "POST", "/v1/push", token: issued.token, bytes: try gzip(Array(push.utf8)),
            headers: ["Content-Encoding": "gzip", "Content-Type": "application/json"])
        #expect(answer?.status == 200)
        #expect(answer?.body.contains(#""accepted":1"#) == true)
        #expect(PreferenceStore(database: try hub("alice")).string(forKey: "theme") == "dark")
    }

    @Test func aGzipBomb() throws {
        // 64 MiB of zeros in about 64 KB: inflated only up to the 1 MiB limit, then refused.
        let issued = try token("alice", "phone")
        let bomb = try gzip([UInt8](repeating: 0, count: 64 << 20))
        #expect(bomb.count < 1 << 20)
        #expect(
            isError(
                request(
                    "POST", "/v1/push", token: issued.token, bytes: bomb,
                    headers: ["Content-Encoding": "gzip"]), 413, "body_too_large"))
        #expect(try stillServes())
    }

    @Test func aBodyThatIsNotTheGzipItSaysOrAnotherEncoding() throws {
        let issued = try token("alice", "phone")
        let body = Array(#"{"device":"d1","after":0}"#.utf8)
        #expect(
            isError(
                request(
                    "POST", "/v1/pull", token: issued.token, bytes: body,
                    headers: ["Content-Encoding": "gzip"]),
                400, "bad_encoding"))
        let cut = try gzip(body).dropLast(4)
        #expect(
            isError(
                request(
                    "POST", "/v1/pull", token: issued.token, bytes: Array(cut),
                    headers: ["Content-Encoding": "gzip"]),
                400, "bad_encoding"))
        #expect(
            isError(
                request(
                    "POST", "/v1/pull", token: issued.token, bytes: body,
                    headers: ["Content-Encoding": "br"]),
                415, "unsupported_encoding"))
        #expect(try stillServes())
    }

    @Test func deepJSON() throws {
        let issued = try token("alice", "phone")
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(
            isError(request("POST", "/v1/push", token: issued.token, body: deep), 400, "malformed"))
        let deepObject =
            String(repeating: #"{"a":"#, count: 50_000) + "1"
            + String(repeating: "}", count: 50_000)
        #expect(
            isError(
                request("POST", "/v1/pull", token: issued.token, body: deepObject), 400, "malformed"
            ))
        #expect(try stillServes())
    }

    @Test func aPathWithDotDotOrNUL() throws {
        let issued = try token("alice", "phone")
        #expect(isError(request("GET", "/v1/../v1/account", token: issued.token), 400, "bad_path"))
        #expect(isError(request("GET", "/v1/./account", token: issued.token), 400, "bad_path"))
        #expect(isError(request("GET", "/v1/account%00", token: issued.token), 400, "bad_path"))
        #expect(isError(request("GET", "/v1/%2e%2e/account", token: issued.token), 400, "bad_path"))
        #expect(isError(request("GET", "/etc/passwd", token: issued.token), 404, "not_found"))
        #expect(try stillServes())
    }

    @Test func aHeaderOver64KB() throws {
        let issued = try token("alice", "phone")
        let long = String(repeating: "a", count: 70_000)
        #expect(
            isError(
                request("GET", "/v1/account", token: issued.token, headers: ["X-Padding": long]),
                431,
                "header_too_large"))
        #expect(try stillServes())
    }

    @Test func aSlowClientThatSendsOneByteASecond() throws {
        // Slow clients each hold a connection until the server's timeout (3 s here) closes
        // it; others are served meanwhile.
        let slow = (0..<20).compactMap { _ in RawHTTP.connect(port: server.port) }
        defer {
            for socket in slow { close(socket) }
        }
        #expect(slow.count == 20)
        let started = Date()
        for second in 0..<2 {
            for socket in slow { RawHTTP.send(socket, [Array("GET /v1/acc".utf8)[second]]) }
            #expect(try stillServes())
            sleep(1)
        }
        // The server closed them: reading gets the end, not a wait of 20 s.
        var closed = 0
        for socket in slow {
            var byte: UInt8 = 0
            while recv(socket, &byte, 1, 0) > 0 {}
            closed += 1
        }
        #expect(closed == 20)
        #expect(Date().timeIntervalSince(started) < 15)
    }

    @Test func anUnknownCallOrMethod() throws {
        let issued = try token("alice", "phone")
        #expect(
            isError(
                request("DELETE", "/v1/account", token: issued.token), 405, "method_not_allowed"))
        #expect(isError(request("GET", "/v2/account", token: issued.token), 404, "not_found"))
    }

    @Test func healthAndReadinessForALoadBalancer() throws {
        #expect(request("GET", "/healthz", token: nil)?.status == 200)
        #expect(request("GET", "/readyz", token: nil)?.status == 200)
    }

    @Test func theLogHasOneLinePerRequestAndNoToken() throws {
        let issued = try token("alice", "phone")
        #expect(request("GET", "/v1/account", token: issued.token)?.status == 200)
        #expect(request("GET", "/v1/account", token: "prefs_wrong")?.status == 401)
        let lines = server.log.split(separator: "\n").filter { $0.contains(" /v1/account ") }
        #expect(lines.count == 2)
        #expect(lines.first?.contains("account=alice") == true)
        #expect(!server.log.contains(issued.token))
        #expect(!server.log.contains("prefs_wrong"))
    }

    @Test func sigtermLetsTheRequestInFlightFinish() throws {
        let issued = try token("alice", "phone")
        // A long poll in flight: it is answered, then the server stops.
        let socket = try #require(RawHTTP.connect(port: server.port))
        defer { close(socket) }
        RawHTTP.send(
            socket,
            Array(
                ("GET /v1/changes?after=999999&wait=1500 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer \(issued.token)\r\nConnection: close\r\n\r\n").utf8))
        usleep(300_000)
        let stopped = server.terminate()
        #expect(RawHTTP.readResponse(socket)?.status == 200)
        #expect(stopped == 0)
        #expect(RawHTTP.connect(port: server.port) == nil)
    }
}
