import Dispatch
import PrefsKit
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

/// One request of the sync protocol, as a transport sends it.
package struct SyncHTTPRequest: Sendable {
    package var method: String
    /// The path and query, from `/v1/...`.
    package var path: String
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// How long the whole exchange may take.
    package var timeout: Duration
}

/// The server's answer.
package struct SyncHTTPResponse: Sendable {
    package var status: Int
    package var body: [UInt8]

    package init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// Sends requests of the sync protocol to one server and waits for the answer: URLSession
/// (PrefsHTTPSync) or libcurl (the command line). Throws ``SyncTransportError`` when no
/// answer came.
package protocol SyncHTTPTransport: Sendable {
    /// The server, as the device file keeps it (`https://host[:port][/prefix]`).
    var server: String { get }
    func send(_ request: SyncHTTPRequest) throws -> SyncHTTPResponse
}

/// No answer came from the server: it could not be reached, the connection broke, TLS
/// failed, or the time ran out.
package struct SyncTransportError: Error, Sendable {
    package var detail: String
    /// Whether sending the request again may work (a broken connection, a timeout); TLS
    /// and name failures are not.
    package var isRetryable: Bool
    /// Whether the server's certificate is not trusted: sending again cannot help, naming
    /// the CA it is signed by can.
    package var isUntrusted: Bool

    package init(detail: String, isRetryable: Bool, isUntrusted: Bool = false) {
        self.detail = detail
        self.isRetryable = isRetryable
        self.isUntrusted = isUntrusted
    }
}

/// The hub of a device that syncs over HTTPS through `prefs-server` (docs/sync-protocol.md):
/// each ``SyncHub`` call is one request, and the server calls the hub's own function.
/// A push carries an idempotency key and is sent again with the same key when no answer
/// came, so it is never applied twice; every other call may be repeated as it is.
package final class HTTPSyncHub: SyncHub, @unchecked Sendable {
    let transport: any SyncHTTPTransport
    private let token: String
    package let account: String
    /// There is no standby behind the server for a device to read.
    package let channel = ""
    /// The last bound the server said.
    private let bound: Mutex<Int64>
    /// The account's position the long poll heard last (``changeToken()``).
    private let heard = Mutex<(position: Int64, polling: Bool)>((0, false))
    /// How many times a request is sent when no answer came.
    static let attempts = 5
    /// Whether the server takes a round in one request (`POST /v1/round`: it says protocol
    /// version 2 or more).
    package let speaksRound: Bool

    /// Asks the server who the token acts for.
    ///
    /// - Throws: ``DatabaseError/permissionDenied(path:detail:)`` for a token the server
    ///   refused; ``DatabaseError/unavailable(path:detail:)`` when it cannot be reached.
    package init(transport: any SyncHTTPTransport, token: String) throws {
        self.transport = transport
        self.token = token
        let who: SyncWire.AccountResponse = try Self.call(
            transport, token: token, "GET", "/v1/account", body: nil as [UInt8]?)
        account = who.account
        bound = Mutex(who.clockBound)
        speaksRound = who.protocolVersion >= 2
        heard.withLock { $0.position = who.position }
    }

    // MARK: - SyncHub

    package func push(_ changes: [SyncChange], device: String, cursor: Int64) throws
        -> SyncPushOutcome
    {
        let request = SyncWire.PushRequest(
            device: device, cursor: cursor, changes: changes.map(SyncWire.Change.init))
        let response: SyncWire.PushResponse = try call(
            "POST", "/v1/push", request, idempotencyKey: Self.newKey())
        guard let outcome = response.outcome else { throw malformed("push") }
        bound.withLock { $0 = outcome.clockBound }
        return outcome
    }

    package func pull(after cursor: Int64, limit: Int) throws -> [(
        change: SyncChange, sequence: Int64
    )] {
        try pullRound(
            after: cursor, device: "", leavingOut: nil, deviceClock: nil,
            limit: SyncPullLimit(changes: limit, bytes: SyncPullLimit.standard.bytes)
        ).rows
    }

    package func report(device: String, cursor: Int64) throws {
        let _: SyncWire.Done = try call(
            "POST", "/v1/report", SyncWire.ReportRequest(device: device, cursor: cursor))
    }

    package func clockBound() throws -> Int64 { bound.withLock { $0 } }

    /// The server pages within its own limit too, whatever this one says (nil: its own).
    package func pullRound(
        after cursor: Int64, device: String, leavingOut: Int64?, deviceClock: String?,
        limit: SyncPullLimit?
    ) throws -> SyncPull {
        let request = SyncWire.PullRequest(
            device: device, after: cursor, leavingOut: leavingOut, deviceClock: deviceClock,
            limit: limit?.changes, limitBytes: limit?.bytes)
        let response: SyncWire.PullResponse = try call("POST", "/v1/pull", request)
        guard let pull = response.pull else { throw malformed("pull") }
        bound.withLock { $0 = response.clockBound }
        return pull
    }

    /// A round in one request (`POST /v1/round`): the server reports `cursor`, pushes the
    /// changes, and answers the push, the first page of the pull after `cursor` (the push
    /// left out) and the devices' names. Call only when ``speaksRound``.
    package func round(
        _ changes: [SyncChange], device: String, cursor: Int64, deviceClock: String?,
        limit: SyncPullLimit?
    ) throws -> (push: SyncPushOutcome?, pull: SyncPull, names: [String: String]) {
        let request = SyncWire.RoundRequest(
            device: device, cursor: cursor, changes: changes.map(SyncWire.Change.init),
            deviceClock: deviceClock, limit: limit?.changes, limitBytes: limit?.bytes)
        let response: SyncWire.RoundResponse = try call(
            "POST", "/v1/round", request, idempotencyKey: changes.isEmpty ? nil : Self.newKey())
        guard let pull = response.pull.pull else { throw malformed("pull") }
        var pushed: SyncPushOutcome?
        if let push = response.push {
            guard let outcome = push.outcome else { throw malformed("push") }
            pushed = outcome
        }
        bound.withLock { $0 = response.pull.clockBound }
        return (pushed, pull, response.names)
    }

    package func position() throws -> Int64 {
        let who: SyncWire.AccountResponse = try call("GET", "/v1/account", nil as [UInt8]?)
        return who.position
    }

    package func forget(device: String) throws {
        let _: SyncWire.Done = try call(
            "POST", "/v1/forget", SyncWire.ForgetRequest(device: device))
    }

    package func setName(_ name: String?, device: String) throws {
        let _: SyncWire.Done = try call(
            "POST", "/v1/name", SyncWire.NameRequest(device: device, name: name))
    }

    package func deviceNames() throws -> [String: String] {
        let names: SyncWire.DevicesResponse = try call("GET", "/v1/devices", nil as [UInt8]?)
        return names.names
    }

    // MARK: - Hearing of changes

    /// A number that moves when another device (or the server app) changed the account:
    /// the position a long poll (`GET /v1/changes`) heard, in a thread of its own started at
    /// the first call and ended with the hub.
    package func changeToken() -> Int64 {
        let start = heard.withLock { state -> Bool in
            defer { state.polling = true }
            return !state.polling
        }
        if start {
            DispatchQueue(label: "prefs.sync.long-poll").async { [weak self] in
                while let hub = self {
                    if !hub.pollOnce() { usleep(500_000) }
                }
            }
        }
        return heard.withLock { $0.position }
    }

    /// One long poll; false when it failed.
    private func pollOnce() -> Bool {
        let after = heard.withLock { $0.position }
        do {
            let changes: SyncWire.ChangesResponse = try call(
                "GET", "/v1/changes?after=\(after)&wait=20000", nil as [UInt8]?,
                timeout: .seconds(30), attempts: 1)
            heard.withLock { $0.position = max($0.position, changes.position) }
            return true
        } catch {
            return false
        }
    }

    // MARK: - Requests

    private func call<Body: Encodable, Answer: Decodable>(
        _ method: String, _ path: String, _ body: Body?, idempotencyKey: String? = nil,
        timeout: Duration = .seconds(60), attempts: Int = HTTPSyncHub.attempts
    ) throws -> Answer {
        try Self.call(
            transport, token: token, method, path, body: body, idempotencyKey: idempotencyKey,
            timeout: timeout, attempts: attempts)
    }

    private static func call<Body: Encodable, Answer: Decodable>(
        _ transport: any SyncHTTPTransport, token: String, _ method: String, _ path: String,
        body: Body?, idempotencyKey: String? = nil, timeout: Duration = .seconds(60),
        attempts: Int = HTTPSyncHub.attempts
    ) throws -> Answer {
        var headers: [(name: String, value: String)] = [
            ("Authorization", "Bearer " + token), ("Accept", "application/json"),
        ]
        if let idempotencyKey { headers.append(("Idempotency-Key", idempotencyKey)) }
        var bytes: [UInt8] = []
        if let body {
            headers.append(("Content-Type", "application/json"))
            bytes = Array(try JSONEncoder().encode(body))
        }
        let request = SyncHTTPRequest(
            method: method, path: path, headers: headers, body: bytes, timeout: timeout)
        var attempt = 0
        while true {
            attempt += 1
            let response: SyncHTTPResponse
            do {
                response = try transport.send(request)
            } catch let failure as SyncTransportError {
                if failure.isUntrusted {
                    // Not a server away: this device does not trust it, and will not until
                    // it is told which CA to trust.
                    throw DatabaseError(
                        .permissionDenied(
                            path: transport.server,
                            detail: "its certificate is not trusted (\(failure.detail))"),
                        underlying: failure)
                }
                guard failure.isRetryable, attempt < attempts else {
                    throw DatabaseError(
                        .unavailable(path: transport.server, detail: failure.detail),
                        underlying: failure)
                }
                usleep(UInt32(min(100_000 << (attempt - 1), 2_000_000)))
                continue
            }
            // A proxy whose upstream went away (502, 503, 504) is an answer of no one: the
            // request is sent again, to whichever server is left.
            if [502, 503, 504].contains(response.status), attempt < attempts {
                usleep(UInt32(min(100_000 << (attempt - 1), 2_000_000)))
                continue
            }
            return try answer(response, server: transport.server)
        }
    }

    private static func answer<Answer: Decodable>(_ response: SyncHTTPResponse, server: String)
        throws -> Answer
    {
        if (200..<300).contains(response.status) {
            do {
                return try JSONDecoder().decode(Answer.self, from: Data(response.body))
            } catch {
                throw DatabaseError.internalError(
                    "the sync server \(server) answered what is not its protocol")
            }
        }
        let said = try? JSONDecoder().decode(SyncWire.ErrorBody.self, from: Data(response.body))
        let detail = said.map { MessageText.shown($0.message) } ?? "HTTP \(response.status)"
        // The server's code is kept with the error, for a program to tell one refusal from
        // another without reading the sentence.
        let refusal = SyncServerRefusal(
            status: response.status, code: said.map { MessageText.shown($0.error) } ?? "",
            message: detail)
        let kind: DatabaseError.Kind
        switch response.status {
        case 401, 403: kind = .permissionDenied(path: server, detail: detail)
        case 413: kind = .tooLarge(detail: detail)
        case 300..<400:
            // Neither client follows one: the token goes to no address but the one given.
            kind = .invalidConnectionOption(
                path: server,
                detail:
                    "the server answers with a redirect (HTTP \(response.status)), which is not"
                    + " followed: a token goes only to the address given; give the server's own")
        case 408, 429, 500..<600: kind = .unavailable(path: server, detail: detail)
        default: kind = .internalError("the sync server \(server) refused: \(detail)")
        }
        throw DatabaseError(kind, underlying: refusal)
    }

    private func malformed(_ what: String) -> DatabaseError {
        DatabaseError.internalError(
            "the sync server \(transport.server) answered a \(what) this device cannot read")
    }

    /// A random key, the same for every attempt of one push.
    private static func newKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }
}
