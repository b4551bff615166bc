import Dispatch
internal import PostgresCore
import PrefsKit
import PrefsSync
import Synchronization

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `prefs-server` does with a request of the sync protocol (docs/sync-protocol.md),
/// whatever the HTTP library: it finds the account the device token opens, then calls the
/// hub's own function (``SyncHub``) for it, on a connection of its pool. Nothing is kept
/// between requests outside PostgreSQL, so any number of servers serve one hub.
package final class SyncService: Sendable {
    /// How the service reaches the hub, and its limits.
    package struct Configuration: Sendable {
        /// The hub's connection string: a service role (a member of `prefs_service`).
        package var hub: String
        /// Connections to the hub, at most (the requests beyond wait for one).
        package var poolSize = 8
        /// How long a request waits for a connection before it is answered 503.
        package var poolWaitMilliseconds = 5_000
        /// The largest body taken, in bytes.
        package var maxBodyBytes = 16 << 20
        /// The most changes one push may carry.
        package var maxChanges = 100_000
        /// The longest header line taken (name and value), in bytes.
        package var maxHeaderBytes = 64 << 10
        /// How long one statement may run on the hub.
        package var statementTimeoutMilliseconds = 30_000
        /// The longest a long poll (`GET /v1/changes`) waits.
        package var longPollMilliseconds = 25_000
        /// Where the server listens for the accounts' notifications: a session of its own,
        /// straight to PostgreSQL (nil: the hub's string; behind a transaction pooler, name
        /// the server itself).
        package var notificationHub: String?

        package init(hub: String) { self.hub = hub }
    }

    /// A request as the HTTP library parsed it.
    package struct Request {
        package var method: String
        /// The path, without the query.
        package var path: String
        package var query: (String) -> String?
        package var header: (String) -> String?
        package var body: [UInt8]
        /// The body passed ``Configuration/maxBodyBytes`` and was not kept.
        package var isBodyTooLarge = false
        /// The longest header line's length.
        package var largestHeader = 0
        /// Why the body's Content-Encoding could not be undone: its status (400: not what it
        /// says; 413: inflates past the limit; 415: an encoding other than gzip).
        package var encodingRefusal: Int?

        package init(
            method: String, path: String, query: @escaping (String) -> String?,
            header: @escaping (String) -> String?, body: [UInt8]
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.header = header
            self.body = body
        }
    }

    /// The answer: a status and a JSON body.
    package struct Response: Sendable {
        package var status: Int
        package var body: [UInt8]
        /// The account the token opened, for the log line (never the token).
        package var account: String?
        /// Seconds after which a refused request may be sent again (503).
        package var retryAfter: Int?
    }

    package let configuration: Configuration
    private let options: PostgreSQLOptions
    /// Connections not in use.
    private let idle = Mutex<[Slot]>([])
    /// One permit per connection the pool may hold.
    private let permits: DispatchSemaphore
    /// Wakes long polls when their account changes.
    private let listener: ChangeListener
    /// Set when the server stops: long polls answer at once.
    private let isStopping = Atomic(false)

    /// Checks the configuration; connects at the first request that needs the hub.
    package init(_ configuration: Configuration) throws {
        guard AppDatabase.isConnectionString(configuration.hub) else {
            throw SyncError.hubIsNotAServer(target: configuration.hub)
        }
        self.configuration = configuration
        var options = PostgreSQLOptions()
        // Every transaction names its account: a connection serves any account, one
        // request at a time, directly or behind PgBouncer in transaction pooling.
        options.isBehindTransactionPooler = true
        options.watchesForChanges = false
        options.statementTimeoutMilliseconds = configuration.statementTimeoutMilliseconds
        self.options = options
        permits = DispatchSemaphore(value: max(1, configuration.poolSize))
        listener = ChangeListener(target: configuration.notificationHub ?? configuration.hub)
    }

    /// Answers every long poll now, with the position it has, and every later one at once:
    /// the server is stopping, and a device's next poll goes to another instance.
    package func finishLongPolls() {
        isStopping.store(true, ordering: .sequentiallyConsistent)
        listener.wakeAll()
    }

    /// Connects and migrates the hub once, so that a server that cannot reach it says so at
    /// its start.
    package func prepare() throws {
        try withSlot { _ in }
    }

    // MARK: - Requests

    package func handle(_ request: Request) -> Response {
        do {
            return try route(request)
        } catch let refusal as Refusal {
            return refusal.response
        } catch {
            return Self.failure(error)
        }
    }

    /// A request answered with an error status.
    private struct Refusal: Error {
        var response: Response

        init(_ status: Int, _ code: String, _ message: String, retryAfter: Int? = nil) {
            let body = SyncWire.ErrorBody(error: code, message: message)
            response = Response(
                status: status, body: SyncService.json(body), account: nil, retryAfter: retryAfter)
        }
    }

    private func route(_ request: Request) throws -> Response {
        let path = request.path
        // The protocol's paths are plain names: no escape left after decoding (a NUL is
        // kept as %00 by the HTTP layer), no dot segment.
        if path.utf8.contains(0) || path.contains("%") || !path.hasPrefix("/")
            || path.split(separator: "/").contains(where: { $0 == ".." || $0 == "." })
        {
            throw Refusal(400, "bad_path", "the path must be a plain path of the protocol")
        }
        if request.largestHeader > configuration.maxHeaderBytes {
            throw Refusal(
                431, "header_too_large",
                "a header is longer than \(configuration.maxHeaderBytes) bytes")
        }
        switch request.encodingRefusal {
        case 400?: throw Refusal(400, "bad_encoding", "the body is not the gzip it says it is")
        case 415?:
            throw Refusal(415, "unsupported_encoding", "a body may be sent as it is or in gzip")
        default: break
        }
        if request.isBodyTooLarge || request.body.count > configuration.maxBodyBytes
            || request.encodingRefusal == 413
        {
            throw Refusal(
                413, "body_too_large", "the body is larger than \(configuration.maxBodyBytes) bytes"
            )
        }
        switch path {
        case "/healthz":
            return Response(status: 200, body: Array(#"{"status":"ok"}"#.utf8))
        case "/readyz":
            do {
                try withSlot { slot in _ = try slot.opened.connection.execute("SELECT 1") }
                return Response(status: 200, body: Array(#"{"status":"ready"}"#.utf8))
            } catch {
                throw Refusal(503, "not_ready", "the hub cannot be reached", retryAfter: 1)
            }
        default:
            break
        }
        let calls: [String: String] = [
            "/v1/account": "GET", "/v1/devices": "GET", "/v1/changes": "GET",
            "/v1/push": "POST", "/v1/pull": "POST", "/v1/report": "POST", "/v1/forget": "POST",
            "/v1/name": "POST",
        ]
        guard let method = calls[path] else {
            throw Refusal(404, "not_found", "no such call of the sync protocol")
        }
        guard request.method == method else {
            throw Refusal(405, "method_not_allowed", "\(path) takes \(method)")
        }
        guard let authorization = request.header("Authorization"),
            authorization.hasPrefix("Bearer ")
        else {
            throw Refusal(401, "no_token", "a device token is needed (Authorization: Bearer)")
        }
        let token = String(authorization.dropFirst("Bearer ".count))
        if path == "/v1/changes" { return try longPoll(request, token: token) }
        return try withSlot { slot in
            let hub = try slot.engine(forToken: token)
            var response = try call(path, request, hub: hub)
            response.account = hub.account
            return response
        }
    }

    /// One call of the hub, for the account the token opens.
    private func call(_ path: String, _ request: Request, hub: PostgreSQLEngine) throws
        -> Response
    {
        switch path {
        case "/v1/account":
            return ok(
                SyncWire.AccountResponse(
                    account: hub.account, position: try hub.position(),
                    clockBound: try hub.clockBound()))
        case "/v1/devices":
            return ok(SyncWire.DevicesResponse(names: try hub.deviceNames()))
        case "/v1/push":
            let push = try decode(SyncWire.PushRequest.self, request)
            guard push.changes.count <= configuration.maxChanges else {
                throw Refusal(
                    413, "too_many_changes",
                    "a push carries at most \(configuration.maxChanges) changes")
            }
            let changes = try push.changes.map { change in
                guard let read = change.change else {
                    throw Refusal(400, "malformed", "a change's value does not read as its type")
                }
                return read
            }
            try checkDevice(push.device)
            guard let key = request.header("Idempotency-Key") else {
                let outcome = try hub.push(changes, device: push.device, cursor: push.cursor)
                return ok(SyncWire.PushResponse(outcome))
            }
            guard (1...128).contains(key.utf8.count),
                key.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
            else {
                throw Refusal(
                    400, "bad_idempotency_key", "an idempotency key is 1 to 128 visible characters")
            }
            do {
                let text = try hub.push(
                    changes, device: push.device, cursor: push.cursor, idempotencyKey: key
                ) { outcome in
                    String(decoding: Self.json(SyncWire.PushResponse(outcome)), as: UTF8.self)
                }
                return Response(status: 200, body: Array(text.utf8))
            } catch is IdempotencyKeyReused {
                throw Refusal(
                    422, "idempotency_key_reused",
                    "this idempotency key was used for another push (another device, or other"
                        + " changes): send a new key")
            }
        case "/v1/pull":
            let pull = try decode(SyncWire.PullRequest.self, request)
            try checkDevice(pull.device)
            let round = try hub.pullRound(
                after: pull.after, device: pull.device, leavingOut: pull.leavingOut,
                deviceClock: pull.deviceClock)
            return ok(SyncWire.PullResponse(round, clockBound: try hub.clockBound()))
        case "/v1/report":
            let report = try decode(SyncWire.ReportRequest.self, request)
            try checkDevice(report.device)
            try hub.report(device: report.device, cursor: report.cursor)
            return ok(SyncWire.Done())
        case "/v1/forget":
            let forget = try decode(SyncWire.ForgetRequest.self, request)
            try checkDevice(forget.device)
            try hub.forget(device: forget.device)
            return ok(SyncWire.Done())
        default:
            let name = try decode(SyncWire.NameRequest.self, request)
            try checkDevice(name.device)
            try hub.setName(name.name, device: name.device)
            return ok(SyncWire.Done())
        }
    }

    /// `GET /v1/changes?after=N&wait=MS`: answers once the account's position passed
    /// `after`, or when the wait ran out, with the position. While it waits it holds no
    /// connection of the pool: the server's listener wakes it when the account's channel is
    /// notified (every push and every write of the account notifies it).
    private func longPoll(_ request: Request, token: String) throws -> Response {
        guard let after = request.query("after").flatMap({ Int64($0) }) else {
            throw Refusal(400, "malformed", "after= must be a number")
        }
        let wait = min(
            max(0, request.query("wait").flatMap { Int($0) } ?? 0),
            configuration.longPollMilliseconds)
        let deadline = DispatchTime.now() + .milliseconds(wait)
        var account: String?
        var channel = ""
        func position() throws -> Int64 {
            try withSlot { slot in
                let hub = try slot.engine(forToken: token)
                account = hub.account
                channel = hub.channel
                return try hub.position()
            }
        }
        var now = try position()
        let stopping = { self.isStopping.load(ordering: .sequentiallyConsistent) }
        if now <= after, wait > 0, !channel.isEmpty, !stopping() {
            let waiter = listener.register(channel: channel)
            defer { listener.unregister(waiter) }
            // Read again once the channel is listened to: a push between the first read
            // and the LISTEN is not missed.
            now = try position()
            while now <= after, !stopping(), waiter.woken.wait(timeout: deadline) == .success {
                now = try position()
            }
        }
        var response = ok(SyncWire.ChangesResponse(position: now))
        response.account = account
        return response
    }

    private func checkDevice(_ device: String) throws {
        guard (1...64).contains(device.utf8.count),
            device.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw Refusal(400, "bad_device", "a device id is 1 to 64 visible ASCII characters")
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ request: Request) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(request.body))
        } catch {
            throw Refusal(400, "malformed", "the body is not the JSON this call takes")
        }
    }

    private func ok<T: Encodable>(_ value: T) -> Response {
        Response(status: 200, body: Self.json(value))
    }

    private static func json<T: Encodable>(_ value: T) -> [UInt8] {
        // Keys in order: the same answer is the same bytes.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array((try? encoder.encode(value)) ?? Data(#"{"error":"internal"}"#.utf8))
    }

    /// The answer to an error of the hub: its kind, never its internals.
    private static func failure(_ error: any Error) -> Response {
        let refusal: Refusal
        switch (error as? DatabaseError)?.kind {
        case .permissionDenied:
            refusal = Refusal(403, "forbidden", "the hub refused this account's request")
        case .busy, .timedOut, .unavailable, .serverDatabaseMissing:
            refusal = Refusal(503, "unavailable", "the hub cannot answer now", retryAfter: 1)
        default:
            refusal = Refusal(500, "internal", "the server failed to answer")
        }
        return refusal.response
    }

    // MARK: - The pool

    /// One connection of the pool, and the engine acting for the account it served last.
    private final class Slot: @unchecked Sendable {
        let opened: PostgreSQLEngine.Opened
        var engine: PostgreSQLEngine?

        init(_ opened: PostgreSQLEngine.Opened) { self.opened = opened }

        /// The engine acting for the account the token opens.
        ///
        /// - Throws: 401 for a token the hub does not know or that was revoked.
        func engine(forToken token: String) throws -> PostgreSQLEngine {
            guard let account = try DeviceTokens.account(forToken: token, on: opened.connection)
            else {
                throw Refusal(
                    401, "bad_token", "the device token is not valid (unknown or revoked)")
            }
            if let engine, engine.account == account { return engine }
            engine = nil
            let acting = try PostgreSQLEngine.acting(for: account, on: opened)
            engine = acting
            return acting
        }
    }

    /// Runs the body on a connection of the pool: an idle one, a new one while the pool has
    /// room, else the first to come back within ``Configuration/poolWaitMilliseconds``.
    private func withSlot<T>(_ body: (Slot) throws -> T) throws -> T {
        guard
            permits.wait(timeout: .now() + .milliseconds(configuration.poolWaitMilliseconds))
                == .success
        else {
            throw Refusal(503, "busy", "every connection to the hub is in use", retryAfter: 1)
        }
        defer { permits.signal() }
        if let kept = idle.withLock({ $0.popLast() }) {
            do {
                return try run(body, on: kept, retrying: true)
            } catch let error as PGError where error.isConnectionLost {
                // A kept connection the server closed meanwhile (a restart, a pooler's KILL):
                // every call is safe to make again (a push sent again takes nothing twice),
                // once, on a new one.
            }
        }
        return try run(
            body,
            on: Slot(PostgreSQLEngine.connectMigrated(target: configuration.hub, options: options)),
            retrying: false)
    }

    /// Runs the body on one connection; keeps it for the next call unless it broke.
    /// `retrying`: a lost connection is thrown as it is, for the caller to try a new one.
    private func run<T>(_ body: (Slot) throws -> T, on slot: Slot, retrying: Bool) throws -> T {
        do {
            let value = try body(slot)
            if slot.opened.connection.isConnected, !slot.opened.connection.isInTransaction {
                idle.withLock { $0.append(slot) }
            }
            return value
        } catch {
            // A connection that broke or was left in a transaction is not kept.
            if slot.opened.connection.isConnected, !slot.opened.connection.isInTransaction {
                idle.withLock { $0.append(slot) }
            }
            if retrying, let lost = error as? PGError, lost.isConnectionLost { throw lost }
            if let engine = slot.engine, !(error is Refusal) { throw engine.translate(error) }
            throw error
        }
    }
}
