import Foundation
import PrefsKit
import PrefsSync
import Synchronization
import Testing

@testable import PrefsSyncServer

/// The router and its middleware, in-process: requests made in memory, no socket, no hub.
@Suite struct RouterTests {
    /// The lines a request log wrote.
    final class LogLines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func write(_ line: String) { lines.withLock { $0.append(line) } }
    }

    struct Broken: Error, CustomStringConvertible {
        var description: String { "the disk said no" }
    }

    private func router(_ log: LogLines, maxBody: Int = 4096) -> Router {
        Router(
            routes: [
                .open("GET", "/healthz") { _ in HTTPResponse(status: 200, body: Array("ok".utf8)) },
                .withToken("POST", "/v1/echo") { request, token in
                    var response = HTTPResponse(status: 200, body: request.body)
                    response.account = "alice"
                    #expect(token.value == "prefs_secret")
                    return response
                },
                .withToken("GET", "/v1/broken") { _, _ in throw Broken() },
                .withToken("GET", "/v1/engine") { _, _ in
                    throw DatabaseError(
                        .internalError("a check failed"),
                        engineCode: .postgreSQL(sqlState: "23514"), underlying: Broken())
                },
                .withToken("GET", "/v1/away") { _, _ in
                    throw DatabaseError.unavailable(path: "hub", detail: "connection refused")
                },
                .withToken("GET", "/v1/big") { _, _ in
                    HTTPResponse(
                        status: 200, body: Array(repeating: UInt8(ascii: "a"), count: 5000))
                },
            ],
            middleware: [
                RequestLog(log.write), ResponseCompression(),
                RequestLimits(maxHeaderBytes: 1024, maxBodyBytes: maxBody),
                Decompression(maxBodyBytes: maxBody),
            ])
    }

    private let bearer = ["Authorization": "Bearer prefs_secret"]

    private func code(_ response: HTTPResponse) -> String? {
        (try? JSONDecoder().decode(SyncWire.ErrorBody.self, from: Data(response.body)))?.error
    }

    @Test func eachRouteIsFoundByItsPathAndMethodAndNothingElse() {
        let router = router(LogLines())
        #expect(router.respond(to: HTTPRequest("GET", "/healthz")).status == 200)
        let unknown = router.respond(to: HTTPRequest("GET", "/v1/nothing", headers: bearer))
        #expect(unknown.status == 404)
        #expect(code(unknown) == "not_found")
        let otherMethod = router.respond(to: HTTPRequest("GET", "/v1/echo", headers: bearer))
        #expect(otherMethod.status == 405)
        #expect(code(otherMethod) == "method_not_allowed")
        // A prefix of a route is no route.
        #expect(router.respond(to: HTTPRequest("POST", "/v1/ech", headers: bearer)).status == 404)
        #expect(router.table.map(\.path).contains("/v1/echo"))
    }

    @Test func aRouteThatTakesATokenIsNeverReachedWithoutOne() {
        let router = router(LogLines())
        for headers in [
            [:], ["Authorization": "Basic abc"], ["Authorization": "Bearer"],
            ["Authorization": "Bearer "], ["Authorization": "Bearerprefs_secret"],
        ] {
            let response = router.respond(to: HTTPRequest("POST", "/v1/echo", headers: headers))
            #expect(response.status == 401, "\(headers)")
            #expect(code(response) == "no_token")
        }
    }

    /// A header name in another spelling is another header: `Idempotency-\u{212A}ey` (a
    /// Kelvin sign, which Unicode lowercases to `k`) is not `Idempotency-Key`, while ASCII
    /// case is ignored, as HTTP says.
    @Test func aHeaderNameSpelledWithAKelvinSignIsNotTheHeader() {
        let spoofed = HTTPRequest(
            "POST", "/v1/push", headers: ["Idempotency-\u{212A}ey": "key-1"])
        #expect(spoofed.header("Idempotency-Key") == nil)
        #expect(spoofed.header("idempotency-key") == nil)
        let plain = HTTPRequest("POST", "/v1/push", headers: ["IDEMPOTENCY-KEY": "key-1"])
        #expect(plain.header("Idempotency-Key") == "key-1")
        #expect(HTTPRequest.headerKey("Idempotency-\u{212A}ey") != "idempotency-key")
    }

    /// The scheme's name is case-insensitive (RFC 9110, 11.1): `bearer` and `BEARER` are
    /// `Bearer`.
    @Test func theBearerSchemeIsReadInAnyCase() {
        let router = router(LogLines())
        for scheme in ["bearer", "BEARER", "bEaReR"] {
            let response = router.respond(
                to: HTTPRequest(
                    "POST", "/v1/echo", headers: ["Authorization": scheme + " prefs_secret"]))
            #expect(response.status == 200, "\(scheme)")
        }
    }

    @Test func headersAloneAreAnsweredWhenTheyTellEnoughAndLetThroughOtherwise() {
        let log = LogLines()
        let refusing = Router(
            routes: [
                .withToken("POST", "/v1/echo") { request, _ in HTTPResponse(status: 200, body: [])
                }
            ],
            middleware: [RequestLog(log.write)],
            authenticate: { token in
                if token.value != "prefs_secret" {
                    throw HTTPError(401, .badToken, "the device token is not valid")
                }
                return "alice"
            })
        func headers(_ path: String, _ fields: [String: String]) -> HTTPResponse {
            var request = HTTPRequest("POST", path, headers: fields)
            request.isHeadersOnly = true
            return refusing.respond(to: request)
        }
        let proceed = headers("/v1/echo", bearer)
        #expect(proceed.status == 100)
        // The account is carried to the whole request, which need not look it up again.
        #expect(proceed.account == "alice")
        #expect(headers("/v1/echo", ["Authorization": "Bearer prefs_other"]).status == 401)
        #expect(headers("/v1/echo", [:]).status == 401)
        #expect(headers("/v1/nothing", bearer).status == 404)
        // Let through: no line yet (it comes with the whole request); refused: one line.
        #expect(log.all.count == 3)
        #expect(!log.all.contains { $0.contains(" 100 ") })
    }

    @Test func theLimitsAnswerBeforeAnyHandler() {
        let router = router(LogLines())
        let cases: [(HTTPRequest, Int, String)] = [
            (HTTPRequest("POST", "/v1/%65cho", headers: bearer), 400, "bad_path"),
            (HTTPRequest("POST", "/v1/../v1/echo", headers: bearer), 400, "bad_path"),
            (HTTPRequest("POST", "v1/echo", headers: bearer), 400, "bad_path"),
            (
                HTTPRequest(
                    "POST", "/v1/echo",
                    headers: bearer.merging(["X-Long": String(repeating: "x", count: 2000)]) {
                        $1
                    }), 431, "header_too_large"
            ),
            (
                HTTPRequest(
                    "POST", "/v1/echo", headers: bearer, body: Array(repeating: 1, count: 5000)),
                413, "body_too_large"
            ),
            (
                HTTPRequest(
                    "POST", "/v1/echo", headers: bearer.merging(["Content-Encoding": "br"]) { $1 }),
                415, "unsupported_encoding"
            ),
            (
                HTTPRequest(
                    "POST", "/v1/echo",
                    headers: bearer.merging(["Content-Encoding": "gzip"]) { $1 },
                    body: Array("not gzip".utf8)), 400, "bad_encoding"
            ),
        ]
        for (request, status, expected) in cases {
            let response = router.respond(to: request)
            #expect(response.status == status, "\(request.path)")
            #expect(code(response) == expected, "\(request.path)")
        }
    }

    @Test func aGzipBodyReachesTheHandlerInflatedAndOneThatInflatesPastTheLimitDoesNot() throws {
        let router = router(LogLines())
        let text = Array(String(repeating: "prefs ", count: 200).utf8)
        let packed = try #require(Gzip.deflate(text))
        var headers = bearer
        headers["Content-Encoding"] = "gzip"
        let echoed = router.respond(
            to: HTTPRequest("POST", "/v1/echo", headers: headers, body: packed))
        #expect(echoed.status == 200)
        #expect(echoed.body == text)
        // A small body that inflates past the limit is refused, not made.
        let bomb = try #require(Gzip.deflate(Array(repeating: 0, count: 100_000)))
        #expect(bomb.count < 4096)
        let refused = router.respond(
            to: HTTPRequest("POST", "/v1/echo", headers: headers, body: bomb))
        #expect(refused.status == 413)
    }

    @Test func aLargeAnswerGoesInGzipOnlyToAClientThatTakesIt() throws {
        let router = router(LogLines())
        let plain = router.respond(to: HTTPRequest("GET", "/v1/big", headers: bearer))
        #expect(plain.body.count == 5000)
        #expect(plain.header("Content-Encoding") == nil)
        var headers = bearer
        headers["Accept-Encoding"] = "gzip, deflate"
        let packed = router.respond(to: HTTPRequest("GET", "/v1/big", headers: headers))
        #expect(packed.header("Content-Encoding") == "gzip")
        guard case .inflated(let body) = Gzip.inflate(packed.body, max: 10_000) else {
            Issue.record("the answer is not gzip")
            return
        }
        #expect(body.count == 5000)
    }

    @Test func everyFailureOfTheServerIsLoggedWithItsCauseAndTheClientIsNotToldIt() {
        let log = LogLines()
        let router = router(log)
        let broken = router.respond(to: HTTPRequest("GET", "/v1/broken", headers: bearer))
        #expect(broken.status == 500)
        #expect(code(broken) == "internal")
        #expect(!String(decoding: broken.body, as: UTF8.self).contains("disk"))
        let engine = router.respond(to: HTTPRequest("GET", "/v1/engine", headers: bearer))
        #expect(engine.status == 500)
        let away = router.respond(to: HTTPRequest("GET", "/v1/away", headers: bearer))
        #expect(away.status == 503)
        #expect(away.header("Retry-After") == "1")
        let lines = log.all
        #expect(lines.count == 3)
        #expect(
            lines[0].contains(" 500 ") && lines[0].contains("cause=\"Broken: the disk said no\""))
        // The kind, the engine's code and the engine's own error.
        #expect(lines[1].contains("a check failed"), "\(lines[1])")
        #expect(lines[1].contains("SQLSTATE 23514"), "\(lines[1])")
        #expect(lines[1].contains("the disk said no"), "\(lines[1])")
        #expect(
            lines[2].contains(" 503 ") && lines[2].contains("connection refused"), "\(lines[2])")
        for line in lines {
            #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil)
        }
    }

    @Test func aRefusalIsLoggedWithoutACauseAndNoLineHoldsTheToken() {
        let log = LogLines()
        let router = router(log)
        _ = router.respond(to: HTTPRequest("POST", "/v1/echo", headers: bearer, body: [1, 2]))
        _ = router.respond(to: HTTPRequest("GET", "/v1/nothing", headers: bearer))
        _ = router.respond(to: HTTPRequest("GET", "/v1/x y\u{1B}[2J", headers: bearer))
        let lines = log.all
        #expect(lines.count == 3)
        #expect(lines[0].contains(" 200 ") && lines[0].contains("account=alice"))
        #expect(lines[0].contains("in=2B"))
        #expect(lines[1].contains(" 404 ") && !lines[1].contains("cause="))
        // A path is shown as its bytes allow: no space, no escape sequence reaches the log.
        #expect(lines[2].contains("/v1/x%20y%1b[2J"), "\(lines[2])")
        #expect(!lines.joined().contains("prefs_secret"))
    }

    /// docs/sync-protocol.md's own example of a change is one the rules take (it once had
    /// lower-case hex, which the hub refuses).
    @Test func theProtocolsExampleChangeIsOneTheRulesTake() throws {
        let page = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("docs/sync-protocol.md"), encoding: .utf8)
        let section = try #require(page.range(of: "### A change"))
        let open = try #require(
            page.range(of: "```json\n", range: section.upperBound..<page.endIndex))
        let close = try #require(page.range(of: "\n```", range: open.upperBound..<page.endIndex))
        let wire = try JSONDecoder().decode(
            SyncWire.Change.self, from: Data(page[open.upperBound..<close.lowerBound].utf8))
        let change = try #require(wire.change)
        #expect(SyncValidation.problem(with: change) == nil)
    }
}
