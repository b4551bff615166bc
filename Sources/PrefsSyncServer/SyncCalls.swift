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

/// How many long polls each token has waiting.
final class WaitingPolls: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// Counts one more for the token, unless it has `limit` already: false then.
    func enter(_ token: String, limit: Int) -> Bool {
        counts.withLock { counts in
            guard counts[token, default: 0] < limit else { return false }
            counts[token, default: 0] += 1
            return true
        }
    }

    /// How many the token has now.
    func count(_ token: String) -> Int { counts.withLock { $0[token, default: 0] } }

    func leave(_ token: String) {
        counts.withLock { counts in
            counts[token, default: 1] -= 1
            if counts[token] == 0 { counts[token] = nil }
        }
    }
}

/// Set once, when the server stops.
final class StopSignal: Sendable {
    private let stopped = Atomic(false)

    func stop() { stopped.store(true, ordering: .sequentiallyConsistent) }

    var isStopped: Bool { stopped.load(ordering: .sequentiallyConsistent) }
}

/// The calls of the protocol, one handler each: read the request, call the hub for the
/// token's account, answer.
struct SyncCalls: Sendable {
    let configuration: SyncServer.Configuration
    let pool: SyncHubPool
    let listener: ChangeListener
    let stopping: StopSignal
    /// Where a parked long poll looks again when it is woken.
    let workers: RequestWorkers
    let waiting = WaitingPolls()
    /// The positions parked polls read, one read per account at a time.
    let positions: PositionReads

    /// The route table: every call of docs/sync-protocol.md.
    var routes: [Route] {
        [
            .open("GET", "/healthz") { _ in Self.body(#"{"status":"ok"}"#) },
            .open("GET", "/readyz") { _ in try ready() },
            .withToken("GET", "/v1/account") { _, token in
                try forAccount(token) { hub in
                    SyncWire.AccountResponse(
                        account: hub.account, position: try hub.position(),
                        clockBound: try hub.clockBound())
                }
            },
            .withToken("GET", "/v1/devices") { _, token in
                try forAccount(token) { hub in
                    SyncWire.DevicesResponse(names: try hub.deviceNames())
                }
            },
            .withToken("GET", "/v1/changes") { request, token in
                try changes(request, token: token)
            },
            .withToken("POST", "/v1/push") { request, token in try push(request, token: token) },
            .withToken("POST", "/v1/round") { request, token in
                try round(request, token: token)
            },
            .withToken("GET", "/v1/admin/onboarding") { request, token in
                try onboarding(request, token: token)
            },
            .withToken("POST", "/v1/pull") { request, token in
                let pull = try Self.decode(SyncWire.PullRequest.self, request)
                try Self.checkDevice(pull.device)
                return try forAccount(token) { hub in
                    let round = try hub.pullRound(
                        after: pull.after, device: pull.device, leavingOut: pull.leavingOut,
                        deviceClock: pull.deviceClock,
                        limit: pull.limit(within: configuration.pullLimit))
                    return SyncWire.PullResponse(round, clockBound: try hub.clockBound())
                }
            },
            .withToken("POST", "/v1/report") { request, token in
                let report = try Self.decode(SyncWire.ReportRequest.self, request)
                try Self.checkDevice(report.device)
                return try forAccount(token) { hub in
                    try hub.report(device: report.device, cursor: report.cursor)
                    return SyncWire.Done()
                }
            },
            .withToken("POST", "/v1/forget") { request, token in
                let forget = try Self.decode(SyncWire.ForgetRequest.self, request)
                try Self.checkDevice(forget.device)
                return try forAccount(token) { hub in
                    try hub.forget(device: forget.device)
                    return SyncWire.Done()
                }
            },
            .withToken("POST", "/v1/name") { request, token in
                let name = try Self.decode(SyncWire.NameRequest.self, request)
                try Self.checkDevice(name.device)
                if let given = name.name, !DeviceSync.isAcceptable(deviceName: given) {
                    throw HTTPError(
                        400, .badName,
                        "a device name is 1 to 64 code points without control characters")
                }
                return try forAccount(token) { hub in
                    try hub.setName(name.name, device: name.device)
                    return SyncWire.Done()
                }
            },
        ]
    }

    /// `/readyz`: whether the hub answers.
    private func ready() throws -> HTTPResponse {
        do {
            try pool.ping()
        } catch {
            throw HTTPError(
                503, .notReady, "the hub cannot be reached", retryAfter: 1,
                cause: HTTPError(error).cause)
        }
        return Self.body(#"{"status":"ready"}"#)
    }

    /// `POST /v1/push`: the changes, at most ``SyncServer/Configuration/maxChanges``; under
    /// an `Idempotency-Key`, the answer is kept and the same push gets it again.
    private func push(_ request: HTTPRequest, token: BearerToken) throws -> HTTPResponse {
        let push = try Self.decode(SyncWire.PushRequest.self, request)
        let changes = try checkedChanges(push.changes)
        try Self.checkDevice(push.device)
        guard let key = try Self.idempotencyKey(request) else {
            return try forAccount(token) { hub in
                SyncWire.PushResponse(
                    try hub.push(changes, device: push.device, cursor: push.cursor))
            }
        }
        return try respond(token) { hub in
            let text = try Self.push(
                changes, device: push.device, cursor: push.cursor, key: key, on: hub)
            return HTTPResponse(status: 200, body: Array(text.utf8))
        }
    }

    /// `POST /v1/round`: a device's round in one request, on one connection of the pool:
    /// the cursor reported, the changes pushed (under the request's `Idempotency-Key`, like
    /// a push), the pull's first page after the cursor with the push left out, and the
    /// devices' names. Each step is the hub's own call, in its own transaction, as when the
    /// device sends them one by one: a round cut short anywhere is a round the device
    /// repeats.
    private func round(_ request: HTTPRequest, token: BearerToken) throws -> HTTPResponse {
        let round = try Self.decode(SyncWire.RoundRequest.self, request)
        let changes = try checkedChanges(round.changes)
        try Self.checkDevice(round.device)
        let key = try Self.idempotencyKey(request)
        let limit = round.limit(within: configuration.pullLimit)
        return try respond(token) { hub in
            try hub.report(device: round.device, cursor: round.cursor)
            var pushed: (text: String, sequence: Int64?)?
            if !changes.isEmpty {
                if let key {
                    // A push sent again under its key is answered as it was, byte for
                    // byte; its number is read back from that answer.
                    let text = try Self.push(
                        changes, device: round.device, cursor: round.cursor, key: key,
                        on: hub)
                    let kept = try? JSONDecoder().decode(
                        SyncWire.PushResponse.self, from: Data(text.utf8))
                    pushed = (text, kept?.sequence)
                } else {
                    let outcome = try hub.push(
                        changes, device: round.device, cursor: round.cursor)
                    pushed = (
                        String(
                            decoding: SyncWire.json(SyncWire.PushResponse(outcome)),
                            as: UTF8.self),
                        outcome.sequence
                    )
                }
            }
            let pull = try hub.pullRound(
                after: round.cursor, device: round.device, leavingOut: pushed?.sequence,
                deviceClock: round.deviceClock, limit: limit)
            let names = try hub.deviceNames()
            // The answer's keys in order, the push's answer as the hub kept it.
            var body = Array(#"{"names":"#.utf8)
            body += SyncWire.json(names)
            body += Array(#","pull":"#.utf8)
            body += SyncWire.json(SyncWire.PullResponse(pull, clockBound: try hub.clockBound()))
            body += Array(#","push":"#.utf8)
            body += Array((pushed?.text ?? "null").utf8)
            body += Array("}".utf8)
            return HTTPResponse(status: 200, body: body)
        }
    }

    /// A push's changes, each read as its type, at most
    /// ``SyncServer/Configuration/maxChanges``.
    private func checkedChanges(_ changes: [SyncWire.Change]) throws -> [SyncChange] {
        guard changes.count <= configuration.maxChanges else {
            throw HTTPError(
                413, .tooManyChanges, "a push carries at most \(configuration.maxChanges) changes")
        }
        return try changes.map { change in
            guard let read = change.change else {
                throw HTTPError(400, .malformed, "a change's value does not read as its type")
            }
            return read
        }
    }

    /// The request's `Idempotency-Key`, 1 to 128 visible characters; nil when it has none.
    private static func idempotencyKey(_ request: HTTPRequest) throws -> String? {
        guard let key = request.header("Idempotency-Key") else { return nil }
        guard (1...128).contains(key.utf8.count),
            key.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw HTTPError(
                400, .badIdempotencyKey, "an idempotency key is 1 to 128 visible characters")
        }
        return key
    }

    /// A push under an idempotency key: the answer's text, kept by the hub with the push.
    private static func push(
        _ changes: [SyncChange], device: String, cursor: Int64, key: String,
        on hub: any SyncServerHub
    ) throws -> String {
        do {
            return try hub.push(changes, device: device, cursor: cursor, idempotencyKey: key) {
                outcome in
                String(decoding: SyncWire.json(SyncWire.PushResponse(outcome)), as: UTF8.self)
            }
        } catch is IdempotencyKeyReused {
            throw HTTPError(
                422, .idempotencyKeyReused,
                "this idempotency key was used for another push (another device, or other"
                    + " changes): send a new key")
        }
    }

    /// `GET /v1/changes?after=N&wait=MS`: answers once the account's position passed
    /// `after`, or when the wait ran out, with the position. While it waits it holds no
    /// connection of the pool and no thread: it is parked, and the listener wakes it when
    /// the account's channel is notified (every push and every write of the account
    /// notifies it).
    private func changes(_ request: HTTPRequest, token: BearerToken) throws -> HTTPResponse {
        guard let after = request.query("after").flatMap({ Int64($0) }) else {
            throw HTTPError(400, .malformed, "after= must be a number")
        }
        let wait = min(
            max(0, request.query("wait").flatMap { Int($0) } ?? 0),
            configuration.longPollMilliseconds)
        let deadline = DispatchTime.now() + .milliseconds(wait)
        // Each waiting poll holds a connection of the server: one token may not take them
        // all.
        guard waiting.enter(token.value, limit: configuration.maxLongPollsPerToken) else {
            throw HTTPError(
                429, .tooManyPolls,
                "this device token has \(configuration.maxLongPollsPerToken) long polls waiting"
                    + " already", retryAfter: 1)
        }
        // The token's count goes down once, when the poll is answered, however it is.
        let left = Atomic(false)
        let waiting = waiting
        @Sendable func leave() {
            if !left.exchange(true, ordering: .sequentiallyConsistent) {
                waiting.leave(token.value)
            }
        }
        let found = Mutex<(account: String?, channel: String)>((nil, ""))
        @Sendable func position() throws -> Int64 {
            try forAccountRaw(token) { hub in
                found.withLock { $0 = (hub.account, hub.channel) }
                return try hub.position()
            }
        }
        let pool = pool
        /// The account's position, read for the account the token opened at the poll's
        /// first read: any poll's read serves them all, and a token revoked since then
        /// answers no other device's poll 401.
        @Sendable func accountPosition() throws -> Int64 {
            guard let account = found.withLock({ $0.account }) else { return try position() }
            do {
                return try pool.withAccount(token: "", verifiedAccount: account) { hub in
                    try hub.position()
                }
            } catch SyncHubPool.Refusal.busy {
                throw HTTPError(
                    503, .busy, "every connection to the hub is in use", retryAfter: 1)
            }
        }
        @Sendable func answer(_ position: Int64) -> HTTPResponse {
            var response = Self.ok(SyncWire.ChangesResponse(position: position))
            response.account = found.withLock { $0.account }
            return response
        }
        @Sendable func failure(_ error: any Error) -> HTTPResponse {
            var failure = HTTPError(error)
            failure.account = failure.account ?? found.withLock { $0.account }
            return failure.response
        }
        let listener = listener
        let stopping = stopping
        let positions = positions
        let workers = workers
        /// After the first read: the answer now, or a parked one.
        @Sendable func waitOn(from now: Int64) -> HTTPResponse {
            let channel = found.withLock { $0.channel }
            guard now <= after, wait > 0, !channel.isEmpty, !stopping.isStopped else {
                leave()
                return answer(now)
            }
            let box = Mutex<ChangeListener.Waiter?>(nil)
            let poll = ParkedPoll(
                deadline: deadline, workers: workers,
                look: { timeIsUp, then in
                    // The account's polls share one read.
                    positions.read(channel, with: { try accountPosition() }) { result in
                        switch result {
                        case .success(let now):
                            then(now > after || timeIsUp || stopping.isStopped ? answer(now) : nil)
                        case .failure(let error):
                            then(failure(error))
                        }
                    }
                },
                finished: {
                    if let waiter = box.withLock({ $0 }) { listener.unregister(waiter) }
                    leave()
                })
            box.withLock { $0 = listener.register(channel: channel) { poll.wake() } }
            // Read again once the channel is listened to: a push between the first read and
            // the LISTEN is not missed.
            poll.start()
            var response = HTTPResponse.later(poll.answer)
            response.account = found.withLock { $0.account }
            return response
        }
        do {
            return waitOn(from: try position())
        } catch let error as HTTPError where error.status == 503 && error.code == .busy {
            // The account holds its share of the hub's connections this moment (its devices
            // came back at once): the poll waits for a turn instead of being sent away, a
            // few tens of milliseconds at a time, within its own wait.
            guard wait > 0 else {
                leave()
                throw error
            }
            let later = ParkedAnswer()
            @Sendable func retry() {
                let pause = DispatchTimeInterval.milliseconds(Int.random(in: 20...80))
                DispatchQueue.global().asyncAfter(deadline: .now() + pause) {
                    workers.submit {
                        do {
                            let response = waitOn(from: try position())
                            guard let parked = response.parked else {
                                return later.answer(response)
                            }
                            parked.whenAnswered { later.answer($0) }
                        } catch let error as HTTPError
                            where error.status == 503 && error.code == .busy
                            && DispatchTime.now() + .milliseconds(100) < deadline
                        {
                            retry()
                        } catch {
                            leave()
                            later.answer(failure(error))
                        }
                    }
                }
            }
            retry()
            return .later(later)
        } catch {
            leave()
            throw error
        }
    }

    /// `GET /v1/admin/onboarding[?by=week][&format=svg][&threshold=N]`: the onboarding
    /// funnel across the accounts, as `prefs onboarding report` gives it (JSON, or the SVG
    /// picture), to the service token only: an account's token is 403, another 401.
    private func onboarding(_ request: HTTPRequest, token: BearerToken) throws -> HTTPResponse {
        guard let expected = configuration.serviceToken else {
            throw HTTPError(
                403, .forbidden,
                "this server has no service token (prefs-server serve --service-token-file)")
        }
        guard Self.sameSecret(token.value, expected) else {
            // An account's token is known, and still may not read across accounts.
            if try authenticate(token) != nil {
                throw HTTPError(
                    403, .forbidden,
                    "a device token reads its own account; this takes the"
                        + " server's service token")
            }
            throw HTTPError(401, .badToken, "the token is not this server's service token")
        }
        let byWeek: Bool
        switch request.query("by") {
        case nil: byWeek = false
        case "week": byWeek = true
        default: throw HTTPError(400, .malformed, "by= takes week")
        }
        let svg: Bool
        switch request.query("format") {
        case nil, "json": svg = false
        case "svg": svg = true
        default: throw HTTPError(400, .malformed, "format= takes json or svg")
        }
        let threshold =
            try request.query("threshold").map { text -> Int in
                guard let value = Int(text), (1...1_000_000).contains(value) else {
                    throw HTTPError(400, .malformed, "threshold= takes a number from 1 to 1000000")
                }
                return value
            } ?? 5
        let report = try OnboardingReport.read(
            target: configuration.hub, byWeek: byWeek, threshold: threshold)
        if svg {
            var response = HTTPResponse(status: 200, body: Array(report.svg().utf8))
            response.contentType = "image/svg+xml"
            return response
        }
        return HTTPResponse(status: 200, body: Array(report.json.serialized().utf8))
    }

    /// Whether two secrets are the same, in a time that does not depend on where they
    /// differ.
    private static func sameSecret(_ given: String, _ expected: String) -> Bool {
        let given = Array(given.utf8)
        let expected = Array(expected.utf8)
        var difference = given.count ^ expected.count
        for index in expected.indices {
            difference |= Int(expected[index] ^ (index < given.count ? given[index] : 0))
        }
        return difference == 0
    }

    /// Whether the hub knows the token: asked before a body is read, so that a device
    /// without a valid token cannot make the server take in its bodies.
    func authenticate(_ token: BearerToken) throws -> String? {
        let account: String?
        do {
            account = try pool.account(forToken: token.value)
        } catch SyncHubPool.Refusal.busy {
            throw HTTPError(503, .busy, "every connection to the hub is in use", retryAfter: 1)
        }
        guard let account else {
            throw HTTPError(401, .badToken, "the device token is not valid (unknown or revoked)")
        }
        return account
    }

    /// Runs the body for the account the token opens, and answers what it returns.
    private func forAccount<Answer: Encodable>(
        _ token: BearerToken, _ body: (any SyncServerHub) throws -> Answer
    ) throws -> HTTPResponse {
        try respond(token) { hub in Self.ok(try body(hub)) }
    }

    /// Runs the body for the account the token opens, and answers its response; the log
    /// line names the account, of a failure too.
    private func respond(
        _ token: BearerToken, _ body: (any SyncServerHub) throws -> HTTPResponse
    ) throws -> HTTPResponse {
        var account: String?
        do {
            var response = try forAccountRaw(token) { hub in
                account = hub.account
                return try body(hub)
            }
            response.account = response.account ?? account
            return response
        } catch {
            var failure = HTTPError(error)
            failure.account = failure.account ?? account ?? token.verifiedAccount
            throw failure
        }
    }

    /// Runs the body on a connection of the pool, acting for the token's account.
    private func forAccountRaw<T>(_ token: BearerToken, _ body: (any SyncServerHub) throws -> T)
        throws -> T
    {
        do {
            return try pool.withAccount(
                token: token.value, verifiedAccount: token.verifiedAccount, body)
        } catch SyncHubPool.Refusal.busy {
            throw HTTPError(503, .busy, "every connection to the hub is in use", retryAfter: 1)
        } catch SyncHubPool.Refusal.unknownToken {
            throw HTTPError(401, .badToken, "the device token is not valid (unknown or revoked)")
        }
    }

    private static func checkDevice(_ device: String) throws {
        guard (1...64).contains(device.utf8.count),
            device.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw HTTPError(400, .badDevice, "a device id is 1 to 64 visible ASCII characters")
        }
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ request: HTTPRequest) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(request.body))
        } catch {
            throw HTTPError(400, .malformed, "the body is not the JSON this call takes")
        }
    }

    private static func ok<T: Encodable>(_ value: T) -> HTTPResponse {
        HTTPResponse(status: 200, body: SyncWire.json(value))
    }

    private static func body(_ text: String) -> HTTPResponse {
        HTTPResponse(status: 200, body: Array(text.utf8))
    }
}
