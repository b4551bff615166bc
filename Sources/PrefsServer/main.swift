// prefs-server: the sync protocol over HTTP (docs/sync-protocol.md) in front of a PostgreSQL
// hub, and the device tokens that open it. HTTP is GNU libmicrohttpd's (Sources/CMicroHTTPD);
// what a request does is PrefsPostgreSQL's SyncService. TLS and load balancing are nginx's,
// in front (docs/deploy.md).
import CMicroHTTPD
import Dispatch
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let usage = """
    usage: prefs-server [serve] [--listen ADDRESS:PORT] [--hub CONNECTION] [--pool-size N]
                        [--connection-limit N] [--timeout SECONDS] [--max-body BYTES]
                        [--max-changes N] [--listen-hub CONNECTION] [--port-file FILE]
           prefs-server token issue --account ACCOUNT --name NAME [--hub CONNECTION]
           prefs-server token list --account ACCOUNT [--hub CONNECTION] [--json]
           prefs-server token revoke ID --account ACCOUNT [--hub CONNECTION]

    The hub is a PostgreSQL connection string of a service role (a member of prefs_service),
    from --hub or PREFS_HUB. Behind PgBouncer in transaction pooling, --listen-hub (or
    PREFS_LISTEN_DB) names the server itself, for the notifications that wake long polls. serve listens on --listen or PREFS_SERVER_LISTEN (default
    127.0.0.1:8080; port 0 takes a free one, written to --port-file). Each number may come
    from a variable instead: --pool-size from PREFS_SERVER_POOL_SIZE, and so on.
    """

/// Exit codes of sysexits.h.
enum Exit {
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let unavailable: Int32 = 69
    static let software: Int32 = 70
    static let noPermission: Int32 = 77
}

func fail(_ message: String, _ code: Int32) -> Never {
    FileHandleLike.standardError("prefs-server: " + message + "\n")
    exit(code)
}

enum FileHandleLike {
    static func standardError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }

    static func standardOutput(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress, $0.count) }
    }
}

/// The flags given, by name (`--name value`), and the words that are no flag.
struct Arguments {
    var flags: [String: String] = [:]
    var switches: Set<String> = []
    var words: [String] = []

    init(_ arguments: ArraySlice<String>, switches known: Set<String>) {
        var rest = arguments
        while let argument = rest.popFirst() {
            if argument == "-h" || argument == "--help" {
                FileHandleLike.standardOutput(usage + "\n")
                exit(0)
            }
            if argument.hasPrefix("--") {
                let name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    flags[String(name[..<equals])] = String(name[name.index(after: equals)...])
                } else if known.contains(name) {
                    switches.insert(name)
                } else if let value = rest.popFirst() {
                    flags[name] = value
                } else {
                    fail("--\(name) needs a value", Exit.usage)
                }
            } else {
                words.append(argument)
            }
        }
    }

    /// A flag's number, else its variable's (`--pool-size`: `PREFS_SERVER_POOL_SIZE`).
    func number(_ name: String, default value: Int, in range: ClosedRange<Int>) -> Int {
        let variable = "PREFS_SERVER_" + String(name.uppercased().map { $0 == "-" ? "_" : $0 })
        guard let text = flags[name] ?? ProcessInfo.processInfo.environment[variable] else {
            return value
        }
        guard let number = Int(text), range.contains(number) else {
            fail(
                "--\(name) must be a number from \(range.lowerBound) to \(range.upperBound)",
                Exit.usage)
        }
        return number
    }

    var hub: String {
        guard let hub = flags["hub"] ?? ProcessInfo.processInfo.environment["PREFS_HUB"] else {
            fail("name the hub: --hub CONNECTION or PREFS_HUB", Exit.usage)
        }
        return hub
    }
}

/// An error of the library as one line and its exit code.
func exitCode(for error: any Error) -> (String, Int32) {
    if error is SyncError { return (String(describing: error), Exit.usage) }
    guard let error = error as? DatabaseError else {
        return (String(describing: error), Exit.software)
    }
    switch error.kind {
    case .permissionDenied, .accessDenied: return (error.description, Exit.noPermission)
    case .unavailable, .busy, .timedOut, .serverDatabaseMissing, .unsupported, .cannotOpen:
        return (error.description, Exit.unavailable)
    case .invalidConnectionString, .invalidConnectionOption: return (error.description, Exit.usage)
    default: return (error.description, Exit.software)
    }
}

// MARK: - token

func tokenCommand(_ arguments: ArraySlice<String>) {
    let parsed = Arguments(arguments, switches: ["json"])
    guard let action = parsed.words.first else {
        fail("token needs issue, list or revoke", Exit.usage)
    }
    guard let account = parsed.flags["account"] else {
        fail("name the account: --account", Exit.usage)
    }
    // What each action needs is checked before the hub is reached.
    guard ["issue", "list", "revoke"].contains(action) else {
        fail("token takes issue, list or revoke, not '\(action)'", Exit.usage)
    }
    if action == "issue", parsed.flags["name"] == nil {
        fail("name the device: --name", Exit.usage)
    }
    if action == "revoke", parsed.words.count != 2 || Int64(parsed.words[1]) == nil {
        fail("token revoke takes the token's id (token list shows it)", Exit.usage)
    }
    var options = PostgreSQLOptions()
    options.account = account
    options.watchesForChanges = false
    do {
        let hub = try AppDatabase.postgreSQL(parsed.hub, options: options)
        switch action {
        case "issue":
            guard let name = parsed.flags["name"] else {
                fail("name the device: --name", Exit.usage)
            }
            let issued = try DeviceTokens.issue(on: hub, name: name)
            FileHandleLike.standardOutput(issued.token + "\n")
            FileHandleLike.standardError(
                "Token \(issued.record.id) opens the account '\(account)' for '\(name)'. It is shown"
                    + " once: the hub keeps only its hash.\n")
        case "list":
            let tokens = try DeviceTokens.list(on: hub)
            if parsed.switches.contains("json") {
                let rows = tokens.map { token -> String in
                    let revoked =
                        token.revokedAt.map { "\(Int64($0.timeIntervalSince1970))" } ?? "null"
                    return "{\"id\":\(token.id),\"name\":\(jsonString(token.name)),"
                        + "\"issued\":\(Int64(token.issuedAt.timeIntervalSince1970)),"
                        + "\"revoked\":\(revoked)}"
                }
                FileHandleLike.standardOutput("[" + rows.joined(separator: ",") + "]\n")
            } else {
                for token in tokens {
                    FileHandleLike.standardOutput(
                        "\(token.id)\t\(token.revokedAt == nil ? "open" : "revoked")\t\(token.name)\n"
                    )
                }
            }
        case "revoke":
            guard parsed.words.count == 2, let id = Int64(parsed.words[1]) else {
                fail("token revoke takes the token's id (token list shows it)", Exit.usage)
            }
            guard try DeviceTokens.revoke(id: id, on: hub) else {
                fail("the account '\(account)' has no open token \(id)", Exit.dataError)
            }
            FileHandleLike.standardOutput("Revoked token \(id).\n")
        default:
            fail("token takes issue, list or revoke, not '\(action)'", Exit.usage)
        }
    } catch {
        let (message, code) = exitCode(for: error)
        fail(message, code)
    }
}

func jsonString(_ text: String) -> String {
    let encoded = (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) }
    return encoded ?? "\"\""
}

// MARK: - serve

/// What the C callback reaches: the service, and the log.
final class Server: @unchecked Sendable {
    let service: SyncService

    init(service: SyncService) { self.service = service }

    func handle(_ raw: UnsafePointer<prefs_http_request>) {
        let started = ContinuousClock.now
        let request = raw.pointee
        let connection = request.connection
        let method = String(cString: request.method)
        let url = String(cString: request.url)
        let body =
            request.body.map { Array(UnsafeBufferPointer(start: $0, count: request.body_length)) }
            ?? []
        var parsed = SyncService.Request(
            method: method, path: url,
            query: { key in prefs_http_query(connection, key).map { String(cString: $0) } },
            header: { name in prefs_http_header(connection, name).map { String(cString: $0) } },
            body: body)
        parsed.isBodyTooLarge = request.body_too_large != 0
        parsed.largestHeader = request.largest_header
        if !parsed.isBodyTooLarge, let encoding = parsed.header("Content-Encoding") {
            switch encoding.lowercased() {
            case "identity": break
            case "gzip":
                switch Compression.gunzip(body, max: service.configuration.maxBodyBytes) {
                case .success(let inflated): parsed.body = inflated
                case .failure(let refusal): parsed.encodingRefusal = refusal.status
                }
            default: parsed.encodingRefusal = 415
            }
        }
        let response = service.handle(parsed)
        var extra: (name: String, value: String)? = response.retryAfter.map {
            ("Retry-After", String($0))
        }
        var sent = response.body
        // Answers of a kilobyte or more go compressed to a client that takes gzip.
        if sent.count >= 1024,
            parsed.header("Accept-Encoding")?.lowercased().contains("gzip") == true,
            let compressed = Compression.gzip(sent)
        {
            sent = compressed
            extra = ("Content-Encoding", "gzip")
        }
        _ = sent.withUnsafeBytes { bytes in
            prefs_http_respond(
                connection, UInt32(response.status), "application/json", bytes.baseAddress,
                bytes.count, extra?.name, extra?.value)
        }
        let elapsed = ContinuousClock.now - started
        let milliseconds =
            Double(elapsed.components.attoseconds) / 1e15
            + Double(elapsed.components.seconds) * 1000
        let peer = request.peer.map { String(cString: $0) } ?? "-"
        // One line per request; the path is printed as its bytes allow, never a token.
        let shownPath = MessageTextLike.shown(url)
        FileHandleLike.standardError(
            "\(ISO8601Like.now()) \(peer) \(method.prefix(16)) \(shownPath) \(response.status)"
                + " \(sent.count)B \(String(format3(milliseconds)))ms"
                + " account=\(response.account ?? "-") in=\(body.count)B"
                + (parsed.header("Content-Encoding") == nil ? "" : " gzip") + "\n")
    }
}

/// Bodies in gzip, through zlib (Sources/CMicroHTTPD).
enum Compression {
    struct Refusal: Error {
        /// 413: inflates past the limit; 400: not gzip.
        var status: Int
    }

    static func gunzip(_ body: [UInt8], max: Int) -> Result<[UInt8], Refusal> {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let result = body.withUnsafeBufferPointer {
            prefs_http_gunzip($0.baseAddress, $0.count, max, &output, &length)
        }
        defer { prefs_http_free(output) }
        switch result {
        case 0:
            return .success(
                output.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? [])
        case 1: return .failure(Refusal(status: 413))
        default: return .failure(Refusal(status: 400))
        }
    }

    static func gzip(_ body: [UInt8]) -> [UInt8]? {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let result = body.withUnsafeBufferPointer {
            prefs_http_gzip($0.baseAddress, $0.count, &output, &length)
        }
        defer { prefs_http_free(output) }
        guard result == 0, let output else { return nil }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }
}

func format3(_ value: Double) -> String {
    let scaled = Int((value * 10).rounded())
    return "\(scaled / 10).\(scaled % 10)"
}

enum MessageTextLike {
    /// Control characters and bytes past 200 are not printed as they are.
    static func shown(_ text: String) -> String {
        let cut = text.unicodeScalars.prefix(200).map { scalar -> String in
            scalar.properties.generalCategory == .control || scalar == " "
                ? "%" + String(scalar.value, radix: 16) : String(scalar)
        }.joined()
        return text.unicodeScalars.count > 200 ? cut + "..." : cut
    }
}

enum ISO8601Like {
    static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        _ = gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}

func serve(_ arguments: ArraySlice<String>) -> Never {
    let parsed = Arguments(arguments, switches: [])
    let listen =
        parsed.flags["listen"] ?? ProcessInfo.processInfo.environment["PREFS_SERVER_LISTEN"]
        ?? "127.0.0.1:8080"
    guard let colon = listen.lastIndex(of: ":"),
        let port = UInt16(listen[listen.index(after: colon)...])
    else {
        fail("--listen takes ADDRESS:PORT, not '\(listen)'", Exit.usage)
    }
    var address = String(listen[..<colon])
    if address.hasPrefix("["), address.hasSuffix("]") {
        address = String(address.dropFirst().dropLast())
    }
    var configuration = SyncService.Configuration(hub: parsed.hub)
    configuration.poolSize = parsed.number("pool-size", default: 8, in: 1...1000)
    configuration.maxBodyBytes = parsed.number("max-body", default: 16 << 20, in: 1024...(1 << 30))
    configuration.maxChanges = parsed.number("max-changes", default: 100_000, in: 1...10_000_000)
    configuration.notificationHub =
        parsed.flags["listen-hub"] ?? ProcessInfo.processInfo.environment["PREFS_LISTEN_DB"]
    let connectionLimit = parsed.number("connection-limit", default: 1024, in: 1...100_000)
    let timeout = parsed.number("timeout", default: 30, in: 1...3600)
    let service: SyncService
    do {
        service = try SyncService(configuration)
        try service.prepare()
    } catch {
        let (message, code) = exitCode(for: error)
        fail(message, code)
    }
    let server = Server(service: service)
    let context = Unmanaged.passRetained(server).toOpaque()
    let handler: prefs_http_handler = { context, request in
        guard let context, let request else { return }
        Unmanaged<Server>.fromOpaque(context).takeUnretainedValue().handle(request)
    }
    // Room for a header of the protocol's limit and more; longer ones are refused by the
    // service with a JSON answer.
    let headerMemory = configuration.maxHeaderBytes * 2 + (64 << 10)
    guard
        let daemon = prefs_http_start(
            address, port, UInt32(connectionLimit), UInt32(timeout), configuration.maxBodyBytes,
            headerMemory, handler, context)
    else {
        fail("cannot listen on \(listen): \(String(cString: strerror(errno)))", Exit.unavailable)
    }
    let bound = prefs_http_port(daemon)
    if let file = parsed.flags["port-file"] {
        let text = "\(bound)\n"
        guard FileManager.default.createFile(atPath: file, contents: Data(text.utf8)) else {
            fail("cannot write the port to \(file)", Exit.software)
        }
    }
    FileHandleLike.standardError("prefs-server: listening on \(address):\(bound)\n")
    // SIGTERM and SIGINT: no new connections; those open finish (10 s at most); then stop.
    signal(SIGTERM, SIG_IGN)
    signal(SIGINT, SIG_IGN)
    let stopping = DispatchSemaphore(value: 0)
    let sources = [SIGTERM, SIGINT].map { number -> any DispatchSourceSignal in
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { stopping.signal() }
        source.resume()
        return source
    }
    stopping.wait()
    prefs_http_quiesce(daemon)
    // Long polls answer now (with the position they have), so that the requests in flight
    // finish well within the 10 s.
    service.finishLongPolls()
    FileHandleLike.standardError("prefs-server: stopping; finishing the requests in flight\n")
    let deadline = ContinuousClock.now + .seconds(10)
    while prefs_http_connections(daemon) > 0, ContinuousClock.now < deadline {
        usleep(20_000)
    }
    prefs_http_stop(daemon)
    withExtendedLifetime(sources) {}
    FileHandleLike.standardError("prefs-server: stopped\n")
    exit(0)
}

var arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "token":
    tokenCommand(arguments.dropFirst())
case "serve":
    serve(arguments.dropFirst())
case let word? where !word.hasPrefix("-"):
    fail("unknown command '\(word)'\n" + usage, Exit.usage)
default:
    serve(arguments)
}
