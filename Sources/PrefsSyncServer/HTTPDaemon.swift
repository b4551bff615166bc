internal import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// GNU libmicrohttpd serving a ``Router``: a few threads wait on every socket (epoll); each
/// request (its body gathered by the C part, Sources/CMicroHTTPD) is copied out, its
/// connection suspended, and the router runs on a worker thread (``RequestWorkers``); its
/// answer resumes the connection. A parked answer (a long poll waiting) holds no thread
/// at all until it is given.
package final class HTTPDaemon: @unchecked Sendable {
    /// Why it could not start.
    package struct StartFailure: Error, CustomStringConvertible {
        package var description: String
    }

    /// What the daemon's limits are.
    package struct Limits: Sendable {
        package var connections = 1024
        /// Seconds a connection may stay silent before it is closed.
        package var timeoutSeconds = 30
        /// Seconds a request has to send all its headers, however slowly its bytes come
        /// (a connection kept alive: from the end of its previous request).
        package var headerSeconds = 10
        package var maxBodyBytes = 16 << 20
        /// Memory for one connection's headers.
        package var headerMemory = 192 << 10
        /// Threads that wait on the sockets (none of them runs a request).
        package var ioThreads = 2

        package init() {}
    }

    private let router: Router
    private let workers: RequestWorkers
    private var daemon: OpaquePointer?
    /// The context the C callback gets: this object, kept alive until ``stop()``.
    private var context: Unmanaged<HTTPDaemon>?

    /// Listens on `address` (IPv4 or IPv6 text, brackets allowed) and `port` (0: any free);
    /// the requests run on `workers`.
    package init(
        router: Router, workers: RequestWorkers, address: String,
        port: UInt16, limits: Limits
    ) throws {
        self.router = router
        self.workers = workers
        var host = address
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let context = Unmanaged.passRetained(self)
        let handler: prefs_http_handler = { context, request in
            guard let context, let request else { return }
            Unmanaged<HTTPDaemon>.fromOpaque(context).takeUnretainedValue().handle(request)
        }
        guard
            let daemon = prefs_http_start(
                host, port, UInt32(limits.connections), UInt32(limits.timeoutSeconds),
                UInt32(limits.headerSeconds), limits.maxBodyBytes, limits.headerMemory,
                UInt32(max(1, limits.ioThreads)), handler, context.toOpaque())
        else {
            context.release()
            // libmicrohttpd sets errno for what the system refused only.
            let reason =
                [EADDRINUSE, EACCES, EADDRNOTAVAIL, EMFILE, ENFILE, EINVAL].contains(errno)
                ? String(cString: strerror(errno)) : "libmicrohttpd could not start"
            throw StartFailure(description: "cannot listen on \(address):\(port): \(reason)")
        }
        self.daemon = daemon
        self.context = context
    }

    /// The port it listens on (after port 0: the one the system gave).
    package var port: UInt16 { daemon.map { prefs_http_port($0) } ?? 0 }

    /// Stops taking connections; those open go on.
    package func quiesce() {
        if let daemon { prefs_http_quiesce(daemon) }
    }

    /// How many connections are open.
    package var openConnections: Int { daemon.map { Int(prefs_http_connections($0)) } ?? 0 }

    /// How many requests are being answered or wait (long polls among them).
    package var requestsInProgress: Int { daemon.map { Int(prefs_http_suspended($0)) } ?? 0 }

    /// Closes every connection and stops.
    package func stop() {
        guard let daemon else { return }
        prefs_http_stop(daemon)
        self.daemon = nil
        context?.release()
        context = nil
    }

    /// Takes a request on a polling thread: copies it, and answers it from a worker.
    private func handle(_ raw: UnsafePointer<prefs_http_request>) {
        let request = raw.pointee
        let connection = request.connection
        let headers = Self.values(connection, headers: true)
        let query = Self.values(connection, headers: false)
        var parsed = HTTPRequest(
            method: String(cString: request.method), path: String(cString: request.url),
            query: { query[$0] }, header: { headers[HTTPRequest.headerKey($0)] },
            body: request.body.map {
                Array(UnsafeBufferPointer(start: $0, count: request.body_length))
            } ?? [])
        parsed.isBodyTooLarge = request.body_too_large != 0
        parsed.largestHeader = request.largest_header
        parsed.peer = request.peer.map { String(cString: $0) }
        parsed.isHeadersOnly = request.headers_only != 0
        parsed.isBadlyFramed = request.badly_framed != 0
        parsed.verifiedAccount = request.note.map { String(cString: $0) }
        let ticket = Ticket(request.ticket)
        let sent = SendableRequest(parsed)
        workers.submit { [router] in
            let request = sent.request
            let response = router.respond(to: request)
            if request.isHeadersOnly, response.status == HTTPResponse.proceed.status,
                response.parked == nil
            {
                prefs_http_answer(ticket.pointer, 100, nil, response.account)
                return
            }
            let closing = request.isBadlyFramed
            guard let parked = response.parked else {
                Self.send(response, to: ticket, closing: closing)
                return
            }
            parked.whenAnswered { Self.send($0, to: ticket, closing: closing) }
        }
    }

    /// Sends a whole answer; `closing`: nothing after this request is read as another.
    private static func send(_ response: HTTPResponse, to ticket: Ticket, closing: Bool) {
        let answer = response.body.withUnsafeBytes { bytes in
            prefs_http_response(response.contentType, bytes.baseAddress, bytes.count)
        }
        for (name, value) in response.headers {
            _ = answer.map { prefs_http_response_header($0, name, value) }
        }
        if closing, let answer { _ = prefs_http_response_header(answer, "Connection", "close") }
        // No memory for the answer: the connection is closed instead (a NULL response
        // after a whole request is libmicrohttpd's 500, from the C part).
        prefs_http_answer(ticket.pointer, UInt32(response.status), answer, nil)
    }

    /// A request's headers (names in lower case; the first of a name told twice) or query.
    private static func values(_ connection: OpaquePointer?, headers: Bool) -> [String: String] {
        var pairs = [UnsafePointer<CChar>?](repeating: nil, count: 64)
        var count = prefs_http_values(connection, headers ? 1 : 0, &pairs, 32)
        if count > 32 {
            pairs = [UnsafePointer<CChar>?](repeating: nil, count: 2 * count)
            count = min(count, prefs_http_values(connection, headers ? 1 : 0, &pairs, count))
        }
        var values: [String: String] = [:]
        for index in 0..<count {
            guard let key = pairs[2 * index], let value = pairs[2 * index + 1] else { continue }
            let name = String(cString: key)
            let keyed = headers ? HTTPRequest.headerKey(name) : name
            if values[keyed] == nil { values[keyed] = String(cString: value) }
        }
        return values
    }
}

/// A question of the C part, answered once from a worker thread.
private struct Ticket: @unchecked Sendable {
    let pointer: OpaquePointer?
    init(_ pointer: OpaquePointer?) { self.pointer = pointer }
}

/// A request copied out of the C part (its closures read copies only), for a worker.
private struct SendableRequest: @unchecked Sendable {
    let request: HTTPRequest
    init(_ request: HTTPRequest) { self.request = request }
}
